import type { KeyObject } from 'node:crypto';

import { PartnerError, ResponseVerificationError, type VerificationFailure } from '../errors';
import { DEFAULT_ALGORITHM, parseSignatureHeader } from './signatureHeader';
import { verifyContent } from './rsa';
import { stringToSignParts } from './stringToSign';
import { checkResponseTime } from './timestamps';

/** docs/api.md, Verifying a response: what a response must satisfy before anything from it is used. */
export interface ResponseToVerify {
	/** Method and URI of the request (the response is signed over them). */
	method: string;
	uri: string;
	/** Our client ID. */
	clientId: string;
	/** Response headers; names are matched case-insensitively. */
	headers: Record<string, unknown>;
	/** The raw response body, exactly as received. */
	body: Buffer | string;
	publicKey: KeyObject;
	/** The local clock (ms since the epoch) and how far the response-time may be from it, either way. */
	nowMs: number;
	toleranceSeconds: number;
}

export interface VerifiedResponse {
	responseTime: string;
	keyVersion: string;
	/** The Signature header as received, and the signature it carries (decoded). */
	signatureHeader: string;
	signature: Buffer;
}

const WRONG_KEYS =
	"Check that the credential's Service Public Key is the one the service gave for this Gateway and Client ID.";
/** What a signature that does not verify may mean besides a wrong key: said in the error's detail. */
const ALTERED =
	'If the key is right, the answer was altered on its way (a proxy that rewrites bodies, or an attack); nothing from it was used.';

/**
 * Is this answer authentic and current? The signature over the request's method and URI, the
 * client ID, the response-time and the raw body, then the response-time within the tolerance
 * (the signature binds the time, so only a verified time says how old the answer is). Throws a
 * ResponseVerificationError naming what failed; nothing from a failed answer may be used.
 */
export function verifyResponse(response: ResponseToVerify): VerifiedResponse {
	const header = headerValue(response.headers, 'signature');
	if (header === undefined) {
		throw fail(
			'missing-signature',
			'The answer carries no signature, so it cannot be verified',
			'Check the Base URL in the credential: it may point at a proxy or a server that is not the gateway.',
			'A genuine gateway signs every answer; nothing from this one was used.',
		);
	}
	let parsed;
	try {
		parsed = parseSignatureHeader(header);
	} catch (error) {
		const why = error instanceof PartnerError ? (error.detail ?? error.message) : 'It could not be parsed.';
		throw fail('malformed-signature', "The answer's signature header is malformed", WRONG_KEYS, `${why} ${ALTERED}`);
	}
	if (parsed.algorithm.toUpperCase() !== DEFAULT_ALGORITHM) {
		throw fail(
			'unsupported-algorithm',
			`The answer is signed with an unsupported algorithm`,
			'Contact the service: answers are expected to be signed with RSA256.',
			`It is signed with "${parsed.algorithm}", not ${DEFAULT_ALGORITHM}; nothing from it was used.`,
		);
	}
	const responseTime = headerValue(response.headers, 'response-time');
	if (responseTime === undefined || responseTime === '') {
		throw fail(
			'missing-response-time',
			'The answer carries no time, so its signature cannot be verified',
			'Check the Base URL in the credential.',
			'A genuine gateway sends `response-time` with every signed answer; nothing from this one was used.',
		);
	}
	const echoedClientId = headerValue(response.headers, 'client-id');
	if (echoedClientId !== undefined && echoedClientId !== response.clientId) {
		throw fail(
			'client-id-mismatch',
			"The answer is addressed to another client than the credential's",
			'Check the Base URL and any proxy in between.',
			`It is addressed to client ID "${echoedClientId}", not to "${response.clientId}"; nothing from it was used.`,
		);
	}
	const content = stringToSignParts({
		method: response.method,
		uri: response.uri,
		clientId: response.clientId,
		time: responseTime,
		body: response.body,
	});
	if (!verifyContent(response.publicKey, content, parsed.signature)) {
		throw fail('signature-mismatch', "The answer's signature does not match its body", WRONG_KEYS, ALTERED);
	}
	checkResponseTime(responseTime, response.nowMs, response.toleranceSeconds);
	return { responseTime, keyVersion: parsed.keyVersion, signatureHeader: header, signature: parsed.signature };
}

function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== name) continue;
		if (Array.isArray(value)) return value.length ? String(value[0]) : undefined;
		return value === undefined || value === null ? undefined : String(value);
	}
	return undefined;
}

function fail(reason: VerificationFailure, message: string, hint: string, detail: string) {
	return new ResponseVerificationError(reason, message, hint, detail);
}
