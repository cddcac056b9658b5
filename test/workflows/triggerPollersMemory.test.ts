/**
 * What this process remembers of each trigger node (trigger/continuity.ts) when it runs many of
 * them: bounded by bytes, not by a count, so that more than 1,000 trigger nodes are all remembered;
 * large states give way first, and a node forgotten so carries on as after an n8n restart, once.
 */
import { rememberWritten } from '../../nodes/PartnerAccountInquiry/trigger/continuity';
import { useSimulator } from './helpers';
import { BELOW, count, later, makeApp, SMALL, U, useClock } from './pollerApp';

const { sim } = useSimulator();
useClock();
const app = makeApp(sim);

/** What `n` other trigger nodes of this n8n process write at their polls (each a state of `state`). */
function otherTriggersPoll(round: number, n = 1000, state: unknown = {}): void {
	for (let i = 0; i < n; i++) {
		const record = { version: 1 as const, born: `other-${i}`, run: 1, polls: round, at: Date.now() };
		const pollRecord = { ...record, quiet: true, everyPollSaved: false };
		rememberWritten(`wf-other-${i}\ntrigger`, {}, UNPROVEN, { state, pollRecord });
	}
}
/** A beneficiary state of about 1 MiB (what a trigger on 6,000 beneficiaries keeps). */
const LARGE_STATE = { blob: 'x'.repeat(2 ** 20) };
const UNPROVEN = { whole: true, everyPollSaved: false, quietSeenSaved: false };
const quotaRequests = () => sim().requests.filter((r) => r.path.includes('AvailableQuota')).length;

describe('scheduler without durable cursors, 1,001 trigger nodes in one n8n process', () => {
	it('a beneficiary first seen by a quiet poll, then removed, is reported', async () => {
		const removed = app({ event: 'beneficiaryRemoved', ...SMALL }, 'scheduler');
		await removed.activate();
		const template = sim().beneficiaries('CUST_SMALL')[0];
		sim()
			.beneficiaries('CUST_SMALL')
			.push({
				...template,
				referenceBeneficiaryId: 'REF-EVICT-1',
				beneficiaryToken: Buffer.from('token:EVICT-1').toString('base64'),
			});
		expect(count(await removed.poll())).toBe(0); // first seen, quiet: not saved by n8n
		otherTriggersPoll(1);
		const list = sim().beneficiaries('CUST_SMALL');
		list.splice(
			list.findIndex((b) => b.referenceBeneficiaryId === 'REF-EVICT-1'),
			1,
		);
		expect((await removed.poll()).items).toEqual([expect.objectContaining({ referenceBeneficiaryId: 'REF-EVICT-1' })]);
	});

	it('status U: no request before the back-off the API asks for has passed', async () => {
		const n8n = app(
			{ event: 'quotaChanged', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD' },
			'scheduler',
		);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'quota', answer: U });
		const asked: number[] = [];
		for (let minute = 0; minute < 16; minute++) {
			const sent = quotaRequests();
			await n8n.poll();
			if (quotaRequests() > sent) asked.push(minute);
			otherTriggersPoll(minute + 1);
			later(1);
		}
		expect(asked).toEqual([0, 5, 15]);
	});
});

describe.each(['emit', 'scheduler'] as const)('1,001 trigger nodes in one n8n process, n8n saving %s', (saving) => {
	it('a quota that stays below the threshold is alerted once, not at every poll', async () => {
		sim().setQuota('USER_ID', 'U-1001', '0');
		const n8n = app(BELOW, saving);
		let alerts = count(await n8n.activate());
		for (let round = 1; round <= 4; round++) {
			otherTriggersPoll(round);
			alerts += count(await n8n.poll());
		}
		expect(alerts).toBe(1);
	});
});

describe('beyond the memory bound (70 other triggers of 1 MiB of state each), scheduler without durable cursors', () => {
	it('large states give way first: a quota trigger polled in between alerts once, not at every poll', async () => {
		sim().setQuota('USER_ID', 'U-1001', '0');
		const n8n = app(BELOW, 'scheduler');
		let alerts = count(await n8n.activate());
		for (let round = 1; round <= 3; round++) {
			otherTriggersPoll(round, 70, LARGE_STATE);
			alerts += count(await n8n.poll());
		}
		expect(alerts).toBe(1);
	});

	it('a beneficiary trigger whose state gave way carries on from the saved state, as after a restart, then as before', async () => {
		const removed = app({ event: 'beneficiaryRemoved', options: { customerId: 'CUST_LARGE' } }, 'scheduler');
		await removed.activate(); // the baseline, saved
		const list = sim().beneficiaries('CUST_LARGE');
		const template = list[0];
		const add = (id: string) =>
			list.push({
				...template,
				referenceBeneficiaryId: id,
				beneficiaryToken: Buffer.from(`token:${id}`).toString('base64'),
			});
		const remove = (id: string) =>
			list.splice(
				list.findIndex((b) => b.referenceBeneficiaryId === id),
				1,
			)[0];
		add('REF-SEEN-1');
		expect(count(await removed.poll())).toBe(0); // quiet: only in this process's memory
		otherTriggersPoll(1, 70, LARGE_STATE); // ... which gives way
		// As after a restart: what the saved baseline holds is still reported (a removal seen only by the lost quiet poll would not be).
		const [gone] = list.splice(1, 1);
		expect((await removed.poll()).items?.map((b) => b.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
		// Remembered again from that poll on: a beneficiary first seen by a quiet poll, then removed, is reported.
		add('REF-SEEN-2');
		expect(count(await removed.poll())).toBe(0);
		remove('REF-SEEN-2');
		expect((await removed.poll()).items?.map((b) => b.referenceBeneficiaryId)).toEqual(['REF-SEEN-2']);
	});
});
