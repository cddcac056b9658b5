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
	'Check that the Service Public Key in the credential is the one the service gave for this gateway and client ID. If it is, the response was altered on its way (a proxy that rewrites bodies, or an attack): do not use its data.';

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
			'The response carries no signature header, so it cannot be verified',
			'A genuine gateway signs every response. Check the base URL: it may point at a proxy or a server that is not the partner gateway.',
		);
	}
	let parsed;
	try {
		parsed = parseSignatureHeader(header);
	} catch (error) {
		const why = error instanceof PartnerError ? error.message : 'it could not be parsed';
		throw fail('malformed-signature', `The response signature could not be verified: ${why}`, WRONG_KEYS);
	}
	if (parsed.algorithm.toUpperCase() !== DEFAULT_ALGORITHM) {
		throw fail(
			'unsupported-algorithm',
			`The response is signed with algorithm "${parsed.algorithm}", which is not supported (expected ${DEFAULT_ALGORITHM})`,
			'Contact the service: responses are expected to be signed with RSA256.',
		);
	}
	const responseTime = headerValue(response.headers, 'response-time');
	if (responseTime === undefined || responseTime === '') {
		throw fail(
			'missing-response-time',
			'The response carries no response-time header, so its signature cannot be verified',
			'A genuine gateway sends response-time with every signed response. Check the base URL.',
		);
	}
	const echoedClientId = headerValue(response.headers, 'client-id');
	if (echoedClientId !== undefined && echoedClientId !== response.clientId) {
		throw fail(
			'client-id-mismatch',
			`The response is addressed to client ID "${echoedClientId}", not to this credential's "${response.clientId}"`,
			'The response belongs to another client: do not use its data. Check the base URL and any proxy in between.',
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
		throw fail(
			'signature-mismatch',
			'The response signature could not be verified: it does not match the response body',
			WRONG_KEYS,
		);
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

function fail(reason: VerificationFailure, message: string, hint: string) {
	return new ResponseVerificationError(reason, message, hint);
}
