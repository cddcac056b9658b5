import { maskedValues } from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import {
	ApiResultError,
	maskAccountNumbers,
	redactError,
	TransientError,
} from '../../nodes/PartnerAccountInquiry/shared/core/errors';

describe('account-like runs in text the gateway wrote are masked, our own figures are not', () => {
	it.each([
		['a compact IBAN', 'IBAN GB29NWBK60161331926819 is closed', 'IBAN ****6819 is closed'],
		['an IBAN in groups of four', 'IBAN GB29 NWBK 6016 1331 9268 19 is closed', 'IBAN ****8 19 is closed'],
		['a run of 8 or more digits', 'Account 6222021234567890 frozen', 'Account ****7890 frozen'],
		['digits in hyphenated groups', 'Account 6222-0212-3456 frozen', 'Account ****3456 frozen'],
		['digits in spaced groups', 'Card 6222 0212 3456 7890 frozen', 'Card ****7890 frozen'],
		['a letter prefix', 'No VIRTUAL_ACCOUNT VA12345678', 'No VIRTUAL_ACCOUNT ****5678'],
		['a letter prefix and a hyphen', 'Account ACC-0012345 unknown', 'Account ****2345 unknown'],
	])('%s', (_name, text, masked) => {
		expect(maskAccountNumbers(text)).toBe(masked);
	});

	it.each([
		['a response-time', 'its response-time 2026-01-31T12:00:00+08:00 is 600 s old (2026-01-31T04:10:00.000Z)'],
		['a date and a time', 'Maintenance until 2026-01-31 12:00, code 42'],
		['statuses, seconds, counts', 'HTTP 502 after 30000 ms; tried 4 times; page 3 of 200; 1250000 minor units'],
		['the retry schedule', 'waiting 5, 10, 20, 40, 80, 160 and 320 minutes between attempts'],
		['short IDs', 'User U-1001 and RA-2001, ref 42, ISO 8601, RSA256, SHA-256'],
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
		expect(error.message).toBe(`The API answered ACCOUNT_NOT_EXIST: No ${method} ${masked}; "${masked}" is not an account`);
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
