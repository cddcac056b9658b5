import type { KeyObject } from 'node:crypto';

import { formatRequestTime } from './timestamps';
import { formatSignatureHeader } from './signatureHeader';
import { signContent } from './rsa';
import { buildStringToSign, signingUri } from './stringToSign';

const CONTENT_TYPE = 'application/json; charset=UTF-8';

export interface SignRequestInput {
	method: string;
	/** The absolute URL the request goes to; its path and query are what is signed. */
	url: string;
	clientId: string;
	keyVersion: string;
	privateKey: KeyObject;
	/** The exact bytes that will be sent. */
	body: Buffer;
	requestTime?: string;
}

/** The headers signing sets; whatever else a request carries is left as it is. */
export const SIGNED_HEADER_NAMES = ['Content-Type', 'Client-Id', 'Request-Time', 'Signature'] as const;

export type SignedHeaders = Record<(typeof SIGNED_HEADER_NAMES)[number], string>;

/** Signing a request end to end (docs/api.md): the headers that go with `body` to `url`. */
export function signRequest(input: SignRequestInput): SignedHeaders {
	const requestTime = input.requestTime ?? formatRequestTime();
	const content = buildStringToSign({
		method: input.method,
		uri: signingUri(input.url),
		clientId: input.clientId,
		time: requestTime,
		body: input.body,
	});
	return {
		'Content-Type': CONTENT_TYPE,
		'Client-Id': input.clientId,
		'Request-Time': requestTime,
		Signature: formatSignatureHeader(input.keyVersion, signContent(input.privateKey, content)),
	};
}
