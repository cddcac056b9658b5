/**
 * The trigger's runs under n8n's pollers (test/support/n8nApp.ts), one subject alone and in a set: which run of saved states a
 * poll carries on from after deactivating and activating again (whatever the clock does), a U
 * answered to the poll n8n runs at activation, and a poll record edited into something no run writes.
 */
import { useSimulator } from '../support/helpers';
import { count, itemsOf, later, U, useClock } from '../support/pollerApp';
import { appOf, CELLS, customerTrigger, quotaTrigger, SHAPES, watchedRecord, type Shape } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const BELOW = (shape: Shape) => quotaTrigger(shape, ['quotaBelowThreshold']);
const CHANGED = (shape: Shape) => quotaTrigger(shape, ['quotaChanged']);
const REMOVED = (shape: Shape) => customerTrigger(shape, ['beneficiaryRemoved']);
const setQuota = (value: string) => sim().setQuota('USER_ID', 'U-1001', value);

describe.each(SHAPES)(
	'durable cursors, %s subject: deactivated, the host clock stepped back, activated again',
	(shape) => {
		it('a beneficiary removed while inactive is not reported (the old run never overrides the newer activation)', async () => {
			const removed = app(REMOVED(shape), 'durable');
			await removed.activate();
			for (let i = 0; i < 3; i++) expect(count(await removed.poll())).toBe(0);
			removed.deactivate();
			const [meanwhile] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
			later(-10); // NTP steps the host clock back
			expect(count(await removed.activate())).toBe(0);
			// A poll that failed would report nothing too: itemsOf fails the test on it.
			const reported = itemsOf(await removed.poll()).map((b) => b.referenceBeneficiaryId);
			expect(reported).not.toContain(meanwhile.referenceBeneficiaryId);
			expect(reported).toEqual([]);
			// The trigger still reports a removal made after the activation.
			const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
			expect(itemsOf(await removed.poll()).map((b) => b.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
		});

		it('a quota that falls below after the activation is alerted, n8n running throughout', async () => {
			setQuota('0');
			const n8n = app(BELOW(shape), 'durable');
			expect(count(await n8n.activate())).toBe(1);
			for (let i = 0; i < 4; i++) expect(count(await n8n.poll())).toBe(0);
			n8n.deactivate();
			setQuota('1250000');
			later(-10);
			expect(count(await n8n.activate())).toBe(0); // above: the new baseline is armed
			setQuota('0');
			expect(count(await n8n.poll())).toBe(1);
		});

		it('an old run dated an hour in the future loses to the newer activation too', async () => {
			const removed = app(REMOVED(shape), 'durable');
			later(60);
			await removed.activate();
			for (let i = 0; i < 2; i++) expect(count(await removed.poll())).toBe(0);
			removed.deactivate();
			later(-60);
			const [meanwhile] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
			await removed.activate();
			const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
			expect((await removed.poll()).items?.map((b) => b.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
			expect(meanwhile).toBeDefined();
		});
	},
);

describe.each(SHAPES)('durable cursors, %s subject: activated again, n8n restarts before the next poll', (shape) => {
	it('a quota that recovered while inactive and falls after the restart is alerted (never missed)', async () => {
		setQuota('0');
		const n8n = app(BELOW(shape), 'durable');
		expect(count(await n8n.activate())).toBe(1);
		for (let i = 0; i < 4; i++) expect(count(await n8n.poll())).toBe(0);
		n8n.deactivate();
		setQuota('1250000');
		later(30);
		expect(count(await n8n.activate())).toBe(0); // re-armed by a testing poll: not committed
		expect(watchedRecord(n8n.saved()).state).toMatchObject({ below: true });
		await n8n.restart();
		setQuota('0');
		// The activation's run, saved in the global static data, is newer than the row's: a fresh baseline.
		expect(count(await n8n.poll())).toBe(1);
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
	});

	it('a quota still below across a later restart is not alerted again (exactly once)', async () => {
		setQuota('0');
		const n8n = app(BELOW(shape), 'durable');
		expect(count(await n8n.activate())).toBe(1);
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		n8n.deactivate();
		expect(count(await n8n.activate())).toBe(1); // a fresh baseline, below: the activation alerts
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		await n8n.restart();
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		expect(n8n.savedGlobal()).toMatchObject({ partnerAccountInquiryRuns: { trigger: 2 } });
	});
});

describe.each(CELLS)('U answered to the activation poll, %s subject, n8n saving %s', (shape, saving) => {
	it('fails the activation (no baseline to save); activated again, a removal around a restart hours later is reported', async () => {
		const removed = app(REMOVED(shape), saving);
		sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_SMALL', answer: U });
		const failed = await removed.activate();
		expect(failed.error?.description).toMatch(/Activate (it )?again.*5 minutes/s);
		await expect(removed.poll()).rejects.toThrow('not active');
		sim().clearFaults();
		later(6);
		expect(count(await removed.activate())).toBe(0); // the baseline, saved with the activation where n8n saves it
		for (let i = 0; i < 5; i++) {
			later(60);
			expect(count(await removed.poll())).toBe(0);
		}
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const seen = [await removed.restart(), await removed.poll()].flatMap(itemsOf);
		expect(seen.map((b) => b.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
	});
});

describe.each(CELLS)('a damaged poll record, %s subject, n8n saving %s', (shape, saving) => {
	it('a poll count at the largest safe integer warns once and is dropped, not written back at every poll', async () => {
		const n8n = app(CHANGED(shape), saving);
		await n8n.activate();
		await n8n.poll();
		n8n.editSaved((data) => {
			(data.pollRecord as { polls: number }).polls = Number.MAX_SAFE_INTEGER;
		});
		await n8n.restart();
		for (let i = 0; i < 5; i++) await n8n.poll();
		expect(n8n.warnings).toHaveLength(1);
		expect(n8n.warnings[0]).toMatch(/poll record/);
	});
});

describe.each(SHAPES)('a run at the edge of what the node accepts (2^40, read as valid), %s subject', (shape) => {
	it('the node never writes a run it then reads as damaged (no warning, no lost continuity)', async () => {
		const removed = app(REMOVED(shape), 'durable');
		await removed.activate();
		for (let i = 0; i < 2; i++) expect(count(await removed.poll())).toBe(0);
		removed.deactivate();
		removed.editSavedGlobal((g) => (g.partnerAccountInquiryRuns = { trigger: 2 ** 40 }));
		expect(count(await removed.activate())).toBe(0);
		for (let i = 0; i < 3; i++) expect(count(await removed.poll())).toBe(0);
		expect(removed.warnings).toEqual([]);
	});

	it('durable: quota still below across a restart is alerted exactly once (as with ordinary runs)', async () => {
		setQuota('1250000');
		const n8n = app(BELOW(shape), 'durable');
		await n8n.activate();
		n8n.deactivate();
		n8n.editSavedGlobal((g) => (g.partnerAccountInquiryRuns = { trigger: 2 ** 40 }));
		setQuota('0');
		expect(count(await n8n.activate())).toBe(1);
		for (let i = 0; i < 4; i++) expect(count(await n8n.poll())).toBe(0);
		expect(count(await n8n.restart()) + count(await n8n.poll())).toBe(0);
	});
});
