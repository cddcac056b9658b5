/**
 * Multi-main: when the leader steps down, another main takes over and n8n activates the workflow
 * there in mode 'leadershipChange', which n8n treats as it treats its own start ('init'): a failure
 * of that activation poll fails the workflow's activation on the new leader. So that poll reports
 * nothing; a report due then comes at the next poll, once (a hostile look at multi-main found the
 * trigger threw it there, failing the activation). A main that led before and leads again is no
 * worse than a restart: what it remembers of its earlier lead is older than what the other main
 * wrote since (a hostile review proved a repeated Added, a lost Removed, a missed alert and, under
 * durable cursors, a repeated alert when it carried on from its own memory).
 */
import type { IDataObject } from 'n8n-workflow';

import { useSimulator } from '../support/helpers';
import type { N8nPoll } from '../support/n8nApp';
import { count, itemsOf, later, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, SAVINGS, SHAPES } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' } as const;

it('a report due at a leadership change comes at the new leader’s next poll, once, not from its activation poll', async () => {
	const n8n = app(customerTrigger('set', ['beneficiaryAdded']), 'emit');
	expect((await n8n.activate()).error).toBeUndefined();
	const small = sim().beneficiaries('CUST_SMALL');
	const token = Buffer.from('token:REF-LEAD-1').toString('base64');
	small.push({ ...small[0], referenceBeneficiaryId: 'REF-LEAD-1', beneficiaryToken: token });
	sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_EMPTY', answer: FAIL, times: 1 } as never);
	// The poll emits CUST_SMALL's Added; CUST_EMPTY's failure waits for the next poll's report.
	const emitted = await n8n.poll();
	expect(itemsOf(emitted).map((item: IDataObject) => item.referenceBeneficiaryId)).toEqual(['REF-LEAD-1']);
	const takeover = await n8n.failover();
	expect(takeover?.error?.message).toBeUndefined();
	const reported = await n8n.poll();
	expect(reported.error?.message).toBe('1 of 2 watched entries failed');
	expect(reported.error?.description).toContain('CUST_EMPTY');
	const after = await n8n.poll();
	expect(after.error).toBeUndefined();
	expect(itemsOf(after)).toEqual([]);
});

const small = () => sim().beneficiaries('CUST_SMALL');
const refsOf = (p: N8nPoll | undefined) =>
	itemsOf(p).map((i: IDataObject) => `${String(i.event)}:${String(i.referenceBeneficiaryId)}`);
/** A scheduled poll a minute after the last. */
const tick = async (n8n: { poll: () => Promise<N8nPoll> }) => {
	later(1);
	return await n8n.poll();
};

describe.each(SAVINGS)('a main that led before leads again (%s)', (saving) => {
	it.each(SHAPES)(
		'B emits an Added after A polled quietly; then removed, back to A: Added once, Removed once (%s)',
		async (shape) => {
			const n8n = app(customerTrigger(shape, ['beneficiaryAdded', 'beneficiaryRemoved']), saving);
			expect((await n8n.activate()).error).toBeUndefined();
			const seen: string[] = [];
			for (let i = 0; i < 4; i++) seen.push(...refsOf(await tick(n8n))); // A, quiet
			seen.push(...refsOf(await n8n.failover())); // B leads
			small().push({
				...small()[0],
				referenceBeneficiaryId: 'REF-LEAD-2',
				beneficiaryToken: Buffer.from('token:REF-LEAD-2').toString('base64'),
			});
			seen.push(...refsOf(await tick(n8n))); // B emits the Added
			small().pop();
			seen.push(...refsOf(await n8n.failover())); // back to A
			seen.push(...refsOf(await tick(n8n)), ...refsOf(await tick(n8n)));
			expect(seen).toEqual(['beneficiaryAdded:REF-LEAD-2', 'beneficiaryRemoved:REF-LEAD-2']);
		},
	);
});

