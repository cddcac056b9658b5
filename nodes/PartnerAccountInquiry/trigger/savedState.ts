/** What saved states share. Static data can be edited or imported: only a checked state is used, else a baseline. */
import { canonical } from '../shared/core/api/identity';
import { sha256Base64 } from '../shared/core/sha256';

/** The first `chars` characters of the Base64 SHA-256 of `text`: a longer digest starts with every shorter one. */
export function digest(text: string, chars: number): string {
	return sha256Base64(text).slice(0, chars);
}

/** A question's fingerprint: the same parameters give the same digest, whatever the key order. */
export function questionDigest(question: unknown): string {
	return digest(canonical(question), 16);
}

export type Scalar = string | number | boolean | null;

export function isScalar(value: unknown): value is Scalar {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type Check = (value: unknown) => boolean;
export const wholeNumber = (n: unknown, max = Number.MAX_SAFE_INTEGER): n is number =>
	typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= max;
export const text: Check = (value) => typeof value === 'string';
export const flag: Check = (value) => typeof value === 'boolean';
export const finite: Check = (value) => typeof value === 'number' && Number.isFinite(value);
export function optional(ok: Check): Check {
	return (value) => value === undefined || ok(value);
}
export function shaped(fields: Record<string, Check>): Check {
	return (value) => isRecord(value) && Object.entries(fields).every(([name, ok]) => ok(value[name]));
}

/** Names a version only if it is a small number: a saved value is never quoted whole (it could be a bank account). */
export const unknownVersion = (v: unknown) => `it has an unknown version (${wholeNumber(v, 999) ? v : typeof v})`;

/** A saved state read back: none (nothing saved: a baseline), or a `problem` (a warning, then a baseline). */
export type StateReading<S> = { state?: S; problem?: string };

/** undefined: a header of this kind, version and question; '': nothing saved; otherwise the problem. */
export function headerProblem(
	saved: unknown,
	kind: 'beneficiaries' | 'quota',
	version: number,
	question: string,
): string | undefined {
	if (saved === undefined || saved === null) return '';
	if (!isRecord(saved)) return `it is ${Array.isArray(saved) ? 'a list' : typeof saved}, not a state`;
	if (saved.kind !== kind) return 'it is of no known kind';
	if (saved.version !== version) return unknownVersion(saved.version);
	if (saved.question !== question) return 'it was saved for another question';
	return undefined;
}
