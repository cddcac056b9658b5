import {
	explainResult,
	RESULT_CODES,
	UNKNOWN_RETRY_SCHEDULE_MINUTES,
} from '../../nodes/PartnerAccountInquiry/shared/core/api/resultCodes';

/** The advice every status U answer carries (docs/api.md: the retry schedule). */
const UNKNOWN_RETRY_ADVICE =
	'The outcome is unknown (status U). You may repeat the call at most 7 times, waiting 5, 10, 20, 40, 80, 160 and 320 minutes between attempts (for example with a Wait node); if no attempt succeeds, contact technical support.';

/** The result codes as the API documents them (both operations) (code, status, a word of its meaning). */
const SPEC_7_1: Array<[string, string, string]> = [
	['SUCCESS', 'S', 'Success'],
	['PROCESS_FAIL', 'F', 'General business failure'],
	['PARAM_ILLEGAL', 'F', 'Illegal parameter'],
	['UNKNOWN_EXCEPTION', 'U', 'unknown reasons'],
	['REQUEST_TRAFFIC_EXCEED_LIMIT', 'U', 'traffic exceeds the limit'],
	['OAUTH_FAIL', 'F', 'OAuth authentication failed'],
	['INVALID_API', 'F', 'invalid or not active'],
	['INVALID_CLIENT', 'F', 'does not exist or is invalid'],
	['INVALID_SIGNATURE', 'F', 'signature is invalid'],
	['METHOD_NOT_SUPPORTED', 'F', 'HTTP method not implemented'],
];
const SPEC_7_2: Array<[string, string, string]> = [
	['UN_SUPPORT_BUSINESS', 'F', 'Unsupported business'],
	['SYSTEM_ERROR', 'F', 'System error'],
	['USER_NOT_EXIST', 'F', 'user does not exist'],
];
const SPEC_7_3: Array<[string, string, string]> = [
	['SUCCESS', 'S', 'Success'],
	['UNKNOWN_EXCEPTION', 'U', 'unknown reasons'],
	['PARAM_ILLEGAL', 'F', 'Illegal parameter'],
	['CONTRACT_CHECK_FAIL', 'F', 'Contract check failed'],
	['ACCOUNT_NOT_EXIST', 'F', 'does not exist'],
];
const ALL = [...SPEC_7_1, ...SPEC_7_2, ...SPEC_7_3];
const SCHEDULE = [5, 10, 20, 40, 80, 160, 320];

describe('RESULT_CODES (docs/api.md, Result codes)', () => {
	describe.each([
		['7.1 system-related codes', SPEC_7_1],
		['7.2 business-related codes', SPEC_7_2],
		['7.3 quota codes', SPEC_7_3],
	])('%s', (_section, codes) => {
		it.each(codes)('%s has status %s', (code, status, meaning) => {
			const info = RESULT_CODES[code];
			expect(info).toBeDefined();
			expect(info.status).toBe(status);
			expect(info.meaning.toLowerCase()).toContain(meaning.toLowerCase());
			expect(info.action.length).toBeGreaterThan(0);
		});
	});

	it('holds exactly the documented codes, no more', () => {
		expect(Object.keys(RESULT_CODES).sort()).toEqual([...new Set(ALL.map(([code]) => code))].sort());
		expect(Object.keys(RESULT_CODES)).toHaveLength(15);
	});

	it('carries the API’s actions that matter for the user', () => {
		expect(RESULT_CODES.METHOD_NOT_SUPPORTED.action).toContain('POST');
		expect(RESULT_CODES.PROCESS_FAIL.action).toMatch(/do not retry/i);
		expect(RESULT_CODES.SYSTEM_ERROR.action).toMatch(/do not retry/i);
		expect(RESULT_CODES.PROCESS_FAIL.action).toMatch(/support/i);
		expect(RESULT_CODES.UNKNOWN_EXCEPTION.action).toMatch(/retry later/i);
		expect(RESULT_CODES.REQUEST_TRAFFIC_EXCEED_LIMIT.action).toMatch(/again/i);
		expect(RESULT_CODES.CONTRACT_CHECK_FAIL.action).toMatch(/contract status/i);
		expect(RESULT_CODES.SUCCESS.action).toBe('None.');
	});

	it('does not share objects between codes', () => {
		const infos = Object.values(RESULT_CODES);
		expect(new Set(infos).size).toBe(infos.length);
	});
});

