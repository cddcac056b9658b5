/**
 * Whose account a question is about, written one way everywhere: the action node's Customer ID and
 * Connected Account ID, the trigger's rows and lines, the examples' lines, and `whoseAccount` in
 * every item. `own` (any case) is the partner's own account; anything else is a customer's ID,
 * sent as typed. Empty never means `own`: an expression that gave nothing would otherwise answer
 * for the partner's own account an item that asked about a customer.
 */
import { ValidationError } from '../errors';
import { OWN_ACCOUNT, type FieldRule } from './fields';

/** The item field that names whose account an answer is about: `own` or the customer's ID. */
export const WHOSE_ACCOUNT_FIELD = 'whoseAccount';

/** Whose account `value` asks about: `own`, or the customer's ID trimmed. Empty is refused. */
export function readWhoseAccount(rule: Pick<FieldRule, 'name' | 'label'>, value: unknown): string {
	const text = value === undefined || value === null ? '' : String(value).trim();
	if (text === '') {
		throw new ValidationError(
			rule.name,
			'own or an ID',
			`${rule.label} is empty`,
			`Enter own for your own account, or the customer's ID. Nothing was sent.`,
		);
	}
	// A control or format character (a zero-width space pasted with the ID) is not seen in the editor
	// nor in a message: "own" with one would read as own and ask about a customer.
	const hidden = /[\p{Cc}\p{Cf}]/u.exec(text);
	if (hidden) {
		const code = `U+${(hidden[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
		throw new ValidationError(
			rule.name,
			'no invisible character',
			`${rule.label} has an invisible character (${code})`,
			'Type the ID again, without pasting it. Nothing was sent.',
			`It is at position ${Array.from(text).indexOf(hidden[0]) + 1} of ${Array.from(text).length}.`,
		);
	}
	return text.toLowerCase() === OWN_ACCOUNT ? OWN_ACCOUNT : text;
}

/** The customer's ID to send, or undefined for your own account (nothing sent). */
export const customerOf = (whose: string): string | undefined => (whose === OWN_ACCOUNT ? undefined : whose);

/**
 * A credential's access token is a customer's OAuth authorisation: an answer to it is not your own
 * account's, so `own` with it is refused rather than labelled as yours.
 */
export function refuseOwnWithToken(rule: Pick<FieldRule, 'name' | 'label'>, whose: string, accessToken?: string): void {
	if (whose !== OWN_ACCOUNT || !accessToken) return;
	throw new ValidationError(
		rule.name,
		'a customer with an access token',
		`${rule.label} is own, but the credential holds a customer's Access Token`,
		'Enter the ID of the customer whose Access Token the credential holds. Nothing was sent.',
		"An Access Token is one customer's authorisation; for your own account, use a credential without one.",
	);
}
