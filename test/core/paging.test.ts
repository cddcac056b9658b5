import fc from 'fast-check';

import { ListingChangedError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { readListing, type Page } from '../../nodes/PartnerAccountInquiry/shared/core/flow/paging';
import { RequestScheduler } from '../../nodes/PartnerAccountInquiry/shared/core/flow/scheduler';
import { rejection } from '../fixtures/async';

import { fakeGateway, items, keyOf, range, readWith, wait, type Item } from '../fixtures/listing';

/**
 * The pages a listing of `total` items in `totalPages` pages needs for `limit` (all without one):
 * the fewest that cover min(limit, total) items, at least the first (docs/api.md, paging).
 */
function pagesNeeded(total: number, totalPages: number, size: number, limit?: number): number[] {
	const wanted = limit === undefined ? total : Math.min(limit, total);
	const needed = limit === undefined ? totalPages : Math.min(totalPages, Math.ceil(wanted / size));
	return range(1, Math.max(1, needed));
}

/**
 * The calls, sorted, that reading `pages` of a listing that holds still makes: a single page
 * once (one answer, one moment), several pages twice (the confirming read, paging.ts).
 */
const readsOf = (pages: number[]): number[] => (pages.length > 1 ? [...pages, ...pages].sort((a, b) => a - b) : pages);

describe('readListing', () => {
	it('returns every item once, in order, reading each page once a read (twice in all: confirmed)', async () => {
		const all = items(23);
		const gateway = fakeGateway({ pageSize: 5, listing: () => all, delayMs: (page) => (7 - page) * 2 });
		const { promise } = readWith(gateway, 5);
		const { items: got, stats } = await promise;
		expect(got).toEqual(all);
		expect([...gateway.log.calls].sort((a, b) => a - b)).toEqual(readsOf([1, 2, 3, 4, 5]));
		expect(gateway.log.calls[0]).toBe(1);
		// The second read starts with page 1 alone too, once the first read is whole.
		expect(gateway.log.calls[5]).toBe(1);
		expect([...gateway.log.calls.slice(0, 5)].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
		expect(stats).toEqual({ requests: 10, retries: 0, rereads: 1, peakConcurrency: 3 });
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
			[95, 10, 95, range(1, 10)],
			[95, 10, 1, [1]],
			[100, 50, 10_000, [1, 2]],
		])('N=%i, page size %i, limit %i reads pages %j (twice when more than one)', async (n, size, limit, pages) => {
			const all = items(n);
			const gateway = fakeGateway({ pageSize: size, listing: () => all, delayMs: () => 1 });
			const { items: got, stats } = await readWith(gateway, size, { limit }).promise;
			expect(got).toEqual(all.slice(0, limit));
			expect([...gateway.log.calls].sort((a, b) => a - b)).toEqual(readsOf(pages));
			expect(stats.requests).toBe(readsOf(pages).length);
			expect(stats.rereads).toBe(pages.length > 1 ? 1 : 0);
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
					const { items: got, stats } = await readWith(gateway, size, { width: concurrency, limit }).promise;
					const wanted = limit === undefined ? n : Math.min(limit, n);
					expect(got).toEqual(all.slice(0, wanted));
					expect(new Set(got.map(keyOf)).size).toBe(got.length);
					const totalPages = n === 0 ? emptyPages : Math.ceil(n / size);
					const expectedPages = pagesNeeded(n, totalPages, size, limit);
					expect([...gateway.log.calls].sort((a, b) => a - b)).toEqual(readsOf(expectedPages));
					expect(gateway.log.peakInFlight).toBeLessThanOrEqual(concurrency);
					expect(stats.peakConcurrency).toBeLessThanOrEqual(concurrency);
					expect(stats.requests).toBe(gateway.log.calls.length);
					expect(stats.rereads).toBe(expectedPages.length > 1 ? 1 : 0);
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
			const { items: got, stats } = await readWith(gateway, 5, { width: concurrency }).promise;
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
			const { items: got } = await readWith({ ...gateway, fetchPage }, 5, { width: 8 }).promise;
			expect(got).toEqual(all);
			expect(startedEarly).toEqual([]);
			expect(gateway.log.calls[0]).toBe(1);
			expect(gateway.log.peakInFlight).toBe(7);
		});
	});

	describe('a listing that changes while it is read', () => {
		it('reads once more when the total changes once, and returns the listing after it once a read confirms it', async () => {
			const before = items(10);
			const after = [...before, { id: 'new' }];
			const gateway = fakeGateway({ pageSize: 3, listing: (call) => (call < 2 ? before : after) });
			const { items: got, stats } = await readWith(gateway, 3, { width: 1 }).promise;
			expect(got).toEqual(after);
			expect(stats.rereads).toBe(2);
			// Page 3 (call 2) already shows the new total: the first reading stops there, not after page 4.
			// The second reading adds up; the third agrees with it page for page.
			expect(gateway.log.calls).toEqual([1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4]);
			expect(stats.requests).toBe(11);
		});

		it('refuses with the counts when the total keeps changing', async () => {
			// One more beneficiary on every call.
			const gateway = fakeGateway({ pageSize: 3, listing: (call) => items(10 + call) });
			const error = await rejection(readWith(gateway, 3, { width: 1 }).promise);
			expect(error).toBeInstanceOf(ListingChangedError);
			const changed = error as ListingChangedError;
			// Each reading stops at page 2, the first page that disagrees with page 1. Second reading:
			// page 1 is call 2 (12 beneficiaries), page 2 call 3 (13).
			expect(changed.expected).toBe(12);
			expect(changed.actual).toBe(13);
			expect(changed.message).toBe('The beneficiary list changed while it was being read');
			expect(changed.detail).toMatch(/^Page 1 reported 12 beneficiaries, page 2 reported 13\. /);
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
			expect((error as ListingChangedError).finding).toBe(
				'page 1 reports 10 beneficiaries in 3 pages, but 10 at 3 a page make 4',
			);
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
			expect((error as ListingChangedError).finding).toBe('page 3 was asked for but page 2 came back');
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
			expect((error as ListingChangedError).finding).toBe('page 2 holds 2 beneficiaries where 3 were due');
		});

		/** Page 2 starts one item early, as when an item was deleted between two reads. */
		const shifted = (all: Item[]) => (page: Page<Item>, n: number) =>
			n === 2 ? { ...page, items: all.slice(2, 5) } : page;

		it('reads again when an entry comes back on a second page, and fails when no next read agrees', async () => {
			const all = items(9);
			const shift = shifted(all);
			// Reads of 3 calls each (width 1): the even reads shifted at page 2 (an entry back on a second
			// page), the odd ones at page 3 (one early): no read is the same as the one before.
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n, call) =>
					Math.floor(call / 3) % 2 === 0 ? shift(page, n) : n === 3 ? { ...page, items: all.slice(5, 8) } : page,
			});
			const error = (await rejection(readWith(gateway, 3, { width: 1 }).promise)) as ListingChangedError;
			expect(error).toBeInstanceOf(ListingChangedError);
			expect((error as ListingChangedError).finding).toContain('page 2 was not the same at two reads in a row');
			expect((error as ListingChangedError).detail).toMatch(/read 4 times/);
			expect(gateway.log.calls).toEqual([1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
		});

		it('returns an entry repeated on a second page when the next read agrees page for page: a repeat in the data', async () => {
			const all = items(9);
			const gateway = fakeGateway({ pageSize: 3, listing: () => all, mutate: shifted(all) });
			const { items: got, stats } = await readWith(gateway, 3).promise;
			expect(got).toEqual([...all.slice(0, 3), ...all.slice(2, 5), ...all.slice(6, 9)]);
			expect(stats.rereads).toBe(1);
		});

		it('returns an entry repeated within one page as it came: one answer is one moment', async () => {
			const all = items(6);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n) => (n === 2 ? { ...page, items: [page.items[0], page.items[0], page.items[2]] } : page),
			});
			const { items: got, stats } = await readWith(gateway, 3).promise;
			expect(got).toEqual([...all.slice(0, 3), all[3], all[3], all[5]]);
			expect(stats.rereads).toBe(1);
			// Not a repeat across pages: a caller that holds the list as it was takes the first read
			// as it is (a repeat across pages is read again whatever the caller holds, below).
			const settledGateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n) => (n === 2 ? { ...page, items: [page.items[0], page.items[0], page.items[2]] } : page),
			});
			const settled = await readWith(settledGateway, 3, { settled: () => true }).promise;
			expect(settled.items).toEqual(got);
			expect(settled.stats.rereads).toBe(0);
		});

		it('reads again an entry repeated on a second page, even for a caller that holds the list as it was', async () => {
			const all = items(9);
			const gateway = fakeGateway({ pageSize: 3, listing: () => all, mutate: shifted(all) });
			const { stats } = await readWith(gateway, 3, { settled: () => true }).promise;
			expect(stats.rereads).toBe(1);
		});

		it('refuses a page served again in place of another (a gateway ignoring the page number)', async () => {
			const all = items(9);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n) => (n === 3 ? { ...page, items: all.slice(0, 3) } : page),
			});
			const error = (await rejection(readWith(gateway, 3).promise)) as ListingChangedError;
			expect((error as ListingChangedError).finding).toBe('page 3 came back identical to page 1');
		});

		it('recovers from a shift seen only in the first reading', async () => {
			const all = items(9);
			const shift = shifted(all);
			const gateway = fakeGateway({
				pageSize: 3,
				listing: () => all,
				mutate: (page, n, call) => (call < 3 ? shift(page, n) : page),
			});
			const { items: got, stats } = await readWith(gateway, 3, { width: 1 }).promise;
			expect(got).toEqual(all);
			// The second read is whole but differs from the first: a third agrees with it.
			expect(stats.rereads).toBe(2);
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
			// Only the confirming read: page 3 is never asked for, so its count cannot disagree.
			expect(stats.rereads).toBe(1);
			expect([...gateway.log.calls].sort()).toEqual([1, 1, 2, 2]);
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
			const promise = readWith(gateway, 5, { width: 4 }).promise;
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
				readWith(gateway, 4, { width: 6 }).promise.catch((e: unknown) => {
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
			expect(await rejection(readWith(gateway, 5, { width: 4 }).promise)).toBe(boom);
			// The aborted fetches (pages 2, 4 and 5) ended through their signal instead of running their
			// 1000 ms: counted by the gateway, not read off the wall clock, which a loaded machine slows.
			expect(gateway.log.endedByAbort).toBe(3);
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
			const error = await rejection(readWith({ ...gateway, fetchPage }, 5, { width: 1 }).promise);
			expect(error).toBeUndefined();
			expect(gateway.log.calls).toEqual([1, 2]);
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
				keyOf: (item) => item.id,
				scheduler: new RequestScheduler({ width: 4, isRateLimited: () => false, sleep: async () => {} }),
			}),
		);
		expect(error).toBeInstanceOf(ListingChangedError);
		expect((error as ListingChangedError).detail).toMatch(/^Page 1 reports 1 beneficiaries in 99999999 pages/);
		expect(calls).toBe(2);
	});
});

