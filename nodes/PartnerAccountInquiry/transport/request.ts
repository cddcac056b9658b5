import type { KeyObject } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, IN8nHttpFullResponse, IPollFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { NUMBER_OPTIONS } from '../core/api/fields';
import { joinUrl } from '../core/api/gateway';
import { parseResponseBody } from '../core/api/responseBody';
import {
	ApiResultError,
	isRateLimited,
	isTransient,
	PartnerError,
	redactError,
	RequestError,
	TransientError,
} from '../core/errors';
import { RequestScheduler } from '../core/flow/scheduler';
import { attempt } from '../core/flow/settle';
import { privateKeyFrom, publicKeyFrom } from '../core/signing/keys';
import { signingUri } from '../core/signing/stringToSign';
import { checkResponseTime } from '../core/signing/timestamps';
import { verifyResponse } from '../core/signing/verifyResponse';
import { CREDENTIAL_TYPE, readCredentials, type PartnerCredentials } from './credentialSettings';

/**
 * What is read of a signed answer at most. A page of 50 beneficiaries is 20 to 60 KiB; a body
 * beyond this (an endless stream, a gzip bomb once inflated) is not read further.
 */
const MAX_SIGNED_BODY_BYTES = 8 * 1024 * 1024;
/** An unsigned answer (an HTTP error page, an unsigned failure) is only reported: its start is enough. */
const MAX_UNSIGNED_BODY_BYTES = 64 * 1024;

export interface CallOptions {
	headers?: IDataObject;
	/** The wall-clock deadline of one attempt in ms, the whole answer included. */
	timeout?: number;
	/** Ends the call at once (its listing's, when another page failed; the item's, when an earlier item failed). */
	signal?: AbortSignal;
	/** Values of the request that must never be shown, even when the gateway echoes them back. */
	secrets?: Array<string | undefined>;
}

/**
 * The execution's connection to the API. Every request goes through its scheduler (one paced,
 * rate-limit aware stream for the whole execution). One request: the body is serialised once;
 * the credential's `authenticate` signs exactly those bytes; the raw response bytes are read
 * within a size cap and a deadline, verified (signature and freshness, docs/api.md) and only then
 * parsed. Transient failures are retried by the scheduler, each attempt freshly signed.
 */
/** The node (action or polling trigger) whose credential and HTTP helper the requests use. */
export type RequestContext = IExecuteFunctions | IPollFunctions;

export class ApiSession {
	private constructor(
		private readonly fn: RequestContext,
		readonly credentials: PartnerCredentials,
		private readonly publicKey: KeyObject,
		readonly scheduler: RequestScheduler,
		private readonly now: () => number,
	) {}

	/**
	 * Reads the credential once per execution and checks both keys before anything is sent.
	 * `width`: the most requests at once for the whole execution.
	 */
	static async open(fn: RequestContext, width: number, now: () => number = Date.now): Promise<ApiSession> {
		const credentials = readCredentials(await fn.getCredentials(CREDENTIAL_TYPE));
		privateKeyFrom(credentials.privateKey);
		const scheduler = new RequestScheduler({
			width,
			isRateLimited,
			isRetryable: isTransient,
			sleep,
			now: () => performance.now(),
		});
		return new ApiSession(fn, credentials, publicKeyFrom(credentials.servicePublicKey), scheduler, now);
	}

	/** One request, scheduled and retried. */
	async call(path: string, body: IDataObject, options: CallOptions = {}): Promise<IDataObject> {
		return await this.scheduler.run((signal) => this.send(path, body, { ...options, signal }), {
			signal: options.signal,
		});
	}

	/** One attempt, now (the caller schedules it): signed, read, verified, parsed; secrets removed from any error. */
	async send(path: string, body: IDataObject, options: CallOptions = {}): Promise<IDataObject> {
		try {
			return await this.attempt(path, body, options);
		} catch (error) {
			throw redactError(
				error,
				(options.secrets ?? []).filter((value): value is string => !!value),
			);
		}
	}

