/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only tests */
import fc from 'fast-check';

import { readListing, type Page } from '../../nodes/PartnerAccountInquiry/shared/core/flow/paging';
import { RequestScheduler } from '../../nodes/PartnerAccountInquiry/shared/core/flow/scheduler';
import { rejection } from '../fixtures/async';
import {
	fakeGateway as fakeListingGateway,
	isRateLimited,
	items,
	keyOf,
	pageOf,
	range,
	RateLimited,
	readWith,
	wait,
	type Item,
} from '../fixtures/listing';

class Transient extends Error {}

/** Lets queued microtasks and promise chains run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A fake gateway whose answers the test releases one by one: every attempt waits on a deferred
 * that the test resolves or rejects, so what is in flight at each moment is exact.
 */
function fakeGateway() {
	const pending: Array<{ name: string; resolve: (v: string) => void; reject: (e: unknown) => void }> = [];
	const started: string[] = [];
	let inFlight = 0;
	let peak = 0;
	return {
		started,
		pending,
		get inFlight() {
			return inFlight;
		},
		get peak() {
			return peak;
		},
		attempt(name: string) {
			return async () => {
				started.push(name);
				inFlight++;
				peak = Math.max(peak, inFlight);
				try {
					return await new Promise<string>((resolve, reject) => pending.push({ name, resolve, reject }));
				} finally {
					inFlight--;
				}
			};
		},
		/** Answers the oldest attempt still waiting named `name` (any if omitted). */
		answer(name?: string, error?: unknown) {
			const index = name === undefined ? 0 : pending.findIndex((p) => p.name === name);
			if (index < 0) throw new Error(`no attempt of ${name} is waiting`);
			const [entry] = pending.splice(index, 1);
			if (error === undefined) entry.resolve(`answer ${entry.name}`);
			else entry.reject(error);
		},
	};
}

type SchedulerOptions = ConstructorParameters<typeof RequestScheduler>[0];

function scheduler(options: Partial<SchedulerOptions> = {}) {
	const pauses: number[] = [];
	const instance = new RequestScheduler({
		width: 4,
		isRateLimited: (error) => error instanceof RateLimited,
		isRetryable: (error) => error instanceof Transient,
		sleep: async (ms) => {
			pauses.push(ms);
		},
		random: () => 1,
		...options,
	});
	return { instance, pauses };
}

