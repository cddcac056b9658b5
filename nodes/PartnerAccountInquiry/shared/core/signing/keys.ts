import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

import { KeyFormatError, type KeyField } from '../errors';
import { settleSync } from '../flow/settle';

/**
 * Key parsing (docs/api.md, Keys). Accepted, for both keys:
 * - PEM, or bare Base64 of the DER as the vendor's developer centre hands it out;
 * - Windows line ends, stray spaces or tabs, and literal "\n" escapes from a pasted JSON value;
 * - private key: PKCS#8 (`BEGIN PRIVATE KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`);
 * - service public key: X.509 SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`), PKCS#1
 *   (`BEGIN RSA PUBLIC KEY`) or an X.509 certificate.
 * Errors name the credential field (the accepted formats in their detail) and never contain the key.
 */
const MIN_RSA_BITS = 2048;

/** The accepted formats, said in an error's detail. */
const PRIVATE_FORMATS =
	'It takes PEM ("-----BEGIN PRIVATE KEY-----" or "-----BEGIN RSA PRIVATE KEY-----") or the bare Base64 of a PKCS#8 or PKCS#1 RSA private key.';
const PUBLIC_FORMATS =
	'It takes PEM ("-----BEGIN PUBLIC KEY-----", "-----BEGIN RSA PUBLIC KEY-----" or a certificate) or the bare Base64 of an X.509 (SPKI) or PKCS#1 RSA public key.';
const DECRYPT = 'Decrypt it first: openssl pkcs8 -topk8 -nocrypt -in encrypted.pem -out private.pem';
/** Where the service's public key comes from. */
const SERVICE_KEY_SOURCE =
	"Paste the service's public key, which technical support or the developer centre gives with your Client ID.";

interface Armoured {
	label: string;
	der: Buffer;
}

function parsePrivateKey(text: string): KeyObject {
	const field: KeyField = 'privateKey';
	const { label, der } = readKeyText(text, field, PRIVATE_FORMATS);
	if (label === 'ENCRYPTED PRIVATE KEY') {
		throw new KeyFormatError(field, 'is encrypted with a passphrase', DECRYPT, 'An encrypted key is not supported.');
	}
	if (label.includes('PUBLIC KEY') || label === 'CERTIFICATE') {
		throw new KeyFormatError(
			field,
			'holds a public key, not a private key',
			'Paste your own RSA private key.',
			PRIVATE_FORMATS,
		);
	}
	const types: Array<'pkcs8' | 'pkcs1'> =
		label === 'RSA PRIVATE KEY' ? ['pkcs1'] : label === 'PRIVATE KEY' ? ['pkcs8'] : ['pkcs8', 'pkcs1'];
	for (const type of types) {
		const key = settleSync(() => createPrivateKey({ key: der, format: 'der', type }));
		if (key.ok) return checkRsa(key.value, field, PRIVATE_FORMATS);
	}
	throw unreadable(field, PRIVATE_FORMATS);
}

function parsePublicKey(text: string): KeyObject {
	const field: KeyField = 'servicePublicKey';
	const { label, der } = readKeyText(text, field, PUBLIC_FORMATS);
	if (label.includes('PRIVATE KEY') || looksLikePrivateKey(der)) {
		throw new KeyFormatError(field, 'holds a private key', SERVICE_KEY_SOURCE, 'A private key never goes there.');
	}
	if (label === 'CERTIFICATE') {
		const certificate = settleSync(() => new X509Certificate(der).publicKey);
		if (!certificate.ok) throw unreadable(field, PUBLIC_FORMATS);
		return checkRsa(certificate.value, field, PUBLIC_FORMATS);
	}
	const types: Array<'spki' | 'pkcs1'> =
		label === 'RSA PUBLIC KEY' ? ['pkcs1'] : label === 'PUBLIC KEY' ? ['spki'] : ['spki', 'pkcs1'];
	for (const type of types) {
		const key = settleSync(() => createPublicKey({ key: der, format: 'der', type }));
		if (key.ok) return checkRsa(key.value, field, PUBLIC_FORMATS);
	}
	throw unreadable(field, PUBLIC_FORMATS);
}

