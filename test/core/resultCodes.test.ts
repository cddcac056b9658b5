/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test: reads the README */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	explainResult,
	RESULT_CODES,
	UNKNOWN_RETRY_SCHEDULE_MINUTES,
} from '../../nodes/PartnerAccountInquiry/shared/core/api/resultCodes';
import { ERRORS_DOC } from '../../nodes/PartnerAccountInquiry/shared/core/links';

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

	it("is stated where a status U error's hint links: the README's Errors and what to do", () => {
		expect(ERRORS_DOC).toMatch(/#errors-and-what-to-do$/);
		const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
		const section = readme.slice(readme.indexOf('## Errors and what to do'));
		expect(section).toMatch(/at most 7 times, waiting 5, 10,\s+20, 40, 80, 160 and 320\s+minutes/);
	});
});

describe('explainResult', () => {
	it.each(ALL)('explains %s with its code and meaning once (the title), and its action (the hint)', (code, status) => {
		const info = RESULT_CODES[code];
		const explanation = explainResult({ resultStatus: status, resultCode: code, resultMessage: 'msg from gateway' });
		expect(explanation.status).toBe(status);
		expect(explanation.code).toBe(code);
		expect(explanation.message).toBe('msg from gateway');
		expect(explanation.title).toBe(`The API answered ${code}: ${info.meaning}`);
		expect(explanation.title.length).toBeLessThanOrEqual(80);
		expect(explanation.action).toBe(info.action);
		// The gateway's own words are the error item's resultMessage, in no text.
		expect(`${explanation.title} ${explanation.action} ${explanation.detail ?? ''}`).not.toContain('msg from gateway');
	});

	it.each(ALL.filter(([, status]) => status === 'U'))(
		'%s (status U): outcome unknown, the retry schedule behind the link',
		(code) => {
			const { detail, action } = explainResult({ resultStatus: 'U', resultCode: code });
			expect(detail).toBe('The outcome is unknown (status U).');
			expect(action).toContain(ERRORS_DOC);
			expect(action).toMatch(/later/i);
		},
	);

	it.each(ALL.filter(([, status]) => status !== 'U'))('adds no retry advice to %s (status %s)', (code, status) => {
		const { detail, action } = explainResult({ resultStatus: status, resultCode: code });
		expect(detail).toBeUndefined();
		expect(action).not.toContain(ERRORS_DOC);
	});

	it('explains an undocumented code with status F as a failure and asks to quote the code', () => {
		const explanation = explainResult({ resultStatus: 'F', resultCode: 'RISK_REJECT', resultMessage: 'risk' });
		expect(explanation.code).toBe('RISK_REJECT');
		expect(explanation.status).toBe('F');
		expect(explanation.title).toBe('The API answered RISK_REJECT, a code it does not document');
		expect(explanation.action).toBe('Check the parameters, then contact support quoting the code.');
		expect(explanation.detail).toBeUndefined();
	});

	it('explains an undocumented code with status U and links the retry schedule', () => {
		const explanation = explainResult({ resultStatus: 'U', resultCode: 'GATEWAY_TIMEOUT' });
		expect(explanation.title).toContain('GATEWAY_TIMEOUT, a code it does not document');
		expect(explanation.detail).toBe('The outcome is unknown (status U).');
		expect(explanation.action).toContain(ERRORS_DOC);
	});

	it('does not call an undocumented code with another status a failure', () => {
		const { action } = explainResult({ resultStatus: 'S', resultCode: 'NEW_SUCCESS_CODE' });
		expect(action).toBe('Contact support quoting the code.');
	});

	it('uses UNKNOWN for a missing code and empty texts for a missing status and message', () => {
		expect(explainResult({})).toEqual({
			status: '',
			code: 'UNKNOWN',
			message: '',
			title: 'The API answered UNKNOWN, a code it does not document',
			action: 'Contact support quoting the code.',
			detail: undefined,
		});
		const u = explainResult({ resultStatus: 'U' });
		expect(u.code).toBe('UNKNOWN');
		expect(u.action).toContain(ERRORS_DOC);
	});

	it('follows the status the gateway sent, not the status the table gives', () => {
		// A documented F code answered with U is retried as U.
		const explanation = explainResult({ resultStatus: 'U', resultCode: 'PARAM_ILLEGAL' });
		expect(explanation.title).toBe(`The API answered PARAM_ILLEGAL: ${RESULT_CODES.PARAM_ILLEGAL.meaning}`);
		expect(explanation.detail).toBe('The outcome is unknown (status U).');
		expect(explanation.action).toContain(ERRORS_DOC);
	});

	// RESULT_CODES is a plain object: only its own keys are documented codes (explainResult looks a
	// code up with Object.hasOwn), so "constructor" is not explained as "constructor: undefined ...".
	it('does not treat inherited object keys as documented codes', () => {
		for (const code of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
			const explanation = explainResult({ resultStatus: 'F', resultCode: code });
			expect(explanation.code).toBe(code);
			expect(explanation.title).toContain('a code it does not document');
			expect(`${explanation.title} ${explanation.action}`).not.toContain('undefined');
		}
	});
});
