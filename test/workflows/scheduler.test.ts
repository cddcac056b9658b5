/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only test: waits for a request still on its way */
/**
 * Many items at the speed of one: every request of an execution goes through one scheduler, and
 * the output is what running the items one after another gives. Through n8n's engine against the
 * simulator over real HTTP.
 */
import { createCustomers, type Beneficiary } from '../../sandbox/data';
import { list, listedAs, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator({ latencyMs: 20 });
const customers = createCustomers();
const LARGE = listedAs(customers.get('CUST_LARGE')?.beneficiaries as Beneficiary[], 'CUST_LARGE');
const SMALL = listedAs(customers.get('CUST_SMALL')?.beneficiaries as Beneficiary[], 'CUST_SMALL');

const QUOTA_BY_EXPRESSION = {
	quotaAccumulationMethod: 'USER_ID',
	quotaAccumulationId: '={{ $json.id }}',
	currency: 'USD',
};

function pairedIndex(item: { pairedItem?: unknown }): number {
	return (item.pairedItem as { item: number }).item;
}

/**
 * Waits until `count` requests have reached the simulator (failing after 5 s): a request the node
 * abandoned may still be on its way when the run ends, and must land in this test, not the next.
 */
async function requestsArrived(count: number): Promise<void> {
	for (let waitedMs = 0; sim().requests.length < count; waitedMs += 10) {
		if (waitedMs >= 5_000)
			throw new Error(`${sim().requests.length} of ${count} requests reached the simulator in 5 s`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe('many quota items', () => {
	it('run concurrently within the width of 8, each answer in its input place', async () => {
		const ids = Array.from({ length: 40 }, (_, i) => `U-B${i}`);
		// The first answers wait until the width is in use, so that "concurrently" does not depend on timing.
		const gate = sim().holdUntilInFlight(8);
		const run = await quota(sim(), QUOTA_BY_EXPRESSION, { items: ids.map((id) => ({ id })) });
		await gate.reached;
		expect(run.status).toBe('success');
		expect(run.json.map((j) => j.quotaAccumulationId)).toEqual(ids);
		expect(run.json.map((j) => j.availableQuotaAmount)).toEqual(ids.map((_, i) => Number(`${i}.01`)));
		expect(run.items.map(pairedIndex)).toEqual(ids.map((_, i) => i));
		expect(sim().peakInFlight).toBe(8);
	});

	it('with Continue On Fail, mixed successes and failures each keep their place', async () => {
		const ids = ['U-B1', 'U-CONTRACT', 'U-B2', 'U-NOPE', 'U-B3', 'U-CONTRACT', 'U-B4'];
		const run = await quota(sim(), QUOTA_BY_EXPRESSION, { items: ids.map((id) => ({ id })), continueOnFail: true });
		expect(run.status).toBe('success');
		expect(run.items.map(pairedIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
		expect(run.json.map((j) => j.quotaAccumulationId ?? j.resultCode)).toEqual([
			'U-B1',
			'CONTRACT_CHECK_FAIL',
			'U-B2',
			'ACCOUNT_NOT_EXIST',
			'U-B3',
			'CONTRACT_CHECK_FAIL',
			'U-B4',
		]);
	});

	it('without Continue On Fail, the first failure in input order ends the node, even when a later one failed sooner', async () => {
		// Item 1 fails late (two traffic-limit retries first); item 3 fails at once.
		sim().addFault({ fault: 'rateLimit', operation: 'quota', customerId: 'ACC_SLOW', times: 2 });
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			customerId: 'ACC_SLOW',
			answer: { status: 'F', code: 'PROCESS_FAIL', message: 'late failure' },
		});
		// Every item names its connected account: an expression that gives none fails its item at once.
		const items = [
			{ id: 'U-B1', acc: 'ACC_1' },
			{ id: 'U-B2', acc: 'ACC_SLOW' },
			{ id: 'U-B3', acc: 'ACC_3' },
			{ id: 'U-B4', acc: 'ACC_MISSING' },
		];
		const run = await quota(sim(), { ...QUOTA_BY_EXPRESSION, connectedAccountId: '={{ $json.acc }}' }, { items });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		// Item 1's failure (its subject says which), not item 3's ACCOUNT_NOT_EXIST.
		expect(run.error?.message).toMatch(/^ACC_SLOW USER_ID U-B2 USD: The API answered PROCESS_FAIL/);
	});

	it('without Continue On Fail, nothing new starts after a failure', async () => {
		const ids = ['U-CONTRACT', ...Array.from({ length: 30 }, (_, i) => `U-B${i}`)];
		// Items 1 to 7 must still be under way when item 0 fails: were one of their answers first, item 8
		// would rightly start, and the count below would depend on timing. At the width of 8 a ninth request
		// in flight comes only if something starts after the failure, so the other items' answers are held
		// until the node ends; item 0's failure comes 300 ms after it was sent, once the 8 went out together.
		sim().setLatency(300);
		const gate = sim().holdUntilInFlight(9, { holds: (request) => !request.body.includes('"U-CONTRACT"') });
		const run = await quota(sim(), QUOTA_BY_EXPRESSION, { items: ids.map((id) => ({ id })) });
		// Items 1 to 7 were sent with item 0; the node did not wait for their answers.
		await requestsArrived(8);
		gate.release();
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/CONTRACT_CHECK_FAIL/);
		// Item 0 and the 7 beside it were under way; the other 23 never started.
		const asked = sim().requests.map(
			(request) => (JSON.parse(request.body) as { quotaAccumulationId: string }).quotaAccumulationId,
		);
		expect(asked.sort()).toEqual(['U-CONTRACT', ...ids.slice(1, 8)].sort());
	});

	it('a gateway-wide traffic limit narrows the whole stream and loses nothing', async () => {
		// Every third item is refused on its first attempt, across the whole stream. (Refusing every
		// third request instead could refuse one item four times, past the retry policy, depending on
		// the order the requests arrived in: that failed 2 runs in 100.)
		const ids = Array.from({ length: 30 }, (_, i) => `U-B${i}`);
		const items = ids.map((id, i) => ({ id, acc: `ACC_BUSY_${i}` }));
		const busy = items.filter((_, i) => i % 3 === 2);
		for (const { acc } of busy) sim().addFault({ fault: 'rateLimit', operation: 'quota', customerId: acc, times: 1 });
		const run = await quota(sim(), { ...QUOTA_BY_EXPRESSION, connectedAccountId: '={{ $json.acc }}' }, { items });
		expect(run.status).toBe('success');
		expect(run.json.map((j) => j.quotaAccumulationId)).toEqual(ids);
		const refused = sim().requests.filter((r) => r.fault === 'rateLimit');
		expect(refused.map((r) => r.headers['connected-accountid']).sort()).toEqual(busy.map(({ acc }) => acc).sort());
		expect(sim().requests).toHaveLength(ids.length + busy.length);
	});
});

describe('many listing items', () => {
	it('each item lists its own customer, in input order, pages in API order, exactly once', async () => {
		const order = ['CUST_SMALL', 'CUST_LARGE', 'CUST_EMPTY', 'CUST_SMALL', 'CUST_LARGE'];
		const run = await list(
			sim(),
			{ returnAll: true, customerId: '={{ $json.customer }}' },
			{ items: order.map((customer) => ({ customer })) },
		);
		expect(run.status).toBe('success');
		const expected = order.flatMap((c) => (c === 'CUST_SMALL' ? SMALL : c === 'CUST_LARGE' ? LARGE : []));
		expect(run.json).toEqual(expected);
		const pairs = order.flatMap((c, i) =>
			Array(c === 'CUST_SMALL' ? SMALL.length : c === 'CUST_LARGE' ? LARGE.length : 0).fill(i),
		);
		expect(run.items.map(pairedIndex)).toEqual(pairs);
	});

	it('a limit still reads only the pages it needs, for every item (twice, to confirm two pages)', async () => {
		const run = await list(sim(), { returnAll: false, limit: 60, customerId: 'CUST_LARGE' }, { items: [{}, {}, {}] });
		expect(run.json).toEqual([...LARGE.slice(0, 60), ...LARGE.slice(0, 60), ...LARGE.slice(0, 60)]);
		// Pages 1 and 2 of 7, twice each, for each of the 3 items.
		expect(sim().requests).toHaveLength(3 * 2 * 2);
	});
});
