import fc from 'fast-check';

import {
	ACCESS_TOKEN,
	BENEFICIARY_FILTERS,
	NUMBER_OPTIONS,
	QUOTA_SUBJECT_FIELDS,
	QUOTA_METHOD_CHOICES,
	labelOf,
	values,
} from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { PartnerError, ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import {
	compactBody,
	checkFieldValue,
	validateBeneficiaryListRequest,
	validateQuotaRequest,
	type BeneficiaryListRequest,
	type QuotaRequest,
} from '../../nodes/PartnerAccountInquiry/shared/core/api/validation';

const choicesOf = (name: string) => values(BENEFICIARY_FILTERS.find((rule) => rule.name === name)?.choices ?? []);
const ASSET_TYPES = choicesOf('assetType');
const RELATION_FILTERS = choicesOf('relationFilter');
const QUOTA_METHODS = values(QUOTA_METHOD_CHOICES);
const TRADE_TYPES = values(QUOTA_SUBJECT_FIELDS.find((rule) => rule.name === 'tradeType')?.choices ?? []);
/** The currencies the Currency List filter offers, in its order. */
const SUPPORTED_CURRENCIES = choicesOf('currencyList');
/** The quota's Currency choices: the ISO 4217 codes, plus CNH. */
const QUOTA_CURRENCIES = values(QUOTA_SUBJECT_FIELDS.find((rule) => rule.name === 'currency')?.choices ?? []);

/** How a message names a field: by its label in the editor; the page size and number (the node's own, no parameter) in words. */
const nameInMessage = (field: string): string =>
	(({ pageSize: 'page size', pageNumber: 'page number' }) as Record<string, string>)[field] ?? labelOf(field);

/** Runs `fn`; returns the ValidationError it threw (failing the test on any other throw), or undefined. */
function caught(fn: () => void): ValidationError | undefined {
	let error: unknown;
	try {
		fn();
		return undefined;
	} catch (e) {
		error = e;
	}
	expect(error).toBeInstanceOf(ValidationError);
	const v = error as ValidationError;
	// Every validation error is complete: field, rule, a message naming the field by its label in the editor, a hint.
	expect(v).toBeInstanceOf(PartnerError);
	expect(v.name).toBe('ValidationError');
	expect(typeof v.field).toBe('string');
	expect(v.field.length).toBeGreaterThan(0);
	expect(typeof v.rule).toBe('string');
	expect(v.rule.length).toBeGreaterThan(0);
	expect(v.message).toContain(nameInMessage(v.field));
	// Plain words: never the regex of a pattern; a short line, the values in the detail.
	expect(v.message).not.toMatch(/\^\[|\]\{\d/);
	expect(Array.from(v.message).length).toBeLessThanOrEqual(80);
	expect(v.hint.length).toBeGreaterThan(0);
	return v;
}

/** The error `fn` must throw; fails the test when it returns. */
function rejects(fn: () => void): ValidationError {
	const error = caught(fn);
	if (error === undefined) throw new Error('expected a ValidationError, but the input was accepted');
	return error;
}

const list = (extra: Record<string, unknown> = {}) =>
	({ pageSize: 10, pageNumber: 1, ...extra }) as unknown as BeneficiaryListRequest;
const quota = (extra: Record<string, unknown> = {}) =>
	({
		quotaAccumulationMethod: 'USER_ID',
		quotaAccumulationId: 'user-1',
		currency: 'USD',
		...extra,
	}) as unknown as QuotaRequest;

const checkList = (extra: Record<string, unknown>) => () => validateBeneficiaryListRequest(list(extra));
const checkQuota = (extra: Record<string, unknown>) => () => validateQuotaRequest(quota(extra));

// One character outside the Basic Multilingual Plane: 1 code point, 2 UTF-16 units.
const EMOJI = '\u{1F600}';
const CJK = '\u6C49';

describe('constants (docs/api.md, field limits)', () => {
	it('lists exactly the documented values', () => {
		expect([...SUPPORTED_CURRENCIES].sort()).toEqual([
			'AUD',
			'CAD',
			'CNH',
			'CNY',
			'EUR',
			'GBP',
			'HKD',
			'JPY',
			'KRW',
			'NZD',
			'SGD',
			'USD',
		]);
		expect([...ASSET_TYPES]).toEqual(['BANK_ACCOUNT', 'WALLET_ACCOUNT']);
		expect([...RELATION_FILTERS]).toEqual(['SAME_NAME', 'THIRD_PARTY']);
		expect([...QUOTA_METHODS]).toEqual(['USER_ID', 'RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT', 'BENEFICIARY']);
		expect([...TRADE_TYPES]).toEqual(['GOODS', 'SERVICE']);
		expect(NUMBER_OPTIONS.pageSize).toMatchObject({ max: 50, default: 50 });
	});
});

describe('validateBeneficiaryListRequest (docs/api.md, List beneficiaries)', () => {
	it('accepts the minimal request and a request with every field set to a valid value', () => {
		expect(caught(checkList({}))).toBeUndefined();
		expect(
			caught(
				checkList({
					accessToken: 'a'.repeat(64),
					beneficiaryToken: 'QmFzZTY0Y2lwaGVy'.padEnd(128, '='),
					beneficiaryNick: 'Supplier in Shenzhen',
					referenceBeneficiaryId: 'ref-0001',
					bankAccountNo: '6222021234567890',
					bankAccountIBAN: 'GB82WEST12345698765432',
					currencyList: ['USD', 'EUR'],
					assetType: 'BANK_ACCOUNT',
					relationFilter: ['SAME_NAME', 'THIRD_PARTY'],
					accountName: 'ACME Trading Ltd',
					pageSize: 50,
					pageNumber: 3,
				}),
			),
		).toBeUndefined();
	});

	describe('maximum lengths (at the limit passes, one over fails)', () => {
		const limits: Array<[string, number, string]> = [
			['accessToken', 64, 'a'],
			['beneficiaryToken', 128, 'A'],
			['beneficiaryNick', 70, 'n'],
			['referenceBeneficiaryId', 64, 'r'],
			['bankAccountNo', 64, 'A'],
			['bankAccountIBAN', 34, '1'],
		];

		it.each(limits)('%s: max %i', (field, max, char) => {
			// bankAccountNo's own pattern stops at 34 characters and the IBAN needs its prefix:
			// the length rule is probed with values that satisfy the pattern up to where they can.
			const build = (n: number) => (field === 'bankAccountIBAN' ? 'GB82' + char.repeat(n - 4) : char.repeat(n));
			if (field !== 'bankAccountNo') {
				expect(caught(checkList({ [field]: build(max) }))).toBeUndefined();
			}
			const error = rejects(checkList({ [field]: build(max + 1) }));
			expect(error.field).toBe(field);
			expect(error.rule).toBe(`max ${max} characters`);
			expect(error.message).toBe(`${labelOf(field)} is ${max + 1} characters long, more than the API's ${max}`);
		});

		it('counts Unicode code points, not UTF-16 units: 70 CJK or emoji characters pass, 71 fail', () => {
			for (const ch of [CJK, EMOJI, 'é']) {
				expect(caught(checkList({ beneficiaryNick: ch.repeat(70) }))).toBeUndefined();
				const error = rejects(checkList({ beneficiaryNick: ch.repeat(71) }));
				expect(error.field).toBe('beneficiaryNick');
				expect(error.message).toContain('71 characters long');
			}
			// 35 emoji are 70 UTF-16 units but only 35 characters.
			expect(caught(checkList({ beneficiaryNick: EMOJI.repeat(35) + 'x'.repeat(35) }))).toBeUndefined();
			expect(caught(checkList({ referenceBeneficiaryId: EMOJI.repeat(64) }))).toBeUndefined();
			expect(rejects(checkList({ referenceBeneficiaryId: EMOJI.repeat(65) })).field).toBe('referenceBeneficiaryId');
			expect(caught(checkList({ beneficiaryToken: CJK.repeat(128) }))).toBeUndefined();
			expect(rejects(checkList({ beneficiaryToken: CJK.repeat(129) })).field).toBe('beneficiaryToken');
		});

		it('echoes the over-long value of a non-secret field so the user can find it', () => {
			const nick = 'N'.repeat(71);
			expect(rejects(checkList({ beneficiaryNick: nick })).detail).toBe(`It is "${nick}".`);
		});

		it('puts no limit on accountName (the API gives none) but requires text', () => {
			expect(caught(checkList({ accountName: 'x'.repeat(1000) }))).toBeUndefined();
			const error = rejects(checkList({ accountName: 42 }));
			expect(error.field).toBe('accountName');
			expect(error.rule).toBe('text');
		});
	});

	it.each([
		'accessToken',
		'beneficiaryToken',
		'beneficiaryNick',
		'referenceBeneficiaryId',
		'bankAccountNo',
		'bankAccountIBAN',
		'accountName',
	])('%s must be text when set', (field) => {
		for (const value of [123, true, null, ['a'], { a: 1 }]) {
			const error = rejects(checkList({ [field]: value }));
			expect(error.field).toBe(field);
			expect(error.rule).toBe('text');
			expect(error.message).toContain(`${labelOf(field)} must be text`);
		}
	});

	describe('bankAccountNo pattern ^[A-Z0-9]{0,34}$', () => {
		it.each(['', '0', 'A', '6222021234567890', 'ABC123', 'A'.repeat(34), '9'.repeat(34)])('accepts %p', (value) => {
			expect(caught(checkList({ bankAccountNo: value }))).toBeUndefined();
		});

		it.each([
			['lower-case', 'abc123'],
			['mixed case', 'Abc123'],
			['an inner space', '1234 5678'],
			['a trailing space', '12345678 '],
			['a trailing line feed', '12345678\n'],
			['a hyphen', '1234-5678'],
			['35 characters (within max length, beyond the pattern)', 'A'.repeat(35)],
			['64 characters', '1'.repeat(64)],
			['a full-width digit', '１２３'],
			['a non-ASCII letter', 'ÄBC'],
		])('refuses %s', (_name, value) => {
			const error = rejects(checkList({ bankAccountNo: value }));
			expect(error.field).toBe('bankAccountNo');
			expect(error.rule).toBe('capital letters and digits only, at most 34 of them');
			// A bank account number is shown by its last four characters only (none of a short one).
			const shown = JSON.stringify(value.length > 4 ? `****${value.slice(-4)}` : '****');
			expect(error.message).toBe(`Bank Account Number ${shown} is not in the form the API accepts`);
			expect(error.detail).toBe('It must be capital letters and digits only, at most 34 of them.');
			expect(error.message).not.toContain(JSON.stringify(value));
		});

		it('refuses 65 characters by the length rule first', () => {
			expect(rejects(checkList({ bankAccountNo: '1'.repeat(65) })).rule).toBe('max 64 characters');
		});
	});

	describe('bankAccountIBAN pattern ^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$', () => {
		it.each([
			'GB82WEST12345698765432',
			'DE89370400440532013000',
			'FR1420041010050500013M02606',
			'NL91ABNA0417164300',
			'GB821',
			'GB82west1234', // the pattern allows lower case after the check digits
			'MT84MALT011000012345MTLCAST001S',
			'GB82' + 'A'.repeat(30), // 34 characters
		])('accepts %p', (value) => {
			expect(caught(checkList({ bankAccountIBAN: value }))).toBeUndefined();
		});

		it.each([
			['lower-case country code', 'gb82WEST12345698765432'],
			['one lower-case country letter', 'Gb82WEST12345698765432'],
			['spaces as printed', 'GB82 WEST 1234 5698 7654 32'],
			['a trailing space', 'GB82WEST12345698765432 '],
			['letters as check digits', 'GBAAWEST1234'],
			['a single check digit', 'GB8WEST1234'],
			['nothing after the check digits', 'GB82'],
			['a digit in the country code', 'G182WEST1234'],
			['a hyphen', 'GB82-WEST-1234'],
			['the empty string', ''],
		])('refuses %s', (_name, value) => {
			const error = rejects(checkList({ bankAccountIBAN: value }));
			expect(error.field).toBe('bankAccountIBAN');
			expect(error.rule).toBe('a country code, two check digits, then up to 30 letters or digits, without spaces');
			expect(error.message).toMatch(/^Bank Account IBAN "\*{4}.{0,4}" is not in the form the API accepts$/);
			expect(error.detail).toBe(
				'It must be a country code, two check digits, then up to 30 letters or digits, without spaces.',
			);
			expect(error.message).not.toContain(JSON.stringify(value));
		});

		it('refuses 35 characters by the length rule', () => {
			const error = rejects(checkList({ bankAccountIBAN: 'GB82' + 'A'.repeat(31) }));
			expect(error.field).toBe('bankAccountIBAN');
			expect(error.rule).toBe('max 34 characters');
		});
	});

	describe('currencyList', () => {
		it('accepts each supported currency, all of them together, and the empty list', () => {
			for (const c of SUPPORTED_CURRENCIES) expect(caught(checkList({ currencyList: [c] }))).toBeUndefined();
			expect(caught(checkList({ currencyList: [...SUPPORTED_CURRENCIES] }))).toBeUndefined();
			expect(caught(checkList({ currencyList: [] }))).toBeUndefined();
		});

		it.each([
			['an unsupported ISO code', ['USD', 'CHF']],
			['a lower-case code', ['usd']],
			['a code with a space', ['USD ']],
			['a non-string', [840]],
			['null', [null]],
			['the empty string', ['']],
		])('refuses %s', (_name, value) => {
			const error = rejects(checkList({ currencyList: value }));
			expect(error.field).toBe('currencyList');
			expect(error.rule).toBe(`each one of ${SUPPORTED_CURRENCIES.join(', ')}`);
			expect(error.message).toContain('which is not one of its choices');
			expect(error.detail).toBe(`Each of its values must be one of ${SUPPORTED_CURRENCIES.join(', ')}.`);
		});

		it('names the offending value', () => {
			expect(rejects(checkList({ currencyList: ['USD', 'CHF'] })).message).toContain('"CHF"');
		});

		it('refuses duplicates', () => {
			const error = rejects(checkList({ currencyList: ['USD', 'EUR', 'USD'] }));
			expect(error.field).toBe('currencyList');
			expect(error.rule).toBe('no duplicates');
			expect(error.message).toBe('Currencies lists "USD" twice');
		});

		it('refuses a value that is not a list', () => {
			for (const value of ['USD', 'USD,EUR', { 0: 'USD' }, 5, null]) {
				const error = rejects(checkList({ currencyList: value }));
				expect(error.field).toBe('currencyList');
				expect(error.rule).toBe('list');
			}
		});
	});

	describe('assetType', () => {
		it.each(['BANK_ACCOUNT', 'WALLET_ACCOUNT'])('accepts %s', (value) => {
			expect(caught(checkList({ assetType: value }))).toBeUndefined();
		});

		it.each(['ALIPAY_ACCOUNT', 'bank_account', 'BANK_ACCOUNT ', '', 1, null, ['BANK_ACCOUNT']])(
			'refuses %p',
			(value) => {
				const error = rejects(checkList({ assetType: value }));
				expect(error.field).toBe('assetType');
				expect(error.rule).toBe('one of BANK_ACCOUNT, WALLET_ACCOUNT');
				expect(error.message).toMatch(/^Asset Type .* is not one of its choices$/);
				expect(error.detail).toBe('It must be one of BANK_ACCOUNT, WALLET_ACCOUNT.');
			},
		);
	});

	describe('relationFilter', () => {
		it.each([[['SAME_NAME']], [['THIRD_PARTY']], [['SAME_NAME', 'THIRD_PARTY']], [[]]])('accepts %p', (value) => {
			expect(caught(checkList({ relationFilter: value }))).toBeUndefined();
		});

		it.each([[['OTHER']], [['same_name']], [['SAME_NAME', 2]], [[undefined]]])('refuses %p', (value) => {
			const error = rejects(checkList({ relationFilter: value }));
			expect(error.field).toBe('relationFilter');
			expect(error.rule).toBe('each one of SAME_NAME, THIRD_PARTY');
		});

		it('refuses duplicates and non-lists', () => {
			expect(rejects(checkList({ relationFilter: ['THIRD_PARTY', 'THIRD_PARTY'] })).rule).toBe('no duplicates');
			expect(rejects(checkList({ relationFilter: 'SAME_NAME' })).rule).toBe('list');
		});
	});

	describe('pageSize 1..50', () => {
		it.each([1, 2, 25, 49, 50])('accepts %p', (value) => {
			expect(caught(checkList({ pageSize: value }))).toBeUndefined();
		});

		it.each([0, -1, 51, 100, 2.5, 0.5, '10', NaN, Infinity, null, undefined, true])('refuses %p', (value) => {
			const error = rejects(checkList({ pageSize: value }));
			expect(error.field).toBe('pageSize');
			expect(error.rule).toBe('a whole number from 1 to 50');
			expect(error.message).toBe('The page size must be a whole number from 1 to 50');
			// The node sets it: a bug to report, not a parameter to correct.
			expect(error.hint).toMatch(/report it as a bug at https:\/\/github\.com\/.*\/issues$/);
		});

		it('is required', () => {
			expect(
				rejects(() => validateBeneficiaryListRequest({ pageNumber: 1 } as unknown as BeneficiaryListRequest)).field,
			).toBe('pageSize');
		});
	});

	describe('pageNumber >= 1', () => {
		it.each([1, 2, 1000, 99_999_999])('accepts %p', (value) => {
			expect(caught(checkList({ pageNumber: value }))).toBeUndefined();
		});

		it.each([0, -1, 1.5, '1', NaN, -Infinity, Infinity, null, undefined])('refuses %p', (value) => {
			const error = rejects(checkList({ pageNumber: value }));
			expect(error.field).toBe('pageNumber');
			expect(error.rule).toBe('a whole number of at least 1');
		});

		it('is required', () => {
			expect(
				rejects(() => validateBeneficiaryListRequest({ pageSize: 10 } as unknown as BeneficiaryListRequest)).field,
			).toBe('pageNumber');
		});
	});

	it('ignores fields it does not know (customerId passes through)', () => {
		expect(caught(checkList({ customerId: 'cust-1' }))).toBeUndefined();
	});
});

/** The access token's row: a body field of the listing, a header of the quota call. */
const validateAccessToken = (value: string | undefined) => checkFieldValue(ACCESS_TOKEN, value);

describe('the access token row (docs/api.md, List beneficiaries and Request headers)', () => {
	it('accepts no token, a short token and 64 characters', () => {
		expect(caught(() => validateAccessToken(undefined))).toBeUndefined();
		expect(caught(() => validateAccessToken('tok'))).toBeUndefined();
		expect(caught(() => validateAccessToken('t'.repeat(64)))).toBeUndefined();
		expect(caught(() => validateAccessToken(EMOJI.repeat(64)))).toBeUndefined();
	});

	it('refuses 65 characters', () => {
		const error = rejects(() => validateAccessToken('t'.repeat(65)));
		expect(error.field).toBe('accessToken');
		expect(error.rule).toBe('max 64 characters');
		expect(error.message).toBe("Access Token is 65 characters long, more than the API's 64");
		expect(error.detail).toBeUndefined();
		expect(rejects(() => validateAccessToken(EMOJI.repeat(65))).field).toBe('accessToken');
	});

	it('refuses a value that is not text', () => {
		const error = rejects(() => validateAccessToken(12345 as unknown as string));
		expect(error.rule).toBe('text');
	});

	describe('never shows the token value', () => {
		const SECRET = 'SECRETtok3n-' + 'Zq9'.repeat(20); // 72 characters
		const tokens = [SECRET, SECRET + SECRET, 'x'.repeat(64) + 'LEAKCHECK', CJK.repeat(40) + 'LEAK' + CJK.repeat(40)];

		function expectHidden(error: ValidationError, token: string) {
			const text = `${error.message}\n${error.detail}\n${error.hint}\n${error.rule}\n${error.field}\n${String(error.stack)}\n${JSON.stringify(error)}`;
			expect(text).not.toContain(token);
			// Not even a recognisable piece of it.
			expect(text).not.toContain(token.slice(0, 12));
			expect(text).not.toContain(token.slice(-12));
		}

		it.each(tokens)('in validateAccessToken (%#)', (token) => {
			expectHidden(
				rejects(() => validateAccessToken(token)),
				token,
			);
		});

		it.each(tokens)('in validateBeneficiaryListRequest (%#)', (token) => {
			expectHidden(rejects(checkList({ accessToken: token })), token);
		});

		it('when another field is at fault, the token is not mentioned either', () => {
			const shortOne = tokens[0].slice(0, 40);
			expectHidden(rejects(checkList({ accessToken: shortOne, pageSize: 0 })), shortOne);
			expectHidden(rejects(checkList({ accessToken: shortOne, bankAccountNo: 'bad value' })), shortOne);
		});

		it('for any over-long token (property)', () => {
			fc.assert(
				fc.property(fc.string({ unit: 'grapheme', minLength: 65, maxLength: 200 }), (token) => {
					fc.pre(Array.from(token).length > 64 && token.trim().length >= 12);
					const error = rejects(() => validateAccessToken(token));
					expect(error.message).not.toContain(token);
					expect(error.hint).not.toContain(token);
				}),
				{ numRuns: 300 },
			);
		});
	});
});

describe('validateQuotaRequest (docs/api.md, Available quota)', () => {
	it.each(['USER_ID', 'RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT'])('accepts %s without tradeType', (method) => {
		expect(caught(checkQuota({ quotaAccumulationMethod: method }))).toBeUndefined();
	});

	it.each(['GOODS', 'SERVICE'])('accepts BENEFICIARY with tradeType %s', (tradeType) => {
		expect(caught(checkQuota({ quotaAccumulationMethod: 'BENEFICIARY', tradeType }))).toBeUndefined();
	});

	it.each(['user_id', 'USER', 'BENEFICIARY ', 7])('refuses the method %p', (method) => {
		const error = rejects(checkQuota({ quotaAccumulationMethod: method }));
		expect(error.field).toBe('quotaAccumulationMethod');
		expect(error.rule).toBe(`one of ${QUOTA_METHODS.join(', ')}`);
	});

	it.each(['', '  ', null])('requires the method (%p refused, naming the choices)', (method) => {
		const error = rejects(checkQuota({ quotaAccumulationMethod: method }));
		expect(error.field).toBe('quotaAccumulationMethod');
		expect(error.rule).toBe('required');
		expect(error.message).toBe('Accumulation Method is empty');
		expect(error.hint).toBe(`Enter one of ${QUOTA_METHODS.join(', ')}. Nothing was sent.`);
	});

	// docs/api.md, Available quota: quotaAccumulationMethod is required. The node compacts the body first, so a
	// method that evaluates to '' is dropped and reaches the validator as undefined.
	it('requires quotaAccumulationMethod (a missing method is refused)', () => {
		const request = { quotaAccumulationId: 'user-1', currency: 'USD' } as unknown as QuotaRequest;
		expect(rejects(() => validateQuotaRequest(request)).field).toBe('quotaAccumulationMethod');
	});

	it.each([undefined, '', '   ', '\t\n', 42, null])('requires quotaAccumulationId (%p refused)', (id) => {
		const error = rejects(checkQuota({ quotaAccumulationId: id }));
		expect(error.field).toBe('quotaAccumulationId');
		expect(error.rule).toBe('required');
	});

	it.each([
		['USER_ID', 'service user ID'],
		['RECEIVING_ACCOUNT', 'receiving account'],
		['VIRTUAL_ACCOUNT', 'virtual account'],
		['BENEFICIARY', 'beneficiary ID'],
	])('explains what the accumulation ID is for %s', (method, subject) => {
		const error = rejects(checkQuota({ quotaAccumulationMethod: method, quotaAccumulationId: '' }));
		expect(error.message).toBe('Accumulation ID is empty');
		expect(error.hint).toBe(`Enter the ${subject} whose quota to read. Nothing was sent.`);
	});

	it.each(['USD', 'JPY', 'CHF', 'CNH', 'KRW', 'ZAR', 'XCG'])('accepts the currency %s', (currency) => {
		expect(caught(checkQuota({ currency }))).toBeUndefined();
	});

	it('offers the ISO 4217 codes, and CNH, each once, in alphabetical order; each is accepted', () => {
		expect(QUOTA_CURRENCIES.length).toBeGreaterThan(150);
		expect(QUOTA_CURRENCIES).toEqual([...new Set(QUOTA_CURRENCIES)].sort());
		for (const code of QUOTA_CURRENCIES) {
			expect(code).toMatch(/^[A-Z]{3}$/);
			expect(caught(checkQuota({ currency: code }))).toBeUndefined();
		}
		// The listing's currencies are all quota currencies too.
		for (const code of SUPPORTED_CURRENCIES) expect(QUOTA_CURRENCIES).toContain(code);
	});

	it.each(['usd', 'Usd', 'US', 'USDD', 'US1', ' USD', 'USD ', 'ÄBC', 840, 'XAU', 'ABC', 'EURO'])(
		'refuses the currency %p before sending, naming what it must be',
		(currency) => {
			const error = rejects(checkQuota({ currency }));
			const allowed = `${QUOTA_CURRENCIES.length} currency codes (ISO 4217 and CNH, such as USD, EUR)`;
			expect(error.field).toBe('currency');
			expect(error.rule).toBe(`one of ${allowed}`);
			expect(error.message).toMatch(/^Currency .* is not one of its choices$/);
			expect(error.detail).toBe(`It must be one of ${allowed}.`);
		},
	);

	it.each(['', null, undefined])('requires the currency (%p refused, naming the choices)', (currency) => {
		const error = rejects(checkQuota({ currency }));
		expect(error.field).toBe('currency');
		expect(error.rule).toBe('required');
		expect(error.message).toBe('Currency is empty');
		expect(error.hint).toContain(`Enter one of ${QUOTA_CURRENCIES.length} currency codes (ISO 4217 and CNH`);
	});

	it.each([undefined, '', null])('requires tradeType for BENEFICIARY (%p refused)', (tradeType) => {
		const error = rejects(checkQuota({ quotaAccumulationMethod: 'BENEFICIARY', tradeType }));
		expect(error.field).toBe('tradeType');
		expect(error.rule).toBe('required for BENEFICIARY');
		expect(error.message).toContain('GOODS or SERVICE');
	});

	it.each(['goods', 'GOOD', 'OTHER', 1])('refuses the tradeType %p for BENEFICIARY', (tradeType) => {
		const error = rejects(checkQuota({ quotaAccumulationMethod: 'BENEFICIARY', tradeType }));
		expect(error.field).toBe('tradeType');
		expect(error.rule).toBe('one of GOODS, SERVICE');
	});

	it.each(['USER_ID', 'RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT'])('refuses tradeType for %s', (method) => {
		for (const tradeType of ['GOODS', 'SERVICE', 'junk']) {
			const error = rejects(checkQuota({ quotaAccumulationMethod: method, tradeType }));
			expect(error.field).toBe('tradeType');
			expect(error.rule).toBe('only for BENEFICIARY');
			expect(error.message).toBe('Trade Type is only for Accumulation Method BENEFICIARY');
			expect(error.detail).toBe(`Accumulation Method is "${method}".`);
		}
	});

	it('checks the method before the ID and the ID before the currency', () => {
		expect(rejects(checkQuota({ quotaAccumulationMethod: 'X', quotaAccumulationId: '', currency: 'x' })).field).toBe(
			'quotaAccumulationMethod',
		);
		expect(rejects(checkQuota({ quotaAccumulationId: '', currency: 'x' })).field).toBe('quotaAccumulationId');
	});
});

describe('compactBody (an omitted filter does not narrow)', () => {
	it('drops undefined, null, empty strings and empty lists only', () => {
		const nested = { a: 1 };
		const body = {
			u: undefined,
			n: null,
			e: '',
			l: [],
			zero: 0,
			f: false,
			space: ' ',
			nan: NaN,
			obj: {},
			nested,
			list: ['USD'],
			listOfEmpty: [''],
			text: 'x',
		};
		const out = compactBody(body);
		expect(Object.keys(out).sort()).toEqual(
			['f', 'list', 'listOfEmpty', 'nan', 'nested', 'obj', 'space', 'text', 'zero'].sort(),
		);
		expect(out).toEqual({
			zero: 0,
			f: false,
			space: ' ',
			nan: NaN,
			obj: {},
			nested,
			list: ['USD'],
			listOfEmpty: [''],
			text: 'x',
		});
		expect(out.nested).toBe(nested);
	});

	it('keeps the order of the remaining keys and does not touch its input', () => {
		const body = { pageSize: 10, accessToken: '', pageNumber: 2, currencyList: [], accountName: 'A' };
		const copy = structuredClone(body);
		const out = compactBody(body);
		expect(JSON.stringify(out)).toBe('{"pageSize":10,"pageNumber":2,"accountName":"A"}');
		expect(body).toEqual(copy);
		expect(out).not.toBe(body);
	});

	it('returns an empty object for an empty or all-unset body', () => {
		expect(compactBody({})).toEqual({});
		expect(compactBody({ a: undefined, b: null, c: '', d: [] })).toEqual({});
	});

	it('keeps exactly the keys whose value is set (property)', () => {
		fc.assert(
			// '__proto__' is left out here: see the separate test below.
			fc.property(
				fc.dictionary(
					fc.string().filter((key) => key !== '__proto__'),
					fc.oneof(fc.anything(), fc.constantFrom(undefined, null, '', [])),
				),
				(body) => {
					const out = compactBody(body) as Record<string, unknown>;
					for (const [key, value] of Object.entries(body)) {
						const unset =
							value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
						expect(Object.prototype.hasOwnProperty.call(out, key)).toBe(!unset);
						if (!unset) expect(out[key]).toBe(value);
					}
					expect(Object.keys(out).length).toBeLessThanOrEqual(Object.keys(body).length);
				},
			),
			{ numRuns: 1000 },
		);
	});
});

describe('compactBody with an own "__proto__" key', () => {
	// `out[key] = value` on a plain object would turn an own "__proto__" key of the input into the
	// prototype of the output; compactBody builds its output with Object.fromEntries, which copies it as a field.
	it('copies it as an own field', () => {
		const body = JSON.parse('{"__proto__":{"polluted":true},"pageSize":10}') as Record<string, unknown>;
		const out = compactBody(body) as Record<string, unknown>;
		expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
		expect(out.polluted).toBeUndefined();
	});
});

describe('validators never throw anything but a ValidationError (property)', () => {
	const anyValue = fc.oneof(
		fc.anything(),
		fc.string(),
		fc.string({ unit: 'grapheme', maxLength: 140 }),
		fc.integer(),
		fc.double(),
		fc.array(fc.string()),
	);
	/** Mostly a valid value, sometimes anything at all. */
	const mostly = <T>(valid: fc.Arbitrary<T>) =>
		fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: anyValue, weight: 1 });
	const listRecord = fc.record(
		{
			accessToken: mostly(fc.string({ maxLength: 80 })),
			beneficiaryToken: mostly(fc.string({ maxLength: 140 })),
			beneficiaryNick: mostly(fc.string({ unit: 'grapheme', maxLength: 75 })),
			referenceBeneficiaryId: mostly(fc.string({ maxLength: 70 })),
			bankAccountNo: mostly(fc.stringMatching(/^[A-Z0-9]{0,40}$/)),
			bankAccountIBAN: mostly(fc.stringMatching(/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,32}$/)),
			currencyList: mostly(fc.uniqueArray(fc.constantFrom(...SUPPORTED_CURRENCIES, 'CHF'))),
			assetType: mostly(fc.constantFrom(...ASSET_TYPES)),
			relationFilter: mostly(fc.array(fc.constantFrom(...RELATION_FILTERS, 'X'), { maxLength: 3 })),
			accountName: mostly(fc.string()),
			pageSize: mostly(fc.integer({ min: -5, max: 60 })),
			pageNumber: mostly(fc.integer({ min: -5, max: 10 })),
		},
		{ requiredKeys: [] },
	);
	const quotaRecord = fc.record(
		{
			quotaAccumulationMethod: mostly(fc.constantFrom(...QUOTA_METHODS)),
			quotaAccumulationId: mostly(fc.string()),
			currency: mostly(fc.constantFrom('USD', 'usd', 'EURO')),
			tradeType: mostly(fc.constantFrom(...TRADE_TYPES)),
		},
		{ requiredKeys: [] },
	);
	// Arbitrary top-level objects and strings (a string has no own fields: every field reads as undefined).
	const anyInput = (shaped: fc.Arbitrary<object>) =>
		fc.oneof(shaped, fc.object(), fc.string(), fc.array(fc.anything()));

	/** 'accepted', 'refused' (a complete ValidationError) or the unexpected error itself. */
	function outcome(run: () => void): 'accepted' | 'refused' | unknown {
		try {
			run();
			return 'accepted';
		} catch (error) {
			const complete =
				error instanceof ValidationError &&
				typeof error.rule === 'string' &&
				error.field !== '' &&
				error.message.includes(nameInMessage(error.field));
			return complete ? 'refused' : error;
		}
	}

	it.each([
		[
			'validateBeneficiaryListRequest',
			() => anyInput(listRecord),
			(input: unknown) => validateBeneficiaryListRequest(input as BeneficiaryListRequest),
		],
		[
			'validateQuotaRequest',
			() => anyInput(quotaRecord),
			(input: unknown) => validateQuotaRequest(input as QuotaRequest),
		],
	] as const)('%s (10,000 runs)', (_name, arbitrary, validate) => {
		const seen = { accepted: 0, refused: 0 };
		fc.assert(
			fc.property(arbitrary(), (input) => {
				const result = outcome(() => validate(input));
				if (result !== 'accepted' && result !== 'refused') throw result;
				seen[result]++;
			}),
			{ numRuns: 10_000 },
		);
		// The generators reach both outcomes: the property is not vacuous.
		expect(seen.accepted).toBeGreaterThan(0);
		expect(seen.refused).toBeGreaterThan(0);
	});

	it('an accepted beneficiary list request satisfies every rule (property)', () => {
		fc.assert(
			fc.property(listRecord, (input) => {
				const request = { ...input } as Record<string, unknown>;
				let accepted = true;
				try {
					validateBeneficiaryListRequest(request as unknown as BeneficiaryListRequest);
				} catch {
					accepted = false;
				}
				if (!accepted) return;
				const { pageSize, pageNumber } = request as { pageSize: number; pageNumber: number };
				expect(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 50).toBe(true);
				expect(Number.isInteger(pageNumber) && pageNumber >= 1).toBe(true);
				if (request.bankAccountNo !== undefined) expect(request.bankAccountNo).toMatch(/^[A-Z0-9]{0,34}$/);
				if (request.bankAccountIBAN !== undefined)
					expect(request.bankAccountIBAN).toMatch(/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$/);
				if (request.currencyList !== undefined) {
					const currencies = request.currencyList as string[];
					expect(new Set(currencies).size).toBe(currencies.length);
					for (const c of currencies) expect(SUPPORTED_CURRENCIES).toContain(c);
				}
			}),
			{ numRuns: 2000 },
		);
	});
});

/**
 * JSON.stringify throws a TypeError for a BigInt: the validators show such a value without it
 * (as `10n`), so a BigInt is refused with a ValidationError like any other wrong value.
 */
describe('non-JSON values (BigInt)', () => {
	it('validateBeneficiaryListRequest: pageSize 10n gives a ValidationError', () => {
		expect(rejects(checkList({ pageSize: BigInt(10) })).field).toBe('pageSize');
	});

	it('validateBeneficiaryListRequest: currencyList [1n] gives a ValidationError', () => {
		expect(rejects(checkList({ currencyList: [BigInt(1)] })).field).toBe('currencyList');
	});

	it('validateQuotaRequest: currency 1n gives a ValidationError', () => {
		expect(rejects(checkQuota({ currency: BigInt(1) })).field).toBe('currency');
	});
});
