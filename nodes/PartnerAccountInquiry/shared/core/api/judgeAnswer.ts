/**
 * Judging one raw answer of the gateway, before anything from it is used (docs/api.md): an
 * unsigned failure is only reported; a signed answer must be whole, authentic and current
 * (verifyResponse), valid UTF-8 JSON, and carry a result whose status is S. Pure: the bytes come
 * from the transport, the clock and keys from the session.
 */
import type { KeyObject } from 'node:crypto';

import { ApiResultError, RequestError, TransientError } from '../errors';
import { settleSync } from '../flow/settle';
import { verifyResponse } from '../signing/verifyResponse';
import { parseResponseBody } from './responseBody';
import type { ApiResult } from './resultCodes';

/** What is read of a signed answer at most. A page of 50 beneficiaries is 20 to 60 KiB; a body
 * beyond this (an endless stream, a gzip bomb once inflated) is not read further. */
export const MAX_SIGNED_BODY_BYTES = 8 * 1024 * 1024;
/** An unsigned answer (an HTTP error page, an unsigned failure) is only reported: its start is enough. */
export const MAX_UNSIGNED_BODY_BYTES = 64 * 1024;

/** One answer as it came off the wire. */
export interface RawAnswer {
	status: number;
	headers: Record<string, unknown>;
	/** The body's bytes, at most the cap for its kind. */
	body: Buffer;
	/** There was more than `body`. */
	truncated: boolean;
}

/** What the answer must be checked against: the request it answers, our client, the service's key, now. */
interface AnswerContext {
	uri: string;
	clientId: string;
	publicKey: KeyObject;
	nowMs: number;
	toleranceSeconds: number;
	/**
	 * Redacts a text of the answer before an error quotes a cut of it (core/redaction.ts: the
	 * request's secrets and accounts): a text is redacted whole and cut after, never the other way.
	 */
	redact?: (text: string) => string;
}

/** Whether an answer carries a signature header: it decides how much of its body is read. */
export function isSigned(headers: Record<string, unknown>): boolean {
	return Object.keys(headers).some((name) => name.toLowerCase() === 'signature');
}

/** A verified, fresh, well-formed success. */
export interface JudgedAnswer {
	data: Record<string, unknown>;
	/** The verified response-time and signature: with the body, what proves the answer. */
	responseTime: string;
	signatureHeader: string;
	signature: Buffer;
}

/** The answer's data, when it is a verified, fresh, well-formed success; otherwise the error that says why not. */
export function judgeAnswer(answer: RawAnswer, context: AnswerContext): JudgedAnswer {
	const { status, headers, body: raw, truncated } = answer;
	const { redact = (text: string) => text, ...verifyContext } = context;
	if (!isSigned(headers)) {
		// An unsigned failure is reported (it carries nothing to trust); an unsigned success is refused below.
		const failure = truncated ? undefined : unsignedFailure(raw);
		if (failure) throw new ApiResultError(failure, true);
		if (status === 429 || status >= 500) {
			throw new TransientError(`The gateway answered HTTP ${status}`, snippet(raw, redact), status);
		}
		if (status < 200 || status >= 300) {
			throw new RequestError(
				`The gateway answered HTTP ${status} with no signed API result`,
				'Check the Gateway or Base URL in the credential.',
				status,
				`The body began: ${snippet(raw, redact)}`,
			);
		}
	}
	if (truncated) {
		throw new RequestError(
			`The gateway's answer is larger than ${MAX_SIGNED_BODY_BYTES / 1024 / 1024} MiB, the most this node reads`,
			'Check the Base URL and any proxy in between.',
			undefined,
			'A genuine answer is far smaller (a page of 50 beneficiaries is under 100 KiB); this one was not read further, and nothing from it was used.',
		);
	}
	// A signed answer is judged by its result code whatever the HTTP status (the API defines none).
	const { responseTime, signatureHeader, signature } = verifyResponse({
		method: 'POST',
		headers,
		body: raw,
		...verifyContext,
	});
	const data = parseJson(raw, redact);
	const result = data.result as ApiResult | undefined;
	if (!result || typeof result !== 'object' || typeof result.resultStatus !== 'string') {
		throw new RequestError(
			'The answer carries no API result',
			'Check the Base URL in the credential.',
			undefined,
			'It has no `result` object with a `resultStatus`: the gateway answered something other than this API.',
		);
	}
	if (!RESULT_STATUSES.includes(result.resultStatus)) {
		throw new RequestError(
			'The answer has a result status other than S, F or U',
			'Contact support quoting this message.',
			undefined,
			`Its \`resultStatus\` is ${JSON.stringify(redact(result.resultStatus).slice(0, 20))}; nothing from the answer was used.`,
		);
	}
	if (result.resultStatus !== 'S') throw new ApiResultError(result);
	return { data, responseTime, signatureHeader, signature };
}

const RESULT_STATUSES: readonly string[] = ['S', 'F', 'U'];

function unsignedFailure(raw: Buffer): Record<string, unknown> | undefined {
	const parsed = settleSync((): unknown => JSON.parse(raw.toString('utf8')));
	const result = parsed.ok ? (parsed.value as Record<string, unknown> | null)?.result : undefined;
	if (!result || typeof result !== 'object') return undefined;
	const { resultStatus } = result as Record<string, unknown>;
	return resultStatus === 'F' || resultStatus === 'U' ? (result as Record<string, unknown>) : undefined;
}

function parseJson(raw: Buffer, redact: (text: string) => string): Record<string, unknown> {
	const parsed = parseResponseBody(raw, redact);
	if (!parsed.ok) {
		throw new RequestError(
			parsed.problem,
			'Run the node again; if it persists, check the Base URL in the credential.',
			undefined,
			parsed.detail,
		);
	}
	return parsed.value as Record<string, unknown>;
}

/** The start of an unsigned body, redacted whole before it is cut to 120 characters. */
function snippet(raw: Buffer, redact: (text: string) => string): string {
	const text = redact(raw.subarray(0, 1024).toString('utf8').replace(/\s+/g, ' ').trim());
	return text.length > 120 ? `${text.slice(0, 120)}…` : text || '(empty)';
}
