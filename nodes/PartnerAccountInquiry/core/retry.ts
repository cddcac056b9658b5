import { settle } from './settle';

/** Retries with exponential backoff and full jitter; the pause is injected (n8n's `sleep`). */
export interface RetryOptions {
	retries: number;
	isRetryable: (error: unknown) => boolean;
	sleep: (ms: number) => Promise<void>;
	baseDelayMs: number;
	maxDelayMs?: number;
	random?: () => number;
	signal?: AbortSignal;
	onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
	const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
	return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

export async function withRetries<T>(
	attempt: (attemptNumber: number) => Promise<T>,
	options: RetryOptions,
): Promise<T> {
	const random = options.random ?? Math.random;
	for (let n = 0; ; n++) {
		const outcome = await settle(attempt(n));
		if (outcome.ok) return outcome.value;
		const { error } = outcome;
		if (n >= options.retries || options.signal?.aborted || !options.isRetryable(error)) throw error;
		const delay = backoffDelay(n, options.baseDelayMs, options.maxDelayMs ?? 30_000, random);
		options.onRetry?.(error, n + 1, delay);
		await options.sleep(delay);
		if (options.signal?.aborted) throw error;
	}
}
