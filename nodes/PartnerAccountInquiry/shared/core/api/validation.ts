/**
 * The checks made before anything is sent, derived from the field rows in fields.ts. A request
 * that breaks one never leaves n8n; the error names the field, the rule and (unless secret) the value.
 */
import { ValidationError } from '../errors';
import { ISSUES_URL } from '../links';
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
	const { name: field, label } = rule;
	if (typeof value !== 'string') {
		throw new ValidationError(field, 'text', `${label} must be text, got ${typeof value}`);
	}
	const max = rule.maxLength;
	if (max !== undefined && length(value) > max) {
		throw new ValidationError(
			field,
			`max ${max} characters`,
			`${label} is ${length(value)} characters long, more than the API's ${max}`,
			undefined,
			rule.secret ? undefined : `It is ${shown(field, value)}.`,
		);
	}
	if (rule.pattern && !rule.pattern.regex.test(value)) {
		throw new ValidationError(
			field,
			rule.pattern.text,
			`${label} ${shown(field, value)} is not in the form the API accepts`,
			undefined,
			`It must be ${rule.pattern.text}.`,
		);
	}
}

/** The values a message lists: all of a short list; of a long one (the currencies), what it is. */
const allowedText = (allowed: readonly string[]) =>
	allowed.length <= 12 ? allowed.join(', ') : `${allowed.length} currency codes (ISO 4217 and CNH, such as USD, EUR)`;

function checkChoice(rule: Pick<FieldRule, 'name' | 'label'>, value: unknown, allowed: readonly string[]): void {
	if (typeof value !== 'string' || !allowed.includes(value)) {
		const text = allowedText(allowed);
		throw new ValidationError(
			rule.name,
			`one of ${text}`,
			`${rule.label} ${shown(rule.name, value)} is not one of its choices`,
			undefined,
			`It must be one of ${text}.`,
		);
	}
}

function checkChoices(rule: Pick<FieldRule, 'name' | 'label'>, value: unknown, allowed: readonly string[]): void {
	const { name: field, label } = rule;
	const text = allowedText(allowed);
	if (!Array.isArray(value)) {
		throw new ValidationError(
			field,
			'list',
			`${label} must be a list`,
			undefined,
			`Each of its values is one of ${text}.`,
		);
	}
	for (const item of value) {
		if (typeof item !== 'string' || !allowed.includes(item)) {
			throw new ValidationError(
				field,
				`each one of ${allowed.join(', ')}`,
				`${label} has ${shown(field, item)}, which is not one of its choices`,
				undefined,
				`Each of its values must be one of ${text}.`,
			);
		}
	}
	const twice = value.find((item, index) => value.indexOf(item) !== index);
	if (twice !== undefined) {
		throw new ValidationError(field, 'no duplicates', `${label} lists ${shown(field, twice)} twice`);
	}
}

/** Checks one value against its row; undefined means "not set", which every optional field allows. */
export function checkFieldValue(rule: FieldRule, value: unknown): void {
	if (value === undefined) return;
	if (rule.kind === 'text') checkText(rule, value);
	else if (rule.kind === 'choice') checkChoice(rule, value, values(rule.choices ?? []));
	else checkChoices(rule, value, values(rule.choices ?? []));
}

/**
 * A whole number within `range`, or a ValidationError naming the field (as `label` in the message),
 * the range, and the value (in its detail). `hint`: the error's, when not the field's default.
 */
export function checkWholeNumber(
	field: string,
	value: unknown,
	range: Pick<NumberRange, 'min' | 'max'>,
	label = field,
	hint?: string,
): number {
	const { min, max } = range;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
		const text = max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
		throw new ValidationError(field, text, `${label} must be ${text}`, hint, `It is ${display(value)}.`);
	}
	return value;
}

/** The node sets the page size and number itself: one out of range is the node's bug. */
const PAGING_BUG = `The node sets this itself: report it as a bug at ${ISSUES_URL}`;

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
	checkWholeNumber('pageSize', request.pageSize, NUMBER_OPTIONS.pageSize, 'The page size', PAGING_BUG);
	checkWholeNumber('pageNumber', request.pageNumber, { min: 1 }, 'The page number', PAGING_BUG);
}

/** Checks a quota request against the quota subject's rows (fields.ts), in their order. */
export function validateQuotaRequest(request: QuotaRequest): void {
	const body = request as unknown as Readonly<Record<string, unknown>>;
	const method = QUOTA_METHOD_CHOICES.find((choice) => choice.value === body.quotaAccumulationMethod);
	const labelOf = (name: string) => QUOTA_SUBJECT_FIELDS.find((rule) => rule.name === name)?.label ?? name;
	for (const rule of QUOTA_SUBJECT_FIELDS) {
		const value = body[rule.name];
		const choices = values(rule.choices ?? []);
		const only = rule.onlyWith;
		if (only && body[only.field] !== only.value) {
			if (value === undefined) continue;
			throw new ValidationError(
				rule.name,
				`only for ${only.value}`,
				`${rule.label} is only for ${labelOf(only.field)} ${only.value}`,
				undefined,
				`${labelOf(only.field)} is ${display(body[only.field])}.`,
			);
		}
		const blank = value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
		if (blank || (rule.kind === 'text' && typeof value !== 'string')) {
			if (only) {
				throw new ValidationError(
					rule.name,
					`required for ${only.value}`,
					`${rule.label} (${choices.join(' or ')}) is needed for ${labelOf(only.field)} ${only.value}`,
				);
			}
			const enter = choices.length
				? `Enter one of ${allowedText(choices)}.`
				: `Enter the ${method?.subject ?? 'ID'} whose quota to read.`;
			throw new ValidationError(rule.name, 'required', `${rule.label} is empty`, `${enter} Nothing was sent.`);
		}
		if (rule.kind === 'choice') checkChoice(rule, value, choices);
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
