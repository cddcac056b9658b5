/**
 * The checks made before anything is sent, derived from the field rows in fields.ts. A request
 * that breaks one never leaves n8n; the error names the field, the rule and (unless secret) the value.
 */
import { ValidationError } from '../errors';
import { maskAccount } from '../redaction';
import { settleSync } from '../flow/settle';
import {
	BENEFICIARY_LIST_FIELDS,
	NUMBER_OPTIONS,
	QUOTA_METHOD_CHOICES,
	QUOTA_SUBJECT_FIELDS,
	MASKED_FIELDS,
	SECRET_FIELDS,
	values,
	type FieldRule,
	type NumberRange,
} from './fields';

export interface BeneficiaryListRequest {
	[filter: string]: string | string[] | number | undefined;
	accessToken?: string;
	pageSize: number;
	pageNumber: number;
}

export interface QuotaRequest {
	quotaAccumulationMethod: string;
	quotaAccumulationId: string;
	currency: string;
	tradeType?: string;
}

/** A value as it appears in a message: JSON where it can be, never a crash (BigInt). */
function display(value: unknown): string {
	if (typeof value === 'bigint') return `${value}n`;
	const json = settleSync(() => JSON.stringify(value));
	return json.ok && json.value !== undefined ? json.value : String(value);
}

/** A field's value as it appears in a message: hidden for a secret field, masked for bank details. */
export function shown(field: string, value: unknown): string {
	if (SECRET_FIELDS.has(field)) return '(value hidden)';
	if (MASKED_FIELDS.has(field) && value !== undefined && value !== null && typeof value !== 'object') {
		return JSON.stringify(maskAccount(String(value)));
	}
	return display(value);
}

/** Characters as the API counts them: Unicode code points, not UTF-16 units. */
function length(text: string): number {
	return Array.from(text).length;
}

function checkText(rule: FieldRule, value: unknown): void {
	const field = rule.name;
	if (typeof value !== 'string') {
		throw new ValidationError(field, 'string', `${field} must be text, got ${typeof value}`);
	}
	const max = rule.maxLength;
	if (max !== undefined && length(value) > max) {
		throw new ValidationError(
			field,
			`max ${max} characters`,
			`${field} is ${length(value)} characters long; the API accepts at most ${max}${rule.secret ? '' : ` (value ${shown(field, value)})`}`,
		);
	}
	if (rule.pattern && !rule.pattern.regex.test(value)) {
		throw new ValidationError(
			field,
			`pattern ${rule.pattern.regex.source}`,
			`${field} ${shown(field, value)} does not match the pattern ${rule.pattern.text}`,
		);
	}
}

/** The values a message lists: all of a short list; of a long one (the currencies), what it is. */
const allowedText = (allowed: readonly string[]) =>
	allowed.length <= 12 ? allowed.join(', ') : `${allowed.length} currency codes (ISO 4217 and CNH, such as USD, EUR)`;

function checkChoice(field: string, value: unknown, allowed: readonly string[]): void {
	if (typeof value !== 'string' || !allowed.includes(value)) {
		const text = allowedText(allowed);
		throw new ValidationError(field, `one of ${text}`, `${field} ${shown(field, value)} is not one of ${text}`);
	}
}

function checkChoices(field: string, value: unknown, allowed: readonly string[]): void {
	if (!Array.isArray(value)) {
		throw new ValidationError(field, 'list', `${field} must be a list of ${allowed.join(', ')}`);
	}
	for (const item of value) {
		if (typeof item !== 'string' || !allowed.includes(item)) {
			throw new ValidationError(
				field,
				`each one of ${allowed.join(', ')}`,
				`${field} contains ${shown(field, item)}, which is not one of ${allowed.join(', ')}`,
			);
		}
	}
	if (new Set(value).size !== value.length) {
		throw new ValidationError(field, 'no duplicates', `${field} lists a value twice: ${display(value)}`);
	}
}

/** Checks one value against its row; undefined means "not set", which every optional field allows. */
export function checkFieldValue(rule: FieldRule, value: unknown): void {
	if (value === undefined) return;
	if (rule.kind === 'text') checkText(rule, value);
	else if (rule.kind === 'choice') checkChoice(rule.name, value, values(rule.choices ?? []));
	else checkChoices(rule.name, value, values(rule.choices ?? []));
}

/** A whole number within `range`, or a ValidationError naming the field (as `label` in the message) and the range. */
export function checkWholeNumber(
	field: string,
	value: unknown,
	range: Pick<NumberRange, 'min' | 'max'>,
	label = field,
): number {
	const { min, max } = range;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
		const text = max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
		throw new ValidationError(field, text, `${label} must be ${text}, got ${display(value)}`);
	}
	return value;
}

/**
 * A whole-number option as given (a number, or the text an expression produced), checked
 * against its bounds in NUMBER_OPTIONS, whatever its source: never "no timeout" or "no limit" by
 * accident. Unset is the default.
 */
export function readWholeNumber(name: keyof typeof NUMBER_OPTIONS, value: unknown, label: string): number {
	const range: NumberRange = NUMBER_OPTIONS[name];
	if (value === undefined) return range.default;
	const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
	return checkWholeNumber(name, number, range, label);
}

export function validateBeneficiaryListRequest(request: BeneficiaryListRequest): void {
	for (const rule of BENEFICIARY_LIST_FIELDS) checkFieldValue(rule, request[rule.name]);
	checkWholeNumber('pageSize', request.pageSize, NUMBER_OPTIONS.pageSize);
	checkWholeNumber('pageNumber', request.pageNumber, { min: 1 });
}

/** Checks a quota request against the quota subject's rows (fields.ts), in their order. */
export function validateQuotaRequest(request: QuotaRequest): void {
	const body = request as unknown as Readonly<Record<string, unknown>>;
	const method = QUOTA_METHOD_CHOICES.find((choice) => choice.value === body.quotaAccumulationMethod);
	for (const rule of QUOTA_SUBJECT_FIELDS) {
		const value = body[rule.name];
		const choices = values(rule.choices ?? []);
		const only = rule.onlyWith;
		if (only && body[only.field] !== only.value) {
			if (value === undefined) continue;
			throw new ValidationError(
				rule.name,
				`only for ${only.value}`,
				`${rule.name} is sent only when ${only.field} is ${only.value}, not ${display(body[only.field])}`,
			);
		}
		if (rule.pattern && (typeof value !== 'string' || !rule.pattern.regex.test(value))) {
			throw new ValidationError(
				rule.name,
				rule.pattern.text,
				`${rule.name} ${display(value)} is not ${rule.pattern.text}`,
			);
		}
		const blank = value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
		if (blank || (rule.kind === 'text' && typeof value !== 'string')) {
			const what = only
				? `${rule.name} (${choices.join(' or ')}) is required when ${only.field} is ${only.value}`
				: `${rule.name} is required: ${choices.length ? `one of ${allowedText(choices)}` : `the ${method?.subject ?? 'ID'} whose quota to read`}`;
			throw new ValidationError(rule.name, only ? `required for ${only.value}` : 'required', what);
		}
		if (rule.kind === 'choice') checkChoice(rule.name, value, choices);
	}
}

/** A filter left unset: absent, null, empty text or an empty list (it does not narrow the result). */
export const isUnset = (value: unknown): boolean =>
	value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** The request body with unset filters left out (an omitted filter does not narrow the result). */
export function compactBody<T extends object>(body: T): Partial<T> {
	// Object.fromEntries defines own properties, so even a "__proto__" key stays a plain field.
	return Object.fromEntries(Object.entries(body).filter(([, value]) => !isUnset(value))) as Partial<T>;
}
