/**
 * docs/api.md, Signing a request: the content that is signed or verified.
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

/** The <URI> that is signed: the path plus query string as sent, without scheme or host. */
export function signingUri(url: string): string {
	const parsed = new URL(url);
	return `${parsed.pathname}${parsed.search}`;
}