describe('RequestScheduler', () => {
	it('runs at most its width at once and starts requests in the order they were asked for', async () => {
		const gateway = fakeGateway();
		const { instance } = scheduler({ width: 3 });
		const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
		const results = names.map((name) => instance.run(gateway.attempt(name)));
		await settle();
		expect(gateway.started).toEqual(['a', 'b', 'c']);
		gateway.answer('b');
		await settle();
		expect(gateway.started).toEqual(['a', 'b', 'c', 'd']);
		while (gateway.pending.length) {
			gateway.answer();
			await settle();
		}
		expect(await Promise.all(results)).toEqual(names.map((n) => `answer ${n}`));
		expect(gateway.started).toEqual(names);
		expect(gateway.peak).toBe(3);
		expect(instance.stats).toMatchObject({ attempts: 7, rateLimited: 0, retried: 0, peakConcurrency: 3 });
	});

	it('a waiting request of a lower priority goes first; equal priorities keep the order asked for', async () => {
		const gateway = fakeGateway();
		const { instance } = scheduler({ width: 1 });
		// A trigger poll's entries: the one started first (priority 0) finishes before later ones advance.
		const asked: Array<[string, number]> = [
			['a', 2],
			['b', 1],
			['c', 2],
			['d', 0],
			['e', 1],
		];
		const results = asked.map(([name, priority]) => instance.run(gateway.attempt(name), { priority }));
		while (gateway.pending.length) {
			gateway.answer();
			await settle();
		}
		await Promise.all(results);
		// 'a' was alone when asked for; then the lowest first, and asked order among equals.
		expect(gateway.started).toEqual(['a', 'd', 'b', 'e', 'c']);
	});

	it('with width 1 sends one request after another, in order', async () => {
		const gateway = fakeGateway();
		const { instance } = scheduler({ width: 1 });
		const results = ['x', 'y', 'z'].map((name) => instance.run(gateway.attempt(name)));
		for (const expected of [['x'], ['x', 'y'], ['x', 'y', 'z']]) {
			await settle();
			expect(gateway.started).toEqual(expected);
			expect(gateway.inFlight).toBe(1);
			gateway.answer();
		}
		await Promise.all(results);
		expect(gateway.peak).toBe(1);
	});

	it('halves its width on a rate limit and grows back by one after a full round of successes', async () => {
		const gateway = fakeGateway();
		const { instance, pauses } = scheduler({ width: 4 });
		const results = Array.from({ length: 12 }, (_, i) => instance.run(gateway.attempt(`r${i}`)));
		await settle();
		expect(gateway.inFlight).toBe(4);
		// r0 is refused: the width halves to 2, r0 keeps its place while it waits and is tried again.
		gateway.answer('r0', new RateLimited());
		await settle();
		expect(instance.stats.rateLimited).toBe(1);
		expect(pauses).toEqual([250]);
		expect(gateway.started.filter((n) => n === 'r0')).toHaveLength(2);
		// Four are in flight (r0 again, r1-r3): nothing new starts while two or more are.
		gateway.answer('r1');
		await settle();
		expect(gateway.started).toHaveLength(5);
		expect(gateway.inFlight).toBe(3);
		// A second success at width 2 is a full round: the width grows to 3, and with two in
		// flight (r0, r3) one more starts.
		gateway.answer('r2');
		await settle();
		expect(gateway.started.slice(5)).toEqual(['r4']);
		expect(gateway.inFlight).toBe(3);
		while (gateway.pending.length) {
			gateway.answer();
			await settle();
		}
		expect(await Promise.all(results)).toHaveLength(12);
		expect(gateway.started.filter((n) => n !== 'r0')).toEqual(Array.from({ length: 11 }, (_, i) => `r${i + 1}`));
	});

	it('retries a retryable failure after the policy pause, and gives up after the policy retries', async () => {
		let calls = 0;
		const { instance, pauses } = scheduler({ width: 2 });
		const failing = instance.run(async () => {
			calls++;
			throw new Transient('connection reset');
		});
		expect(await rejection(failing)).toBeInstanceOf(Transient);
		expect(calls).toBe(4);
		expect(pauses).toEqual([250, 500, 1000]);
		expect(instance.stats).toMatchObject({ attempts: 4, retried: 3, rateLimited: 0 });
	});

	it('does not retry a failure that is neither a rate limit nor retryable', async () => {
		let calls = 0;
		const { instance, pauses } = scheduler();
		const error = new Error('signature mismatch');
		const failing = instance.run(async () => {
			calls++;
			throw error;
		});
		expect(await rejection(failing)).toBe(error);
		expect(calls).toBe(1);
		expect(pauses).toEqual([]);
	});

	it('drops a request whose signal is aborted before it starts, and lets the others run', async () => {
		const gateway = fakeGateway();
		const { instance } = scheduler({ width: 1 });
		const controller = new AbortController();
		const first = instance.run(gateway.attempt('first'));
		const dropped = instance.run(gateway.attempt('dropped'), { signal: controller.signal });
		const last = instance.run(gateway.attempt('last'));
		await settle();
		controller.abort(new Error('the item failed'));
		expect(((await rejection(dropped)) as Error).message).toBe('the item failed');
		gateway.answer();
		await settle();
		gateway.answer();
		expect(await Promise.all([first, last])).toEqual(['answer first', 'answer last']);
		expect(gateway.started).toEqual(['first', 'last']);
	});

	it('refuses at once a request whose signal is already aborted', async () => {
		const gateway = fakeGateway();
		const { instance } = scheduler();
		const controller = new AbortController();
		controller.abort(new Error('cancelled'));
		expect(
			((await rejection(instance.run(gateway.attempt('never'), { signal: controller.signal }))) as Error).message,
		).toBe('cancelled');
		expect(gateway.started).toEqual([]);
	});

	it('calls a request refused for traffic again for its rateLimitWaitMs, whatever its retries', async () => {
		let calls = 0;
		const { instance, pauses } = scheduler({ width: 2, retries: 0 });
		const refused = instance.run(
			async () => {
				calls++;
				throw new RateLimited();
			},
			{ rateLimitWaitMs: 1000 },
		);
		expect(await rejection(refused)).toBeInstanceOf(RateLimited);
		// 250 + 500 = 750; the next pause, 1000, is cut to the 250 left.
		expect(pauses).toEqual([250, 500, 250]);
		expect(calls).toBe(4);
		expect(instance.stats).toMatchObject({ attempts: 4, retried: 3, rateLimited: 3 });
	});

	it('ends the pause of a refused request at once when its signal is aborted, and frees its place', async () => {
		const gateway = fakeGateway();
		// Pauses that never end on their own.
		const { instance } = scheduler({ width: 1, sleep: () => new Promise<void>(() => undefined) });
		const controller = new AbortController();
		const refused = instance.run(gateway.attempt('refused'), { signal: controller.signal });
		const next = instance.run(gateway.attempt('next'));
		await settle();
		gateway.answer('refused', new RateLimited());
		await settle();
		expect(gateway.started).toEqual(['refused']);
		controller.abort(new Error('the item failed'));
		expect(await rejection(refused)).toBeInstanceOf(RateLimited);
		await settle();
		expect(gateway.started).toEqual(['refused', 'next']);
		gateway.answer('next');
		expect(await next).toBe('answer next');
	});

	it('adds no abort listener per queued request when it is given no signal', async () => {
		// Hundreds of queued requests would each add one to a single shared signal (a leak warning).
		const added = jest.spyOn(EventTarget.prototype, 'addEventListener');
		try {
			const gateway = fakeGateway();
			const { instance } = scheduler({ width: 1 });
			const results = Array.from({ length: 50 }, (_, i) => instance.run(gateway.attempt(`r${i}`)));
			for (let i = 0; i < 50; i++) {
				await settle();
				gateway.answer();
			}
			expect(await Promise.all(results)).toHaveLength(50);
			expect(added.mock.contexts.filter((target: unknown) => target instanceof AbortSignal)).toEqual([]);
		} finally {
			added.mockRestore();
		}
	});

	it('paces first attempts over the fastest round trip seen, divided by its width', async () => {
		let clock = 0;
		const starts: number[] = [];
		const sleeps: number[] = [];
		const instance = new RequestScheduler({
			width: 2,
			isRateLimited: () => false,
			now: () => clock,
			sleep: async (ms) => {
				sleeps.push(ms);
				clock += ms;
			},
		});
		// Each attempt takes 100 ms on the fake clock; after the first answer the scheduler knows it.
		const attempt = async () => {
			starts.push(clock);
			await settle();
			clock += 100;
		};
		await instance.run(attempt);
		await Promise.all([instance.run(attempt), instance.run(attempt), instance.run(attempt)]);
		// Round trip 100 ms at width 2: at most one start per 50 ms.
		for (let i = 2; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(50);
		expect(sleeps.length).toBeGreaterThan(0);
	});
});

// Reading a listing through the scheduler: what the scheduler does to the pages of a listing
// (width, rate limits, retries, pacing). Paging itself is tested in paging.test.ts.

/**
 * A virtual clock: `sleep` and the fake gateway's latency are timers on it, and `run` advances it
 * from timer to timer, letting every promise settle in between. Timing is exact, nothing waits.
 */
function virtualTime() {
	let now = 0;
	const timers: Array<{ at: number; fire: () => void }> = [];
	const sleep = (ms: number) =>
		new Promise<void>((resolve) => {
			timers.push({ at: now + ms, fire: resolve });
		});
	async function run<T>(promise: Promise<T>): Promise<T> {
		let done = false;
		const watched = promise.finally(() => {
			done = true;
		});
		watched.catch(() => undefined); // the caller sees the rejection below
		await settle();
		while (!done && timers.length > 0) {
			timers.sort((a, b) => a.at - b.at);
			const next = timers.shift() as { at: number; fire: () => void };
			now = Math.max(now, next.at);
			next.fire();
			await settle();
		}
		return await watched;
	}
	return { now: () => now, sleep, run };
}

describe('reading a listing through the scheduler', () => {
	describe('width', () => {
		it.each([
			[2.7, 2],
			[0, 1],
			[-3, 1],
		])('treats width %p as %i', async (width, effective) => {
			const all = items(60);
			const gateway = fakeListingGateway({ pageSize: 5, listing: () => all, delayMs: () => 2 });
			const { items: got, stats } = await readWith(gateway, 5, { width }).promise;
			expect(got).toEqual(all);
			expect(gateway.log.peakInFlight).toBe(effective);
			expect(stats.peakConcurrency).toBe(effective);
		});
	});

	describe('rate limits (REQUEST_TRAFFIC_EXCEED_LIMIT)', () => {
		/** A gateway whose answers the test releases one by one. */
		function manualGateway(all: Item[], pageSize: number) {
			const pending: Array<{ page: number; done: boolean; resolve: () => void; reject: (error: unknown) => void }> = [];
			const fetchPage = (pageNumber: number) =>
				new Promise<Page<Item>>((resolve, reject) => {
					const entry = {
						page: pageNumber,
						done: false,
						resolve: () => {
							entry.done = true;
							resolve(pageOf(all, pageSize, pageNumber));
						},
						reject: (error: unknown) => {
							entry.done = true;
							reject(error);
						},
					};
					pending.push(entry);
				});
			const open = (page: number) => {
				const entry = pending.find((e) => e.page === page && !e.done);
				if (!entry) throw new Error(`page ${page} is not in flight`);
				return entry;
			};
			return { pending, fetchPage, open, started: () => pending.map((e) => e.page) };
		}
		const settleAll = () => wait(0);

		async function startFourWide(rateLimitPage2: boolean) {
			const all = items(12);
			const gateway = manualGateway(all, 1);
			const sleeps: number[] = [];
			const promise = readListing<Item>({
				fetchPage: gateway.fetchPage,
				pageSize: 1,
				keyOf,
				scheduler: new RequestScheduler({
					width: 4,
					isRateLimited,
					sleep: async (ms) => {
						sleeps.push(ms);
					},
					random: () => 0.5,
				}),
			});
			await settleAll();
			expect(gateway.started()).toEqual([1]);
			gateway.open(1).resolve();
			await settleAll();
			expect(gateway.started()).toEqual([1, 2, 3, 4, 5]);
			if (rateLimitPage2) {
				gateway.open(2).reject(new RateLimited());
				await settleAll();
				// Page 2 is asked again after the pause, in the same slot.
				expect(gateway.started()).toEqual([1, 2, 3, 4, 5, 2]);
				expect(sleeps).toEqual([188]);
			}
			return { all, gateway, promise, sleeps };
		}

		async function finish(gateway: ReturnType<typeof manualGateway>, promise: Promise<unknown>) {
			let done = false;
			promise.then(
				() => (done = true),
				() => (done = true),
			);
			for (let guard = 0; !done && guard < 200; guard++) {
				gateway.pending.filter((e) => !e.done).forEach((e) => e.resolve());
				await settleAll();
			}
			expect(done).toBe(true);
		}

		it('without a rate limit, a finished page makes room for the next one at once (control)', async () => {
			const { all, gateway, promise } = await startFourWide(false);
			gateway.open(3).resolve();
			await settleAll();
			expect(gateway.started()).toEqual([1, 2, 3, 4, 5, 6]);
			await finish(gateway, promise);
			expect((await promise).items).toEqual(all);
		});

		it('halves the width after a rate limit, then grows it back by one after a round of successes', async () => {
			const { all, gateway, promise } = await startFourWide(true);
			// In flight: 2 (retry), 4, 5. Width 4 would start page 6 now; width 2 does not.
			gateway.open(3).resolve();
			await settleAll();
			expect(gateway.started()).toEqual([1, 2, 3, 4, 5, 2]);
			// Two successes at width 2 grow it to 3: with 2 in flight, exactly one new page starts.
			gateway.open(4).resolve();
			await settleAll();
			expect(gateway.started()).toEqual([1, 2, 3, 4, 5, 2, 6]);
			await finish(gateway, promise);
			const { items: got, stats } = await promise;
			expect(got).toEqual(all);
			expect(stats.retries).toBe(1);
			// 12 pages and the retry, then the 12 pages again: the confirming read.
			expect(stats.requests).toBe(12 + 1 + 12);
			expect(stats.rereads).toBe(1);
		});

		it('retries a rate-limited page with doubling pauses and still returns everything once', async () => {
			const all = items(30);
			const limitedCalls = new Map<number, number>();
			const gateway = fakeListingGateway({
				pageSize: 3,
				listing: () => all,
				delayMs: (page) => 1 + (page % 3),
				fail: (page) => {
					// Pages 4 and 7 are refused three times, page 9 once.
					const seen = limitedCalls.get(page) ?? 0;
					const times = page === 4 || page === 7 ? 3 : page === 9 ? 1 : 0;
					if (seen < times) {
						limitedCalls.set(page, seen + 1);
						return new RateLimited();
					}
					return undefined;
				},
			});
			const { promise, sleeps } = readWith(gateway, 3, { width: 4, baseDelayMs: 100 });
			const { items: got, stats } = await promise;
			expect(got).toEqual(all);
			expect(stats.retries).toBe(7);
			// 10 pages, 7 retries, and the confirming read's 10 pages (no longer refused).
			expect(stats.requests).toBe(10 + 7 + 10);
			expect(gateway.log.calls.filter((p) => p === 4)).toHaveLength(4 + 1);
			expect(gateway.log.peakInFlight).toBeLessThanOrEqual(4);
			// the one retry policy: between half and all of base * 2^attempt; random 0.5 gives three quarters
			expect([...sleeps].sort((a, b) => a - b)).toEqual([75, 75, 75, 150, 150, 300, 300]);
		});

		it('retries a rate-limited page 1', async () => {
			const all = items(8);
			let refused = 0;
			const gateway = fakeListingGateway({
				pageSize: 4,
				listing: () => all,
				fail: (page) => (page === 1 && refused++ < 2 ? new RateLimited() : undefined),
			});
			const { promise, sleeps } = readWith(gateway, 4);
			const { items: got, stats } = await promise;
			expect(got).toEqual(all);
			// Page 1 twice refused, then page 2; then the confirming read.
			expect(gateway.log.calls).toEqual([1, 1, 1, 2, 1, 2]);
			expect(sleeps).toEqual([188, 375]);
			expect(stats.retries).toBe(2);
		});

		it('gives up once the page has waited its time, whatever its retries, and passes the rate-limit error on', async () => {
			const all = items(20);
			const marker = new RateLimited();
			const gateway = fakeListingGateway({
				pageSize: 5,
				listing: () => all,
				fail: (page) => (page === 3 ? marker : undefined),
			});
			const { promise, sleeps } = readWith(gateway, 5, { width: 1, retries: 0, rateLimitWaitMs: 1000 });
			expect(await rejection(promise)).toBe(marker);
			// 188 + 375 = 563 ms waited; the next pause, 750, is cut to the 437 left.
			expect(sleeps).toEqual([188, 375, 437]);
			expect(gateway.log.calls.filter((p) => p === 3)).toHaveLength(4);
			// Not a changed listing: nothing is read again.
			expect(gateway.log.calls.filter((p) => p === 1)).toHaveLength(1);
			expect(gateway.log.calls).not.toContain(4);
		});

		it('returns everything once under random rate limits (property)', async () => {
			await fc.assert(
				fc.asyncProperty(
					fc.integer({ min: 1, max: 60 }),
					fc.integer({ min: 1, max: 8 }),
					fc.integer({ min: 1, max: 6 }),
					fc.array(fc.boolean(), { minLength: 1, maxLength: 13 }),
					fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 7 }),
					async (n, size, concurrency, limitPattern, delays) => {
						const all = items(n);
						const refusals = new Map<number, number>();
						const gateway = fakeListingGateway({
							pageSize: size,
							listing: () => all,
							delayMs: (_p, call) => delays[call % delays.length],
							// Up to 3 refusals for a page, as the pattern says (the default policy allows 3 retries).
							fail: (page) => {
								const k = refusals.get(page) ?? 0;
								if (k < 3 && limitPattern[(page + k) % limitPattern.length]) {
									refusals.set(page, k + 1);
									return new RateLimited();
								}
								return undefined;
							},
						});
						const { items: got, stats } = await readWith(gateway, size, { width: concurrency }).promise;
						expect(got).toEqual(all);
						expect(gateway.log.peakInFlight).toBeLessThanOrEqual(concurrency);
						expect(stats.requests).toBe(gateway.log.calls.length);
						// Each page once a read; a listing of several pages is read twice (confirmed).
						const pages = Math.ceil(n / size);
						expect(stats.requests - stats.retries).toBe(pages > 1 ? 2 * pages : pages);
					},
				),
				{ numRuns: 100 },
			);
		});
	});

	describe('a rate-limited page after another page failed', () => {
		const boom = new Error('HTTP 500 from the gateway');

		it('does not retry a rate-limited page once another page has failed', async () => {
			const all = items(20);
			const gateway = fakeListingGateway({
				pageSize: 5,
				listing: () => all,
				delayMs: (page) => (page === 2 ? 1 : 5),
				fail: (page) => (page === 2 ? boom : page === 3 ? new RateLimited() : undefined),
			});
			const sleeps: number[] = [];
			const error = await rejection(
				readListing<Item>({
					fetchPage: gateway.fetchPage,
					pageSize: 5,
					keyOf,
					scheduler: new RequestScheduler({
						width: 3,
						isRateLimited,
						sleep: async (ms) => {
							sleeps.push(ms);
						},
					}),
				}),
			);
			expect(error).toBe(boom);
			// Page 3 was refused after the abort: no pause, no second request.
			expect(gateway.log.calls.filter((p) => p === 3)).toHaveLength(1);
			expect(sleeps).toEqual([]);
		});

		it('abandons a rate-limited page whose pause ends after another page failed', async () => {
			const all = items(20);
			let releasePause: () => void = () => undefined;
			const gateway = fakeListingGateway({
				pageSize: 5,
				listing: () => all,
				delayMs: (page) => (page === 2 ? 0 : 3),
				fail: (page, call) => (page === 2 && call === 1 ? new RateLimited() : page === 3 ? boom : undefined),
			});
			const promise = readListing<Item>({
				fetchPage: gateway.fetchPage,
				pageSize: 5,
				keyOf,
				scheduler: new RequestScheduler({
					width: 3,
					isRateLimited,
					sleep: () =>
						new Promise<void>((resolve) => {
							releasePause = resolve;
						}),
				}),
			});
			const outcome = rejection(promise);
			// Wait until page 3 has failed; page 2 is in its pause meanwhile.
			for (let i = 0; i < 400 && gateway.log.failures === 0; i++) await wait(5);
			expect(gateway.log.failures).toBe(1);
			expect(gateway.log.calls.filter((p) => p === 2)).toHaveLength(1);
			releasePause();
			expect(await outcome).toBe(boom);
			expect(gateway.log.calls.filter((p) => p === 2)).toHaveLength(1);
		});
	});

	describe('pacing (with a clock)', () => {
		type Clock = ReturnType<typeof virtualTime>;

		/** A gateway on the virtual clock: page `n` answers `latency(n)` ms after it was asked for, or throws `fail(n)`. */
		function pacedGateway(
			clock: Clock,
			all: Item[],
			latency: (page: number) => number,
			fail?: (page: number) => unknown,
		) {
			const sent: Array<{ page: number; at: number }> = [];
			const fetchPage = async (pageNumber: number): Promise<Page<Item>> => {
				sent.push({ page: pageNumber, at: clock.now() });
				await clock.sleep(latency(pageNumber));
				const error = fail?.(pageNumber);
				if (error !== undefined) throw error;
				return pageOf(all, 5, pageNumber);
			};
			return { fetchPage, sent, times: () => sent.map((s) => s.at) };
		}

		/** The gateway's answer REQUEST_TRAFFIC_EXCEED_LIMIT, once, to the first request for `target`. */
		function refuseOnce(target: number) {
			let refused = false;
			return (page: number) => {
				if (page !== target || refused) return undefined;
				refused = true;
				return new RateLimited();
			};
		}

		const readPaced = (
			clock: Clock,
			gateway: ReturnType<typeof pacedGateway>,
			scheduling: Partial<SchedulerOptions> = {},
		) =>
			readListing<Item>({
				fetchPage: gateway.fetchPage,
				pageSize: 5,
				keyOf,
				scheduler: new RequestScheduler({
					width: 4,
					isRateLimited,
					sleep: clock.sleep,
					now: clock.now,
					random: () => 0.5,
					...scheduling,
				}),
			});

		it('spreads requests over the round trip instead of sending a burst, and reads every item once', async () => {
			const clock = virtualTime();
			const all = items(100);
			const gateway = pacedGateway(clock, all, () => 40);
			const { items: got } = await clock.run(readPaced(clock, gateway));
			expect(got).toEqual(all);
			// Page 1 takes 40 ms; then one request every 40 / 4 = 10 ms, each place in the scheduler refilled as it
			// frees. The confirming read (20 pages: twice) goes the same way once the first has ended, at 260.
			const read = (start: number) => [start, ...range(0, 18).map((i) => start + 40 + 10 * i)];
			expect(gateway.times()).toEqual([...read(0), ...read(260)]);
			expect(clock.now()).toBe(260 + 40 + 18 * 10 + 40);
		});

		it('without a clock, sends each round at once (no pacing)', async () => {
			const clock = virtualTime();
			const gateway = pacedGateway(clock, items(40), () => 40);
			await clock.run(readPaced(clock, gateway, { now: undefined }));
			// Each of the two reads (the second confirms the first): page 1, then rounds of 4.
			expect(gateway.times()).toEqual([0, 40, 40, 40, 40, 80, 80, 80, 120, 160, 160, 160, 160, 200, 200, 200]);
		});

		it('paces by the fastest round trip seen: a slow page 1 or a slow page later does not slow the rest', async () => {
			const clock = virtualTime();
			const all = items(60);
			// Page 1 takes 400 ms, page 2 20 ms, page 5 90 ms, the others 30 ms: the spacing is 20 / 4 from page 2 on.
			const gateway = pacedGateway(clock, all, (page) => ({ 1: 400, 2: 20, 5: 90 })[page] ?? 30);
			const { items: got } = await clock.run(readPaced(clock, gateway));
			expect(got).toEqual(all);
			// Page 3 would be due 400 / 4 = 100 ms after page 2, but page 2 answers in 20 ms: page 3 goes then.
			expect(gateway.times().slice(0, 5)).toEqual([0, 400, 420, 425, 430]);
			const gaps = gateway
				.times()
				.slice(2)
				.map((t, i) => t - gateway.times()[i + 1]);
			expect(Math.min(...gaps)).toBe(5);
		});

		it('paces the narrower scheduler more widely after a rate limit; the retry goes after its own backoff', async () => {
			for (const jitter of [0, 0.1, 0.3, 0.5, 0.9]) {
				const clock = virtualTime();
				const all = items(50);
				const gateway = pacedGateway(clock, all, () => 40, refuseOnce(3));
				const { items: got, stats } = await clock.run(
					readPaced(clock, gateway, { baseDelayMs: 100, random: () => jitter }),
				);
				expect(got).toEqual(all);
				expect(stats.retries).toBe(1);
				// Before the rate limit (at 90 ms), 40 / 4 = 10 ms apart. After it the scheduler is at most 3 wide
				// while it grows back, so first attempts go out at least 40 / 3 ms apart.
				expect(gateway.times().slice(0, 6)).toEqual([0, 40, 50, 60, 70, 80]);
				const firstTries = gateway.sent.filter(
					(s, i) => s.at > 90 && gateway.sent.findIndex((o) => o.page === s.page) === i,
				);
				expect(firstTries.length).toBeGreaterThan(2);
				firstTries.slice(1).forEach((s, i) => expect(s.at - firstTries[i].at).toBeGreaterThanOrEqual(40 / 3 - 1e-9));
				const retry = gateway.sent.filter((s) => s.page === 3)[1];
				expect(retry.at).toBe(90 + Math.round(50 + 50 * jitter));
			}
		});

		it('times the attempt that succeeded, not the backoff before it', async () => {
			const clock = virtualTime();
			const all = items(40);
			const gateway = pacedGateway(clock, all, () => 40, refuseOnce(1));
			const { items: got } = await clock.run(readPaced(clock, gateway, { baseDelayMs: 1000 }));
			expect(got).toEqual(all);
			// Page 1: refused at 40, retried at 40 + 750 (three quarters of 1000), answered at 830. The rate
			// limit halved the width to 2 (it counts for the whole scheduler, page 1 included), so the
			// spacing is 40 / 2, then 40 / 3 once it grows back: the round trip of 40, not 830.
			// The confirming read starts when the first has ended (its last page answered 40 ms after it
			// was sent), at the full width again: 40 / 4 apart.
			const second = 910 + 40 / 3 + 40;
			const expected = [
				...[0, 790, 830, 850, 870, 870 + 40 / 3, 870 + 80 / 3, 910, 910 + 40 / 3],
				...[second, ...range(0, 6).map((i) => second + 40 + 10 * i)],
			];
			expect(gateway.times()).toHaveLength(expected.length);
			gateway.times().forEach((t, i) => expect(t).toBeCloseTo(expected[i], 6));
		});

		it('on a failure, starts no paced request and reports it at once, without waiting for the requests in flight', async () => {
			const clock = virtualTime();
			const boom = new Error('boom');
			// Page 3 fails after 5 ms, while page 4 waits for its turn (due at 60) and page 2 is in flight until 80.
			const gateway = pacedGateway(
				clock,
				items(100),
				(page) => (page === 3 ? 5 : 40),
				(page) => (page === 3 ? boom : undefined),
			);
			let rejectedAt: number | undefined;
			const promise = readPaced(clock, gateway).catch((error: unknown) => {
				rejectedAt = clock.now();
				throw error;
			});
			expect(await clock.run(rejection(promise))).toBe(boom);
			expect(gateway.sent.map((s) => s.page)).toEqual([1, 2, 3]);
			// Page 3 failed at 55 (sent at 50, 5 ms); page 2 was still in flight until 80.
			expect(rejectedAt).toBe(55);
		});

		it('does not spin when a pause ends before the clock has moved (a sleep that returns at once)', async () => {
			const clock = virtualTime();
			const all = items(40);
			const gateway = pacedGateway(clock, all, () => 40);
			let pauses = 0;
			const { items: got } = await clock.run(
				readPaced(clock, gateway, {
					// After 1000 pauses a spinning scheduler stalls here instead of starving the event loop.
					sleep: () => (++pauses > 1000 ? new Promise<void>(() => undefined) : Promise.resolve()),
				}),
			);
			expect(got).toEqual(all);
			expect(pauses).toBeLessThan(20);
		});
	});
});