	private async attempt(path: string, body: IDataObject, options: CallOptions): Promise<IDataObject> {
		const url = joinUrl(this.credentials.baseUrl, path);
		const timeout = options.timeout ?? NUMBER_OPTIONS.timeout.default;
		// n8n's helper takes only the execution's own cancel signal, and its timeout is an idle
		// timeout: the deadline and the scheduler's signal are enforced here, around it.
		const deadline = AbortSignal.timeout(timeout);
		const stop = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
		const sent = (
			this.fn.helpers.httpRequestWithAuthentication as IExecuteFunctions['helpers']['httpRequestWithAuthentication']
		).call(this.fn as IExecuteFunctions, CREDENTIAL_TYPE, {
			method: 'POST',
			url,
			body: Buffer.from(JSON.stringify(body), 'utf8'),
			headers: options.headers,
			json: false,
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout,
			// A redirect would carry the signed body, access token and headers to another host.
			disableFollowRedirect: true,
		}) as Promise<IN8nHttpFullResponse>;
		const response = await untilStopped(sent, stop, deadline, timeout);
		const status = response.statusCode;
		const headers = (response.headers ?? {}) as Record<string, unknown>;
		const signed = Object.keys(headers).some((name) => name.toLowerCase() === 'signature');
		const { bytes: raw, truncated } = await readBody(
			response.body,
			signed ? MAX_SIGNED_BODY_BYTES : MAX_UNSIGNED_BODY_BYTES,
			stop,
			deadline,
			timeout,
		);
		if (!signed) {
			// An unsigned failure is reported (it carries nothing to trust); an unsigned success is refused below.
			const failure = truncated ? undefined : unsignedFailure(raw);
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
		if (truncated) {
			throw new RequestError(
				`The gateway's answer is larger than ${MAX_SIGNED_BODY_BYTES / 1024 / 1024} MiB, the most this node reads; it was not read further`,
				'A genuine answer is far smaller (a page of 50 beneficiaries is under 100 KiB). Check the Base URL and any proxy in between; nothing from this answer was used.',
			);
		}
		// A signed answer is judged by its result code whatever the HTTP status (the API defines none).
		const { responseTime } = verifyResponse({
			method: 'POST',
			uri: signingUri(url),
			clientId: this.credentials.clientId,
			headers,
			body: raw,
			publicKey: this.publicKey,
		});
		checkResponseTime(responseTime, this.now(), this.credentials.responseTimeToleranceSeconds);
		const data = parseJson(raw);
		const result = data.result as IDataObject | undefined;
		if (!result || typeof result !== 'object' || typeof result.resultStatus !== 'string') {
			throw new RequestError(
				'The response has no result object with a resultStatus',
				'The gateway answered something other than this API: check the Base URL.',
			);
		}
		if (!RESULT_STATUSES.includes(result.resultStatus)) {
			throw new RequestError(
				`The response is malformed: its resultStatus is ${JSON.stringify(result.resultStatus.slice(0, 20))}, not S, F or U`,
				'The answer does not follow the API, so it was not used. Contact support quoting this message.',
			);
		}
		if (result.resultStatus !== 'S') throw new ApiResultError(result);
		return data;
	}
}

const RESULT_STATUSES: readonly string[] = ['S', 'F', 'U'];

/** The part of a Node stream this reads (the helper's `encoding: 'stream'` body). */
interface BodyStream {
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	destroy(error?: Error): unknown;
}

function isStream(body: unknown): body is BodyStream {
	return !!body && typeof (body as BodyStream).on === 'function' && typeof (body as BodyStream).destroy === 'function';
}

function stoppedError(deadline: AbortSignal, timeout: number): Error {
	return deadline.aborted
		? new TransientError(`No answer from the gateway: the request timed out (${timeout} ms)`, 'ETIMEDOUT')
		: new TransientError('The request was cancelled', 'ERR_CANCELED');
}

/** The helper's answer, unless `stop` fires first; an answer that comes later has its body closed. */
async function untilStopped(
	sent: Promise<IN8nHttpFullResponse>,
	stop: AbortSignal,
	deadline: AbortSignal,
	timeout: number,
): Promise<IN8nHttpFullResponse> {
	return await new Promise((resolve, reject) => {
		let settled = false;
		const onStop = () => {
			if (settled) return;
			settled = true;
			reject(stoppedError(deadline, timeout));
		};
		if (stop.aborted) onStop();
		else stop.addEventListener('abort', onStop, { once: true });
		sent.then(
			(response) => {
				stop.removeEventListener('abort', onStop);
				if (settled) {
					if (isStream(response?.body)) response.body.destroy();
					return;
				}
				settled = true;
				resolve(response);
			},
			(error: unknown) => {
				stop.removeEventListener('abort', onStop);
				if (settled) return;
				settled = true;
				reject(networkError(error));
			},
		);
	});
}

/**
 * The body's bytes, at most `limit` of them (`truncated` when there were more), read before
 * `stop` fires. Reading ends, and the connection is closed, at the cap, the deadline or the stop.
 * A connection that drops mid-body is a transient failure.
 */
async function readBody(
	body: unknown,
	limit: number,
	stop: AbortSignal,
	deadline: AbortSignal,
	timeout: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
	if (!isStream(body)) {
		const bytes = rawBody(body);
		return bytes.length > limit ? { bytes: bytes.subarray(0, limit), truncated: true } : { bytes, truncated: false };
	}
	return await new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let settled = false;
		const settle = (finish: () => void) => {
			if (settled) return;
			settled = true;
			stop.removeEventListener('abort', onStop);
			finish();
		};
		const onStop = () => {
			body.destroy();
			settle(() => reject(stoppedError(deadline, timeout)));
		};
		body.on('data', (chunk: unknown) => {
			if (settled) return;
			const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
			if (size + bytes.length > limit) {
				chunks.push(bytes.subarray(0, limit - size));
				body.destroy();
				settle(() => resolve({ bytes: Buffer.concat(chunks), truncated: true }));
				return;
			}
			size += bytes.length;
			chunks.push(bytes);
		});
		body.on('end', () => settle(() => resolve({ bytes: Buffer.concat(chunks, size), truncated: false })));
		body.on('error', (error: unknown) => settle(() => reject(midBodyError(error))));
		body.on('close', () => settle(() => reject(midBodyError(undefined))));
		if (stop.aborted) onStop();
		else stop.addEventListener('abort', onStop, { once: true });
	});
}

