import type { KeyObject } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, IN8nHttpFullResponse } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { NUMBER_OPTIONS } from '../core/api/fields';
import { joinUrl } from '../core/api/gateway';
import { parseResponseBody } from '../core/api/responseBody';
import {
	ApiResultError,
	isTransient,
	PartnerError,
	RequestError,
	TransientError,
} from '../core/errors';
import { withRetries } from '../core/flow/retry';
import { attempt } from '../core/flow/settle';
import { privateKeyFrom, publicKeyFrom } from '../core/signing/keys';
import { signingUri } from '../core/signing/stringToSign';
import { verifyResponse } from '../core/signing/verifyResponse';
import { CREDENTIAL_TYPE, readCredentials, type PartnerCredentials } from './credentialSettings';

export interface CallOptions {
	headers?: IDataObject;
	timeout?: number;
	signal?: AbortSignal;
	/** Retries of transient failures here; 0 when the caller (the page pool) retries itself. */
	retries?: number;
}

/**
 * One signed, verified API call. The body is serialised here, once; the credential's
 * `authenticate` signs exactly those bytes; the raw response bytes are verified (spec 5.4)
 * before they are parsed. Transient failures are retried, each attempt freshly signed.
 */
export class ApiSession {
	private constructor(
		private readonly fn: IExecuteFunctions,
		readonly credentials: PartnerCredentials,
		private readonly publicKey: KeyObject,
	) {}

	/** Reads the credential once per execution and checks both keys before anything is sent. */
	static async open(fn: IExecuteFunctions): Promise<ApiSession> {
		const credentials = readCredentials(await fn.getCredentials(CREDENTIAL_TYPE));
		privateKeyFrom(credentials.privateKey);
		return new ApiSession(fn, credentials, publicKeyFrom(credentials.servicePublicKey));
	}

	async call(path: string, body: IDataObject, options: CallOptions = {}): Promise<IDataObject> {
		return await withRetries(() => this.callOnce(path, body, options), {
			retries: options.retries,
			isRetryable: isTransient,
			sleep,
			signal: options.signal,
		});
	}

