/**
 * The wire: one POST through n8n's HTTP helper (so n8n's proxy, TLS and SSRF settings apply), its
 * answer read as a stream within a size cap and a wall-clock deadline. Nothing here judges an
 * answer (core/api/judgeAnswer.ts does); network failures become the package's errors.
 */
import type { IDataObject, IExecuteFunctions, IN8nHttpFullResponse, IPollFunctions } from 'n8n-workflow';

import { isSigned, MAX_SIGNED_BODY_BYTES, MAX_UNSIGNED_BODY_BYTES, type RawAnswer } from '../core/api/judgeAnswer';
import { PartnerError, RequestError, TransientError } from '../core/errors';
import { CREDENTIAL_TYPE } from './credentialSettings';

/** The node (action or polling trigger) whose credential and HTTP helper the requests use. */
export type RequestContext = IExecuteFunctions | IPollFunctions;

export interface Exchange {
	url: string;
	/** The exact bytes to send: the credential's `authenticate` signs these. */
	body: Buffer;
	headers?: IDataObject;
	/** The wall-clock deadline of the whole exchange in ms, the answer's body included. */
	timeout: number;
	/** Ends the exchange at once. */
	signal?: AbortSignal;
}

/** Sends one signed POST and reads its answer: the status, the headers and the body's bytes (capped). */
export async function exchange(fn: RequestContext, request: Exchange): Promise<RawAnswer> {
	const { url, body, headers, timeout } = request;
	// n8n's helper takes only the execution's own cancel signal, and its timeout is an idle
	// timeout: the deadline and the scheduler's signal are enforced here, around it.
	const deadline = AbortSignal.timeout(timeout);
	const stop = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
	const sent = (
		fn.helpers.httpRequestWithAuthentication as IExecuteFunctions['helpers']['httpRequestWithAuthentication']
	).call(fn as IExecuteFunctions, CREDENTIAL_TYPE, {
		method: 'POST',
		url,
		body,
		headers,
		json: false,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout,
		// A redirect would carry the signed body, access token and headers to another host.
		disableFollowRedirect: true,
	}) as Promise<IN8nHttpFullResponse>;
	return await readAnswer(sent, stop, deadline, timeout);
}

/** What n8n's helpers resolve with a full response: `httpRequest`'s, and the legacy `request`'s (resolveWithFullResponse). */
export interface HelperResponse {
	statusCode: number;
	headers?: unknown;
	/** A stream (`encoding: 'stream'`, the legacy helper's `useStream`), or the body whole. */
	body: unknown;
}

/**
 * The answer a helper's request gives, read before `stop` fires: the status, the headers and at
 * most the cap of its kind of the body (signed 8 MiB, unsigned 64 KiB). At the cap, the deadline or
 * the stop the body's stream is destroyed, which closes the connection: nothing more is read. An
 * answer whose headers come after `stop` has its stream destroyed as it arrives. A run's exchange
 * and the credential's Test (credentialTest.ts) both read their answers here.
 */
export async function readAnswer(
	sent: Promise<HelperResponse>,
	stop: AbortSignal,
	deadline: AbortSignal,
	timeout: number,
): Promise<RawAnswer> {
	const response = await untilStopped(sent, stop, deadline, timeout);
	const answerHeaders = (response.headers ?? {}) as Record<string, unknown>;
	const { bytes, truncated } = await readBody(
		response.body,
		isSigned(answerHeaders) ? MAX_SIGNED_BODY_BYTES : MAX_UNSIGNED_BODY_BYTES,
		stop,
		deadline,
		timeout,
	);
	return { status: response.statusCode, headers: answerHeaders, body: bytes, truncated };
}

/** The part of a Node stream this reads (the helper's `encoding: 'stream'` body). */
interface BodyStream {
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	destroy(error?: Error): unknown;
}

function isStream(body: unknown): body is BodyStream {
	return !!body && typeof (body as BodyStream).on === 'function' && typeof (body as BodyStream).destroy === 'function';
}

/** Why a request stopped: its deadline (a timeout, retried as transient) or a cancel. */
export function stoppedError(deadline: AbortSignal, timeout: number): Error {
	return deadline.aborted
		? new TransientError(`No answer from the gateway: the request timed out (${timeout} ms)`, 'ETIMEDOUT')
		: new TransientError('The request was cancelled', 'ERR_CANCELED');
}

/** The helper's answer, unless `stop` fires first; an answer that comes later has its body closed. */
async function untilStopped(
	sent: Promise<HelperResponse>,
	stop: AbortSignal,
	deadline: AbortSignal,
	timeout: number,
): Promise<HelperResponse> {
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

/** A body n8n's helper handed over whole (not a stream) as its bytes; a parsed body cannot be verified. */
export function rawBody(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	if (body === undefined || body === null) return Buffer.alloc(0);
	throw new RequestError(
		'The answer arrived already parsed, so its signature cannot be checked',
		'Report this as a bug: https://github.com/partner-account-inquiry/n8n-nodes-partner-account-inquiry/issues',
	);
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
				"The request could not be sent: n8n's SSRF protection blocked it",
				"Ask your n8n administrator to allow the gateway's address range in n8n's SSRF protection settings.",
				undefined,
				`It refuses private and loopback addresses unless they are allowed (n8n said: ${message})`,
			);
		}
		// Not a network failure (a header value n8n refused, ...): retrying would not help.
		return new RequestError(
			`The request could not be sent: ${message}`,
			'Check the Base URL and the Connected Account ID (it is sent as a header), then run again.',
		);
	}
	// No raw code such as ECONNRESET in the message: NodeApiError would swap the whole message for its generic text.
	return new TransientError(`No answer from the gateway: ${NETWORK_CODES[code]}`, code);
}
