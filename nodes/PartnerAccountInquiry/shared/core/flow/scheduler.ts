/**
 * The execution-wide request scheduler: every request of one node execution (the quota calls of
 * all items, the pages of every item's listing) goes through one of these, so the gateway sees one
 * paced, adaptive stream with one traffic budget.
 *
 * - At most `width` requests at once. The width halves when the gateway reports a rate limit
 *   (REQUEST_TRAFFIC_EXCEED_LIMIT, HTTP 429) and grows back by one after a full round of successes.
 * - First attempts are paced (see Pacer): one event loop handles every answer, and answers that
 *   arrive in a burst wait for each other.
 * - Every request follows the one retry policy (retry.ts); a retry leaves after its own backoff
 *   and keeps its place meanwhile. A request refused for traffic is called again until its
 *   pauses add up to its `rateLimitWaitMs`, each refusal halving the width again: while refused
 *   requests wait in their places, few or no new ones start, so the limit can clear.
 * - Requests start in the order they were asked for (first in, first out), so a width of 1 sends
 *   exactly one request after another in that order; a request of a lower `priority` goes before
 *   those of a higher one (a trigger poll finishes the entry it started first before the next).
 * - A request whose signal is aborted before it starts is dropped; once started, its attempt
 *   gets the signal and decides what to do with it.
 */
import { Pacer } from './pacer';
import { withRetries } from './retry';

interface SchedulerOptions {
	/** The most requests at once (1 = one after another). */
	width: number;
	isRateLimited: (error: unknown) => boolean;
	/** Failures worth another try besides rate limits (rate limits always are, within their wait). */
	isRetryable?: (error: unknown) => boolean;
	sleep: (ms: number) => Promise<void>;
	/** A monotonic clock in ms. With it, first attempts are paced; without it, they go as soon as a place is free. */
	now?: () => number;
	random?: () => number;
	/** Retries per request of failures that are no rate limit (RETRY_POLICY's by default). */
	retries?: number;
	/** First pause before a retry (RETRY_POLICY's by default). */
	baseDelayMs?: number;
}

/**
 * Requests at once, of an execution (all its items and pages) or a poll (all its entries): the
 * package's, not an option. Measured as the best round-trip use (docs/benchmark.md); the scheduler
 * halves it by itself on a traffic limit.
 */
export const REQUEST_WIDTH = 8;

export interface SchedulerStats {
	/** Attempts started, retries included. */
	attempts: number;
	/** Attempts answered with a rate limit. */
	rateLimited: number;
	/** Attempts that failed and were tried again. */
	retried: number;
	peakConcurrency: number;
	/** Attempts answered whose round trip was measured (with `now`), and the sum of those round trips in ms. */
	timed: number;
	timedMs: number;
}

export interface RunHooks {
	/** Drops the request if it has not started, is handed to its attempt, and ends its pause. */
	signal?: AbortSignal;
	/** The most this request pauses in all while refused for traffic (RETRY_POLICY's by default). */
	rateLimitWaitMs?: number;
	/** Lower goes first among requests waiting; equal ones in the order asked for (0 by default). */
	priority?: number;
	/** The request leaves the queue (its first attempt starts). */
	onStart?: () => void;
	/** An attempt starts (first or retry). */
	onAttempt?: () => void;
	/** An attempt failed and will be retried after `delayMs`. */
	onRetry?: (error: unknown) => void;
}

interface Task {
	sendOnce: (signal: AbortSignal) => Promise<unknown>;
	hooks: RunHooks;
	signal: AbortSignal;
	onAbort: () => void;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

const NEVER_ABORTED = new AbortController().signal;

export class RequestScheduler {
	readonly stats: SchedulerStats = {
		attempts: 0,
		rateLimited: 0,
		retried: 0,
		peakConcurrency: 0,
		timed: 0,
		timedMs: 0,
	};
	readonly maxWidth: number;
	private width: number;
	private successesAtWidth = 0;
	private active = 0;
	private readonly queue: Task[] = [];
	private readonly pacer?: Pacer;
	/** The due time of the earliest pacing pause pending. */
	private wakeFor = Infinity;

	constructor(private readonly options: SchedulerOptions) {
		this.maxWidth = Math.max(1, Math.floor(options.width));
		this.width = this.maxWidth;
		this.pacer = options.now ? new Pacer(options.now) : undefined;
	}