describe.each(['emit', 'scheduler'] as const)(
	'a quota re-armed by a quiet poll of B that n8n did not save (%s)',
	(saving) => {
		it.each(SHAPES)(
			'falls again, back to A at the same poll count: alerted again, never missed (%s)',
			async (shape) => {
				const setQuota = (minor: string) => sim().setQuota('USER_ID', 'U-1001', minor);
				const n8n = app(quotaTrigger(shape, ['quotaBelowThreshold']), saving);
				let alerts = count(await n8n.activate());
				alerts += count(await tick(n8n)) + count(await tick(n8n)); // A, quiet: A remembers its 3rd write
				alerts += count(await n8n.failover()); // B leads (the default poller: its activation poll writes the 2nd)
				if (saving === 'scheduler') alerts += count(await tick(n8n));
				setQuota('900000');
				alerts += count(await tick(n8n)); // B alerts: its 3rd write, saved
				setQuota('1250000');
				alerts += count(await tick(n8n)); // B, quiet: re-armed, not saved
				setQuota('800000');
				alerts += count(await n8n.failover()); // back to A
				for (let i = 0; i < 3; i++) alerts += count(await tick(n8n));
				expect(alerts).toBe(2);
			},
		);
	},
);

it.each(SHAPES)(
	'durable cursors: a quota below the whole time, A, B, back to A: alerted exactly once (%s)',
	async (shape) => {
		sim().setQuota('USER_ID', 'U-1001', '0');
		const n8n = app(quotaTrigger(shape, ['quotaBelowThreshold']), 'durable');
		const counts = [count(await n8n.activate())];
		for (let i = 0; i < 4; i++) counts.push(count(await tick(n8n))); // A: every poll saved, proven
		counts.push(count(await n8n.failover()));
		for (let i = 0; i < 2; i++) counts.push(count(await tick(n8n))); // B
		counts.push(count(await n8n.failover())); // back to A, which remembers its older write
		for (let i = 0; i < 3; i++) counts.push(count(await tick(n8n)));
		expect(counts.reduce((a, b) => a + b)).toBe(1);
	},
);

describe.each(SAVINGS)('an activation refused on A, then B activates, then A leads again (%s)', (saving) => {
	// Found by a second review of the fix: A still held the run its refused activation started, and
	// carried on from it (an empty state) instead of B's.
	const FAIL_ONCE = { fault: 'answer', answer: FAIL, times: 1 } as const;
	it('a payee bound at B’s activation and removed before A leads again: its Removed, once', async () => {
		const n8n = app(customerTrigger('one', ['beneficiaryAdded', 'beneficiaryRemoved']), saving);
		sim().addFault({ ...FAIL_ONCE, operation: 'list', customerId: 'CUST_SMALL' } as never);
		expect((await n8n.activate()).error).toBeDefined(); // refused on A
		await n8n.failover();
		small().push({
			...small()[0],
			referenceBeneficiaryId: 'REF-LEAD-3',
			beneficiaryToken: Buffer.from('token:3').toString('base64'),
		});
		const seen = refsOf(await n8n.activate()); // on B: the payee is in its baseline
		seen.push(...refsOf(await tick(n8n)), ...refsOf(await tick(n8n)));
		small().pop();
		seen.push(...refsOf(await n8n.failover()));
		for (let i = 0; i < 3; i++) seen.push(...refsOf(await tick(n8n)));
		expect(seen).toEqual(['beneficiaryRemoved:REF-LEAD-3']);
	});
	it('a quota below the whole time: alerted once, twice at most where a restart may repeat it', async () => {
		const n8n = app(quotaTrigger('one', ['quotaBelowThreshold']), saving);
		sim().addFault({ ...FAIL_ONCE, operation: 'quota', accumulationId: 'U-1001' } as never);
		expect((await n8n.activate()).error).toBeDefined();
		await n8n.failover();
		sim().setQuota('USER_ID', 'U-1001', '900000');
		let alerts = count(await n8n.activate());
		for (let i = 0; i < 4; i++) alerts += count(await tick(n8n));
		alerts += count(await n8n.failover());
		for (let i = 0; i < 3; i++) alerts += count(await tick(n8n));
		expect(alerts).toBe(saving === 'durable' ? 1 : 2);
	});
});