	private async callOnce(path: string, body: IDataObject, options: CallOptions): Promise<IDataObject> {
		const url = joinUrl(this.credentials.baseUrl, path);
		let response: IN8nHttpFullResponse;
		try {
			response = (await this.fn.helpers.httpRequestWithAuthentication.call(this.fn, CREDENTIAL_TYPE, {
				method: 'POST',
				url,
				body: Buffer.from(JSON.stringify(body), 'utf8'),
				headers: options.headers,
				json: false,
				encoding: 'arraybuffer',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: options.timeout ?? NUMBER_OPTIONS.timeout.default,
				// A redirect would carry the signed body, access token and headers to another host.
				disableFollowRedirect: true,
				abortSignal: options.signal,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			throw networkError(error);
		}
		const raw = rawBody(response.body);
		const status = response.statusCode;
		const headers = (response.headers ?? {}) as Record<string, unknown>;
		const hasSignature = Object.keys(headers).some((name) => name.toLowerCase() === 'signature');
		if (!hasSignature) {
			// Like the 2026 SDKs: an unsigned failure is reported (it carries nothing to trust); an unsigned success is refused below.
			const failure = unsignedFailure(raw);
			if (failure) throw new ApiResultError(failure, true);
			if (status === 429 || status >= 500) {
				throw new TransientError(`The gateway answered HTTP ${status}`, snippet(raw), status);
			}
			if (status < 200 || status >= 300) {
				throw new RequestError(
					`The gateway answered HTTP ${status} with no signed API result`,
					`Check the Gateway or Base URL in the credential. The body began: ${snippet(raw)}`,
					status,
				);
			}
		}
		// A signed answer is judged by its result code whatever the HTTP status (the spec defines none).
		verifyResponse({
			method: 'POST',
			uri: signingUri(url),
			clientId: this.credentials.clientId,
			headers,
			body: raw,
			publicKey: this.publicKey,
		});
		const data = parseJson(raw);
		const result = data.result as IDataObject | undefined;
		if (!result || typeof result !== 'object' || typeof result.resultStatus !== 'string') {
			throw new RequestError(
				'The response has no result object with a resultStatus',
				'The gateway answered something other than this API: check the Base URL.',
			);
		}
		if (result.resultStatus !== 'S') throw new ApiResultError(result);
		return data;
	}
}

function unsignedFailure(raw: Buffer): IDataObject | undefined {
	const parsed = attempt((): unknown => JSON.parse(raw.toString('utf8')));
	const result = parsed.ok ? (parsed.value as IDataObject | null)?.result : undefined;
	if (!result || typeof result !== 'object') return undefined;
	const { resultStatus } = result as IDataObject;
	return resultStatus === 'F' || resultStatus === 'U' ? (result as IDataObject) : undefined;
}

function rawBody(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	if (body === undefined || body === null) return Buffer.alloc(0);
	throw new RequestError(
		'The response body arrived already parsed, so its signature cannot be checked',
		'Report this as a bug of the node.',
	);
}

function parseJson(raw: Buffer): IDataObject {
	const parsed = parseResponseBody(raw);
	if (!parsed.ok) {
		throw new RequestError(
			parsed.problem,
			'The gateway sent a broken or unexpected response; try again, then check the Base URL or contact support.',
		);
	}
	return parsed.value as IDataObject;
}

function snippet(raw: Buffer): string {
	const text = raw.toString('utf8').replace(/\s+/g, ' ').trim();
	return text.length > 120 ? `${text.slice(0, 120)}…` : text || '(empty)';
}

const NETWORK_CODES: Record<string, string> = {
	ECONNRESET: 'the connection was reset',
	ECONNREFUSED: 'the connection was refused',
	ECONNABORTED: 'the request timed out',
	ETIMEDOUT: 'the request timed out',
	ESOCKETTIMEDOUT: 'the request timed out',
	EPIPE: 'the connection was closed',
	ENOTFOUND: 'the gateway host name could not be resolved',
	EAI_AGAIN: 'the gateway host name could not be resolved',
	EHOSTUNREACH: 'the gateway host is unreachable',
	ENETUNREACH: 'the network is unreachable',
	ERR_CANCELED: 'the request was cancelled',
};

/** n8n wraps transport failures (in a NodeApiError); find the network code wherever it sits. */
export function networkError(error: unknown): Error {
	if (error instanceof PartnerError) return error;
	const codes: string[] = [];
	const seen = new Set<unknown>();
	const visit = (value: unknown, depth: number) => {
		if (!value || typeof value !== 'object' || seen.has(value) || depth > 4) return;
		seen.add(value);
		const record = value as Record<string, unknown>;
		for (const key of ['code', 'httpCode', 'errno'])
			if (typeof record[key] === 'string') codes.push(record[key] as string);
		for (const key of ['cause', 'error', 'context']) visit(record[key], depth + 1);
	};
	visit(error, 0);
	const message = error instanceof Error ? error.message : String(error);
	const code = codes.find((c) => c in NETWORK_CODES) ?? (/timeout/i.test(message) ? 'ETIMEDOUT' : undefined);
	if (code === 'ERR_CANCELED') return new TransientError('The request was cancelled', code);
	if (!code) {
		// Not a network failure (a header value n8n refused, a blocked address, ...): retrying would not help.
		return new RequestError(
			`The request could not be sent: ${message}`,
			"Check the Base URL, the Customer ID and Connected Account ID (they are sent as headers), and n8n's network settings.",
		);
	}
	// No raw code such as ECONNRESET in the message: NodeApiError would swap the whole message for its generic text.
	return new TransientError(`No answer from the gateway: ${NETWORK_CODES[code]}`, code);
}