function midBodyError(error: unknown): Error {
	const code = (error as { code?: unknown } | undefined)?.code;
	if (code === 'ERR_CANCELED' || code === 'ECONNABORTED') {
		return new TransientError('No answer from the gateway: the request timed out', 'ETIMEDOUT');
	}
	return new TransientError(
		'No answer from the gateway: the connection closed in the middle of the answer',
		typeof code === 'string' ? code : 'ECONNRESET',
	);
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
	const text = raw.subarray(0, 1024).toString('utf8').replace(/\s+/g, ' ').trim();
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
		if (/SSRF|restricted IP/i.test(message)) {
			return new RequestError(
				`The request could not be sent: n8n's SSRF protection blocked it (${message})`,
				"n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) refuses addresses in private and loopback ranges. If the gateway or your proxy is meant to be there, add its address range to N8N_SSRF_ALLOWED_IP_RANGES and restart n8n.",
			);
		}
		// Not a network failure (a header value n8n refused, ...): retrying would not help.
		return new RequestError(
			`The request could not be sent: ${message}`,
			"Check the Base URL, the Customer ID and Connected Account ID (they are sent as headers), and n8n's network settings.",
		);
	}
	// No raw code such as ECONNRESET in the message: NodeApiError would swap the whole message for its generic text.
	return new TransientError(`No answer from the gateway: ${NETWORK_CODES[code]}`, code);
}
