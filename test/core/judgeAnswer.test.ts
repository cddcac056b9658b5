/**
 * What an error quotes of an answer's body is redacted whole before it is cut: the start of a
 * secret or of an account cut off at the edge of the quote is never left behind.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';

import { judgeAnswer } from '../../nodes/PartnerAccountInquiry/shared/core/api/judgeAnswer';
import { parseResponseBody } from '../../nodes/PartnerAccountInquiry/shared/core/api/responseBody';
import { RequestError, TransientError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { redactText } from '../../nodes/PartnerAccountInquiry/shared/core/redaction';
import { formatSignatureHeader } from '../../nodes/PartnerAccountInquiry/shared/core/signing/signatureHeader';
import { signContent } from '../../nodes/PartnerAccountInquiry/shared/core/signing/rsa';
import { buildStringToSign } from '../../nodes/PartnerAccountInquiry/shared/core/signing/stringToSign';
import { servicePrivate, servicePublic } from '../fixtures/keys';
import { thrown } from '../fixtures/thrown';

const URI = '/amsin/api/v1/business/account/queryBeneficiaryList';
const PLANTED = 'AT-q7Zk2mWv9xLp4RtB8nCy3HdF6gJs1KeU5aVoTiPwQbXrMlNzEcYuSdGhIjOf0';
const ACCOUNT = '6222021234567890';
const TIME = '2026-11-22T10:00:00+08:00';
const context: Parameters<typeof judgeAnswer>[1] = {
	uri: URI,
	clientId: 'client-1',
	publicKey: createPublicKey(servicePublic),
	nowMs: Date.parse(TIME),
	toleranceSeconds: 300,
	redact: (text) => redactText(text, [PLANTED], [ACCOUNT]),
};
/** The echoed request puts the token across the 120th character, where the quote is cut. */
const ECHO = `Bad request: {"pageSize":50,"pageNumber":1,"customerId":"CUST_SMALL","bankAccountNo":"${ACCOUNT}","accessToken":"${PLANTED}"}`;
const unsigned = (status: number, body: string) => ({ status, headers: {}, body: Buffer.from(body), truncated: false });

describe('an unsigned answer: the start of its body, redacted before it is cut', () => {
	it('HTTP 400: no piece of the token, the account masked', () => {
		expect(ECHO.indexOf(PLANTED)).toBeLessThan(120);
		expect(ECHO.indexOf(PLANTED) + PLANTED.length).toBeGreaterThan(120);
		const error = thrown(() => judgeAnswer(unsigned(400, ECHO), context)) as RequestError;
		expect(error).toBeInstanceOf(RequestError);
		expect(error.message).toBe('The gateway answered HTTP 400 with no signed API result');
		expect(error.detail).toContain('"accessToken":"[hidden]"');
		expect(error.detail).toContain('"bankAccountNo":"****7890"');
		expect(error.detail).not.toContain(PLANTED.slice(0, 8));
	});

	it('HTTP 503: the same for the detail of a transient failure', () => {
		const error = thrown(() => judgeAnswer(unsigned(503, ECHO), context)) as TransientError;
		expect(error).toBeInstanceOf(TransientError);
		expect(error.detail).toContain('[hidden]');
		expect(error.detail).not.toContain(PLANTED.slice(0, 8));
	});

	it('still cut to 120 characters after redaction', () => {
		const error = thrown(() => judgeAnswer(unsigned(400, 'x'.repeat(500)), context)) as RequestError;
		expect(error.detail).toMatch(/^The body began: x{120}…$/);
	});
});

describe('a signed answer that is not JSON, or not of the API: what its error quotes is redacted first', () => {
	const signed = (body: string) => {
		const content = buildStringToSign({ method: 'POST', uri: URI, clientId: 'client-1', time: TIME, body });
		return {
			status: 200,
			headers: {
				signature: formatSignatureHeader('1', signContent(createPrivateKey(servicePrivate), content)),
				'response-time': TIME,
				'client-id': 'client-1',
			},
			body: Buffer.from(body),
			truncated: false,
		};
	};

	it('a body that is not JSON: its first 40 characters, redacted', () => {
		const error = thrown(() => judgeAnswer(signed(`echo ${PLANTED} {`), context)) as RequestError;
		expect(error.message).toBe('The answer is not valid JSON');
		expect(error.detail).toMatch(/starting "echo \[hidden\] {"/);
		const parsed = parseResponseBody(Buffer.from(`${PLANTED} {`), (text) => redactText(text, [PLANTED]));
		expect(parsed).toEqual({
			ok: false,
			problem: 'The answer is not valid JSON',
			detail: expect.stringContaining('starting "[hidden] {"'),
		});
	});

	it('a resultStatus that is not S, F or U: its first 20 characters, redacted', () => {
		const body = JSON.stringify({ result: { resultStatus: PLANTED } });
		const error = thrown(() => judgeAnswer(signed(body), context)) as RequestError;
		expect(error.message).toBe('The answer has a result status other than S, F or U');
		expect(error.detail).toContain('Its `resultStatus` is "[hidden]"; nothing from the answer was used.');
	});
});
