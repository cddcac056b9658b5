/**
 * The one error family of the package. Every failure the node can report is a PartnerError:
 * `message` says what happened, `hint` says what to do, `itemFields()` is what a Continue On
 * Fail error item carries besides those two, and `isApiError` says whether n8n shows it as an
 * API error (the gateway's result code, an HTTP status, no answer at all: NodeApiError) or as
 * the node's own finding (a parameter, a key, an answer that failed a check:
 * NodeOperationError). The n8n layer maps them in one function (shared/errorMapping.ts).
 *
 * No error ever carries key material or an access token.
 */
import { explainResult, type ApiResult, type ResultExplanation } from './api/resultCodes';
import { RETRY_POLICY } from './flow/retry';

export type ErrorFields = Record<string, string | number | boolean>;

export abstract class PartnerError extends Error {
	/** Shown as n8n's NodeApiError: the gateway's own answer or its absence, not the node's finding. */
	readonly isApiError: boolean = false;
	readonly httpCode?: number;

	constructor(
		message: string,
		/** What to do about it. */
		public hint: string,
	) {
		super(message);
		this.name = new.target.name;
	}

	/** Fields an error item carries besides `error` and `description`. */
	itemFields(): ErrorFields {
		return {};
	}
}

/** A parameter or credential field that breaks a rule; nothing was sent. */
export class ValidationError extends PartnerError {
	constructor(
		readonly field: string,
		readonly rule: string,
		message: string,
		hint = 'Correct the parameter and run the node again. Nothing was sent.',
	) {
		super(message, hint);
	}

	itemFields(): ErrorFields {
		return { field: this.field };
	}
}

export type KeyField = 'privateKey' | 'servicePublicKey';

const KEY_FIELD_LABEL: Record<KeyField, string> = {
	privateKey: 'Private Key',
	servicePublicKey: 'Service Public Key',
};

export class KeyFormatError extends PartnerError {
	constructor(
		readonly field: KeyField,
		problem: string,
		hint: string,
	) {
		super(`The ${KEY_FIELD_LABEL[field]} in the credential ${problem}`, hint);
	}
}

export class SignatureHeaderError extends PartnerError {}

export type VerificationFailure =
	| 'missing-signature'
	| 'malformed-signature'
	| 'unsupported-algorithm'
	| 'missing-response-time'
	| 'unparsable-response-time'
	| 'stale-response'
	| 'client-id-mismatch'
	| 'signature-mismatch'
	| 'replayed-response';

/** Verification failed (docs/api.md, Verifying a response): nothing from the response may be used. */
export class ResponseVerificationError extends PartnerError {
	constructor(
		readonly reason: VerificationFailure,
		message: string,
		hint: string,
	) {
		super(message, hint);
	}
}

/** The API answered with status F or U (docs/api.md, Result codes). */
export class ApiResultError extends PartnerError {
	readonly isApiError = true;
	readonly explanation: ResultExplanation;

	/** `unsigned`: an F or U answer that came without a signature (it carries no data to trust). */
	constructor(
		readonly result: ApiResult,
		readonly unsigned = false,
	) {
		const explanation = explainResult(result);
		if (unsigned) {
			explanation.description +=
				' (The gateway did not sign this failure answer; it carries no data, so it is reported as it came.)';
		}
		super(
			`The API answered ${explanation.code}${explanation.message ? `: ${explanation.message}` : ''}`,
			explanation.description,
		);
		this.explanation = explanation;
	}

	get code(): string {
		return this.explanation.code;
	}

	itemFields(): ErrorFields {
		const { status, code, message } = this.explanation;
		const fields: ErrorFields = { resultStatus: status, resultCode: code, resultMessage: message };
		// A workflow can tell an unsigned failure (nothing in it is verified) from a signed one.
		if (this.unsigned) fields.signed = false;
		return fields;
	}
}

/** The request got no API answer: network error, timeout, HTTP 429 or 5xx. Worth another try. */
export class TransientError extends PartnerError {
	readonly isApiError = true;

