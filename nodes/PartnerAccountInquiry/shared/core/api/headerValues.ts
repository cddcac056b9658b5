/**
 * Values that travel as HTTP headers (Connected Account ID, the quota's access token, Client ID,
 * Key Version), checked against their field rows. n8n's HTTP stack silently drops control
 * characters and every character above U+00FF from a header value and sends U+0080 to U+00FF as
 * raw bytes, so `客户01` would go out as `01` and be answered for account 01. A value that would be rewritten is
 * refused before anything is sent; the error names the field and the character's position, never
 * a secret's characters.
 */
import { ValidationError } from '../errors';
import type { FieldRule } from './fields';
import { checkFieldValue } from './validation';

/** Printable ASCII, space included: what reaches the gateway unchanged. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function describeCharacter(char: string): string {
	const code = char.codePointAt(0) ?? 0;
	return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Checks a header value that is set (not empty); returns it unchanged. */
export function checkHeaderValue(rule: FieldRule, value: string): string {
	const { name: field, label } = rule;
	if (value !== value.trim()) {
		throw new ValidationError(
			field,
			'no leading or trailing space',
			`${label} starts or ends with white space`,
			`Remove the spaces around the ${label}. Nothing was sent.`,
			'It is sent as an HTTP header, which would not carry them as typed.',
		);
	}
	const characters = Array.from(value);
	const index = characters.findIndex((char) => !PRINTABLE_ASCII.test(char));
	if (index >= 0) {
		const char = characters[index];
		const shown =
			rule.secret || char.charCodeAt(0) < 0x20 ? describeCharacter(char) : `"${char}" (${describeCharacter(char)})`;
		throw new ValidationError(
			field,
			'printable ASCII',
			`${label} has a character an HTTP header cannot carry`,
			`Use the ${label} exactly as the service issued it (letters, digits and ASCII punctuation). Nothing was sent.`,
			`It has ${shown} at position ${index + 1}; a header carries printable ASCII only, and n8n would drop or alter that character.`,
		);
	}
	if (rule.pattern && !rule.pattern.regex.test(value)) {
		throw new ValidationError(
			field,
			rule.pattern.text,
			`${label} has a character it may not hold`,
			`Enter the ${label} as the service shows it. Nothing was sent.`,
			`It may hold only ${rule.pattern.text}${rule.secret ? '' : `; it is ${JSON.stringify(value)}`}.`,
		);
	}
	// The length: the row's rule, checked as for a body field.
	checkFieldValue(rule, value);
	return value;
}
