import { createCustomers, type Beneficiary } from '../../sandbox/data';
import type { FaultKind } from '../../sandbox/server';
import { ERRORS_DOC } from '../../nodes/PartnerAccountInquiry/shared/core/links';
import { list, listedAs, quota, useSimulator, watchedNode } from '../support/helpers';

const { sim } = useSimulator();
const LARGE = listedAs(createCustomers().get('CUST_LARGE')?.beneficiaries as Beneficiary[], 'CUST_LARGE');
const QUOTA = {
	quotaAccumulationMethod: 'USER_ID',
	quotaAccumulationId: 'U-1001',
	currency: 'USD',
	options: { timeout: 1000 },
};
/** The quota with room for three tries of at least 1 s each. */
const QUOTA_5S = { ...QUOTA, options: { timeout: 5000 } };
const OK_QUOTA = [
	{
		whoseAccount: 'own',
		subject: 'own USER_ID U-1001 USD',
		quotaAccumulationMethod: 'USER_ID',
		quotaAccumulationId: 'U-1001',
		availableQuota: { currency: 'USD', value: '1250000' },
		availableQuotaAmount: 12500,
	},
];

function expectWhole(json: Array<Record<string, unknown>>) {
	expect(json).toHaveLength(LARGE.length);
	expect(new Set(json.map((b) => b.beneficiaryToken)).size).toBe(LARGE.length);
	expect(json).toEqual(LARGE);
}

describe('transient faults are retried, freshly signed, and lose nothing', () => {
	it.each<[FaultKind, number]>([
		['rateLimit', 2],
		['http429', 1],
		['http502', 3],
		['http503', 2],
		['reset', 2],
		['hang', 1],
	])('%s x%i, then the answer: the quota comes back', async (fault, times) => {
		sim().addFault({ fault, operation: 'quota', times });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('success');
		expect(run.json).toEqual(OK_QUOTA);
		expect(sim().requests).toHaveLength(times + 1);
	});

	it('each retry is signed afresh: its own Request-Time and signature, not the refused bytes sent again', async () => {
		sim().addFault({ fault: 'http503', operation: 'quota', times: 2 });
		// Every answer takes at least 1 s: each retry is signed more than a whole second after the try before.
		sim().setLatency(1000);
		const run = await quota(sim(), QUOTA_5S);
		expect(run.json).toEqual(OK_QUOTA);
		const tries = sim().requests;
		expect(tries.map((r) => r.fault)).toEqual(['http503', 'http503', undefined]);
		// The last verified (the simulator checks every signature before it answers).
		expect(tries.at(-1)?.resultCode).toBe('SUCCESS');
		expect(new Set(tries.map((r) => r.headers['request-time'])).size).toBe(3);
		expect(new Set(tries.map((r) => r.headers.signature)).size).toBe(3);
	});

	it('a listing hit by every transient fault on different pages is still every beneficiary exactly once', async () => {
		const faults: Array<[FaultKind, number]> = [
			['http502', 2],
			['reset', 3],
			['rateLimit', 4],
			['http503', 5],
			['http429', 6],
			['hang', 7],
		];
		for (const [fault, pageNumber] of faults) sim().addFault({ fault, customerId: 'CUST_LARGE', pageNumber, times: 1 });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE', options: { timeout: 1000 } });
		expect(run.status).toBe('success');
		expectWhole(run.json);
		// 7 pages, read twice (the second read confirms the first), and one retry for each fault.
		expect(sim().requests).toHaveLength(2 * 7 + faults.length);
	});

	it.each<[FaultKind, RegExp]>([
		['http503', /The gateway answered HTTP 503/],
		['http502', /The gateway answered HTTP 502/],
		['reset', /No answer from the gateway: the connection was reset/],
		['hang', /No answer from the gateway: the request timed out/],
	])('%s that persists: 4 attempts, then a clear error, nothing emitted', async (fault, message) => {
		sim().addFault({ fault, operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(message);
		expect(run.error?.description).toMatch(/^Tried 4 times, with growing pauses, each freshly signed; /);
		expect(sim().requests).toHaveLength(4);
	});

	it('a page refused for traffic between its 503s: the 503s keep their 3 retries, the traffic limit costs none', async () => {
		for (const fault of ['http503', 'rateLimit', 'http503', 'http503', 'http503'] as const) {
			sim().addFault({ fault, customerId: 'CUST_LARGE', pageNumber: 2, times: 1 });
		}
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/The gateway answered HTTP 503/);
		expect(sim().requests.filter((r) => (JSON.parse(r.body) as { pageNumber: number }).pageNumber === 2)).toHaveLength(
			5,
		);
	});
});

describe('a traffic limit costs time, not data', () => {
	const ITEMS = ['U-B1', 'U-B2', 'U-B3'].map((id) => ({ id }));
	const byItem = { ...QUOTA, quotaAccumulationId: '={{ $json.id }}' };

	it('one request refused at 4 attempts in a row (what the old count gave up on) is answered at the 5th', async () => {
		sim().addFault({ fault: 'rateLimit', operation: 'quota', accumulationId: 'U-B2', times: 4 });
		// 4 pauses of at most 250, 500, 1000 and 2000 ms: within the Timeout's 5 s.
		const run = await quota(sim(), { ...byItem, options: { timeout: 5000 } }, { items: ITEMS });
		expect(run.status).toBe('success');
		expect(run.json.map((json) => json.quotaAccumulationId)).toEqual(['U-B1', 'U-B2', 'U-B3']);
		const asked = (id: string) => sim().requests.filter((r) => r.body.includes(`"${id}"`));
		expect(asked('U-B2')).toHaveLength(5);
		expect(asked('U-B2').filter((r) => r.fault === 'rateLimit')).toHaveLength(4);
		expect(asked('U-B1')).toHaveLength(1);
		expect(asked('U-B3')).toHaveLength(1);
	});

	// The default Timeout: 30 s of pauses, unless the execution's cancel reaches them. n8n ends a
	// cancelled run at once whatever the node does; the node's own execute ending within this test's
	// 15 s is what shows the cancel reached its pause (no clock is read).
	it('a cancelled execution ends a pause at once, not when the Timeout is used up', async () => {
		sim().addFault({ fault: 'rateLimit', operation: 'quota' });
		const node = watchedNode();
		const run = await quota(sim(), { ...QUOTA, options: {} }, { ...node, cancelAfterMs: 1000 });
		expect(run.json).toEqual([]);
		await node.executeEnded;
		// The attempts the node made (signed; the last may be cut on its way by the cancel): a few, not 30 s' worth.
		expect(sim().requests.length).toBeGreaterThanOrEqual(2);
		expect(sim().requests.length).toBeLessThanOrEqual(node.signed());
		expect(node.signed()).toBeLessThanOrEqual(5);
	}, 15_000);

	it('a limit that outlasts the Timeout: the item fails with the code once its pauses add up to it, nothing emitted', async () => {
		sim().addFault({ fault: 'rateLimit', operation: 'quota' });
		// Timeout 1000 ms: pauses of 125-250 and 250-500 ms, then what is left of the 1000 (two pauses
		// when the jitter leaves room): 4 or 5 attempts.
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/REQUEST_TRAFFIC_EXCEED_LIMIT/);
		expect(sim().requests.length).toBeGreaterThanOrEqual(4);
		expect(sim().requests.every((r) => r.fault === 'rateLimit')).toBe(true);
	});
});