	constructor(
		message: string,
		public detail: string,
		readonly httpCode?: number,
	) {
		super(
			message,
			`The request was tried ${RETRY_POLICY.retries + 1} times (${RETRY_POLICY.retries} retries with growing pauses), each freshly signed${httpCode ? '' : ` (network code ${detail})`}. Check the gateway address and your network or proxy, then run the node again.`,
		);
	}
}

/**
 * A failure that retrying will not fix: an answer we cannot use (unexpected HTTP status,
 * malformed JSON, wrong shape, an answer to another question) or a request n8n could not send.
 */
export class RequestError extends PartnerError {
	readonly isApiError = true;

	constructor(
		message: string,
		hint: string,
		readonly httpCode?: number,
	) {
		super(message, hint);
	}
}

/** An answer that verifies but is not about the request that was sent. */
export class ForeignAnswerError extends RequestError {
	constructor(message: string) {
		super(
			message,
			'The gateway answered another question than the one sent (it ignored a filter, or the answer belongs to another request), so nothing from it was used. Run the node again; if it persists, contact support quoting this message.',
		);
	}
}

/** The listing did not add up, or kept changing between reads: nothing is returned rather than a wrong list. */
export class ListingChangedError extends PartnerError {
	constructor(
		readonly detail: string,
		readonly expected: number,
		readonly actual: number,
		hint = 'The list was read a second time and still did not add up, so nothing was returned rather than an incomplete or duplicated list. Run the node again once the beneficiaries stop changing.',
	) {
		super(`The beneficiary list changed while it was being read: ${detail}`, hint);
	}

	/** The same finding, once a confirmed listing has been read `reads` times without two reads agreeing. */
	afterReads(reads: number): ListingChangedError {
		return new ListingChangedError(
			`${this.detail}; it was read ${reads} times and no two reads in a row agreed`,
			this.expected,
			this.actual,
			'Nothing was returned rather than a list that mixes two moments (a beneficiary already gone, one that stayed missing). Run the node again once the beneficiaries stop changing. If a list that may mix two moments is acceptable, turn off Confirm Whole List.',
		);
	}
}

/**
 * A trigger poll whose list could not be read within the time n8n gives a poll (2.x's poll
 * scheduler): it was stopped whole, so nothing was emitted and the saved state did not move.
 */
export class PollBudgetError extends PartnerError {
	constructor(
		readonly totalCount: number | undefined,
		readonly totalPages: number | undefined,
		readonly budgetMs: number,
	) {
		const size =
			totalCount === undefined
				? 'The beneficiary list'
				: `The beneficiary list of ${totalCount} beneficiaries (${totalPages} pages${(totalPages ?? 0) > 1 ? ', each read at least twice to confirm the list is whole' : ''})`;
		super(
			`${size} could not be read within n8n's poll budget of ${budgetMs / 1000} s, so this poll emitted nothing and the saved state did not change`,
			"Narrow the list the trigger watches with its filters (currency, status, asset type), or give n8n's polls more time (N8N_SCHEDULER_POLL_TIMEOUT, which n8n caps by the scheduler's lease). A list this large can also be read by the action node on a Schedule Trigger, which has no poll budget.",
		);
	}
}

/** Rate limited: REQUEST_TRAFFIC_EXCEED_LIMIT or HTTP 429. */
export function isRateLimited(error: unknown): boolean {
	return (
		(error instanceof ApiResultError && error.code === 'REQUEST_TRAFFIC_EXCEED_LIMIT') ||
		(error instanceof TransientError && error.httpCode === 429)
	);
}

/** Network errors, timeouts, HTTP 429 and 5xx, and REQUEST_TRAFFIC_EXCEED_LIMIT: worth another, freshly signed, try. */
export function isTransient(error: unknown): boolean {
	return error instanceof TransientError || isRateLimited(error);
}

