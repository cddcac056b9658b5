/**
 * Baselines and restarts, for one subject alone and for one entry of a set, under each way n8n
 * saves a poll: the quota alert once (exactly once where every poll is saved, at most the
 * documented repeat elsewhere), the baseline an activation takes, deactivating and activating
 * again, an n8n restart carrying on, and what this process carries on that n8n did not save.
 */
import { useSimulator } from '../support/helpers';
import { count, itemsOf, useClock } from '../support/pollerApp';
import { appOf, CELLS, customerTrigger, quotaTrigger } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const BELOW = ['quotaBelowThreshold'];
const setQuota = (value: string) => sim().setQuota('USER_ID', 'U-1001', value);
const small = () => sim().beneficiaries('CUST_SMALL');

describe.each(CELLS)('quota alerts, %s subject, n8n saving %s', (shape, saving) => {
	it('a quota already below at activation, still below across a restart: exactly once under durable cursors, else one repeat', async () => {
		setQuota('0');
		const n8n = app(quotaTrigger(shape, BELOW), saving);
		expect((await n8n.activate()).items?.map((item) => item.subject)).toEqual(['own USER_ID U-1001 USD']);
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		const afterRestart = count(await n8n.restart()) + count(await n8n.poll());
		// Durable cursors save every poll, which the node has seen (two quiet polls in a row saved), and
		// the activation's run in the global static data is the saved state's: nothing re-armed it.
		// Elsewhere a quiet poll that re-armed it may have been lost: at least once.
		expect(afterRestart).toBe(saving === 'durable' ? 0 : 1);
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		expect(n8n.savedGlobal()).toMatchObject({ partnerAccountInquiryRuns: { trigger: 1 } });
	});

	it('falls, recovers, n8n restarts, falls again meanwhile: two alerts, never a miss', async () => {
		const n8n = app(quotaTrigger(shape, BELOW), saving);
		expect(count(await n8n.activate())).toBe(0);
		setQuota('900000');
		expect(count(await n8n.poll())).toBe(1);
		expect(count(await n8n.poll())).toBe(0);
		setQuota('1250000');
		expect(count(await n8n.poll())).toBe(0); // re-armed by a poll that emits nothing
		expect(count(await n8n.poll())).toBe(0);
		setQuota('800000');
		expect(count(await n8n.restart()) + count(await n8n.poll())).toBe(1);
		expect(count(await n8n.poll())).toBe(0);
	});

	it('a restart right after the alert, before a quiet poll was seen saved: at most one repeat', async () => {
		setQuota('0');
		const n8n = app(quotaTrigger(shape, BELOW), saving);
		expect(count(await n8n.activate())).toBe(1);
		expect(count(await n8n.restart()) + count(await n8n.poll())).toBeLessThanOrEqual(1);
		expect(count(await n8n.poll())).toBe(0);
	});

	it('a saved state without a poll record (as 0.1.0 saved) carries on: at least once, then exactly once', async () => {
		setQuota('0');
		const n8n = app(quotaTrigger(shape, BELOW), saving);
		await n8n.activate();
		await n8n.poll();
		n8n.editSaved((data) => {
			delete data.pollRecord;
		});
		n8n.editSavedGlobal((global) => {
			delete global.partnerAccountInquiryRuns;
		});
		expect(count(await n8n.restart()) + count(await n8n.poll())).toBe(1);
		expect(n8n.warnings).toEqual([]);
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
	});

	it('Quota Below Threshold and Quota Changed picked together: one read, an item for each', async () => {
		const n8n = app(quotaTrigger(shape, ['quotaBelowThreshold', 'quotaChanged']), saving);
		expect(count(await n8n.activate())).toBe(0);
		setQuota('900000');
		const items = (await n8n.poll()).items ?? [];
		expect(items.map((item) => [item.event, item.previousAmount, item.availableQuotaAmount])).toEqual([
			['quotaBelowThreshold', 12500, 9000],
			['quotaChanged', 12500, 9000],
		]);
		setQuota('800000');
		expect((await n8n.poll()).items?.map((item) => item.event)).toEqual(['quotaChanged']);
	});
});

