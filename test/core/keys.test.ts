import { createPublicKey } from 'node:crypto';

import { KeyFormatError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { privateKeyFrom, publicKeyFrom } from '../../nodes/PartnerAccountInquiry/shared/core/signing/keys';

// The readers the credential uses (each text read once, then remembered).
const parsePrivateKey = privateKeyFrom;
const parsePublicKey = publicKeyFrom;
import {
	bareBase64,
	keyText,
	partnerPrivatePkcs8,
	partnerPublicSpki,
	privateKeyVariants,
	publicKeyVariants,
} from '../fixtures/keys';
import { thrown } from '../fixtures/thrown';

const expectedPublicDer = createPublicKey(partnerPublicSpki).export({ type: 'spki', format: 'der' });

describe('parsePrivateKey', () => {
	it.each(Object.entries(privateKeyVariants))('reads %s', (_name, text) => {
		const key = parsePrivateKey(text);
		expect(key.type).toBe('private');
		expect(createPublicKey(key).export({ type: 'spki', format: 'der' })).toEqual(expectedPublicDer);
	});

	const junk: Array<[string, string, RegExp]> = [
		['empty text', '   ', /is empty/],
		['random words', 'this is not a key at all', /could not be read/],
		['Base64 of garbage', Buffer.from('garbage bytes that are no DER').toString('base64'), /could not be read/],
		['a truncated PEM', partnerPrivatePkcs8.slice(0, 200), /is cut short: it has no "END PRIVATE KEY" line/],
		['a public key', partnerPublicSpki, /holds a public key, not a private key/],
		['an EC key', keyText('ec-private.pem'), /is a ec key, not an RSA key/],
		['a 1024-bit RSA key', keyText('rsa1024-private.pem'), /is a 1024-bit key, shorter than 2048 bits/],
		[
			'an encrypted PKCS#8 key',
			'-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----',
			/encrypted/,
		],
	];
	it.each(junk)('rejects %s naming the private key and never echoing it', (_name, text, reason) => {
		let error: unknown;
		try {
			parsePrivateKey(text);
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(KeyFormatError);
		const { message, hint, detail, field } = error as KeyFormatError;
		expect(field).toBe('privateKey');
		expect(message).toMatch(/^The credential's Private Key /);
		expect(message).toMatch(reason);
		expect(message.length).toBeLessThanOrEqual(80);
		for (const secretish of [text.trim(), bareBase64(text).slice(0, 24)].filter((s) => s.length >= 16)) {
			expect(`${message} ${detail ?? ''} ${hint}`).not.toContain(secretish);
		}
	});
});

describe('parsePublicKey', () => {
	it.each(Object.entries(publicKeyVariants))('reads %s', (_name, text) => {
		const key = parsePublicKey(text);
		expect(key.type).toBe('public');
		expect(key.export({ type: 'spki', format: 'der' })).toEqual(expectedPublicDer);
	});

	it('refuses a private key pasted into the public key field, without echoing it', () => {
		for (const text of [partnerPrivatePkcs8, bareBase64(partnerPrivatePkcs8)]) {
			expect(() => parsePublicKey(text)).toThrow(/^The credential's Service Public Key holds a private key$/);
			const e = thrown(() => parsePublicKey(text));
			expect(String((e as Error).message)).not.toContain(bareBase64(partnerPrivatePkcs8).slice(0, 32));
		}
	});

	it('rejects junk naming the service public key', () => {
		expect(() => parsePublicKey('nope')).toThrow(
			/^The credential's Service Public Key could not be read as an RSA key$/,
		);
		// The accepted forms are the detail; the hint is one thing to do.
		const error = thrown(() => parsePublicKey('nope')) as KeyFormatError;
		expect(error.detail).toMatch(/^It takes PEM .* or PKCS#1 RSA public key\.$/);
		expect(error.hint).toBe('Paste the key again, whole, in one of those forms.');
	});
});

describe('odd keys get typed errors', () => {
	it('says that an encrypted traditional PEM (Proc-Type header) is encrypted', () => {
		const { generateKeyPairSync } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
		const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const pem = privateKey.export({ type: 'pkcs1', format: 'pem', cipher: 'aes-128-cbc', passphrase: 'abc' }) as string;
		expect(pem).toMatch(/Proc-Type: 4,ENCRYPTED/);
		for (const text of [pem, pem.replace(/\n/g, '\r\n'), pem.replace(/\n/g, '\\n')]) {
			expect(() => parsePrivateKey(text)).toThrow(/is encrypted with a passphrase/);
		}
	});

	it.each(['AQ', 'Ag', 'BA'])('refuses a public key with a degenerate exponent (%s in JWK)', (e) => {
		const { createPublicKey, generateKeyPairSync } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
		const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
		const der = createPublicKey({ key: { ...jwk, e }, format: 'jwk' }).export({ type: 'spki', format: 'der' });
		expect(() => parsePublicKey(der.toString('base64'))).toThrow(/has the unusable public exponent \d$/);
		expect((thrown(() => parsePublicKey(der.toString('base64'))) as KeyFormatError).detail).toBe(
			'An RSA key with it makes signatures meaningless.',
		);
	});
});
