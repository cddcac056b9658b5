/**
 * Spec 5.3 step 1 (and 5.4 step 1): the content that is signed or verified.
 *
 *   <HTTP-Method> <URI>\n<Client-ID>.<Request-Time>.<Request-Body>
 *
 * - <URI> is the path plus query string as sent, no scheme or host.
 * - <Request-Body> is the body exactly as sent (bytes, never re-serialised).
 * - For a response, <Request-Time> is the `response-time` header and the body is the raw
 *   response body; method and URI stay those of the request.
 */
export interface SigningInput {
	method: string;
	uri: string;
	clientId: string;
	time: string;
	body: Buffer | string;
}

export function buildStringToSign(input: SigningInput): Buffer {
	return Buffer.concat(stringToSignParts(input));
}

/** The same content in two pieces, so that a large response body is hashed where it lies, not copied. */
export function stringToSignParts({ method, uri, clientId, time, body }: SigningInput): [head: Buffer, body: Buffer] {
	const head = `${method.toUpperCase()} ${uri}\n${clientId}.${time}.`;
	return [Buffer.from(head, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body];
}

/**
 * The <URI> of spec 5.3 for a request sent to `baseUrl` + `path`. A base URL may carry a path
 * of its own (`https://host/gw`): it is part of what is sent, so it is part of what is signed.
 */
export function joinUrl(baseUrl: string, path: string): string {
	if (/^https?:\/\//i.test(path)) return path;
	return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export function signingUri(url: string): string {
	const parsed = new URL(url);
	return `${parsed.pathname}${parsed.search}`;
}
