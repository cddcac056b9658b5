import fc from 'fast-check';

import { SignatureHeaderError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import {
	formatSignatureHeader,
	parseSignatureHeader,
} from '../../nodes/PartnerAccountInquiry/shared/core/signing/signatureHeader';
import { thrown } from '../fixtures/thrown';

const SIG = Buffer.from('fb+/=?x\u00ff\u0000 signature bytes', 'latin1');
const B64 = SIG.toString('base64');

describe('formatSignatureHeader (docs/api.md, Signing a request)', () => {
	it('URL-encodes the Base64 signature', () => {
		const header = formatSignatureHeader('2', SIG);
		expect(header).toBe(`algorithm=RSA256, keyVersion=2, signature=${encodeURIComponent(B64)}`);
		expect(header).not.toMatch(/signature=.*[+/=]/);
	});
});

describe('parseSignatureHeader', () => {
	const upper = encodeURIComponent(B64);
	const lower = upper.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
	it.each([
		['docs form with spaces', `algorithm=RSA256, keyVersion=1, signature=${upper}`],
		['SDK form without spaces', `algorithm=RSA256,keyVersion=1,signature=${upper}`],
		['lower-case escapes', `algorithm=RSA256,keyVersion=1,signature=${lower}`],
		['any order', `signature=${upper},keyVersion=1 ,  algorithm=RSA256`],
		['not URL-encoded at all', `algorithm=RSA256, keyVersion=1, signature=${B64}`],
		['attribute names in another case', `Algorithm=RSA256, KEYVERSION=1, Signature=${upper}`],
		['a trailing comma', `algorithm=RSA256, keyVersion=1, signature=${upper},`],
	])('reads the %s', (_name, header) => {
		expect(parseSignatureHeader(header)).toEqual({ algorithm: 'RSA256', keyVersion: '1', signature: SIG });
	});

	it('splits on the first "=" only, so Base64 padding survives', () => {
		const padded = Buffer.from('ab');
		expect(
			parseSignatureHeader(`algorithm=RSA256,keyVersion=1,signature=${padded.toString('base64')}`).signature,
		).toEqual(padded);
	});

	it.each([
		['', /"algorithm" is missing/],
		['algorithm=RSA256, keyVersion=1', /"signature" is missing/],
		['algorithm=RSA256, keyVersion=, signature=abcd', /"keyVersion" is missing or empty/],
		['algorithm=RSA256, keyVersion=1, signature=abcd, signature=abcd', /appears twice/],
		['algorithm=RSA256, keyVersion=1, signature=ab%ZZ', /not valid URL encoding/],
		['algorithm=RSA256, keyVersion=1, signature=a*b=', /not valid Base64/],
		['algorithm=RSA256, keyVersion=1, signature=abcd, foo=bar', /unknown attribute "foo"/],
		['algorithm, keyVersion=1, signature=abcd', /not of the form name=value/],
	])('rejects %p with a typed error', (header, why) => {
		expect(() => parseSignatureHeader(header)).toThrow(SignatureHeaderError);
		expect(() => parseSignatureHeader(header)).toThrow(/^The signature header is malformed$/);
		expect((thrown(() => parseSignatureHeader(header)) as SignatureHeaderError).detail).toMatch(why);
	});

	it('round-trips format -> parse for any signature bytes and key version', () => {
		fc.assert(
			fc.property(
				fc.uint8Array({ minLength: 1, maxLength: 512 }),
				fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/),
				(bytes, version) => {
					const sig = Buffer.from(bytes);
					const parsed = parseSignatureHeader(formatSignatureHeader(version, sig));
					expect(parsed).toEqual({ algorithm: 'RSA256', keyVersion: version, signature: sig });
				},
			),
			{ numRuns: 2000 },
		);
	});

	it('never throws anything but SignatureHeaderError on arbitrary input', () => {
		let refused = 0;
		fc.assert(
			fc.property(fc.string({ maxLength: 300 }), (header) => {
				try {
					parseSignatureHeader(header);
				} catch (error) {
					refused++;
					expect(error).toBeInstanceOf(SignatureHeaderError);
				}
			}),
			{ numRuns: 10_000 },
		);
		// The check on what is thrown ran: the property is not vacuous.
		expect(refused).toBeGreaterThan(0);
	});
});
