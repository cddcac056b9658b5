import { createCustomers, type Beneficiary } from '../../sandbox/data';
import type { LoggedRequest } from '../../sandbox/server';
import { list, listedAs, useSimulator, watchedNode } from '../support/helpers';

const { sim } = useSimulator({ latencyMs: 15 });
// A listing of several pages is always read twice (the second read confirms the first: pages of 50,
// CUST_LARGE's 320 beneficiaries are 7 pages, read 14 times); how the two reads compare is tested
// in answerBinding.test.ts.
const LARGE = listedAs(createCustomers().get('CUST_LARGE')?.beneficiaries as Beneficiary[], 'CUST_LARGE');
/** CUST_BENCH: 10,000 beneficiaries, 200 pages: enough to fill the width of 8 many times over. */
const BENCH = listedAs(createCustomers().get('CUST_BENCH')?.beneficiaries as Beneficiary[], 'CUST_BENCH');
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const sorted = (pages: number[]) => [...pages].sort((a, b) => a - b);
const pageOf = (request: LoggedRequest) => (JSON.parse(request.body) as { pageNumber: number }).pageNumber;
const pagesAsked = () => sim().requests.map(pageOf);
/**
 * Page 1 is read alone, so only the answers to the later pages wait for the count: the concurrency
 * asserted is then reached whatever the machine's load (see holdUntilInFlight).
 */
const holdLaterPagesUntilInFlight = (count: number) =>
	sim().holdUntilInFlight(count, { holds: (request) => pageOf(request) > 1 });

function expectExactlyOnce(json: Array<Record<string, unknown>>, expected: readonly object[]) {
	expect(json).toHaveLength(expected.length);
	expect(new Set(json.map((b) => b.beneficiaryToken)).size).toBe(expected.length);
	expect(json).toEqual(expected);
}

describe('Return All reads the remaining pages concurrently, in API order, exactly once', () => {
	it('8 requests at once, each page once a read, page 1 first', async () => {
		// 199 pages after page 1: the width is filled many times over.
		const gate = holdLaterPagesUntilInFlight(8);
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_BENCH' });
		await gate.reached;
		expectExactlyOnce(run.json, BENCH);
		expect(pagesAsked()[0]).toBe(1);
		expect(sorted(pagesAsked().slice(0, 200))).toEqual(range(1, 200));
		expect(pagesAsked()[200]).toBe(1);
		expect(sorted(pagesAsked().slice(200))).toEqual(range(1, 200));
		expect(sim().peakInFlight).toBe(8);
	});

	it('with a limit, fetches only the pages needed, and none is left running', async () => {
		const node = watchedNode();
		const run = await list(
			sim(),
			{
				returnAll: false,
				limit: 120,
				customerId: 'CUST_LARGE',
			},
			node,
		);
		expectExactlyOnce(run.json, LARGE.slice(0, 120));
		// Pages 1 to 3 of 7, each twice (the second read confirms the first).
		expect(sorted(pagesAsked())).toEqual([1, 1, 2, 2, 3, 3]);
		// The node made (signed) those six requests and no other: none started and abandoned, arrived or not.
		expect(node.signed()).toBe(6);
	});
});

