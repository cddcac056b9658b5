/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only tests */
import { RequestScheduler, type SchedulerOptions } from '../../nodes/PartnerAccountInquiry/core/flow/scheduler';
import { rejection } from '../fixtures/async';

/** The rate-limit marker the fake gateway throws (REQUEST_TRAFFIC_EXCEED_LIMIT). */
class RateLimited extends Error {
	constructor() {
		super('REQUEST_TRAFFIC_EXCEED_LIMIT');
	}
}
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
		expect(instance.stats).toEqual({ attempts: 7, rateLimited: 0, retried: 0, peakConcurrency: 3 });
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