/** A bank account number or IBAN as a message shows it: its last four characters ("****6819"). */
export function maskAccount(value: string): string {
	return value.length <= 4 ? '****' : `****${value.slice(-4)}`;
}

/**
 * Account-like runs in text the gateway wrote (a resultMessage, an error page), shown by their
 * last four characters: an IBAN, compact or in groups ("GB29NWBK60161331926819", "GB29 NWBK 6016
 * 1331 9268 19"); an upper-case prefix before 6 or more digits ("VA12345678", "ACC-0012345"); and
 * digits, alone or in groups joined by single hyphens or spaces ("6222021234567890",
 * "6222-0212-3456"), 8 or more in all. A date ("2026-01-31", a response-time) is left as it is, and
 * so are the node's own figures (seconds, statuses, counts: fewer than 8 digits). A value of the
 * request itself (an accumulation ID, a bank filter) is masked whatever its shape (maskValues).
 */
const ACCOUNT_LIKE =
	/(?<![\p{L}\p{N}])(?:[A-Z]{2}\d{2}(?:[A-Za-z0-9]{10,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)|[A-Z]{1,4}[-_]?\d{6,34}|\d+(?:[- ]\d+){0,7})(?![\p{L}\p{N}])/gu;
/** A date, or a date and an hour ("2026-01-31 12" of "2026-01-31 12:00"). */
const DATE = /^\d{4}-\d{2}-\d{2}(?: \d{2})?$/;

function maskAccountLike(run: string): string {
	if (/^\d/.test(run) && (run.replace(/\D/g, '').length < 8 || DATE.test(run))) return run;
	return maskAccount(run);
}

export function maskAccountNumbers(text: string): string {
	return text.replace(ACCOUNT_LIKE, maskAccountLike);
}

/**
 * The error with every secret value of the request removed from its texts, and every account
 * number or IBAN masked: a gateway may echo the
 * request (an unsigned 4xx body, a resultMessage), and such text reaches messages, descriptions,
 * error items and an AI agent's answer. A secret is replaced wherever it appears, as sent or as a
 * JSON string would escape it.
 */
export function redactError(error: unknown, secrets: readonly string[], masked: readonly string[] = []): unknown {
	if (!(error instanceof PartnerError)) return error;
	const redact = (text: string): string => maskAccountNumbers(maskValues(redactSecrets(text, secrets), masked));
	error.message = redact(error.message);
	error.hint = redact(error.hint);
	if (error instanceof ApiResultError) {
		error.explanation.message = redact(error.explanation.message);
		error.explanation.description = redact(error.explanation.description);
	}
	if (error instanceof TransientError) error.detail = redact(error.detail);
	return error;
}

/**
 * Each of `values` (the request's bank details and account numbers) by its last four characters,
 * whatever its shape and however the gateway echoes it: as sent, JSON-escaped, or its letters and
 * digits regrouped ("6222-0212-3456" echoed as "622202123456" or "6222 0212 3456"). Only where it
 * stands alone, not inside a longer word or (hyphenated) number: a short account number "1234"
 * leaves the node's own "12345 ms" as it is, and a longer account it begins is masked as a whole.
 */
function maskValues(text: string, values: readonly string[]): string {
	let out = text;
	for (const value of values) {
		const characters = Array.from(value.replace(/[^\p{L}\p{N}]/gu, ''));
		const forms = [value, JSON.stringify(value).slice(1, -1)].map(escapeRegExp);
		if (characters.length > 0) forms.push(characters.map(escapeRegExp).join('[-\\s]?'));
		const alone = new RegExp(`(?<![\\p{L}\\p{N}]-?)(?:${forms.join('|')})(?!-?[\\p{L}\\p{N}])`, 'gu');
		out = out.replace(alone, () => maskAccount(value));
	}
	return out;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function redactSecrets(text: string, secrets: readonly string[]): string {
	let out = text;
	for (const secret of secrets) {
		if (!secret) continue;
		for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])) {
			out = out.split(form).join('[hidden]');
		}
	}
	return out;
}
