import type { ICredentialDataDecryptedObject, IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { joinUrl } from '../core/api/gateway';
import { privateKeyFrom } from '../core/signing/keys';
import { SIGNED_HEADER_NAMES, signRequest } from '../core/signing/signRequest';
import { readCredentials } from './credentialSettings';

/**
 * The credential's `authenticate`: serialise the body once, sign those bytes, and send those
 * bytes. The returned options carry an absolute URL (base URL path included, query folded in)
 * so that what is signed is exactly what goes on the wire, and a Buffer body that n8n sends
 * unchanged. Used by the node and by n8n's credential test alike.
 */
export async function signRequestOptions(
	data: ICredentialDataDecryptedObject,
	options: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const credentials = readCredentials(data);
	const url = absoluteUrl(options, credentials.baseUrl);
	const body = bodyBytes(options.body);
	const method = options.method ?? 'POST';
	const headers = signRequest({
		method,
		url,
		clientId: credentials.clientId,
		keyVersion: credentials.keyVersion,
		privateKey: privateKeyFrom(credentials.privateKey),
		body,
	});
	const signed: IHttpRequestOptions = {
		...options,
		method,
		url,
		body,
		headers: { ...withoutSignedHeaders(options.headers), ...headers },
	};
	delete signed.baseURL;
	delete signed.qs;
	return signed;
}

function absoluteUrl(options: IHttpRequestOptions, gatewayBaseUrl: string): string {
	const url = new URL(joinUrl(options.baseURL || gatewayBaseUrl, options.url ?? ''));
	for (const [name, value] of Object.entries(options.qs ?? {})) {
		if (value !== undefined && value !== null) url.searchParams.append(name, String(value));
	}
	return url.toString();
}

function bodyBytes(body: IHttpRequestOptions['body']): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	return Buffer.from(JSON.stringify(body ?? {}), 'utf8');
}

const SIGNED_HEADERS: readonly string[] = SIGNED_HEADER_NAMES.map((name) => name.toLowerCase());

/** n8n calls authenticate again with our own output on a 401: replace the signature headers, never add to them. */
function withoutSignedHeaders(headers: IDataObject | undefined): IDataObject {
	const rest: IDataObject = {};
	for (const [name, value] of Object.entries(headers ?? {})) {
		if (!SIGNED_HEADERS.includes(name.toLowerCase())) rest[name] = value;
	}
	return rest;
}
