import { createPrivateKey, createPublicKey } from 'node:crypto';
import fc from 'fast-check';

import { PartnerError, ResponseVerificationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { formatSignatureHeader } from '../../nodes/PartnerAccountInquiry/shared/core/signing/signatureHeader';
import { signContent } from '../../nodes/PartnerAccountInquiry/shared/core/signing/rsa';
import { buildStringToSign } from '../../nodes/PartnerAccountInquiry/shared/core/signing/stringToSign';
import { verifyResponse } from '../../nodes/PartnerAccountInquiry/shared/core/signing/verifyResponse';
import { otherPrivate, servicePrivate, servicePublic } from '../fixtures/keys';
import { thrown } from '../fixtures/thrown';

const URI = '/amsin/api/v1/business/account/inquiryAvailableQuota';
const serviceKey = createPrivateKey(servicePrivate);
const publicKey = createPublicKey(servicePublic);
const BODY =
	'{"result":{"resultStatus":"S","resultCode":"SUCCESS","resultMessage":"success"},"availableQuota":{"currency":"USD","value":"12345"}}';

/** The local clock at the default response-time, so that only what a test changes can fail. */
const FRESH = { nowMs: Date.parse('2026-11-22T10:00:00+08:00'), toleranceSeconds: 300 };

function signedResponse(body: string, opts: { key?: typeof serviceKey; time?: string; clientId?: string } = {}) {
	const time = opts.time ?? '2026-11-22T10:00:00+08:00';
	const content = buildStringToSign({ method: 'POST', uri: URI, clientId: opts.clientId ?? 'client-1', time, body });
	return {
		signature: formatSignatureHeader('1', signContent(opts.key ?? serviceKey, content)),
		'response-time': time,
		'client-id': opts.clientId ?? 'client-1',
	};
}

function verify(headers: Record<string, unknown>, body: string | Buffer = BODY) {
	return verifyResponse({ method: 'POST', uri: URI, clientId: 'client-1', headers, body, publicKey, ...FRESH });
}

function reason(fn: () => unknown): string {
	try {
		fn();
	} catch (e) {
		expect(e).toBeInstanceOf(ResponseVerificationError);
		return (e as ResponseVerificationError).reason;
	}
	return 'verified';
}

describe('verifyResponse (docs/api.md, Verifying a response)', () => {
	it('accepts a genuine response, over the raw text or its bytes, with headers in any case', () => {
		const headers = signedResponse(BODY);
		expect(verify(headers)).toEqual({
			responseTime: '2026-11-22T10:00:00+08:00',
			keyVersion: '1',
			signatureHeader: headers.signature,
			signature: Buffer.from(decodeURIComponent(headers.signature.split('signature=')[1]), 'base64'),
		});
		expect(verify(headers, Buffer.from(BODY))).toBeDefined();
		expect(verify({ Signature: headers.signature, 'Response-Time': headers['response-time'] })).toBeDefined();
	});

	it('accepts a signature header without spaces and with lower-case escapes', () => {
		const headers = signedResponse(BODY);
		const sdkStyle = headers.signature.replace(/, /g, ',').replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
		expect(verify({ ...headers, signature: sdkStyle })).toBeDefined();
	});

	it.each([
		['no signature header', () => verify({ 'response-time': 't' }), 'missing-signature'],
		[
			'a partial signature header',
			() => verify({ ...signedResponse(BODY), signature: 'algorithm=RSA256, keyVersion=1' }),
			'malformed-signature',
		],
		[
			'another algorithm',
			() => verify({ ...signedResponse(BODY), signature: signedResponse(BODY).signature.replace('RSA256', 'HMAC') }),
			'unsupported-algorithm',
		],
		['no response-time', () => verify({ signature: signedResponse(BODY).signature }), 'missing-response-time'],
		[
			'a foreign client-id header',
			() => verify({ ...signedResponse(BODY), 'client-id': 'someone-else' }),
			'client-id-mismatch',
		],
		[
			'a body altered after signing',
			() => verify(signedResponse(BODY), BODY.replace('12345', '99999')),
			'signature-mismatch',
		],
		[
			'a body re-serialised after signing',
			() => verify(signedResponse(BODY), JSON.stringify(JSON.parse(BODY), null, 1)),
			'signature-mismatch',
		],
		[
			'a signature by the wrong key',
			() => verify(signedResponse(BODY, { key: createPrivateKey(otherPrivate) })),
			'signature-mismatch',
		],
		[
			'a response-time changed after signing',
			() => verify({ ...signedResponse(BODY), 'response-time': '2026-11-22T10:00:01+08:00' }),
			'signature-mismatch',
		],
	])('rejects %s', (_name, fn, expected) => {
		expect(reason(fn)).toBe(expected);
	});

	it('says what is wrong and what it usually means', () => {
		expect(() => verify(signedResponse(BODY), BODY.replace('S', 'F'))).toThrow(
			/^The answer's signature does not match its body$/,
		);
		const e = thrown(() => verify(signedResponse(BODY, { key: createPrivateKey(otherPrivate) })));
		expect((e as PartnerError).hint).toMatch(/Service Public Key/);
	});

	it('refuses a genuinely signed answer whose response-time is outside the tolerance, and accepts one inside it', () => {
		const at = (time: string, opts: { key?: typeof serviceKey; toleranceSeconds?: number } = {}) =>
			verifyResponse({
				method: 'POST',
				uri: URI,
				clientId: 'client-1',
				headers: signedResponse(BODY, { time, key: opts.key }),
				body: BODY,
				publicKey,
				nowMs: FRESH.nowMs,
				toleranceSeconds: opts.toleranceSeconds ?? FRESH.toleranceSeconds,
			});
		// 6 minutes either way of the local clock, with a tolerance of 5 minutes: signed, but not fresh.
		expect(reason(() => at('2026-11-22T09:54:00+08:00'))).toBe('stale-response');
		expect(reason(() => at('2026-11-22T10:06:00+08:00'))).toBe('stale-response');
		// Within the tolerance (up to its very edge), either way: accepted.
		for (const time of ['2026-11-22T09:56:00+08:00', '2026-11-22T10:04:00+08:00', '2026-11-22T09:55:00+08:00']) {
			expect(at(time)).toMatchObject({ responseTime: time, keyVersion: '1' });
		}
		// The same 6-minute-old answer under a 10-minute tolerance: accepted.
		expect(at('2026-11-22T09:54:00+08:00', { toleranceSeconds: 600 })).toMatchObject({
			responseTime: '2026-11-22T09:54:00+08:00',
		});
		// Freshness is judged after the signature: a stale answer signed by the wrong key is a signature failure.
		expect(reason(() => at('2026-11-22T09:54:00+08:00', { key: createPrivateKey(otherPrivate) }))).toBe(
			'signature-mismatch',
		);
	});

	it('never throws anything but a typed verification error on arbitrary headers and bodies', () => {
		const genuine = signedResponse(BODY);
		let refused = 0;
		fc.assert(
			fc.property(
				fc.record({
					signature: fc.oneof(fc.string(), fc.constant(genuine.signature), fc.constant(undefined)),
					'response-time': fc.oneof(fc.string(), fc.constant(genuine['response-time'])),
					'client-id': fc.oneof(fc.string(), fc.constant('client-1')),
				}),
				fc.oneof(fc.string(), fc.constant(BODY)),
				(headers, body) => {
					try {
						verify(headers, body);
					} catch (e) {
						refused++;
						expect(e).toBeInstanceOf(ResponseVerificationError);
					}
				},
			),
			{ numRuns: 10_000 },
		);
		// The check on what is thrown ran: the property is not vacuous.
		expect(refused).toBeGreaterThan(0);
	});
});
