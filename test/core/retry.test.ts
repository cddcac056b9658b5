import fc from 'fast-check';

import { withRetries } from '../../nodes/PartnerAccountInquiry/shared/core/flow/retry';
import { rejection } from '../fixtures/async';

class Retryable extends Error {}
class Fatal extends Error {}
/** A traffic limit (REQUEST_TRAFFIC_EXCEED_LIMIT): retried within a wait, not a count. */
class Limited extends Error {}

/** A fake pause that records what it was asked to wait, and resolves at once. */
function recordingSleep(onSleep?: (ms: number) => void) {
	const delays: number[] = [];
	const sleep = async (ms: number) => {
		delays.push(ms);
		onSleep?.(ms);
	};
	return { delays, sleep };
}

/** An attempt function that plays a script: an Error is thrown, anything else is returned. */
function scripted<T>(script: Array<T | Error>) {
	const calls: number[] = [];
	const attempt = async (n: number): Promise<T> => {
		calls.push(n);
		const step = script[Math.min(calls.length - 1, script.length - 1)];
		if (step instanceof Error) throw step;
		return step;
	};
	return { calls, attempt };
}

type RetryOptions = Parameters<typeof withRetries>[1];

function options(overrides: Partial<RetryOptions> & Pick<RetryOptions, 'sleep'>): RetryOptions {
	return {
		retries: 3,
		isRetryable: (error) => error instanceof Retryable,
		baseDelayMs: 100,
		random: () => 0.5,
		...overrides,
	};
}