describe.each(CELLS)(
	'published before n8n first starts (Docker, GitOps), %s subject, n8n saving %s',
	(shape, saving) => {
		// The real apps' cause of a repeated alert: such a workflow is activated in mode 'init', as a
		// restart is, and its first polls are the ones a restart follows soonest.
		it('a quota already below at the first start: once; restarts after two polls repeat it nowhere under durable cursors', async () => {
			setQuota('0');
			const n8n = app(quotaTrigger(shape, BELOW), saving);
			expect(count(await n8n.start())).toBe(1);
			for (let restart = 0; restart < 3; restart++) {
				for (let i = 0; i < 2; i++) expect(count(await n8n.poll())).toBe(0);
				const repeats = count(await n8n.restart()) + count(await n8n.poll());
				// Elsewhere a quiet poll is not saved, so a re-arming may have been lost: at least once.
				expect(repeats).toBe(saving === 'durable' ? 0 : 1);
			}
		});

		it('a restart before a quiet poll was seen saved: at most one repeat; once seen, none at the next restarts', async () => {
			setQuota('0');
			const n8n = app(quotaTrigger(shape, BELOW), saving);
			expect(count(await n8n.start())).toBe(1);
			expect(count(await n8n.poll())).toBe(0);
			expect(count(await n8n.restart()) + count(await n8n.poll())).toBeLessThanOrEqual(1);
			for (let i = 0; i < 2; i++) expect(count(await n8n.poll())).toBe(0);
			for (let restart = 0; restart < 2; restart++) {
				const again = count(await n8n.restart()) + count(await n8n.poll());
				expect(again).toBe(saving === 'durable' ? 0 : 1);
			}
		});

		it('a quota that falls below after the start, then n8n restarts: once under durable cursors', async () => {
			const n8n = app(quotaTrigger(shape, BELOW), saving);
			expect(count(await n8n.start())).toBe(0);
			setQuota('900000');
			expect(count(await n8n.poll())).toBe(1);
			for (let i = 0; i < 2; i++) expect(count(await n8n.poll())).toBe(0);
			const repeats = count(await n8n.restart()) + count(await n8n.poll()) + count(await n8n.poll());
			expect(repeats).toBe(saving === 'durable' ? 0 : 1);
			// Once the setup is known to save every poll, an alert just before a restart is not repeated either.
			setQuota('1250000');
			expect(count(await n8n.poll())).toBe(0);
			setQuota('800000');
			expect(count(await n8n.poll())).toBe(1);
			const afterAlert = count(await n8n.restart()) + count(await n8n.poll());
			expect(afterAlert).toBe(saving === 'durable' ? 0 : 1);
		});

		it('a beneficiary changed across a restart soon after the start is reported once', async () => {
			const n8n = app(customerTrigger(shape, ['beneficiaryBankDetailsChanged', 'beneficiaryRemoved']), saving);
			expect(count(await n8n.start())).toBe(0);
			expect(count(await n8n.poll())).toBe(0);
			const changed = sim().changeBankDetails('CUST_SMALL', small()[1].referenceBeneficiaryId);
			const seen = [await n8n.restart(), await n8n.poll(), await n8n.poll()].flatMap(itemsOf);
			expect(seen.map((item) => [item.event, item.referenceBeneficiaryId])).toEqual([
				['beneficiaryBankDetailsChanged', changed.referenceBeneficiaryId],
			]);
		});
	},
);

