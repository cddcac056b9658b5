/**
 * Typed errors of the framework-free core. Each message says what is wrong; `hint` says what to
 * do about it. No error ever carries key material or an access token.
 */
export abstract class CoreError extends Error {
	abstract readonly kind: string;
	readonly hint: string;

	constructor(message: string, hint: string) {
		super(message);
		this.name = new.target.name;
		this.hint = hint;
	}
}

export type KeyField = 'privateKey' | 'servicePublicKey';

export const KEY_FIELD_LABEL: Record<KeyField, string> = {
	privateKey: 'Private Key',
	servicePublicKey: 'Service Public Key',
};

export class KeyFormatError extends CoreError {
	readonly kind = 'key-format';

	constructor(
		readonly field: KeyField,
		problem: string,
		hint: string,
	) {
		super(`The ${KEY_FIELD_LABEL[field]} in the credential ${problem}`, hint);
	}
}

export type VerificationFailure =
	| 'missing-signature'
	| 'malformed-signature'
	| 'unsupported-algorithm'
	| 'missing-response-time'
	| 'client-id-mismatch'
	| 'signature-mismatch';

export class ResponseVerificationError extends CoreError {
	readonly kind = 'response-verification';

	constructor(
		readonly reason: VerificationFailure,
		message: string,
		hint: string,
	) {
		super(message, hint);
	}
}

export class SignatureHeaderError extends CoreError {
	readonly kind = 'signature-header';
}

export class ValidationError extends CoreError {
	readonly kind = 'validation';

	constructor(
		readonly field: string,
		readonly rule: string,
		message: string,
		hint = 'Correct the parameter and run the node again. Nothing was sent.',
	) {
		super(message, hint);
	}
}