describe('withRetries', () => {
	it('returns the first success without pausing', async () => {
		const { delays, sleep } = recordingSleep();
		const { calls, attempt } = scripted(['ok']);
		await expect(withRetries(attempt, options({ sleep }))).resolves.toBe('ok');
		expect(calls).toEqual([0]);
		expect(delays).toEqual([]);
	});

	it('retries retryable errors and returns the first success, numbering the attempts from 0', async () => {
		const { delays, sleep } = recordingSleep();
		const { calls, attempt } = scripted<string>([
			new Retryable('1'),
			new Retryable('2'),
			'third time',
			'never reached',
		]);
		await expect(withRetries(attempt, options({ sleep }))).resolves.toBe('third time');
		expect(calls).toEqual([0, 1, 2]);
		expect(delays).toHaveLength(2);
	});

	it('waits the backoff of attempt n (base * 2^n, jittered by random) before retry n + 1', async () => {
		const { delays, sleep } = recordingSleep();
		const { attempt } = scripted<string>([new Retryable('a'), new Retryable('b'), new Retryable('c'), 'done']);
		const random = () => 0.25;
		await withRetries(attempt, options({ sleep, random, baseDelayMs: 200, maxDelayMs: 10_000 }));
		// ceilings 200, 400, 800 -> half plus a quarter of the other half
		expect(delays).toEqual([125, 250, 500]);
	});

	it('retries at most `retries` times, then throws the last error', async () => {
		const { delays, sleep } = recordingSleep();
		const errors = [new Retryable('1'), new Retryable('2'), new Retryable('3'), new Retryable('4'), new Retryable('5')];
		const { calls, attempt } = scripted(errors);
		const error = await rejection(withRetries(attempt, options({ sleep, retries: 3 })));
		expect(error).toBe(errors[3]);
		expect(calls).toEqual([0, 1, 2, 3]);
		expect(delays).toEqual([75, 150, 300]);
	});

	it('with retries 0 makes a single attempt', async () => {
		const { delays, sleep } = recordingSleep();
		const failure = new Retryable('once');
		const { calls, attempt } = scripted([failure, 'unreached']);
		await expect(withRetries(attempt, options({ sleep, retries: 0 }))).rejects.toBe(failure);
		expect(calls).toEqual([0]);
		expect(delays).toEqual([]);
	});

	it('does not retry an error that is not retryable', async () => {
		const { delays, sleep } = recordingSleep();
		const fatal = new Fatal('no');
		const { calls, attempt } = scripted([fatal, 'unreached']);
		await expect(withRetries(attempt, options({ sleep }))).rejects.toBe(fatal);
		expect(calls).toEqual([0]);
		expect(delays).toEqual([]);
	});

	it('stops at the first non-retryable error after some retryable ones', async () => {
		const { delays, sleep } = recordingSleep();
		const fatal = new Fatal('stop');
		const { calls, attempt } = scripted<string>([new Retryable('1'), fatal, 'unreached']);
		await expect(withRetries(attempt, options({ sleep, retries: 5 }))).rejects.toBe(fatal);
		expect(calls).toEqual([0, 1]);
		expect(delays).toEqual([75]);
	});

	it('asks isRetryable about each error, including non-Error values', async () => {
		const { sleep } = recordingSleep();
		const seen: unknown[] = [];
		const { attempt } = scripted<string>([new Retryable('x'), 'ok']);
		const thrower = async (n: number) => {
			if (n === 0) throw 'a string';
			return attempt(n);
		};
		await expect(withRetries(thrower, options({ sleep, isRetryable: (e) => (seen.push(e), true) }))).resolves.toBe(
			'ok',
		);
		expect(seen).toEqual(['a string', expect.any(Retryable)]);
	});

	it('calls onRetry with the error, the number of the next attempt and the delay', async () => {
		const { delays, sleep } = recordingSleep();
		const errors = [new Retryable('1'), new Retryable('2')];
		const { attempt } = scripted<string>([...errors, 'ok']);
		const onRetry = jest.fn();
		await withRetries(attempt, options({ sleep, onRetry }));
		expect(onRetry.mock.calls).toEqual([
			[errors[0], 1, delays[0]],
			[errors[1], 2, delays[1]],
		]);
	});

	it('throws the first failure without retrying when the signal is already aborted', async () => {
		const { delays, sleep } = recordingSleep();
		const controller = new AbortController();
		controller.abort();
		const failure = new Retryable('x');
		const { calls, attempt } = scripted([failure, 'unreached']);
		await expect(withRetries(attempt, options({ sleep, signal: controller.signal }))).rejects.toBe(failure);
		expect(calls).toEqual([0]);
		expect(delays).toEqual([]);
	});

	it('makes no further attempt when the signal is aborted during a pause', async () => {
		const controller = new AbortController();
		const { delays, sleep } = recordingSleep(() => {
			if (delays.length === 2) controller.abort();
		});
		const errors = [new Retryable('1'), new Retryable('2'), new Retryable('3')];
		const { calls, attempt } = scripted<string>([...errors, 'unreached']);
		const error = await rejection(withRetries(attempt, options({ sleep, retries: 10, signal: controller.signal })));
		expect(error).toBe(errors[1]);
		expect(calls).toEqual([0, 1]);
		expect(delays).toHaveLength(2);
	});

	it('ignores a signal that is never aborted', async () => {
		const { sleep } = recordingSleep();
		const { calls, attempt } = scripted<string>([new Retryable('1'), 'ok']);
		await expect(withRetries(attempt, options({ sleep, signal: new AbortController().signal }))).resolves.toBe('ok');
		expect(calls).toEqual([0, 1]);
	});

	it('caps the delay at 30 s by default', async () => {
		const { delays, sleep } = recordingSleep();
		const { attempt } = scripted<string>([...Array.from({ length: 8 }, () => new Retryable('x')), 'ok']);
		await withRetries(attempt, {
			retries: 8,
			isRetryable: () => true,
			sleep,
			baseDelayMs: 1000,
			random: () => 0.999999,
		});
		expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
	});

	it('honours maxDelayMs', async () => {
		const { delays, sleep } = recordingSleep();
		const { attempt } = scripted<string>([new Retryable('1'), new Retryable('2'), new Retryable('3'), 'ok']);
		await withRetries(attempt, options({ sleep, baseDelayMs: 100, maxDelayMs: 250, random: () => 0.999999 }));
		expect(delays).toEqual([100, 200, 250]);
	});

	it('uses Math.random when no random is given, within the jitter bounds', async () => {
		const { delays, sleep } = recordingSleep();
		const { attempt } = scripted<string>([new Retryable('1'), new Retryable('2'), new Retryable('3'), 'ok']);
		await withRetries(attempt, { retries: 3, isRetryable: () => true, sleep, baseDelayMs: 1000, maxDelayMs: 3000 });
		const ceilings = [1000, 2000, 3000];
		delays.forEach((delay, n) => {
			expect(delay).toBeGreaterThanOrEqual(ceilings[n] / 2);
			expect(delay).toBeLessThanOrEqual(ceilings[n]);
		});
	});

	it('makes exactly min(failures, retries) + 1 attempts (property)', async () => {
		await fc.assert(
			fc.asyncProperty(fc.nat({ max: 8 }), fc.nat({ max: 8 }), fc.boolean(), async (failures, retries, fatalAtEnd) => {
				const { delays, sleep } = recordingSleep();
				const script: Array<string | Error> = Array.from({ length: failures }, (_, i) => new Retryable(String(i)));
				script.push(fatalAtEnd ? new Fatal('end') : 'ok');
				const { calls, attempt } = scripted(script);
				let result: unknown;
				try {
					result = await withRetries(attempt, options({ sleep, retries }));
				} catch (error) {
					result = error;
				}
				if (failures > retries) {
					expect(calls).toHaveLength(retries + 1);
					expect(result).toBe(script[retries]);
				} else {
					expect(calls).toHaveLength(failures + 1);
					expect(result).toBe(fatalAtEnd ? script[failures] : 'ok');
				}
				expect(delays).toHaveLength(calls.length - 1);
			}),
			{ numRuns: 300 },
		);
	});
});

