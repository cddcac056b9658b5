import { maskedValues } from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { ApiResultError, TransientError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { redactError, redactText } from '../../nodes/PartnerAccountInquiry/shared/core/redaction';

/** The shortest piece of a secret no text may keep (redaction.ts). */
const SECRET_PIECE = 8;
/** Account-like runs in a text with no secret and no request values: redactText alone. */
const maskAccountNumbers = (text: string) => redactText(text);

describe('secrets: neither whole nor any piece of SECRET_PIECE characters', () => {
	const PLANTED = 'AT-q7Zk2mWv9xLp4RtB8nCy3HdF6gJs1KeU5aVoTiPwQbXrMlNzEcYuSdGhIjOf0';

	it('a secret as sent, JSON-escaped or URL-encoded', () => {
		const secret = 'tok/"en+=1';
		const text = `a ${secret} b ${JSON.stringify(secret)} c ${encodeURIComponent(secret)}`;
		expect(redactText(text, [secret])).toBe('a [hidden] b "[hidden]" c [hidden]');
	});

	it('the start of a secret cut off at the edge of a quoted text, and its end', () => {
		expect(redactText(`{"accessToken":"${PLANTED.slice(0, 42)}`, [PLANTED])).toBe('{"accessToken":"[hidden]');
		expect(redactText(`…${PLANTED.slice(-20)}","pageSize":50}`, [PLANTED])).toBe('…[hidden]","pageSize":50}');
	});

	it('any run of SECRET_PIECE characters of it; a shorter one is not a piece of the secret', () => {
		expect(SECRET_PIECE).toBe(8);
		const piece = PLANTED.slice(10, 10 + SECRET_PIECE);
		expect(redactText(`x ${piece} y`, [PLANTED])).toBe('x [hidden] y');
		expect(redactText(`x ${piece.slice(1)} y`, [PLANTED])).toBe(`x ${piece.slice(1)} y`);
	});

	it('several secrets, overlapping pieces as one', () => {
		const other = 'dG9rZW46U0VDUkVULUJBTks=';
		const text = `${PLANTED.slice(5, 30)}${other.slice(0, 12)} and ${other}`;
		expect(redactText(text, [PLANTED, other])).toBe('[hidden] and [hidden]');
	});

	it('a text without them as it is', () => {
		expect(redactText('HTTP 400 Bad request', [PLANTED])).toBe('HTTP 400 Bad request');
	});
});

describe('account-like runs in text the gateway wrote are masked, our own figures are not', () => {
	it.each([
		['a compact IBAN', 'IBAN GB29NWBK60161331926819 is closed', 'IBAN ****6819 is closed'],
		['an IBAN in groups of four', 'IBAN GB29 NWBK 6016 1331 9268 19 is closed', 'IBAN ****8 19 is closed'],
		['a run of 8 or more digits', 'Account 6222021234567890 frozen', 'Account ****7890 frozen'],
		['digits in hyphenated groups', 'Account 6222-0212-3456 frozen', 'Account ****3456 frozen'],
		['digits in spaced groups', 'Card 6222 0212 3456 7890 frozen', 'Card ****7890 frozen'],
		['a letter prefix', 'No VIRTUAL_ACCOUNT VA12345678', 'No VIRTUAL_ACCOUNT ****5678'],
		['a letter prefix and a hyphen', 'Account ACC-0012345 unknown', 'Account ****2345 unknown'],
		['a lower-case IBAN', 'linked account de89370400440532013000 is closed', 'linked account ****3000 is closed'],
		['a lower-case IBAN in groups', 'IBAN de89 3704 0044 0532 0130 00', 'IBAN ****0 00'],
		['a mixed-case prefix', 'linked account Acct6222021234567890', 'linked account ****7890'],
		['a five-letter prefix', 'linked account ACCNO6222021234567890', 'linked account ****7890'],
		['a word and a dot before digits', 'acct.00123456 closed', '****3456 closed'],
		['dotted groups', 'Account 6222.0212.3456.7890 frozen', 'Account ****7890 frozen'],
		['underscore groups', 'Account 6222_0212_3456_7890 frozen', 'Account ****7890 frozen'],
		['slashed groups', 'Account 6222/0212/3456/7890 frozen', 'Account ****7890 frozen'],
		['full-width digits', 'Account ６２２２０２１２３４５６７８９０ frozen', 'Account ****7890 frozen'],
		['full-width letters and digits', 'Account ＶＡ１２３４５６７８ frozen', 'Account ****5678 frozen'],
		['other digits', 'Account ٦٢٢٢٠٢١٢٣٤٥٦ frozen', 'Account ****٣٤٥٦ frozen'],
	])('%s', (_name, text, masked) => {
		expect(maskAccountNumbers(text)).toBe(masked);
	});

	it.each([
		['a response-time', 'its response-time 2026-01-31T12:00:00+08:00 is 600 s old (2026-01-31T04:10:00.000Z)'],
		['a date and a time', 'Maintenance until 2026-01-31 12:00, code 42'],
		['statuses, seconds, counts', 'HTTP 502 after 30000 ms; tried 4 times; page 3 of 200; 1250000 minor units'],
		['the retry schedule', 'waiting 5, 10, 20, 40, 80, 160 and 320 minutes between attempts'],
		['short IDs', 'User U-1001 and RA-2001, ref 42, ISO 8601, RSA256, SHA-256'],
		['dates with dots or slashes', 'Closed on 31.01.2026, reopens 2026/02/01 12:00 or 2026.02.02'],
		['an IPv4 address', 'connect ECONNREFUSED 192.168.100.200:443'],
		['an amount', 'Quota 1250000.00 USD left, 99999999.5 EUR used'],
		['result codes', 'REQUEST_TRAFFIC_EXCEED_LIMIT, PARAM_ILLEGAL, ACCOUNT_NOT_EXIST'],
		['a response-time in milliseconds', 'at 12:00:00.000Z, after 30000 ms'],
	])('leaves %s as it is', (_name, text) => {
		expect(maskAccountNumbers(text)).toBe(text);
	});
});

describe("the request's own account values are masked wherever the gateway echoes them, whatever their shape", () => {
	it.each([
		['hyphens', 'RECEIVING_ACCOUNT', '6222-0212-3456'],
		['fewer than 8 digits', 'RECEIVING_ACCOUNT', '1234567'],
		['a letter prefix', 'VIRTUAL_ACCOUNT', 'VA-3001'],
		['letters only at the end', 'VIRTUAL_ACCOUNT', 'RA-JPY'],
	])('%s', (_name, method, id) => {
		const request = { quotaAccumulationMethod: method, quotaAccumulationId: id, currency: 'USD' };
		expect(maskedValues(request)).toEqual([id]);
		const error = new ApiResultError({
			resultStatus: 'F',
			resultCode: 'ACCOUNT_NOT_EXIST',
			resultMessage: `No ${method} ${id}; "${id}" is not an account`,
		});
		redactError(error, [], maskedValues(request));
		const masked = `****${id.slice(-4)}`;
		expect(error.explanation.message).toBe(`No ${method} ${masked}; "${masked}" is not an account`);
		// The gateway's words are the item's resultMessage only: the message says the code and its meaning.
		expect(error.message).toBe('The API answered ACCOUNT_NOT_EXIST: the account does not exist');
		expect(error.itemFields().resultMessage).toBe(`No ${method} ${masked}; "${masked}" is not an account`);
		expect(JSON.stringify(error.itemFields())).not.toContain(id);
	});

	it('echoed in another shape: regrouped, without its hyphens, JSON-escaped', () => {
		const error = new ApiResultError({
			resultStatus: 'F',
			resultCode: 'ACCOUNT_NOT_EXIST',
			resultMessage: 'No 1234 567 / 1234-567 / 1234567; no 6222 0212 3456 / 622202123456 / "6222-0212-3456"',
		});
		redactError(error, [], ['1234567', '6222-0212-3456']);
		expect(error.explanation.message).toBe('No ****4567 / ****4567 / ****4567; no ****3456 / ****3456 / "****3456"');
	});

	it.each([
		['dotted groups', '6222021234567890', 'Account 6222.0212.3456.7890 is frozen', 'Account ****7890 is frozen'],
		['slashes', '6222021234567890', 'Account 6222/0212/3456/7890 is frozen', 'Account ****7890 is frozen'],
		['lower case', 'VA20240001', 'Account va20240001 is frozen', 'Account ****0001 is frozen'],
		['lower case, few digits', 'VA-0099', 'virtual account va-0099 unknown', 'virtual account ****0099 unknown'],
		['a run of separators', 'VA-0099', 'virtual account va - 00 99 unknown', 'virtual account ****0099 unknown'],
		['a lower-case IBAN', 'GB29NWBK60161331926819', 'No IBAN gb29nwbk60161331926819', 'No IBAN ****6819'],
		['full-width', '1234567', 'No account １２３４５６７', 'No account ****4567'],
	])('echoed in %s', (_name, value, message, shown) => {
		const error = new ApiResultError({ resultStatus: 'F', resultCode: 'PARAM_ILLEGAL', resultMessage: message });
		redactError(error, [], [value]);
		expect(error.explanation.message).toBe(shown);
	});

	it('a user or beneficiary ID is not an account number: it stays as it is', () => {
		expect(maskedValues({ quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001' })).toEqual([]);
		expect(maskedValues({ quotaAccumulationMethod: 'BENEFICIARY', quotaAccumulationId: 'B-4001' })).toEqual([]);
	});

	it("the listing's bank filters come from their rows (masked: true), not from a list in the endpoint", () => {
		const request = { bankAccountNo: 'AB1234567', bankAccountIBAN: 'GB29NWBK60161331926819', accountName: 'ACME 1234' };
		expect(maskedValues(request)).toEqual(['AB1234567', 'GB29NWBK60161331926819']);
	});

	it('a short value is masked where it stands alone, not inside our own figures', () => {
		const error = new TransientError('No answer from the gateway: the request timed out (12345 ms)', 'ETIMEDOUT');
		error.detail = 'account 1234 unknown';
		redactError(error, [], ['1234']);
		expect(error.message).toBe('No answer from the gateway: the request timed out (12345 ms)');
		expect(error.detail).toBe('account **** unknown');
	});
});
