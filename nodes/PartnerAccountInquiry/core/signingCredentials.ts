import type { KeyObject } from 'node:crypto';

import { parsePrivateKey, parsePublicKey } from './keys';

/**
 * Parsed keys, cached by the pasted text so that a listing of many pages parses each key once
 * (n8n hands the credential to `authenticate` afresh for every request). A changed credential is
 * a different text, so it is parsed anew; the cache is small and forgets the oldest entry.
 */
const MAX_CACHED = 16;
const privateKeys = new Map<string, KeyObject>();
const publicKeys = new Map<string, KeyObject>();

function cached(cache: Map<string, KeyObject>, text: string, parse: (text: string) => KeyObject): KeyObject {
	let key = cache.get(text);
	if (!key) {
		key = parse(text);
		if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
		cache.set(text, key);
	}
	return key;
}

export function privateKeyFrom(text: string): KeyObject {
	return cached(privateKeys, text ?? '', parsePrivateKey);
}

export function publicKeyFrom(text: string): KeyObject {
	return cached(publicKeys, text ?? '', parsePublicKey);
}
