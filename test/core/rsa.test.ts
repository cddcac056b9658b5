import { createPrivateKey, createPublicKey } from 'node:crypto';
import fc from 'fast-check';
import forge from 'node-forge';

import { signContent, verifyContent } from '../../nodes/PartnerAccountInquiry/shared/core/signing/rsa';
import {
	buildStringToSign,
	stringToSignParts,
} from '../../nodes/PartnerAccountInquiry/shared/core/signing/stringToSign';
import { partnerPrivatePkcs8, partnerPublicSpki } from '../fixtures/keys';
import { opensslVerify } from '../fixtures/openssl';
import { signingVectors } from '../fixtures/vectors';

const privateKey = createPrivateKey(partnerPrivatePkcs8);
const publicKey = createPublicKey(partnerPublicSpki);
const forgePrivate = forge.pki.privateKeyFromPem(partnerPrivatePkcs8);
const forgePublic = forge.pki.publicKeyFromPem(partnerPublicSpki);

function forgeSign(content: Buffer): Buffer {
	const md = forge.md.sha256.create();
	md.update(content.toString('binary'));
	return Buffer.from(forgePrivate.sign(md), 'binary');
}

function forgeVerify(content: Buffer, signature: Buffer): boolean {
	const md = forge.md.sha256.create();
	md.update(content.toString('binary'));
	return forgePublic.verify(md.digest().bytes(), signature.toString('binary'));
}

describe('signContent against independent implementations', () => {
	it.each(signingVectors.map((v) => [v.name, v] as const))('%s: equals the OpenSSL vector and node-forge', (_n, v) => {
		const content = buildStringToSign({
			method: v.method,
			uri: v.uri,
			clientId: v.clientId,
			time: v.requestTime,
			body: v.body,
		});
		const ours = signContent(privateKey, content);
		expect(ours.toString('base64')).toBe(v.signatureBase64);
		expect(forgeSign(content).toString('base64')).toBe(v.signatureBase64);
		expect(verifyContent(publicKey, content, Buffer.from(v.signatureBase64, 'base64'))).toBe(true);
		expect(forgeVerify(content, ours)).toBe(true);
	});

	it('OpenSSL verifies what we sign, and rejects it over a changed body', () => {
		const content = buildStringToSign({
			method: 'POST',
			uri: '/x',
			clientId: 'c',
			time: 't',
			body: '{"name":"Zoë 深圳"}',
		});
		const signature = signContent(privateKey, content);
		expect(opensslVerify(partnerPublicSpki, content, signature)).toBe(true);
		const tampered = Buffer.from(content);
		tampered[tampered.length - 3] ^= 1;
		expect(opensslVerify(partnerPublicSpki, tampered, signature)).toBe(false);
	});

	it('signs and verifies any body, non-ASCII included, in agreement with node-forge', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 30 }), (body, clientId) => {
				const content = buildStringToSign({
					method: 'POST',
					uri: '/amsin/api/v1/x',
					clientId,
					time: '2026-01-01T00:00:00Z',
					body,
				});
				const signature = signContent(privateKey, content);
				expect(verifyContent(publicKey, content, signature)).toBe(true);
				expect(forgeVerify(content, signature)).toBe(true);
				const other = buildStringToSign({
					method: 'POST',
					uri: '/amsin/api/v1/x',
					clientId,
					time: '2026-01-01T00:00:00Z',
					body: `${body} `,
				});
				expect(verifyContent(publicKey, other, signature)).toBe(false);
			}),
			{ numRuns: 60 },
		);
	});

	it('verifies content given in pieces exactly as the joined content, however it is cut', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.nat(), fc.boolean(), (body, cut, tamper) => {
				const input = { method: 'POST', uri: '/amsin/api/v1/x', clientId: 'C', time: '2026-01-01T00:00:00Z', body };
				const joined = buildStringToSign(input);
				const signature = signContent(privateKey, joined);
				const bytes = Buffer.from(joined);
				if (tamper) bytes[cut % bytes.length] ^= 1;
				const at = cut % (bytes.length + 1);
				const pieces = [bytes.subarray(0, at), bytes.subarray(at)];
				expect(verifyContent(publicKey, pieces, signature)).toBe(!tamper);
				expect(verifyContent(publicKey, bytes, signature)).toBe(!tamper);
				expect(verifyContent(publicKey, stringToSignParts(input), signature)).toBe(true);
			}),
			{ numRuns: 60 },
		);
	});
});