describe('a gateway that refuses every 7th request it receives (the benchmark’s rate-limited run)', () => {
	/** A seeded source for the jitter, so that each run is one exact interleaving. */
	function seeded(seed: number): () => number {
		let state = seed >>> 0;
		return () => {
			state = (state + 0x6d2b79f5) >>> 0;
			let t = Math.imul(state ^ (state >>> 15), state | 1);
			t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
			return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
		};
	}

	/**
	 * 500 requests, 8 wide, 50 ms each on the virtual clock. Whether an attempt is refused depends
	 * only on how many requests reached the gateway before it: a retry is refused again when a
	 * multiple of 7 requests arrived during its pause, whatever the pacing.
	 */
	async function everySeventh(seed: number) {
		const clock = virtualTime();
		let arrivals = 0;
		const arrivalsOf: number[][] = [];
		const instance = new RequestScheduler({
			width: 8,
			isRateLimited,
			sleep: clock.sleep,
			now: clock.now,
			random: seeded(seed),
		});
		const requests = range(0, 499).map((i) => {
			arrivalsOf[i] = [];
			return instance.run(async () => {
				const arrival = ++arrivals;
				arrivalsOf[i].push(arrival);
				await clock.sleep(50);
				if (arrival % 7 === 0) throw new RateLimited();
				return i;
			});
		});
		const answers = await clock.run(Promise.all(requests));
		return { answers, arrivalsOf };
	}

	it('a request refused at 4 attempts in a row (the old policy’s last) is called again, and answered', async () => {
		// Seed 16 is one such interleaving: request 349 arrives 406th, 413th, 427th and 462nd.
		const { answers, arrivalsOf } = await everySeventh(16);
		expect(answers).toEqual(range(0, 499));
		expect(arrivalsOf[349].slice(0, 4)).toEqual([406, 413, 427, 462]);
		expect(arrivalsOf[349]).toHaveLength(5);
	});

	it('every request is answered, whatever the jitter', async () => {
		for (let seed = 1; seed <= 10; seed++) {
			const { answers, arrivalsOf } = await everySeventh(seed);
			expect(answers).toEqual(range(0, 499));
			// Each refusal costs one more request: 500 + floor(total / 7).
			expect(arrivalsOf.flat()).toHaveLength(583);
		}
	});
});
