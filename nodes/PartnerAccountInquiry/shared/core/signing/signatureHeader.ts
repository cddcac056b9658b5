import { SignatureHeaderError } from '../errors';

/**
 * The three-attribute Signature header (docs/api.md, Signing a request):
 *   algorithm=RSA256, keyVersion=1, signature=<URL-encoded Base64>
 */
export interface SignatureHeader {
	algorithm: string;
	keyVersion: string;
	/** The raw signature bytes (URL-decoded, then Base64-decoded). */
	signature: Buffer;
}

export const DEFAULT_ALGORITHM = 'RSA256';

/** The Base64 signature made safe for a header: `+` `/` `=` become `%2B` `%2F` `%3D`. */
function encodeSignature(signature: Buffer): string {
	return encodeURIComponent(signature.toString('base64'));
}

export function formatSignatureHeader(keyVersion: string, signature: Buffer): string {
	return `algorithm=${DEFAULT_ALGORITHM}, keyVersion=${keyVersion}, signature=${encodeSignature(signature)}`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const ATTRIBUTES = ['algorithm', 'keyVersion', 'signature'] as const;

/**
 * Tolerant, as the gateway family's SDKs require: with or without spaces after the commas, the
 * attributes in any order, attribute names in any case, upper- or lower-case percent escapes,
 * each attribute split on its first `=` only (Base64 padding keeps its `=`).
 */
export function parseSignatureHeader(header: string): SignatureHeader {
	const found = new Map<string, string>();
	for (const part of header.split(',')) {
		const piece = part.trim();
		if (piece === '') continue;
		const eq = piece.indexOf('=');
		if (eq <= 0) throw malformed(`the part "${clip(piece)}" is not of the form name=value`);
		const rawName = piece.slice(0, eq).trim();
		const name = ATTRIBUTES.find((a) => a.toLowerCase() === rawName.toLowerCase());
		if (!name) throw malformed(`it has an unknown attribute "${clip(rawName)}"`);
		if (found.has(name)) throw malformed(`the attribute "${name}" appears twice`);
		found.set(name, piece.slice(eq + 1).trim());
	}
	for (const name of ATTRIBUTES) {
		if (!found.get(name)) throw malformed(`the attribute "${name}" is missing or empty`);
	}
	let base64: string;
	try {
		base64 = decodeURIComponent(found.get('signature') as string);
	} catch {
		throw malformed('its signature is not valid URL encoding');
	}
	if (!BASE64.test(base64)) throw malformed('its signature is not valid Base64');
	return {
		algorithm: found.get('algorithm') as string,
		keyVersion: found.get('keyVersion') as string,
		signature: Buffer.from(base64, 'base64'),
	};
}

/** `why`: what is wrong with it, the error's detail (a sentence once capitalised). */
function malformed(why: string): SignatureHeaderError {
	return new SignatureHeaderError(
		'The signature header is malformed',
		'Expected "algorithm=RSA256, keyVersion=<version>, signature=<URL-encoded Base64>".',
		`${why.charAt(0).toUpperCase()}${why.slice(1)}.`,
	);
}

function clip(text: string): string {
	return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
