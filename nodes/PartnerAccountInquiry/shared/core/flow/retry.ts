/**
 * The one retry policy: whoever retries (the request scheduler, for any request) waits
 * `backoffDelay` between attempts and gives up after `RETRY_POLICY.retries` retries. The pause is
 * injected (n8n's `sleep`), so tests run on a virtual clock.
 */
import { settle } from './settle';

export interface RetryPolicy {
	/** Retries after the first attempt (so 3 means at most 4 attempts). */
	retries: number;
	/** The pause before the first retry, before jitter; doubled for each further one. */
	baseDelayMs: number;
	maxDelayMs: number;
}

export const RETRY_POLICY: RetryPolicy = { retries: 3, baseDelayMs: 250, maxDelayMs: 30_000 };

export interface RetryOptions extends Partial<RetryPolicy> {
	isRetryable: (error: unknown) => boolean;
	sleep: (ms: number) => Promise<void>;
	random?: () => number;
	signal?: AbortSignal;
	/** Called before each pause: the error, the number of the next attempt and the pause. */
	onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Exponential backoff with "equal jitter": the ceiling base * 2^attempt (capped at maxDelayMs),
 * then a pause between half the ceiling and the ceiling, so that retries of many requests spread
 * out but none comes back at once.
 */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
	const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
	return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

export async function withRetries<T>(
	attempt: (attemptNumber: number) => Promise<T>,
	options: RetryOptions,
): Promise<T> {
	const { retries, baseDelayMs, maxDelayMs } = { ...RETRY_POLICY, ...definedOnly(options) };
	const random = options.random ?? Math.random;
	for (let n = 0; ; n++) {
		const outcome = await settle(attempt(n));
		if (outcome.ok) return outcome.value;
		const { error } = outcome;
		if (n >= retries || options.signal?.aborted || !options.isRetryable(error)) throw error;
		const delay = backoffDelay(n, baseDelayMs, maxDelayMs, random);
		options.onRetry?.(error, n + 1, delay);
		await options.sleep(delay);
		if (options.signal?.aborted) throw error;
	}
}

function definedOnly(options: Partial<RetryPolicy>): Partial<RetryPolicy> {
	const policy: Partial<RetryPolicy> = {};
	if (options.retries !== undefined) policy.retries = options.retries;
	if (options.baseDelayMs !== undefined) policy.baseDelayMs = options.baseDelayMs;
	if (options.maxDelayMs !== undefined) policy.maxDelayMs = options.maxDelayMs;
	return policy;
}
