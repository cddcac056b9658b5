import { createCustomers, type Beneficiary } from '../../sandbox/data';
import type { LoggedRequest } from '../../sandbox/server';
import { list, useSimulator, watchedNode } from '../support/helpers';

const { sim } = useSimulator({ latencyMs: 15 });
// These tests look at one read of a listing (its concurrency, order, retries and re-reads), so
// Confirm Whole List is off; the confirming second read is tested in answerBinding.test.ts.
const ONE_READ = { confirmWholeList: false };
const LARGE = createCustomers().get('CUST_LARGE')?.beneficiaries as Beneficiary[];
const pageOf = (request: LoggedRequest) => (JSON.parse(request.body) as { pageNumber: number }).pageNumber;
const pagesAsked = () => sim().requests.map(pageOf);
/**
 * Page 1 is read alone, so only the answers to the later pages wait for the count: the concurrency
 * asserted is then reached whatever the machine's load (see holdUntilInFlight).
 */
const holdLaterPagesUntilInFlight = (count: number) =>
	sim().holdUntilInFlight(count, { holds: (request) => pageOf(request) > 1 });

function expectExactlyOnce(json: Array<Record<string, unknown>>, expected: Beneficiary[]) {
	expect(json).toHaveLength(expected.length);
	expect(new Set(json.map((b) => b.beneficiaryToken)).size).toBe(expected.length);
	expect(json).toEqual(expected);
}

describe('Return All reads the remaining pages concurrently, in API order, exactly once', () => {
	it.each([1, 2, 4, 10])('page concurrency %i', async (pageConcurrency) => {
		// 15 pages after page 1: enough for every width here to be filled.
		const gate = holdLaterPagesUntilInFlight(pageConcurrency);
		const run = await list(sim(), {
			returnAll: true,
			options: { ...ONE_READ, customerId: 'CUST_LARGE', pageSize: 20, pageConcurrency },
		});
		await gate.reached;
		expectExactlyOnce(run.json, LARGE);
		expect(pagesAsked()[0]).toBe(1);
		expect([...pagesAsked()].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
		expect(sim().peakInFlight).toBe(pageConcurrency);
	});

	it('defaults to 8 requests at once', async () => {
		const gate = holdLaterPagesUntilInFlight(8);
		await list(sim(), { returnAll: true, options: { ...ONE_READ, customerId: 'CUST_LARGE', pageSize: 10 } });
		await gate.reached;
		expect(sim().peakInFlight).toBe(8);
	});

	it('with a limit, fetches only the pages needed, and none is left running', async () => {
		const node = watchedNode();
		const run = await list(
			sim(),
			{
				returnAll: false,
				limit: 45,
				options: { ...ONE_READ, customerId: 'CUST_LARGE', pageSize: 10, pageConcurrency: 10 },
			},
			node,
		);
		expectExactlyOnce(run.json, LARGE.slice(0, 45));
		expect([...pagesAsked()].sort()).toEqual([1, 2, 3, 4, 5]);
		// The node made (signed) those five requests and no other: none started and abandoned, arrived or not.
		expect(node.signed()).toBe(5);
	});
});

describe('a rate-limited listing', () => {
	it('backs off, retries the refused pages freshly signed, and still returns everything once', async () => {
		for (const pageNumber of [3, 5, 6])
			sim().addFault({ fault: 'rateLimit', customerId: 'CUST_LARGE', pageNumber, times: 1 });
		// Every answer takes at least 1 s: a retry is signed more than a second after its refused try,
		// so a fresh signature has another Request-Time (whole seconds) and another signature.
		sim().setLatency(1000);
		const run = await list(sim(), {
			returnAll: true,
			options: { ...ONE_READ, customerId: 'CUST_LARGE', pageSize: 20, pageConcurrency: 8 },
		});
		expectExactlyOnce(run.json, LARGE);
		const refused = sim().requests.filter((r) => r.resultCode === 'REQUEST_TRAFFIC_EXCEED_LIMIT');
		expect(refused).toHaveLength(3);
		expect(sim().requests).toHaveLength(16 + 3);
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
			options: { ...ONE_READ, customerId: 'CUST_LARGE', timeout: 1000 },
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
			options: { ...ONE_READ, customerId: 'CUST_LARGE', timeout: 1000 },
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
	it('is read once more and returned whole when it settles', async () => {
		sim().addFault({ fault: 'totalChanges', customerId: 'CUST_LARGE', pageNumber: 1, times: 1 });
		const run = await list(sim(), {
			returnAll: true,
			options: { ...ONE_READ, customerId: 'CUST_LARGE', pageConcurrency: 1 },
		});
		expect(run.status).toBe('success');
		const now = sim().requests.length;
		// The first reading stops at page 2, the first page that shows the new total; the second reads all 7.
		expect(now).toBe(2 + 7);
		expect(run.json).toHaveLength(321);
		expect(new Set(run.json.map((b) => b.beneficiaryToken)).size).toBe(321);
		expect(run.json.slice(1)).toEqual(LARGE);
	});

	it('fails clearly, naming the counts, when it keeps changing, and emits nothing', async () => {
		sim().addFault({ fault: 'totalChanges', customerId: 'CUST_LARGE', pageNumber: 1 });
		const run = await list(sim(), {
			returnAll: true,
			options: { ...ONE_READ, customerId: 'CUST_LARGE', pageConcurrency: 1 },
		});
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(
			/The beneficiary list changed while it was being read: page 1 reported 321 beneficiaries, page 2 reported 322/,
		);
		expect(run.error?.description).toMatch(/read a second time/);
	});
});