describe('an unknown outcome is not retried inline', () => {
	it('UNKNOWN_EXCEPTION: one attempt, and the API’s schedule in the error', async () => {
		sim().addFault({ fault: 'unknownException', operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(sim().requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/UNKNOWN_EXCEPTION/);
		// The schedule (at most 7 repeats, 5 to 320 minutes apart) is behind the README's link.
		expect(run.error?.description).toBe(
			`The outcome is unknown (status U). Retry later on the API's schedule, then contact support: ${ERRORS_DOC}`,
		);
	});

	it('a signed U answer on HTTP 500 is judged by its result code: no inline retry, the API’s schedule', async () => {
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			httpStatus: 500,
			answer: { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'unknown' },
		});
		const run = await quota(sim(), QUOTA);
		expect(run.error?.message).toMatch(/UNKNOWN_EXCEPTION/);
		expect(run.error?.description).toContain(ERRORS_DOC);
		expect(sim().requests).toHaveLength(1);
	});
});

describe('integrity failures are never retried and never emit data', () => {
	it.each<[FaultKind, RegExp, RegExp]>([
		['alterBody', /The answer's signature does not match its body$/, /altered on its way.*Service Public Key/],
		['unsigned', /The answer carries no signature, so it cannot be verified$/, /Base URL/],
		['wrongKey', /The answer's signature does not match its body$/, /Service Public Key/],
		['foreignClientId', /addressed to another client than the credential's$/, /client ID "SOMEONE_ELSE_9999"/],
	])('%s', async (fault, message, description) => {
		sim().addFault({ fault, operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(message);
		expect(run.error?.description).toMatch(description);
		expect(run.error?.description).toMatch(/nothing from (it|this one|the answer) was used/);
		expect(sim().requests).toHaveLength(1);
	});

	it.each<FaultKind>(['alterBody', 'unsigned', 'wrongKey', 'foreignClientId', 'malformedJson'])(
		'%s on page 4 of a listing: the whole listing fails, nothing from any page is emitted',
		async (fault) => {
			sim().addFault({ fault, customerId: 'CUST_LARGE', pageNumber: 4 });
			const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
			expect(run.status).toBe('error');
			expect(run.json).toEqual([]);
			expect(
				sim().requests.filter((r) => (JSON.parse(r.body) as { pageNumber: number }).pageNumber === 4),
			).toHaveLength(1);
		},
	);

	it('an unsigned failure answer is reported with its code, marked unsigned (it carries no data)', async () => {
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			unsigned: true,
			answer: { status: 'F', code: 'ACCOUNT_NOT_EXIST', message: 'no such account' },
		});
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/The API answered ACCOUNT_NOT_EXIST: the account does not exist$/);
		expect(run.error?.description).toMatch(/^The gateway did not sign this failure answer; /);
		expect(run.json).toEqual([]);
		expect(sim().requests[0].headers.signature).toBeDefined();
	});

	it('an unsigned success is refused, even with a plausible body', async () => {
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			unsigned: true,
			answer: { status: 'S', code: 'SUCCESS', message: 'success' },
		});
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/The answer carries no signature, so it cannot be verified$/);
	});

	it('a redirect is not followed: the signed body and headers never reach another address', async () => {
		sim().addFault({ fault: 'redirect', operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/HTTP 307 with no signed API result/);
		expect(sim().requests).toHaveLength(1);
	});

	it('a quota answer about another ID is not used', async () => {
		sim().addFault({ fault: 'foreignQuota', operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/The quota answer is about another Accumulation ID$/);
		expect(run.error?.description).toMatch(/^It is about "U-1001-SOMEONE-ELSE", not the "U-1001" asked for;/);
	});
});

describe('malformed answers are clear errors, not crashes', () => {
	it('malformed JSON', async () => {
		sim().addFault({ fault: 'malformedJson', operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/The answer is not valid JSON$/);
		expect(run.error?.description).toMatch(/^It has \d+ characters, starting "\{\\"result/);
		expect(sim().requests).toHaveLength(1);
	});
});