describe('a rate-limited listing', () => {
	it('backs off, retries the refused pages freshly signed, and still returns everything once', async () => {
		for (const pageNumber of [3, 5, 6])
			sim().addFault({ fault: 'rateLimit', customerId: 'CUST_LARGE', pageNumber, times: 1 });
		// Every answer takes at least 1 s: a retry is signed more than a second after its refused try,
		// so a fresh signature has another Request-Time (whole seconds) and another signature.
		sim().setLatency(1000);
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expectExactlyOnce(run.json, LARGE);
		const refused = sim().requests.filter((r) => r.resultCode === 'REQUEST_TRAFFIC_EXCEED_LIMIT');
		expect(refused).toHaveLength(3);
		// 7 pages, the 3 refused tries, and the 7 pages of the confirming read.
		expect(sim().requests).toHaveLength(7 + 3 + 7);
		// Each retry is signed at its own time, not the refused try's headers sent again.
		for (const page of [3, 5, 6]) {
			const [refusedTry, retry] = sim().requests.filter(
				(r) => (JSON.parse(r.body) as { pageNumber: number }).pageNumber === page,
			);
			expect(Date.parse(String(retry.headers['request-time']))).toBeGreaterThan(
				Date.parse(String(refusedTry.headers['request-time'])),
			);
			expect(retry.headers.signature).not.toBe(refusedTry.headers.signature);
			// And it verifies: the simulator checks every signature before it answers.
			expect(retry.resultCode).toBe('SUCCESS');
		}
	});

	it('fails with the code once a page that stays refused has paused for its Timeout, and emits nothing', async () => {
		sim().addFault({ fault: 'rateLimit', customerId: 'CUST_LARGE', pageNumber: 2 });
		const run = await list(sim(), {
			returnAll: true,
			customerId: 'CUST_LARGE',
			options: { timeout: 1000 },
		});
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/REQUEST_TRAFFIC_EXCEED_LIMIT/);
		// Pauses adding up to 1000 ms: 4 attempts, or 5 when the jitter leaves room.
		const asked = pagesAsked().filter((p) => p === 2).length;
		expect(asked).toBeGreaterThanOrEqual(4);
		expect(asked).toBeLessThanOrEqual(5);
	});
});

describe('HTTP 429 on a listing page', () => {
	it('is left to the request scheduler (which narrows), not retried twice over: called again for the Timeout', async () => {
		sim().addFault({ fault: 'http429', customerId: 'CUST_LARGE', pageNumber: 2 });
		const run = await list(sim(), {
			returnAll: true,
			customerId: 'CUST_LARGE',
			options: { timeout: 1000 },
		});
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/The gateway answered HTTP 429/);
		expect(run.error?.description).toMatch(/for as long as the Timeout option allows/);
		// A traffic limit: pauses adding up to the 1000 ms Timeout, 4 or 5 attempts (never one loop inside another).
		const asked = pagesAsked().filter((p) => p === 2).length;
		expect(asked).toBeGreaterThanOrEqual(4);
		expect(asked).toBeLessThanOrEqual(5);
	});
});

describe('a listing whose total changes while it is read', () => {
	it('is read again and returned whole once two reads agree', async () => {
		sim().addFault({ fault: 'totalChanges', customerId: 'CUST_LARGE', pageNumber: 1, times: 1 });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.status).toBe('success');
		// Three reads, each starting with page 1: the first ends at the first page that shows the new
		// total (the pages already asked for at the width of 8 may have arrived too); the second reads
		// all 7 pages of the 321; the third agrees with it page for page.
		const pages = pagesAsked();
		expect(pages.filter((p) => p === 1)).toHaveLength(3);
		for (const page of range(2, 7)) {
			expect(pages.filter((p) => p === page).length).toBeGreaterThanOrEqual(2);
			expect(pages.filter((p) => p === page).length).toBeLessThanOrEqual(3);
		}
		expect(run.json).toHaveLength(321);
		expect(new Set(run.json.map((b) => b.beneficiaryToken)).size).toBe(321);
		expect(run.json.slice(1)).toEqual(LARGE);
	});

	it('fails clearly, naming the counts, when it keeps changing, and emits nothing', async () => {
		sim().addFault({ fault: 'totalChanges', customerId: 'CUST_LARGE', pageNumber: 1 });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		// The second read that does not add up ends the listing: its page 1 saw 321, the next page to
		// arrive (of those asked for at once) 322.
		expect(run.error?.message).toMatch(/The beneficiary list changed while it was being read$/);
		expect(run.error?.description).toMatch(/^Page 1 reported 321 beneficiaries, page [2-7] reported 322\. /);
		expect(pagesAsked().filter((p) => p === 1)).toHaveLength(2);
		expect(run.error?.description).toMatch(/It was read again and still did not add up/);
	});
});
