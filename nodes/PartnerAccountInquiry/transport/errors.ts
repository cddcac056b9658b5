import { explainResult, type ApiResult, type ResultExplanation } from '../core/resultCodes';

/** The API answered, verifiably, with status F or U (spec 3 and 7). */
export class ApiResultError extends Error {
	readonly explanation: ResultExplanation;

	/** `unsigned`: an F or U answer that came without a signature (it carries no data to trust). */
	constructor(
		readonly result: ApiResult,
		readonly unsigned = false,
	) {
		const explanation = explainResult(result);
		super(`${explanation.code}${explanation.message ? `: ${explanation.message}` : ''}`);
		if (unsigned) {
			explanation.description +=
				' (The gateway did not sign this failure answer; it carries no data, so it is reported as it came.)';
		}
		this.explanation = explanation;
	}

	get code(): string {
		return this.explanation.code;
	}
}

/** The request did not get an API answer: network error, timeout, HTTP 429 or 5xx. Retryable. */
export class TransientError extends Error {
	constructor(
		message: string,
		readonly detail: string,
		readonly httpCode?: number,
	) {
		super(message);
	}
}

/**
 * A failure that retrying will not fix: an answer we cannot use (unexpected HTTP status,
 * malformed JSON, wrong shape, an answer to another question) or a request n8n could not send.
 */
export class RequestError extends Error {
	constructor(
		message: string,
		readonly hint: string,
		readonly httpCode?: number,
	) {
		super(message);
	}
}

export function isRateLimited(error: unknown): boolean {
	return (
		(error instanceof ApiResultError && error.code === 'REQUEST_TRAFFIC_EXCEED_LIMIT') ||
		(error instanceof TransientError && error.httpCode === 429)
	);
}

/** Network errors, timeouts, HTTP 429 and 5xx, and REQUEST_TRAFFIC_EXCEED_LIMIT: worth another, freshly signed, try. */
export function isTransient(error: unknown): boolean {
	return error instanceof TransientError || isRateLimited(error);
}
