/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only tests */
import fc from 'fast-check';

import { ListingChangedError } from '../../nodes/PartnerAccountInquiry/core/errors';
import {
	planPages,
	readListing,
	type Page,
	type ReadListingOptions,
} from '../../nodes/PartnerAccountInquiry/core/flow/paging';
import { rejection } from '../fixtures/async';

interface Item {
	id: string;
}

const items = (count: number, prefix = 'b'): Item[] =>
	Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}` }));
const keyOf = (item: Item) => item.id;
const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The rate-limit marker the fake gateway throws (REQUEST_TRAFFIC_EXCEED_LIMIT). */
class RateLimited extends Error {
	constructor() {
		super('REQUEST_TRAFFIC_EXCEED_LIMIT');
	}
}
const isRateLimited = (error: unknown) => error instanceof RateLimited;

/** Page `pageNumber` of `all` as the gateway answers it. */
function pageOf(all: Item[], pageSize: number, pageNumber: number, emptyPages = 0): Page<Item> {
	return {
		items: all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize),
		totalCount: all.length,
		totalPageNumber: all.length === 0 ? emptyPages : Math.ceil(all.length / pageSize),
		currentPageNumber: pageNumber,
	};
}

interface FakeOptions {
	pageSize: number;
	/** The listing as it stands at call number `call` (0-based, in the order of the calls). */
	listing: (call: number) => Item[];
	delayMs?: (pageNumber: number, call: number) => number;
	/** An error to throw for this call, or undefined. */
	fail?: (pageNumber: number, call: number) => unknown;
	/** Rewrites the page before it is returned. */
	mutate?: (page: Page<Item>, pageNumber: number, call: number) => Page<Item>;
	/** totalPageNumber reported for an empty listing (0 or 1). */
	emptyPages?: number;
	/** Reject at once when the signal is aborted. */
	honourAbort?: boolean;
}

/** An in-memory gateway that records every call, the calls in flight and the signals it got. */
function fakeGateway(options: FakeOptions) {
	const log = {
		calls: [] as number[],
		inFlight: 0,
		peakInFlight: 0,
		signals: [] as AbortSignal[],
		abortedAtStart: [] as boolean[],
		callsAtFailure: undefined as number | undefined,
		failures: 0,
	};
	const fetchPage = async (pageNumber: number, signal: AbortSignal): Promise<Page<Item>> => {
		const call = log.calls.length;
		log.calls.push(pageNumber);
		log.signals.push(signal);
		log.abortedAtStart.push(signal.aborted);
		log.inFlight++;
		log.peakInFlight = Math.max(log.peakInFlight, log.inFlight);
		try {
			const ms = options.delayMs?.(pageNumber, call) ?? 0;
			const pause = ms > 0 ? wait(ms) : Promise.resolve();
			if (options.honourAbort) {
				await new Promise<void>((resolve, reject) => {
					if (signal.aborted) reject(new Error('aborted by the signal'));
					signal.addEventListener('abort', () => reject(new Error('aborted by the signal')), { once: true });
					void pause.then(resolve);
				});
			} else {
				await pause;
			}
			const error = options.fail?.(pageNumber, call);
			if (error !== undefined) {
				if (!(error instanceof RateLimited)) {
					log.failures++;
					log.callsAtFailure ??= log.calls.length;
				}
				throw error;
			}
			const page = pageOf(options.listing(call), options.pageSize, pageNumber, options.emptyPages);
			return options.mutate ? options.mutate(page, pageNumber, call) : page;
		} finally {
			log.inFlight--;
		}
	};
	return { fetchPage, log };
}

function readWith(
	gateway: ReturnType<typeof fakeGateway>,
	pageSize: number,
	extra: Partial<ReadListingOptions<Item>> = {},
) {
	const sleeps: number[] = [];
	const promise = readListing<Item>({
		fetchPage: gateway.fetchPage,
		pageSize,
		concurrency: 3,
		keyOf,
		isRateLimited,
		sleep: async (ms) => {
			sleeps.push(ms);
		},
		random: () => 0.5,
		...extra,
	});
	return { promise, sleeps };
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

describe('planPages', () => {
	it('reads every page without a limit', () => {
		expect(planPages(95, 10, 10)).toBe(10);
		expect(planPages(0, 0, 10)).toBe(0);
		expect(planPages(0, 1, 10)).toBe(1);
	});

	it('reads only the pages a limit needs', () => {
		expect(planPages(95, 10, 10, 25)).toBe(3);
		expect(planPages(95, 10, 10, 30)).toBe(3);
		expect(planPages(95, 10, 10, 31)).toBe(4);
		expect(planPages(95, 10, 10, 1)).toBe(1);
		expect(planPages(95, 10, 10, 0)).toBe(0);
	});

	it('never plans more pages than exist', () => {
		expect(planPages(95, 10, 10, 95)).toBe(10);
		expect(planPages(95, 10, 10, 1000)).toBe(10);
		expect(planPages(0, 1, 10, 5)).toBe(0);
		expect(planPages(100, 2, 50, 10_000)).toBe(2);
	});

	it('covers exactly min(limit, total) items (property)', () => {
		fc.assert(
			fc.property(
				fc.nat({ max: 10_000 }),
				fc.integer({ min: 1, max: 50 }),
				fc.option(fc.nat({ max: 20_000 }), { nil: undefined }),
				(total, size, limit) => {
					const pages = Math.ceil(total / size);
					const planned = planPages(total, pages, size, limit);
					const wanted = limit === undefined ? total : Math.min(limit, total);
					expect(planned * size).toBeGreaterThanOrEqual(wanted);
					expect(planned).toBeLessThanOrEqual(pages);
					if (planned > 0) expect((planned - 1) * size).toBeLessThan(wanted);
				},
			),
			{ numRuns: 2000 },
		);
	});
});

describe('readListing', () => {
	it('returns every item once, in order, reading each page once', async () => {
		const all = items(23);
		const gateway = fakeGateway({ pageSize: 5, listing: () => all, delayMs: (page) => (7 - page) * 2 });
		const { promise } = readWith(gateway, 5);
		const { items: got, stats } = await promise;
		expect(got).toEqual(all);
		expect([...gateway.log.calls].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
		expect(gateway.log.calls[0]).toBe(1);
		expect(stats).toEqual({ requests: 5, rateLimited: 0, rereads: 0, peakConcurrency: 3 });
	});

	it.each([0, 1])('reads an empty listing (totalPageNumber %i) with one request', async (emptyPages) => {
		const gateway = fakeGateway({ pageSize: 10, listing: () => [], emptyPages });
		const { items: got, stats } = await readWith(gateway, 10).promise;
		expect(got).toEqual([]);
		expect(gateway.log.calls).toEqual([1]);
		expect(stats.requests).toBe(1);
	});

	it('reads one page when everything fits on it', async () => {
		const all = items(10);
		const gateway = fakeGateway({ pageSize: 10, listing: () => all });
		const { items: got } = await readWith(gateway, 10).promise;
		expect(got).toEqual(all);
		expect(gateway.log.calls).toEqual([1]);
	});

	describe('with a limit', () => {
		it.each([
			// [N, pageSize, limit, pages read]
			[100, 10, 25, [1, 2, 3]],
			[100, 10, 30, [1, 2, 3]],
			[100, 10, 31, [1, 2, 3, 4]],
			[100, 10, 5, [1]],
			[100, 10, 0, [1]],
			[100, 10, 100, range(1, 10)],
			[100, 10, 1000, range(1, 10)],
			[7, 50, 3, [1]],
		])('N=%i, page size %i, limit %i reads pages %j', async (n, size, limit, pages) => {
			const all = items(n);
			const gateway = fakeGateway({ pageSize: size, listing: () => all, delayMs: () => 1 });
			const { items: got, stats } = await readWith(gateway, size, { limit }).promise;
			expect(got).toEqual(all.slice(0, limit));
			expect([...gateway.log.calls].sort((a, b) => a - b)).toEqual(pages);
			expect(stats.requests).toBe(pages.length);
		});
	});

	it('returns every item exactly once and in order for any N, page size, concurrency and limit (property)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.nat({ max: 80 }),
				fc.integer({ min: 1, max: 12 }),
				fc.integer({ min: 1, max: 6 }),
				fc.option(fc.nat({ max: 100 }), { nil: undefined }),
				fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 16 }),
				fc.constantFrom(0, 1),
				async (n, size, concurrency, limit, delays, emptyPages) => {
					const all = items(n);
					const gateway = fakeGateway({
						pageSize: size,
						listing: () => all,
						delayMs: (_p, call) => delays[call % delays.length],
						emptyPages,
					});
					const { items: got, stats } = await readWith(gateway, size, { concurrency, limit }).promise;
					const wanted = limit === undefined ? n : Math.min(limit, n);
					expect(got).toEqual(all.slice(0, wanted));
					expect(new Set(got.map(keyOf)).size).toBe(got.length);
					const totalPages = n === 0 ? emptyPages : Math.ceil(n / size);
					const expectedPages = range(1, Math.max(1, planPages(n, totalPages, size, limit)));
					expect([...gateway.log.calls].sort((a, b) => a - b)).toEqual(expectedPages);
					expect(gateway.log.peakInFlight).toBeLessThanOrEqual(concurrency);
					expect(stats.peakConcurrency).toBeLessThanOrEqual(concurrency);
					expect(stats.requests).toBe(gateway.log.calls.length);
					expect(stats.rereads).toBe(0);
					expect(gateway.log.inFlight).toBe(0);
				},
			),
			{ numRuns: 300 },
		);
	});

	describe('concurrency', () => {
		it.each([1, 2, 4, 7])('never has more than %i pages in flight, and uses the width it has', async (concurrency) => {
			const all = items(200);
			const gateway = fakeGateway({
				pageSize: 5,
				listing: () => all,
				delayMs: (page, call) => 1 + ((page * 7 + call) % 4),
			});
			const { items: got, stats } = await readWith(gateway, 5, { concurrency }).promise;
			expect(got).toEqual(all);
			expect(gateway.log.peakInFlight).toBe(concurrency);
			expect(stats.peakConcurrency).toBe(concurrency);
		});

		it('reads page 1 alone before anything else', async () => {
			const all = items(40);
			const gateway = fakeGateway({ pageSize: 5, listing: () => all, delayMs: () => 3 });
			let page1Settled = false;
			const startedEarly: number[] = [];
			const fetchPage = async (pageNumber: number, signal: AbortSignal) => {
				if (pageNumber !== 1 && !page1Settled) startedEarly.push(pageNumber);
				try {
					return await gateway.fetchPage(pageNumber, signal);
				} finally {
					if (pageNumber === 1) page1Settled = true;
				}
			};
			const { items: got } = await readWith({ ...gateway, fetchPage }, 5, { concurrency: 8 }).promise;
			expect(got).toEqual(all);
			expect(startedEarly).toEqual([]);
			expect(gateway.log.calls[0]).toBe(1);
			expect(gateway.log.peakInFlight).toBe(7);
		});

		it.each([
			[2.7, 2],
			[0, 1],
			[-3, 1],
		])('treats concurrency %p as %i', async (concurrency, effective) => {
			const all = items(60);
			const gateway = fakeGateway({ pageSize: 5, listing: () => all, delayMs: () => 2 });
			const { items: got, stats } = await readWith(gateway, 5, { concurrency }).promise;
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
				concurrency: 4,
				keyOf,
				isRateLimited,
				sleep: async (ms) => {
					sleeps.push(ms);
				},
				random: () => 0.5,
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
			expect(stats.rateLimited).toBe(1);
			expect(stats.requests).toBe(13);
			expect(stats.rereads).toBe(0);
		});

		it('retries a rate-limited page with doubling pauses and still returns everything once', async () => {
			const all = items(30);
			const limitedCalls = new Map<number, number>();
			const gateway = fakeGateway({
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
			const { promise, sleeps } = readWith(gateway, 3, { concurrency: 4, rateLimitBackoffMs: 100 });
			const { items: got, stats } = await promise;
			expect(got).toEqual(all);
			expect(stats.rateLimited).toBe(7);
			expect(stats.requests).toBe(10 + 7);
			expect(gateway.log.calls.filter((p) => p === 4)).toHaveLength(4);
			expect(gateway.log.peakInFlight).toBeLessThanOrEqual(4);
			// the one retry policy: between half and all of base * 2^attempt; random 0.5 gives three quarters
			expect([...sleeps].sort((a, b) => a - b)).toEqual([75, 75, 75, 150, 150, 300, 300]);
		});

		it('retries a rate-limited page 1', async () => {
			const all = items(8);
			let refused = 0;
			const gateway = fakeGateway({
				pageSize: 4,
				listing: () => all,
				fail: (page) => (page === 1 && refused++ < 2 ? new RateLimited() : undefined),
			});
			const { promise, sleeps } = readWith(gateway, 4);
			const { items: got, stats } = await promise;
			expect(got).toEqual(all);
			expect(gateway.log.calls).toEqual([1, 1, 1, 2]);
			expect(sleeps).toEqual([188, 375]);
			expect(stats.rateLimited).toBe(2);
		});

		it('gives up after rateLimitRetries and passes the rate-limit error on', async () => {
			const all = items(20);
			const marker = new RateLimited();
			const gateway = fakeGateway({
				pageSize: 5,
				listing: () => all,
				fail: (page) => (page === 3 ? marker : undefined),
			});
			const { promise, sleeps } = readWith(gateway, 5, { concurrency: 1, rateLimitRetries: 2 });
			expect(await rejection(promise)).toBe(marker);
			expect(gateway.log.calls.filter((p) => p === 3)).toHaveLength(3);
			expect(sleeps).toEqual([188, 375]);
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
						const gateway = fakeGateway({
							pageSize: size,
							listing: () => all,
							delayMs: (_p, call) => delays[call % delays.length],
							// Up to 3 refusals for a page, as the pattern says (the default allows 5 retries).
							fail: (page) => {
								const k = refusals.get(page) ?? 0;
								if (k < 3 && limitPattern[(page + k) % limitPattern.length]) {
									refusals.set(page, k + 1);
									return new RateLimited();
								}
								return undefined;
							},
						});
						const { items: got, stats } = await readWith(gateway, size, { concurrency }).promise;
						expect(got).toEqual(all);
						expect(gateway.log.peakInFlight).toBeLessThanOrEqual(concurrency);
						expect(stats.requests).toBe(gateway.log.calls.length);
						expect(stats.requests - stats.rateLimited).toBe(Math.ceil(n / size));
					},
				),
				{ numRuns: 100 },
			);
		});
	});

	describe('a listing that changes while it is read', () => {
		it('reads once more when the total changes once, and returns the second reading', async () => {
			const before = items(10);
			const after = [...before, { id: 'new' }];
			const gateway = fakeGateway({ pageSize: 3, listing: (call) => (call < 2 ? before : after) });
			const { items: got, stats } = await readWith(gateway, 3, { concurrency: 1 }).promise;
			expect(got).toEqual(after);
			expect(stats.rereads).toBe(1);
			// Page 3 (call 2) already shows the new total: the first reading stops there, not after page 4.
			expect(gateway.log.calls).toEqual([1, 2, 3, 1, 2, 3, 4]);
			expect(stats.requests).toBe(7);
		});

		it('refuses with the counts when the total keeps changing', async () => {
			// One more beneficiary on every call.
			const gateway = fakeGateway({ pageSize: 3, listing: (call) => items(10 + call) });
			const error = await rejection(readWith(gateway, 3, { concurrency: 1 }).promise);
			expect(error).toBeInstanceOf(ListingChangedError);
			const changed = error as ListingChangedError;
			// Each reading stops at page 2, the first page that disagrees with page 1. Second reading:
			// page 1 is call 2 (12 beneficiaries), page 2 call 3 (13).
			expect(changed.expected).toBe(12);
			expect(changed.actual).toBe(13);
			expect(changed.message).toContain('The beneficiary list changed while it was being read');
			expect(changed.message).toContain('page 1 reported 12 beneficiaries, page 2 reported 13');
			expect(gateway.log.calls).toEqual([1, 2, 1, 2]);
			expect(gateway.log.calls.filter((p) => p === 1)).toHaveLength(2);
		});

		it('refuses a page 1 whose page count does not fit its total', async () => {
			const all = items(10);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page) => ({ ...page, totalPageNumber: 3 }),
			});
			const error = (await rejection(readWith(gateway, 3).promise)) as ListingChangedError;
			expect(error).toBeInstanceOf(ListingChangedError);
			expect(error.message).toContain('page 1 reports 10 beneficiaries in 3 pages, but 10 at 3 a page make 4');
			expect(error.expected).toBe(4);
			expect(error.actual).toBe(3);
		});

		it('refuses a page that comes back with another page number', async () => {
			const all = items(10);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n) => (n === 3 ? { ...page, currentPageNumber: 2 } : page),
			});
			const error = (await rejection(readWith(gateway, 3).promise)) as ListingChangedError;
			expect(error).toBeInstanceOf(ListingChangedError);
			expect(error.message).toContain('page 3 was asked for but page 2 came back');
		});

		it('refuses a page with too few items', async () => {
			const all = items(10);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n) => (n === 2 ? { ...page, items: page.items.slice(1) } : page),
			});
			const error = (await rejection(readWith(gateway, 3).promise)) as ListingChangedError;
			expect(error).toBeInstanceOf(ListingChangedError);
			expect(error.message).toContain('page 2 holds 2 beneficiaries where 3 were due');
		});

		/** Page 2 starts one item early, as when an item was deleted between two reads. */
		const shifted = (all: Item[]) => (page: Page<Item>, n: number) =>
			n === 2 ? { ...page, items: all.slice(2, 5) } : page;

		it('detects the same item on two pages', async () => {
			const all = items(9);
			const gateway = fakeGateway({ pageSize: 3, listing: () => all, mutate: shifted(all) });
			const error = (await rejection(readWith(gateway, 3).promise)) as ListingChangedError;
			expect(error).toBeInstanceOf(ListingChangedError);
			expect(error.message).toContain('the same beneficiary came back on page 1 and on page 2');
			expect(gateway.log.calls.filter((p) => p === 1)).toHaveLength(2);
		});

		it('detects the same item twice on one page', async () => {
			const all = items(6);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n) => (n === 2 ? { ...page, items: [page.items[0], page.items[0], page.items[2]] } : page),
			});
			const error = (await rejection(readWith(gateway, 3).promise)) as ListingChangedError;
			expect(error).toBeInstanceOf(ListingChangedError);
			expect(error.message).toContain('on page 2 and on page 2');
		});

		it('recovers from a shift seen only in the first reading', async () => {
			const all = items(9);
			const shift = shifted(all);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n, call) => (call < 3 ? shift(page, n) : page),
			});
			const { items: got, stats } = await readWith(gateway, 3, { concurrency: 1 }).promise;
			expect(got).toEqual(all);
			expect(stats.rereads).toBe(1);
		});

		it('does not check pages beyond a limit', async () => {
			const all = items(9);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n) => (n === 3 ? { ...page, totalCount: 99 } : page),
			});
			const { items: got, stats } = await readWith(gateway, 3, { limit: 6 }).promise;
			expect(got).toEqual(all.slice(0, 6));
			expect(stats.rereads).toBe(0);
			expect(gateway.log.calls).not.toContain(3);
		});
	});

	describe('a failing page', () => {
		const boom = new Error('HTTP 500 from the gateway');

		it('passes a failure of page 1 on without reading anything else', async () => {
			const gateway = fakeGateway({
				pageSize: 5,
				listing: () => items(50),
				fail: (page) => (page === 1 ? boom : undefined),
			});
			expect(await rejection(readWith(gateway, 5).promise)).toBe(boom);
			expect(gateway.log.calls).toEqual([1]);
		});

		it('propagates the error at once, starts nothing new and aborts the signal of the fetches in flight', async () => {
			const all = items(150);
			const gateway = fakeGateway({
				pageSize: 5,
				listing: () => all,
				// Page 5 fails quickly; the others are slow.
				delayMs: (page) => (page === 1 ? 0 : page === 5 ? 5 : 25),
				fail: (page) => (page === 5 ? boom : undefined),
			});
			const promise = readWith(gateway, 5, { concurrency: 4 }).promise;
			let inFlightAtRejection = -1;
			const error = await rejection(
				promise.catch((e: unknown) => {
					inFlightAtRejection = gateway.log.inFlight;
					throw e;
				}),
			);
			expect(error).toBe(boom);
			// It does not wait for pages 2 to 4: a page that drips could otherwise hold the node for ever.
			expect(inFlightAtRejection).toBe(3);
			// Pages 2 to 5 were in flight when page 5 failed; nothing was started after it.
			expect(gateway.log.callsAtFailure).toBe(5);
			expect(gateway.log.calls).toEqual([1, 2, 3, 4, 5]);
			// One failure: not taken for a changed listing, no second reading.
			expect(gateway.log.failures).toBe(1);
			expect(gateway.log.abortedAtStart.every((aborted) => !aborted)).toBe(true);
			expect(gateway.log.signals.slice(1).every((signal) => signal.aborted)).toBe(true);
		});

		it('does not start new pages after a failure at a wide scheduler with varied timings', async () => {
			const all = items(400);
			const gateway = fakeGateway({
				pageSize: 4,
				listing: () => all,
				delayMs: (page) => 1 + ((page * 13) % 6),
				fail: (page) => (page === 17 ? boom : undefined),
			});
			let inFlightAtRejection = -1;
			const error = await rejection(
				readWith(gateway, 4, { concurrency: 6 }).promise.catch((e: unknown) => {
					inFlightAtRejection = gateway.log.inFlight;
					throw e;
				}),
			);
			expect(error).toBe(boom);
			expect(inFlightAtRejection).toBeGreaterThan(0);
			await wait(20);
			expect(gateway.log.calls.length).toBe(gateway.log.callsAtFailure);
			expect(gateway.log.calls.length).toBeLessThan(100);
			expect(gateway.log.signals.at(-1)?.aborted).toBe(true);
		});

		it('passes on the first error even when the others end in an abort error', async () => {
			const all = items(50);
			const gateway = fakeGateway({
				pageSize: 5,
				listing: () => all,
				delayMs: (page) => (page === 1 ? 0 : page === 3 ? 2 : 1000),
				fail: (page) => (page === 3 ? boom : undefined),
				honourAbort: true,
			});
			const started = Date.now();
			expect(await rejection(readWith(gateway, 5, { concurrency: 4 }).promise)).toBe(boom);
			// The aborted fetches ended early instead of running their 1000 ms.
			expect(Date.now() - started).toBeLessThan(500);
			expect(gateway.log.inFlight).toBe(0);
		});

		// A rejection with `undefined` is still a failure (the old page pool once took it for none).
		it('treats a rejection with undefined as a failure of that page', async () => {
			const all = items(20);
			const gateway = fakeGateway({ pageSize: 5, listing: () => all, delayMs: () => 1 });
			const fetchPage = async (pageNumber: number, signal: AbortSignal) => {
				const page = await gateway.fetchPage(pageNumber, signal);
				if (pageNumber === 2) throw undefined;
				return page;
			};
			const error = await rejection(readWith({ ...gateway, fetchPage }, 5, { concurrency: 1 }).promise);
			expect(error).toBeUndefined();
			expect(gateway.log.calls).toEqual([1, 2]);
		});

		it('does not retry a rate-limited page once another page has failed', async () => {
			const all = items(20);
			const gateway = fakeGateway({
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
					concurrency: 3,
					keyOf,
					isRateLimited,
					sleep: async (ms) => {
						sleeps.push(ms);
					},
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
			const gateway = fakeGateway({
				pageSize: 5,
				listing: () => all,
				delayMs: (page) => (page === 2 ? 0 : 3),
				fail: (page, call) => (page === 2 && call === 1 ? new RateLimited() : page === 3 ? boom : undefined),
			});
			const promise = readListing<Item>({
				fetchPage: gateway.fetchPage,
				pageSize: 5,
				concurrency: 3,
				keyOf,
				isRateLimited,
				sleep: () =>
					new Promise<void>((resolve) => {
						releasePause = resolve;
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
});

describe('a page 1 whose counts do not add up', () => {
	it('is refused before its totalPageNumber decides how many requests go out', async () => {
		let calls = 0;
		const error = await rejection(
			readListing<{ id: string }>({
				fetchPage: async () => {
					calls++;
					return { items: [{ id: 'a' }], totalCount: 1, totalPageNumber: 99_999_999, currentPageNumber: 1 };
				},
				pageSize: 50,
				concurrency: 4,
				keyOf: (item) => item.id,
				isRateLimited: () => false,
				sleep: async () => {},
			}),
		);
		expect(error).toBeInstanceOf(ListingChangedError);
		expect((error as Error).message).toMatch(/page 1 reports 1 beneficiaries in 99999999 pages/);
		expect(calls).toBe(2);
	});
});

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
	const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
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
		extra: Partial<ReadListingOptions<Item>> = {},
	) =>
		readListing<Item>({
			fetchPage: gateway.fetchPage,
			pageSize: 5,
			concurrency: 4,
			keyOf,
			isRateLimited,
			sleep: clock.sleep,
			now: clock.now,
			random: () => 0.5,
			...extra,
		});

	it('spreads requests over the round trip instead of sending a burst, and reads every item once', async () => {
		const clock = virtualTime();
		const all = items(100);
		const gateway = pacedGateway(clock, all, () => 40);
		const { items: got } = await clock.run(readPaced(clock, gateway));
		expect(got).toEqual(all);
		// Page 1 takes 40 ms; then one request every 40 / 4 = 10 ms, each place in the scheduler refilled as it frees.
		expect(gateway.times()).toEqual([0, ...range(0, 18).map((i) => 40 + 10 * i)]);
		expect(clock.now()).toBe(40 + 18 * 10 + 40);
	});

	it('without a clock, sends each round at once (no pacing)', async () => {
		const clock = virtualTime();
		const gateway = pacedGateway(clock, items(40), () => 40);
		await clock.run(readPaced(clock, gateway, { now: undefined }));
		expect(gateway.times()).toEqual([0, 40, 40, 40, 40, 80, 80, 80]);
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
				readPaced(clock, gateway, { rateLimitBackoffMs: 100, random: () => jitter }),
			);
			expect(got).toEqual(all);
			expect(stats.rateLimited).toBe(1);
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
		const { items: got } = await clock.run(readPaced(clock, gateway, { rateLimitBackoffMs: 1000 }));
		expect(got).toEqual(all);
		// Page 1: refused at 40, retried at 40 + 750 (three quarters of 1000), answered at 830. The rate
		// limit halved the width to 2 (it counts for the whole scheduler, page 1 included), so the
		// spacing is 40 / 2, then 40 / 3 once it grows back: the round trip of 40, not 830.
		const expected = [0, 790, 830, 850, 870, 870 + 40 / 3, 870 + 80 / 3, 910, 910 + 40 / 3];
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