describe('withRetries under a traffic limit', () => {
	const limited = (overrides: Partial<RetryOptions> & Pick<RetryOptions, 'sleep'>) =>
		options({ isRateLimited: (error) => error instanceof Limited, ...overrides });

	it('outlasts a limit longer than four attempts with the default wait (30 s of pauses)', async () => {
		const { delays, sleep } = recordingSleep();
		const { calls, attempt } = scripted<string>([...Array.from({ length: 6 }, () => new Limited('busy')), 'ok']);
		await expect(
			withRetries(attempt, {
				isRetryable: () => false,
				isRateLimited: (e) => e instanceof Limited,
				sleep,
				random: () => 0.5,
			}),
		).resolves.toBe('ok');
		expect(calls).toHaveLength(7);
		expect(delays).toEqual([188, 375, 750, 1500, 3000, 6000]);
	});

	it('calls again until its pauses add up to rateLimitWaitMs, the last one shortened to end there, whatever `retries` says', async () => {
		const { delays, sleep } = recordingSleep();
		const last = new Limited('still busy');
		const { calls, attempt } = scripted<string>([new Limited('1'), new Limited('2'), new Limited('3'), last]);
		const error = await rejection(withRetries(attempt, limited({ sleep, retries: 0, rateLimitWaitMs: 1000 })));
		expect(error).toBe(last);
		// 75 + 150 + 300 = 525; the next, 600, is cut to the 475 left.
		expect(delays).toEqual([75, 150, 300, 475]);
		expect(calls).toHaveLength(5);
	});

	it('with rateLimitWaitMs 0 makes a single attempt', async () => {
		const { delays, sleep } = recordingSleep();
		const refusal = new Limited('busy');
		const { calls, attempt } = scripted([refusal, 'unreached']);
		await expect(withRetries(attempt, limited({ sleep, rateLimitWaitMs: 0 }))).rejects.toBe(refusal);
		expect(calls).toEqual([0]);
		expect(delays).toEqual([]);
	});

	it('uses its wait up even when the backoff is 0 (each pause at least 1 ms)', async () => {
		const { delays, sleep } = recordingSleep();
		const { calls, attempt } = scripted<string>([new Limited('busy')]);
		await rejection(withRetries(attempt, limited({ sleep, baseDelayMs: 0, rateLimitWaitMs: 3 })));
		expect(delays).toEqual([1, 1, 1]);
		expect(calls).toHaveLength(4);
	});

	it('spends none of the retries of other failures, which keep their count', async () => {
		const { sleep } = recordingSleep();
		const fourth = new Retryable('4');
		const script = [
			new Retryable('1'),
			new Limited('a'),
			new Retryable('2'),
			new Limited('b'),
			new Retryable('3'),
			fourth,
		];
		const { calls, attempt } = scripted<string>([...script, 'unreached']);
		await expect(withRetries(attempt, limited({ sleep, retries: 3, rateLimitWaitMs: 60_000 }))).rejects.toBe(fourth);
		expect(calls).toHaveLength(6);
	});

	it('counts the pauses after other failures in its wait', async () => {
		const { delays, sleep } = recordingSleep();
		const { calls, attempt } = scripted<string>([new Retryable('1'), new Retryable('2'), new Limited('busy')]);
		await rejection(withRetries(attempt, limited({ sleep, rateLimitWaitMs: 600 })));
		expect(delays).toEqual([75, 150, 300, 75]);
		expect(calls).toHaveLength(5);
	});

	it('ends a pause at once when the signal is aborted during it, and makes no further attempt', async () => {
		const controller = new AbortController();
		const refusal = new Limited('busy');
		const { calls, attempt } = scripted([refusal, 'unreached']);
		// A pause that never ends on its own, during which the item fails: only the signal can end it.
		const sleep = () => {
			controller.abort(new Error('the item failed'));
			return new Promise<void>(() => undefined);
		};
		await expect(withRetries(attempt, limited({ sleep, signal: controller.signal }))).rejects.toBe(refusal);
		expect(calls).toEqual([0]);
	});

	it('never pauses longer in all than its wait, and stops only when it is spent (property)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.nat({ max: 40 }),
				fc.integer({ min: 0, max: 60_000 }),
				fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
				async (refusals, wait, r) => {
					const { delays, sleep } = recordingSleep();
					const script: Array<string | Error> = Array.from({ length: refusals }, () => new Limited('busy'));
					const { calls, attempt } = scripted([...script, 'ok']);
					const outcome = await withRetries(
						attempt,
						limited({ sleep, baseDelayMs: 250, random: () => r, rateLimitWaitMs: wait }),
					).catch((error: unknown) => error);
					const waited = delays.reduce((a, b) => a + b, 0);
					expect(waited).toBeLessThanOrEqual(wait);
					if (outcome === 'ok') expect(calls).toHaveLength(refusals + 1);
					else expect(waited).toBe(wait);
				},
			),
			{ numRuns: 500 },
		);
	});
});

