import { createPrivateKey, createPublicKey, verify } from 'node:crypto';

import { parseSignatureHeader } from '../../nodes/PartnerAccountInquiry/shared/core/signing/signatureHeader';
import { signRequest } from '../../nodes/PartnerAccountInquiry/shared/core/signing/signRequest';
import { partnerPrivatePkcs8, partnerPublicSpki } from '../fixtures/keys';
import { signingVectors } from '../fixtures/vectors';

const privateKey = createPrivateKey(partnerPrivatePkcs8);

describe('signRequest (signing end to end)', () => {
	it.each(signingVectors.map((v) => [v.name, v] as const))('reproduces the OpenSSL vector: %s', (_name, v) => {
		const headers = signRequest({
			method: v.method,
			url: `https://gateway.example.com${v.uri}`,
			clientId: v.clientId,
			keyVersion: '2',
			privateKey,
			body: Buffer.from(v.body, 'utf8'),
			requestTime: v.requestTime,
		});
		expect(headers).toEqual({
			'Content-Type': 'application/json; charset=UTF-8',
			'Client-Id': v.clientId,
			'Request-Time': v.requestTime,
			Signature: `algorithm=RSA256, keyVersion=2, signature=${encodeURIComponent(v.signatureBase64)}`,
		});
	});

	it('stamps the current time in whole seconds when none is given, and signs over it', () => {
		const before = Math.floor(Date.now() / 1000) * 1000;
		const body = Buffer.from('{"a":"é"}');
		const headers = signRequest({
			method: 'POST',
			url: 'https://h/p?q=1',
			clientId: 'c',
			keyVersion: '1',
			privateKey,
			body,
		});
		const time = Date.parse(headers['Request-Time']);
		expect(time).toBeGreaterThanOrEqual(before);
		expect(time).toBeLessThanOrEqual(Date.now());
		const content = Buffer.concat([Buffer.from(`POST /p?q=1\nc.${headers['Request-Time']}.`), body]);
		const { signature } = parseSignatureHeader(headers.Signature);
		expect(verify('sha256', content, createPublicKey(partnerPublicSpki), signature)).toBe(true);
	});
});