	/** The requests it runs at once now: its width, halved by a rate limit and grown back by successes. */
	get currentWidth(): number {
		return this.width;
	}

	/** Runs `sendOnce` (one attempt of the request) when its turn comes, with the retry policy; settles with its outcome. */
	async run<T>(sendOnce: (signal: AbortSignal) => Promise<T>, hooks: RunHooks = {}): Promise<T> {
		const signal = hooks.signal ?? NEVER_ABORTED;
		if (signal.aborted) throw abortReason(signal);
		return await new Promise<T>((resolve, reject) => {
			const task: Task = {
				sendOnce,
				hooks,
				signal,
				onAbort: () => this.drop(task),
				resolve: resolve as (value: unknown) => void,
				reject,
			};
			const priority = hooks.priority ?? 0;
			const behind = this.queue.findIndex((waiting) => (waiting.hooks.priority ?? 0) > priority);
			this.queue.splice(behind < 0 ? this.queue.length : behind, 0, task);
			// Not on the shared never-aborted signal: hundreds of queued requests would each add a listener to it.
			if (hooks.signal) signal.addEventListener('abort', task.onAbort, { once: true });
			this.pump();
		});
	}

	private drop(task: Task): void {
		const index = this.queue.indexOf(task);
		if (index < 0) return; // already started: its attempt has the signal
		this.queue.splice(index, 1);
		task.reject(abortReason(task.signal));
		this.pump();
	}

	private pauseUntil(due: number, wait: number): void {
		if (due >= this.wakeFor) return; // an earlier pause is pending, and will pump
		this.wakeFor = due;
		const wake = () => {
			if (this.wakeFor === due) this.wakeFor = Infinity;
			this.pump(due);
		};
		void this.options.sleep(wait).then(wake, wake);
	}

	/** `wokeFor`: the due time whose pause just ended; a request due by then goes, whatever the clock says. */
	private pump(wokeFor = -Infinity): void {
		while (this.active < this.width && this.queue.length > 0) {
			const { pacer } = this;
			if (pacer && pacer.dueAt(this.width) > wokeFor) {
				const wait = pacer.wait(this.width);
				if (wait >= 1) {
					this.pauseUntil(pacer.dueAt(this.width), wait);
					return;
				}
			}
			pacer?.sent();
			this.start(this.queue.shift() as Task);
		}
	}

	private start(task: Task): void {
		const { options, stats } = this;
		task.signal.removeEventListener('abort', task.onAbort);
		this.active++;
		stats.peakConcurrency = Math.max(stats.peakConcurrency, this.active);
		task.hooks.onStart?.();
		withRetries(
			async () => {
				stats.attempts++;
				task.hooks.onAttempt?.();
				const started = options.now?.();
				const value = await task.sendOnce(task.signal);
				// The round trip of this attempt alone: backoff pauses are not the gateway's.
				if (this.pacer && started !== undefined) {
					const roundTrip = (options.now?.() ?? started) - started;
					this.pacer.observe(roundTrip);
					stats.timed++;
					stats.timedMs += roundTrip;
				}
				return value;
			},
			{
				// Unset: RETRY_POLICY's, filled in by withRetries.
				retries: options.retries,
				baseDelayMs: options.baseDelayMs,
				rateLimitWaitMs: task.hooks.rateLimitWaitMs,
				isRateLimited: options.isRateLimited,
				isRetryable: (error) => options.isRetryable?.(error) ?? false,
				sleep: options.sleep,
				random: options.random,
				// The request's own signal, if any: a pause listens to it (see run).
				signal: task.hooks.signal,
				onRetry: (error) => {
					stats.retried++;
					if (options.isRateLimited(error)) {
						stats.rateLimited++;
						this.width = Math.max(1, Math.floor(this.width / 2));
						this.successesAtWidth = 0;
					}
					task.hooks.onRetry?.(error);
				},
			},
		)
			.then(
				(value) => {
					if (++this.successesAtWidth >= this.width && this.width < this.maxWidth) {
						this.width++;
						this.successesAtWidth = 0;
					}
					task.resolve(value);
				},
				(error: unknown) => task.reject(error),
			)
			.finally(() => {
				this.active--;
				this.pump();
			});
	}
}

function abortReason(signal: AbortSignal): unknown {
	return signal.reason ?? new Error('The request was cancelled before it started');
}