describe('a listing of several pages is whole at one moment (always confirmed)', () => {
	const A = items(30);
	/** One beneficiary unbound at `position` and another bound at the end: the same count, shifted pages. */
	const swapped = (list: Item[], position: number, n = 1) => [
		...list.slice(0, position),
		...list.slice(position + 1),
		{ id: `new-${n}` },
	];

	it('reads twice and returns the list when both reads agree page for page', async () => {
		const gateway = fakeGateway({ listing: () => A, pageSize: 10 });
		const listing = await readWith(gateway, 10, {}).promise;
		expect(listing.items).toEqual(A);
		expect(gateway.log.calls).toHaveLength(6);
		expect(listing.stats.rereads).toBe(1);
	});

	it.each([0, 5, 9])(
		'one out at position %i and one in at the end after the first page: the list after, never a mix',
		async (position) => {
			const B = swapped(A, position);
			const gateway = fakeGateway({ listing: (call) => (call === 0 ? A : B), pageSize: 10, delayMs: () => 1 });
			const listing = await readWith(gateway, 10, { width: 1 }).promise;
			expect(listing.items).toEqual(B);
			// The first read (page 1 of A, pages 2 and 3 of B) was a mix, so a third read was needed.
			expect(gateway.log.calls).toHaveLength(9);
		},
	);

	it('fails after 4 reads when no two reads in a row agree, and says what to do', async () => {
		const gateway = fakeGateway({ listing: (call) => swapped(A, 3, Math.floor(call / 2)), pageSize: 10 });
		const error = await rejection(readWith(gateway, 10, { width: 1 }).promise);
		expect(error).toBeInstanceOf(ListingChangedError);
		expect((error as Error).message).toBe('The beneficiary list changed while it was being read');
		expect((error as ListingChangedError).detail).toMatch(
			/ It was read 4 times and no two reads in a row agreed; nothing was returned rather than a list that mixes two moments\.$/,
		);
		expect((error as ListingChangedError).hint).toMatch(/Run the node again once the beneficiaries stop changing/);
		expect(gateway.log.calls).toHaveLength(12);
	});

	it('reads a single page once: one answer is one moment', async () => {
		const gateway = fakeGateway({ listing: () => A, pageSize: 50 });
		await readWith(gateway, 50, {}).promise;
		expect(gateway.log.calls).toEqual([1]);
	});

	it('compares only the pages a limit reads', async () => {
		const gateway = fakeGateway({ listing: () => A, pageSize: 10 });
		const listing = await readWith(gateway, 10, { limit: 15 }).promise;
		expect(listing.items).toEqual(A.slice(0, 15));
		expect([...gateway.log.calls].sort()).toEqual([1, 1, 2, 2]);
	});

	it('returns the pages a limit reads when they agree, while the list keeps growing beyond them at every request', async () => {
		const growing = (call: number) => [
			...A,
			...Array.from({ length: call + 1 }, (_, i) => ({ id: `tail-${call}-${i}` })),
		];
		const gateway = fakeGateway({ listing: growing, pageSize: 10 });
		const listing = await readWith(gateway, 10, { limit: 15, width: 1 }).promise;
		expect(listing.items).toEqual(A.slice(0, 15));
		expect(gateway.log.calls).toEqual([1, 2, 1, 2]);
	});

	it('still refuses a limited read whose own pages differ between reads', async () => {
		const renamed = (call: number) => A.map((item, i) => (i === 3 ? { id: `renamed-${call}` } : item));
		const gateway = fakeGateway({ listing: renamed, pageSize: 10 });
		const error = await rejection(readWith(gateway, 10, { limit: 15, width: 1 }).promise);
		expect((error as ListingChangedError).detail).toMatch(
			/^Page 1 was not the same at two reads in a row.*read 4 times/,
		);
	});

	it('a second read that does not add up fails at once (MAX_UNFIT_READS), not after 4 reads', async () => {
		const gateway = fakeGateway({
			listing: () => A,
			pageSize: 10,
			// Page 2 always reports one more beneficiary than page 1: the pages never add up.
			mutate: (page) => ({ ...page, totalCount: page.totalCount + (page.currentPageNumber === 2 ? 1 : 0) }),
		});
		const error = await rejection(readWith(gateway, 10, { width: 1 }).promise);
		expect(error).toBeInstanceOf(ListingChangedError);
		expect((error as ListingChangedError).detail).not.toMatch(/read 4 times/);
		expect(gateway.log.calls).toEqual([1, 2, 1, 2]);
	});

	it("passes each page's evidence through with the pages it returns", async () => {
		const gateway = fakeGateway({
			listing: () => A,
			pageSize: 10,
			mutate: (page, pageNumber, call) => ({ ...page, evidence: `page ${pageNumber}, call ${call}` }),
		});
		const listing = await readWith(gateway, 10, { width: 1 }).promise;
		expect(listing.pages.map((page) => page.evidence)).toEqual(['page 1, call 3', 'page 2, call 4', 'page 3, call 5']);
	});
});
