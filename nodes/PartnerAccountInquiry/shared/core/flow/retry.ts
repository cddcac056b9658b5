/**
 * The one retry policy: whoever retries (the request scheduler, for any request) waits
 * `backoffDelay` between attempts. A failure that is no rate limit (network, timeout, 5xx) is
 * retried `RETRY_POLICY.retries` times. A rate limit (REQUEST_TRAFFIC_EXCEED_LIMIT, HTTP 429) asks
 * to call again later: it costs time, not a try, and is retried until the request's pauses add up
 * to its `rateLimitWaitMs`. The pause is injected (n8n's `sleep`), so tests run on a virtual clock.
 */
import { settle } from './settle';

export interface RetryPolicy {
	/** Retries of failures other than rate limits (so 3 means at most 4 such attempts). */
	retries: number;
	/** The pause before the first retry, before jitter; doubled for each further one. */
	baseDelayMs: number;
	maxDelayMs: number;
	/**
	 * The most a request pauses in all (every pause of it added up) while the gateway refuses it
	 * for traffic; the last pause is shortened to end there. The node passes its Timeout option.
	 */
	rateLimitWaitMs: number;
}

export const RETRY_POLICY: RetryPolicy = { retries: 3, baseDelayMs: 250, maxDelayMs: 30_000, rateLimitWaitMs: 30_000 };

interface RetryOptions extends Partial<RetryPolicy> {
	/** Failures worth another try, counted against `retries` (rate limits are asked about first). */
	isRetryable: (error: unknown) => boolean;
	/** Failures worth another try within `rateLimitWaitMs`, whatever their number. */
	isRateLimited?: (error: unknown) => boolean;
	sleep: (ms: number) => Promise<void>;
	random?: () => number;
	/** Ends a pause at once, with no further attempt. */
	signal?: AbortSignal;
	/** Called before each pause: the error, the number of the next attempt and the pause. */
	onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Exponential backoff with "equal jitter": the ceiling base * 2^attempt (capped at maxDelayMs),
 * then a pause between half the ceiling and the ceiling, so that retries of many requests spread
 * out but none comes back at once.
 */
function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
	const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
	return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

export async function withRetries<T>(
	attempt: (attemptNumber: number) => Promise<T>,
	options: RetryOptions,
): Promise<T> {
	const { retries, baseDelayMs, maxDelayMs, rateLimitWaitMs } = { ...RETRY_POLICY, ...definedOnly(options) };
	const random = options.random ?? Math.random;
	let failuresRetried = 0;
	let waitedMs = 0;
	for (let n = 0; ; n++) {
		const outcome = await settle(attempt(n));
		if (outcome.ok) return outcome.value;
		const { error } = outcome;
		const rateLimited = options.isRateLimited?.(error) ?? false;
		if (options.signal?.aborted) throw error;
		if (rateLimited ? waitedMs >= rateLimitWaitMs : failuresRetried >= retries || !options.isRetryable(error)) {
			throw error;
		}
		if (!rateLimited) failuresRetried++;
		const backoff = backoffDelay(n, baseDelayMs, maxDelayMs, random);
		// The last pause of a traffic limit ends when its wait is up: the last call goes out then.
		// At least 1 ms, so that a wait is always used up (a backoff of 0 would call again forever).
		const delay = rateLimited ? Math.min(Math.max(1, backoff), rateLimitWaitMs - waitedMs) : backoff;
		waitedMs += delay;
		options.onRetry?.(error, n + 1, delay);
		await pauseUntilAborted(options.sleep, delay, options.signal);
		if (options.signal?.aborted) throw error;
	}
}

/**
 * The pause, ended at once by the signal: under a traffic limit a pause lasts seconds, and a
 * request whose item, listing or poll has given up must not keep its place in the scheduler that long.
 */
async function pauseUntilAborted(
	sleep: (ms: number) => Promise<void>,
	ms: number,
	signal?: AbortSignal,
): Promise<void> {
	if (!signal) return await sleep(ms);
	await new Promise<void>((resolve) => {
		const end = () => {
			signal.removeEventListener('abort', end);
			resolve();
		};
		signal.addEventListener('abort', end, { once: true });
		void sleep(ms).then(end, end);
	});
}

function definedOnly(options: Partial<RetryPolicy>): Partial<RetryPolicy> {
	const policy: Partial<RetryPolicy> = {};
	if (options.retries !== undefined) policy.retries = options.retries;
	if (options.baseDelayMs !== undefined) policy.baseDelayMs = options.baseDelayMs;
	if (options.maxDelayMs !== undefined) policy.maxDelayMs = options.maxDelayMs;
	if (options.rateLimitWaitMs !== undefined) policy.rateLimitWaitMs = options.rateLimitWaitMs;
	return policy;
}
