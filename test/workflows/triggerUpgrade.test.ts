/**
 * An upgrade from 0.2.0: the states that release's own code saved (test/fixtures/trigger-states-0.2.0.json,
 * for one subject and for sets, each event family, a status U back-off, a list that changed while
 * read), carried on by this release after n8n restarts with it: no warning, no fresh baseline, no
 * lost or invented event at the first poll; the next changes reported once, against the old state.
 * The fixture's question digests name its simulator's address, so this file's simulator listens there.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- a test reads its fixture */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { useSimulator } from '../support/helpers';
import { upgradedFrom, useClock, type SavedByRelease } from '../support/pollerApp';

const FIXTURE = JSON.parse(readFileSync(join(__dirname, '../fixtures/trigger-states-0.2.0.json'), 'utf8')) as Record<
	string,
	SavedByRelease
> & { baseUrl: string };

const { sim } = useSimulator({ port: Number(new URL(FIXTURE.baseUrl).port) });
useClock();

/** n8n started with this release over what 0.2.0 saved for `name` (its parameters edited by `edit`). */
function upgraded(name: string, edit: INodeParameters = {}) {
	const saved = FIXTURE[name];
	const { poller, staticData } = upgradedFrom(sim, name, saved, { ...saved.parameters, ...edit });
	return {
		warnings: poller.warnings,
		staticData,
		poll: async () => {
			const result = await poller.poll();
			if (!result.ok) throw result.error;
			return (result.items ?? []).map((item) => item.json);
		},
	};
}

describe('states saved by 0.2.0, carried on after the upgrade', () => {
	it('the fixture was saved at this simulator address', () => {
		expect(sim().url).toBe(FIXTURE.baseUrl);
	});

	it.each(['quotaChangedSingle', 'quotaBackoffSingle'])(
		'one quota subject (%s): a change made while n8n was down is reported at the first poll, against the amount saved',
		async (name) => {
			const trigger = upgraded(name);
			sim().setQuota('USER_ID', 'U-1001', '300');
			expect((await trigger.poll()).map((q) => [q.event, q.previousAmount, q.availableQuotaAmount])).toEqual([
				['quotaChanged', 12500, 3],
			]);
			expect(await trigger.poll()).toEqual([]);
			expect(trigger.warnings).toEqual([]);
			expect(trigger.staticData.unknownBackoff).toBeUndefined();
		},
	);

	it('one quota subject, its threshold edited before the first poll of this release was saved: anew, said in one warning', async () => {
		const trigger = upgraded('quotaBelowSingle', { threshold: 15000 });
		sim().setQuota('USER_ID', 'U-1001', '900000');
		expect((await trigger.poll()).map((q) => [q.event, q.previousAmount])).toEqual([['quotaBelowThreshold', null]]);
		expect(trigger.warnings).toEqual([
			expect.stringMatching(/a threshold edited \(or hidden.*before this release's first poll/),
		]);
	});

	it('one quota subject, Quota Below Threshold swapped for Quota Changed before that poll was saved (n8n drops the hidden Threshold, so its old key cannot be formed): anew, said in one warning', async () => {
		const shown: INodeParameters = { ...FIXTURE.quotaBelowSingle.parameters, event: 'quotaChanged' };
		delete shown.threshold;
		const { poller } = upgradedFrom(sim, 'quotaBelowSingle', FIXTURE.quotaBelowSingle, shown);
		sim().setQuota('USER_ID', 'U-1001', '300');
		const result = await poller.poll();
		// As at an activation for the newly picked event: a baseline, nothing judged against another question's amount.
		expect(result.ok && (result.items ?? []).length).toBe(0);
		expect(poller.warnings).toEqual([expect.stringMatching(/hidden by unpicking Quota Below Threshold/)]);
	});

	it('one quota subject below its threshold: at most the documented repeat, then alerts again only after a recovery', async () => {
		const trigger = upgraded('quotaBelowSingle');
		const first = [...(await trigger.poll()), ...(await trigger.poll())];
		expect(first.length).toBeLessThanOrEqual(1);
		sim().setQuota('USER_ID', 'U-1001', '9000000');
		expect(await trigger.poll()).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '100');
		expect((await trigger.poll()).map((q) => q.previousAmount)).toEqual([90000]);
		expect(trigger.warnings).toEqual([]);
	});

	it.each([
		['beneficiaryChangedSingle', 'CUST_SMALL'],
		['beneficiarySet', 'CUST_TWICE'],
	])('%s: a bank change made while n8n was down is one change at the first poll', async (name, customerId) => {
		const trigger = upgraded(name);
		const reference = sim()
			.beneficiaries(customerId)
			.find((b) => b.referenceBeneficiaryId)?.referenceBeneficiaryId as string;
		sim().changeBankDetails(customerId, reference);
		const items = await trigger.poll();
		expect(items.map((b) => [b.event, b.referenceBeneficiaryId])).toEqual([['beneficiaryChanged', reference]]);
		expect(await trigger.poll()).toEqual([]);
		expect(trigger.warnings).toEqual([]);
	});

	it('one customer, Beneficiary Added (version 1, a list of two pages): a payee bound while n8n was down, once', async () => {
		const trigger = upgraded('beneficiaryAddedSingle');
		const list = sim().beneficiaries('CUST_TWICE');
		const token = Buffer.from('token:after-upgrade').toString('base64');
		list.push({ ...list[0], referenceBeneficiaryId: 'REF-AFTER-UPGRADE', beneficiaryToken: token });
		expect((await trigger.poll()).map((b) => b.referenceBeneficiaryId)).toEqual(['REF-AFTER-UPGRADE']);
		expect(await trigger.poll()).toEqual([]);
	});

	it('a list that changed while 0.2.0 read it: that poll still counts; still changing, the 3rd poll in a row reports it', async () => {
		const trigger = upgraded('beneficiaryUnsettledSingle');
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 8 });
		expect(await trigger.poll()).toEqual([]); // the 2nd in a row (0.2.0 saw the 1st)
		await expect(trigger.poll()).rejects.toThrow(/changed while it was being read/);
		expect(trigger.staticData.listUnsettled).toBeUndefined();
		expect(trigger.warnings).toEqual([]);
	});

	it('a quota set: every entry carried on under its own key; a failed entry reported once by 0.2.0 is not reported again', async () => {
		const trigger = upgraded('quotaSet');
		// Above its floor while n8n was down: re-armed, no alert; each of the four was alerted by 0.2.0.
		sim().setQuota('USER_ID', 'U-B7', '9000000');
		const afterRestart = [...(await trigger.poll()), ...(await trigger.poll())];
		// After a restart a quota still below may be alerted once more (the documented repeat), never U-B7.
		expect(afterRestart.length).toBeLessThanOrEqual(3);
		expect(afterRestart.map((q) => q.subject)).not.toContain('USER_ID U-B7 USD');
		sim().setQuota('USER_ID', 'U-B7', '1');
		expect((await trigger.poll()).map((q) => [q.subject, q.previousAmount])).toEqual([['USER_ID U-B7 USD', 90000]]);
		expect(trigger.warnings).toEqual([]);
	});

	it('a pasted quota set with one subject in a U back-off: a change made while n8n was down is reported once, against its old amount', async () => {
		const trigger = upgraded('quotaSetText');
		sim().setQuota('USER_ID', 'U-B9', '5');
		expect((await trigger.poll()).map((q) => [q.subject, q.previousAmount, q.availableQuotaAmount])).toEqual([
			['USER_ID U-B9 USD', 9.01, 0.05],
		]);
		expect(await trigger.poll()).toEqual([]);
		expect(trigger.warnings).toEqual([]);
	});
});