/**
 * The pauses withRetries makes after the first `count` attempts fail (attempt n's pause first), for
 * a base, a cap and a random: the backoff as the policy applies it.
 */
async function pauses(count: number, baseDelayMs: number, maxDelayMs: number, r: number): Promise<number[]> {
	const { delays, sleep } = recordingSleep();
	const attempt = async (n: number) => {
		if (n < count) throw new Retryable(String(n));
		return n;
	};
	await withRetries(attempt, {
		retries: count,
		isRetryable: (e) => e instanceof Retryable,
		baseDelayMs,
		maxDelayMs,
		random: () => r,
		sleep,
	});
	return delays;
}
/** The pause after attempt `n` fails. */
const backoffDelay = async (n: number, base: number, max: number, r: number) => (await pauses(n + 1, base, max, r))[n];

describe('the backoff between attempts', () => {
	it('grows exponentially from the base', async () => {
		expect(await pauses(5, 100, 1e9, 0)).toEqual([50, 100, 200, 400, 800]);
		expect(await pauses(5, 100, 1e9, 0.5)).toEqual([75, 150, 300, 600, 1200]);
	});

	it('spans half the ceiling to the ceiling as random goes from 0 to 1', async () => {
		expect(await backoffDelay(3, 250, 1e9, 0)).toBe(1000);
		expect(await backoffDelay(3, 250, 1e9, 0.999999)).toBe(2000);
	});

	it('respects maxDelayMs', async () => {
		expect(await backoffDelay(10, 100, 5000, 0)).toBe(2500);
		expect(await backoffDelay(10, 100, 5000, 0.999999)).toBe(5000);
		expect(await backoffDelay(1000, 100, 5000, 0.5)).toBe(3750);
	});

	it('returns whole milliseconds', async () => {
		expect(await backoffDelay(0, 3, 1000, 0)).toBe(2);
		expect(await backoffDelay(0, 3, 1000, 0.3)).toBe(2);
	});

	const random01 = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

	it('stays within [ceiling / 2, ceiling] and never exceeds maxDelayMs (property)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.nat({ max: 60 }),
				fc.integer({ min: 1, max: 10_000 }),
				fc.integer({ min: 1, max: 10_000_000 }),
				random01,
				async (attempt, base, max, r) => {
					const ceiling = Math.min(max, base * 2 ** attempt);
					const delay = await backoffDelay(attempt, base, max, r);
					expect(Number.isInteger(delay)).toBe(true);
					expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
					expect(delay).toBeLessThanOrEqual(ceiling);
					expect(delay).toBeLessThanOrEqual(max);
				},
			),
			{ numRuns: 5000 },
		);
	});

	it('never shrinks from one attempt to the next for the same random (property)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.nat({ max: 40 }),
				fc.integer({ min: 1, max: 10_000 }),
				fc.integer({ min: 1, max: 10_000_000 }),
				random01,
				async (attempt, base, max, r) => {
					const delays = await pauses(attempt + 2, base, max, r);
					expect(delays[attempt + 1]).toBeGreaterThanOrEqual(delays[attempt]);
				},
			),
			{ numRuns: 2000 },
		);
	});

	it('doubles until the cap (property)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.nat({ max: 20 }),
				fc.integer({ min: 2, max: 1000 }).map((b) => b * 2),
				async (attempt, base) => {
					const delays = await pauses(attempt + 2, base, Number.MAX_SAFE_INTEGER, 0);
					expect(delays[attempt + 1]).toBe(2 * delays[attempt]);
				},
			),
			{ numRuns: 500 },
		);
	});
});