describe.each(CELLS)('the baseline of an activation, %s subject, n8n saving %s', (shape, saving) => {
	const customer = (events: string[]) => app(customerTrigger(shape, events), saving);

	it('a change between the first and the second poll after activation is reported, once', async () => {
		const n8n = customer(['beneficiaryChanged', 'beneficiaryRemoved']);
		expect(count(await n8n.activate())).toBe(0);
		const after = sim().changeBankDetails('CUST_SMALL', small()[0].referenceBeneficiaryId);
		const [gone] = small().splice(1, 1);
		expect(
			(await n8n.poll()).items?.map((item) => [item.event, item.referenceBeneficiaryId, item.whoseAccount]),
		).toEqual([
			['beneficiaryChanged', after.referenceBeneficiaryId, 'CUST_SMALL'],
			['beneficiaryRemoved', gone.referenceBeneficiaryId, 'CUST_SMALL'],
		]);
		for (let i = 0; i < 2; i++) expect(count(await n8n.poll())).toBe(0);
	});

	it('deactivated, changed meanwhile, activated again: a fresh baseline, nothing reported; later changes once', async () => {
		const n8n = customer(['beneficiaryRemoved']);
		await n8n.activate();
		for (let i = 0; i < 2; i++) expect(count(await n8n.poll())).toBe(0);
		n8n.deactivate();
		small().splice(0, 2);
		expect(count(await n8n.activate())).toBe(0);
		for (let i = 0; i < 2; i++) expect(count(await n8n.poll())).toBe(0);
		const [gone] = small().splice(0, 1);
		expect((await n8n.poll()).items?.map((item) => item.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
		expect(count(await n8n.poll())).toBe(0);
	});

	it('deactivated, changed meanwhile, activated again, n8n restarted before the next poll: only later changes', async () => {
		const n8n = customer(['beneficiaryRemoved']);
		await n8n.activate();
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		n8n.deactivate();
		small().splice(0, 2);
		expect(count(await n8n.activate())).toBe(0); // durable cursors: a testing poll, not committed
		expect(count(await n8n.restart())).toBe(0);
		expect(count(await n8n.poll())).toBe(0);
		const [gone] = small().splice(0, 1);
		expect((await n8n.poll()).items?.map((item) => item.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
		expect(count(await n8n.poll())).toBe(0);
	});

	it('a restart carries on: a change made across it is reported once', async () => {
		const n8n = customer(['beneficiaryBankDetailsChanged']);
		await n8n.activate();
		await n8n.poll();
		await n8n.poll();
		const after = sim().changeBankDetails('CUST_SMALL', small()[2].referenceBeneficiaryId);
		const seen = [await n8n.restart(), await n8n.poll()].flatMap(itemsOf);
		expect(seen.map((item) => [item.event, item.referenceBeneficiaryId])).toEqual([
			['beneficiaryBankDetailsChanged', after.referenceBeneficiaryId],
		]);
		expect(count(await n8n.poll())).toBe(0);
	});

	it('a beneficiary first seen by a poll that emitted nothing, then removed: reported (n8n running throughout)', async () => {
		const n8n = customer(['beneficiaryRemoved']);
		await n8n.activate();
		const token = Buffer.from('token:QUIET-1').toString('base64');
		small().push({ ...small()[0], referenceBeneficiaryId: 'REF-QUIET-1', beneficiaryToken: token });
		expect(count(await n8n.poll())).toBe(0); // first seen, nothing to emit for this event
		small().splice(
			small().findIndex((b) => b.referenceBeneficiaryId === 'REF-QUIET-1'),
			1,
		);
		expect((await n8n.poll()).items?.map((item) => item.referenceBeneficiaryId)).toEqual(['REF-QUIET-1']);
		expect(count(await n8n.poll())).toBe(0);
	});

	it('an edit that does not change the answer (Timeout) keeps every baseline: a change made before it is reported once', async () => {
		const n8n = customer(['beneficiaryRemoved']);
		await n8n.activate();
		await n8n.poll();
		const [gone] = small().splice(0, 1);
		const edited = await n8n.update(
			customerTrigger(shape, ['beneficiaryRemoved'], 'CUST_SMALL', { options: { timeout: 20_000 } }),
		);
		const seen = [edited, await n8n.poll(), await n8n.poll()].flatMap(itemsOf);
		expect(seen.map((item) => item.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
	});

	it('an edit that changes the answer (a filter) starts a fresh baseline: nothing reported of the other list', async () => {
		const n8n = customer(['beneficiaryAdded', 'beneficiaryRemoved']);
		await n8n.activate();
		await n8n.poll();
		const edited = await n8n.update(
			customerTrigger(shape, ['beneficiaryAdded', 'beneficiaryRemoved'], 'CUST_SMALL', {
				filters: { currencyList: ['USD'] },
			}),
		);
		expect([edited, await n8n.poll(), await n8n.poll()].flatMap(itemsOf)).toEqual([]);
	});
});