/** Strips armour and whitespace and decodes the Base64, whatever way the key was pasted. */
function readKeyText(text: string, field: KeyField, formats: string): Armoured {
	const cleaned = (text ?? '').replace(/\\r\\n|\\n|\\r/g, '\n').trim();
	if (cleaned === '') {
		throw new KeyFormatError(field, 'is empty', 'Paste the key in one of those forms.', formats);
	}
	let label = '';
	let body = cleaned;
	const begin = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(cleaned);
	if (begin) {
		label = begin[1];
		const end = cleaned.indexOf(`-----END ${label}-----`, begin.index);
		if (end < 0) {
			throw new KeyFormatError(
				field,
				`is cut short: it has no "END ${label}" line`,
				'Paste the whole key, including its last line.',
			);
		}
		body = cleaned.slice(begin.index + begin[0].length, end);
		if (/^\s*(Proc-Type|DEK-Info):/m.test(body)) {
			// A traditional ("BEGIN RSA PRIVATE KEY") PEM encrypted with a passphrase.
			throw new KeyFormatError(
				field,
				'is encrypted with a passphrase',
				DECRYPT,
				'Its PEM has a Proc-Type header; an encrypted key is not supported.',
			);
		}
	}
	const base64 = body.replace(/\s+/g, '');
	if (base64 === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 === 1) {
		throw unreadable(field, formats);
	}
	return { label, der: Buffer.from(base64, 'base64') };
}

function checkRsa(key: KeyObject, field: KeyField, formats: string): KeyObject {
	if (key.asymmetricKeyType !== 'rsa') {
		throw new KeyFormatError(
			field,
			key.asymmetricKeyType ? `is a ${key.asymmetricKeyType} key, not an RSA key` : 'is not an RSA key',
			field === 'privateKey'
				? 'Use the RSA private key whose public key you registered with the service.'
				: SERVICE_KEY_SOURCE,
			`The API signs with RSA (SHA256withRSA). ${formats}`,
		);
	}
	const exponent = key.asymmetricKeyDetails?.publicExponent;
	if (exponent !== undefined && (exponent < 3n || exponent % 2n === 0n)) {
		// e = 1 makes every "signature" the message itself; an even e is no RSA key at all.
		throw new KeyFormatError(
			field,
			`has the unusable public exponent ${exponent}`,
			'Use the key the service issued (its exponent is normally 65537).',
			'An RSA key with it makes signatures meaningless.',
		);
	}
	const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
	if (bits < MIN_RSA_BITS) {
		throw new KeyFormatError(
			field,
			`is a ${bits}-bit key, shorter than ${MIN_RSA_BITS} bits`,
			field === 'privateKey'
				? 'Generate a new pair (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out private.pem) and register its public key with the service.'
				: SERVICE_KEY_SOURCE,
		);
	}
	return key;
}

function looksLikePrivateKey(der: Buffer): boolean {
	return (['pkcs8', 'pkcs1'] as const).some(
		(type) => settleSync(() => createPrivateKey({ key: der, format: 'der', type })).ok,
	);
}

function unreadable(field: KeyField, formats: string): KeyFormatError {
	return new KeyFormatError(
		field,
		'could not be read as an RSA key',
		'Paste the key again, whole, in one of those forms.',
		formats,
	);
}

/**
 * Parsed keys, cached so that a listing of many pages parses each key once (n8n hands the
 * credential to `authenticate` afresh for every request). The cache is keyed by a SHA-256 digest
 * of the pasted text, so the key text itself is not kept after the execution ends; a changed
 * credential is a different digest and is parsed anew. Small: the oldest entry is forgotten.
 */
const MAX_CACHED = 16;
const privateKeys = new Map<string, KeyObject>();
const publicKeys = new Map<string, KeyObject>();

function cached(cache: Map<string, KeyObject>, text: string, parse: (text: string) => KeyObject): KeyObject {
	const digest = createHash('sha256').update(text).digest('base64');
	let key = cache.get(digest);
	if (!key) {
		key = parse(text);
		if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
		cache.set(digest, key);
	}
	return key;
}

export function privateKeyFrom(text: string): KeyObject {
	return cached(privateKeys, text ?? '', parsePrivateKey);
}

export function publicKeyFrom(text: string): KeyObject {
	return cached(publicKeys, text ?? '', parsePublicKey);
}

/**
 * Refuses the public half of the credential's own Private Key as the Service Public Key: the
 * user's own public key (the one registered with the service) pasted where the service's belongs.
 * No answer would verify with it; this says which key it is instead.
 */
export function refuseOwnPublicKey(privateKey: KeyObject, servicePublicKey: KeyObject): void {
	const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });
	if (!spki(createPublicKey(privateKey)).equals(spki(servicePublicKey))) return;
	throw new KeyFormatError(
		'servicePublicKey',
		"is your own public key, not the service's",
		SERVICE_KEY_SOURCE,
		'It is the pair of your Private Key: the key you registered with the service, which does not go into this credential.',
	);
}
