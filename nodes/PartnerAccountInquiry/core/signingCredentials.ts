import { createHash, type KeyObject } from 'node:crypto';

import { parsePrivateKey, parsePublicKey } from './keys';

/**
 * Parsed keys, cached by a hash of the pasted text so that a listing of many pages parses each
 * key once. The cache holds KeyObjects only; a changed credential hashes differently.
 */
const cache = new Map<string, KeyObject>();
const MAX_CACHED = 32;

function cached(kind: string, text: string, parse: (text: string) => KeyObject): KeyObject {
	const id = createHash('sha256').update(kind).update('\0').update(text ?? '').digest('base64');
	let key = cache.get(id);
	if (!key) {
		key = parse(text);
		if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
		cache.set(id, key);
	}
	return key;
}

export function privateKeyFrom(text: string): KeyObject {
	return cached('private', text, parsePrivateKey);
}

export function publicKeyFrom(text: string): KeyObject {
	return cached('public', text, parsePublicKey);
}
