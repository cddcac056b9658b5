import { ValidationError } from './errors';
import { attempt } from './settle';

/** Spec sections 2.3, 2.5 and 8: every rule, checked before anything is sent. */
export const SUPPORTED_CURRENCIES = [
	'USD',
	'EUR',
	'GBP',
	'NZD',
	'CAD',
	'AUD',
	'JPY',
	'SGD',
	'HKD',
	'CNH',
	'CNY',
	'KRW',
] as const;
export const ASSET_TYPES = ['BANK_ACCOUNT', 'WALLET_ACCOUNT'] as const;
export const RELATION_FILTERS = ['SAME_NAME', 'THIRD_PARTY'] as const;
export const QUOTA_METHODS = ['USER_ID', 'RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT', 'BENEFICIARY'] as const;
export const TRADE_TYPES = ['GOODS', 'SERVICE'] as const;
export const MAX_PAGE_SIZE = 50;

export interface BeneficiaryFilters {
	beneficiaryToken?: string;
	beneficiaryNick?: string;
	referenceBeneficiaryId?: string;
	bankAccountNo?: string;
	bankAccountIBAN?: string;
	currencyList?: string[];
	assetType?: string;
	relationFilter?: string[];
	accountName?: string;
}

export interface BeneficiaryListRequest extends BeneficiaryFilters {
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

/** Fields whose values must never be echoed in an error. */
const SECRET_FIELDS = new Set(['accessToken', 'beneficiaryToken']);

const LIMITS: Record<string, number> = {
	accessToken: 64,
	beneficiaryToken: 128,
	beneficiaryNick: 70,
	referenceBeneficiaryId: 64,
	bankAccountNo: 64,
	bankAccountIBAN: 34,
};

const PATTERNS: Record<string, RegExp> = {
	bankAccountNo: /^[A-Z0-9]{0,34}$/,
	bankAccountIBAN: /^[A-Z]{2,2}[0-9]{2,2}[a-zA-Z0-9]{1,30}$/,
};

const PATTERN_TEXT: Record<string, string> = {
	bankAccountNo: '^[A-Z0-9]{0,34}$ (upper-case letters and digits, at most 34)',
	bankAccountIBAN:
		'^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$ (country code, check digits, then up to 30 letters or digits; no spaces)',
};

/** A value as it appears in a message: JSON where it can be, never a secret, never a crash (BigInt). */
function display(value: unknown): string {
	if (typeof value === 'bigint') return `${value}n`;
	const json = attempt(() => JSON.stringify(value));
	return json.ok && json.value !== undefined ? json.value : String(value);
}

function shown(field: string, value: unknown): string {
	return SECRET_FIELDS.has(field) ? '(value hidden)' : display(value);
}

/** Characters as the spec counts them: Unicode code points, not UTF-16 units. */
function length(text: string): number {
	return Array.from(text).length;
}

function checkString(field: string, value: unknown): void {
	if (value === undefined) return;
	if (typeof value !== 'string') {
		throw new ValidationError(field, 'string', `${field} must be text, got ${typeof value}`);
	}
	const max = LIMITS[field];
	if (max !== undefined && length(value) > max) {
		throw new ValidationError(
			field,
			`max ${max} characters`,
			`${field} is ${length(value)} characters long; the API accepts at most ${max}${SECRET_FIELDS.has(field) ? '' : ` (value ${shown(field, value)})`}`,
		);
	}
	const pattern = PATTERNS[field];
	if (pattern && !pattern.test(value)) {
		throw new ValidationError(
			field,
			`pattern ${pattern.source}`,
			`${field} ${shown(field, value)} does not match the pattern ${PATTERN_TEXT[field]}`,
		);
	}
}

function checkEnum(field: string, value: unknown, allowed: readonly string[]): void {
	if (value === undefined) return;
	if (typeof value !== 'string' || !allowed.includes(value)) {
		throw new ValidationError(
			field,
			`one of ${allowed.join(', ')}`,
			`${field} ${shown(field, value)} is not one of ${allowed.join(', ')}`,
		);
	}
}

function checkEnumList(field: string, value: unknown, allowed: readonly string[]): void {
	if (value === undefined) return;
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

function checkInteger(field: string, value: unknown, min: number, max?: number): void {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
		const range = max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
		throw new ValidationError(field, range, `${field} must be ${range}, got ${display(value)}`);
	}
}

export function validateBeneficiaryListRequest(request: BeneficiaryListRequest): void {
	for (const field of [
		'accessToken',
		'beneficiaryToken',
		'beneficiaryNick',
		'referenceBeneficiaryId',
		'bankAccountNo',
		'bankAccountIBAN',
		'accountName',
	]) {
		checkString(field, request[field as keyof BeneficiaryListRequest]);
	}
	checkEnumList('currencyList', request.currencyList, SUPPORTED_CURRENCIES);
	checkEnum('assetType', request.assetType, ASSET_TYPES);
	checkEnumList('relationFilter', request.relationFilter, RELATION_FILTERS);
	checkInteger('pageSize', request.pageSize, 1, MAX_PAGE_SIZE);
	checkInteger('pageNumber', request.pageNumber, 1);
}

/** The access token (a header for the quota, a body field for the list): spec 2.3 and 8, max 64. */
export function validateAccessToken(value: string | undefined): void {
	checkString('accessToken', value);
}

export function validateQuotaRequest(request: QuotaRequest): void {
	if (request.quotaAccumulationMethod === undefined) {
		throw new ValidationError(
			'quotaAccumulationMethod',
			'required',
			`quotaAccumulationMethod is required: one of ${QUOTA_METHODS.join(', ')}`,
		);
	}
	checkEnum('quotaAccumulationMethod', request.quotaAccumulationMethod, QUOTA_METHODS);
	if (typeof request.quotaAccumulationId !== 'string' || request.quotaAccumulationId.trim() === '') {
		throw new ValidationError(
			'quotaAccumulationId',
			'required',
			`quotaAccumulationId is required: the ${describeSubject(request.quotaAccumulationMethod)} whose quota to read`,
		);
	}
	if (typeof request.currency !== 'string' || !/^[A-Z]{3}$/.test(request.currency)) {
		throw new ValidationError(
			'currency',
			'3-letter ISO 4217 code',
			`currency ${display(request.currency)} is not a 3-letter upper-case ISO 4217 code such as USD`,
		);
	}
	if (request.quotaAccumulationMethod === 'BENEFICIARY') {
		if (request.tradeType === undefined || request.tradeType === '') {
			throw new ValidationError(
				'tradeType',
				'required for BENEFICIARY',
				'tradeType (GOODS or SERVICE) is required when quotaAccumulationMethod is BENEFICIARY',
			);
		}
		checkEnum('tradeType', request.tradeType, TRADE_TYPES);
	} else if (request.tradeType !== undefined) {
		throw new ValidationError(
			'tradeType',
			'only for BENEFICIARY',
			`tradeType is sent only when quotaAccumulationMethod is BENEFICIARY, not ${request.quotaAccumulationMethod}`,
		);
	}
}

function describeSubject(method: string): string {
	switch (method) {
		case 'USER_ID':
			return 'service user ID';
		case 'RECEIVING_ACCOUNT':
			return 'receiving account';
		case 'VIRTUAL_ACCOUNT':
			return 'virtual account';
		default:
			return 'beneficiary ID';
	}
}

/** The request body with unset filters left out (spec 4 rule 2: an omitted filter does not narrow). */
export function compactBody<T extends object>(body: T): Partial<T> {
	// Object.fromEntries defines own properties, so even a "__proto__" key stays a plain field.
	return Object.fromEntries(
		Object.entries(body).filter(
			([, value]) =>
				value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0),
		),
	) as Partial<T>;
}