describe('the retry schedule after U (docs/api.md, Result codes)', () => {
	it('is 7 attempts at 5, 10, 20, 40, 80, 160 and 320 minutes', () => {
		expect([...UNKNOWN_RETRY_SCHEDULE_MINUTES]).toEqual(SCHEDULE);
	});

	it('is stated in the advice', () => {
		expect(UNKNOWN_RETRY_ADVICE).toContain('at most 7 times');
		expect(UNKNOWN_RETRY_ADVICE).toContain('5, 10, 20, 40, 80, 160 and 320 minutes');
		expect(UNKNOWN_RETRY_ADVICE).toMatch(/contact technical support/);
	});
});

describe('explainResult', () => {
	it.each(ALL)('explains %s with its code, meaning and action', (code, status) => {
		const info = RESULT_CODES[code];
		const explanation = explainResult({ resultStatus: status, resultCode: code, resultMessage: 'msg from gateway' });
		expect(explanation.status).toBe(status);
		expect(explanation.code).toBe(code);
		expect(explanation.message).toBe('msg from gateway');
		expect(explanation.description).toContain(code);
		expect(explanation.description).toContain(info.meaning);
		expect(explanation.description).toContain(info.action);
		expect(explanation.description).not.toContain('not a code the API documents');
	});

	it.each(ALL.filter(([, status]) => status === 'U'))('adds the retry advice to %s (status U)', (code) => {
		const { description } = explainResult({ resultStatus: 'U', resultCode: code });
		expect(description).toContain(UNKNOWN_RETRY_ADVICE);
		expect(description).toContain('7');
		for (const minutes of SCHEDULE) expect(description).toMatch(new RegExp(`\\b${minutes}\\b`));
		// The code's own text comes first, the general advice after it.
		expect(description.indexOf(RESULT_CODES[code].meaning)).toBeLessThan(description.indexOf(UNKNOWN_RETRY_ADVICE));
	});

	it.each(ALL.filter(([, status]) => status !== 'U'))('adds no retry advice to %s (status %s)', (code, status) => {
		const { description } = explainResult({ resultStatus: status, resultCode: code });
		expect(description).not.toContain(UNKNOWN_RETRY_ADVICE);
		expect(description).not.toContain('320');
	});

	it('explains an undocumented code with status F as a failure and asks to quote the code', () => {
		const explanation = explainResult({ resultStatus: 'F', resultCode: 'RISK_REJECT', resultMessage: 'risk' });
		expect(explanation.code).toBe('RISK_REJECT');
		expect(explanation.status).toBe('F');
		expect(explanation.description).toContain('RISK_REJECT');
		expect(explanation.description).toContain('not a code the API documents');
		expect(explanation.description).toMatch(/failed/);
		expect(explanation.description).toMatch(/contact support/);
		expect(explanation.description).not.toContain(UNKNOWN_RETRY_ADVICE);
	});

	it('explains an undocumented code with status U and adds the retry advice', () => {
		const { description } = explainResult({ resultStatus: 'U', resultCode: 'GATEWAY_TIMEOUT' });
		expect(description).toContain('GATEWAY_TIMEOUT');
		expect(description).toContain('not a code the API documents');
		expect(description).toContain(UNKNOWN_RETRY_ADVICE);
		for (const minutes of SCHEDULE) expect(description).toContain(String(minutes));
	});

	it('does not call an undocumented code with another status a failure', () => {
		const { description } = explainResult({ resultStatus: 'S', resultCode: 'NEW_SUCCESS_CODE' });
		expect(description).toBe('NEW_SUCCESS_CODE is not a code the API documents.');
	});

	it('uses UNKNOWN for a missing code and empty texts for a missing status and message', () => {
		expect(explainResult({})).toEqual({
			status: '',
			code: 'UNKNOWN',
			message: '',
			description: 'UNKNOWN is not a code the API documents.',
		});
		const u = explainResult({ resultStatus: 'U' });
		expect(u.code).toBe('UNKNOWN');
		expect(u.description).toContain(UNKNOWN_RETRY_ADVICE);
	});

	it('follows the status the gateway sent, not the status the table gives', () => {
		// A documented F code answered with U still carries the U advice.
		const { description } = explainResult({ resultStatus: 'U', resultCode: 'PARAM_ILLEGAL' });
		expect(description).toContain(RESULT_CODES.PARAM_ILLEGAL.action);
		expect(description).toContain(UNKNOWN_RETRY_ADVICE);
	});

	// RESULT_CODES is a plain object: only its own keys are documented codes (explainResult looks a
	// code up with Object.hasOwn), so "constructor" is not explained as "constructor: undefined ...".
	it('does not treat inherited object keys as documented codes', () => {
		for (const code of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
			const explanation = explainResult({ resultStatus: 'F', resultCode: code });
			expect(explanation.code).toBe(code);
			expect(explanation.description).toContain('not a code the API documents');
			expect(explanation.description).not.toContain('undefined');
		}
	});
});
