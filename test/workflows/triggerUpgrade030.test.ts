/**
 * An upgrade from 0.3.0, whose entries were keyed by the question with its events and threshold:
 * the states that release's own code saved (test/fixtures/trigger-states-0.3.0.json: a set with
 * 100 events held behind the cap and another entry's failure not yet reported, a status U back-off
 * reported, a quota alerted below its threshold, a list failing, its failure reported), migrated to
 * entries keyed by the request: no warning, no fresh baseline, nothing lost, repeated or invented.
 * The fixture's keys name its simulator's address, so this file's simulator listens there.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- a test reads its fixture */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { useSimulator } from '../support/helpers';
import { later, upgradedFrom, useClock, type SavedByRelease } from '../support/pollerApp';
import { requestsFor } from '../support/watchShapes';

const FIXTURE = JSON.parse(readFileSync(join(__dirname, '../fixtures/trigger-states-0.3.0.json'), 'utf8')) as Record<
	string,
	SavedByRelease
> & { baseUrl: string };

const { sim } = useSimulator({ port: Number(new URL(FIXTURE.baseUrl).port) });
useClock();
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'Process failed' } as const;

/** New bank details for CUST_SMALL's second payee: the next poll brings one Bank Details Changed, no warning. */
async function bankChangeComesOnce(trigger: ReturnType<typeof upgraded>) {
	const reference = sim().beneficiaries('CUST_SMALL')[1].referenceBeneficiaryId;
	sim().changeBankDetails('CUST_SMALL', reference);
	const items = await trigger.poll();
	expect(Array.isArray(items) && items.map((b) => [b.event, b.referenceBeneficiaryId])).toEqual([
		['beneficiaryBankDetailsChanged', reference],
	]);
	expect(trigger.warnings).toEqual([]);
}

/** n8n started with this release over what 0.3.0 saved for `name` (its parameters edited by `edit`). */
function upgraded(name: string, edit: INodeParameters = {}) {
	const saved = FIXTURE[name];
	const { poller, staticData } = upgradedFrom(sim, name, saved, { ...saved.parameters, ...edit });
	return {
		warnings: poller.warnings,
		staticData,
		/** The items of one poll, or the message of the failure it reported. */
		poll: async (): Promise<IDataObject[] | string> => {
			const result = await poller.poll();
			return result.ok ? (result.items ?? []).map((item) => item.json) : result.error.message;
		},
	};
}

describe('states saved by 0.3.0, migrated to entries keyed by the request', () => {
	it('the fixture was saved at this simulator address, by 0.3.0 (state version 2)', () => {
		expect(sim().url).toBe(FIXTURE.baseUrl);
		expect((FIXTURE.heldSet.node.state as IDataObject).version).toBe(2);
	});

	it('a set: the 100 events held behind the cap follow once; the failure 0.3.0 had not reported, once', async () => {
		const trigger = upgraded('heldSet');
		const seen: string[] = [];
		const failures: string[] = [];
		for (let i = 0; i < 4; i++) {
			const poll = await trigger.poll();
			if (typeof poll === 'string') failures.push(poll);
			else seen.push(...poll.map((item) => String(item.referenceBeneficiaryId)));
		}
		expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => `REF-H-${500 + i}`));
		expect(failures).toEqual([expect.stringMatching(/CUST_EMPTY.*PROCESS_FAIL/)]);
		expect(trigger.warnings).toEqual([]);
		expect((trigger.staticData.state as IDataObject).version).toBe(3);
	});

	it('a status U back-off reported by 0.3.0: no request before its time, no second report, then carries on', async () => {
		const trigger = upgraded('quotaBackoff');
		// The clock two minutes before the back-off's end, as saved (the fixture's times are its own).
		const entries = (FIXTURE.quotaBackoff.node.state as { entries: Record<string, { failure: IDataObject }> }).entries;
		const { nextPollAt } = Object.values(entries)[0].failure.backoff as { nextPollAt: number };
		later((nextPollAt - Date.now()) / 60_000 - 2);
		const asked = requestsFor(sim, 'U-1001');
		expect(await trigger.poll()).toEqual([]);
		expect(requestsFor(sim, 'U-1001')).toBe(asked);
		later(3);
		sim().setQuota('USER_ID', 'U-1001', '300');
		const answered = await trigger.poll();
		expect(Array.isArray(answered) && answered.map((q) => [q.previousAmount, q.availableQuotaAmount])).toEqual([
			[12500, 3],
		]);
		expect(trigger.warnings).toEqual([]);
	});

	it('a quota alerted below its threshold: at most the documented repeat, then again only after a recovery', async () => {
		const trigger = upgraded('quotaBelow');
		const first = [await trigger.poll(), await trigger.poll()].flat();
		expect(first.length).toBeLessThanOrEqual(1);
		sim().setQuota('USER_ID', 'U-1001', '9000000');
		expect(await trigger.poll()).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '100');
		expect(await trigger.poll()).toEqual([
			expect.objectContaining({ event: 'quotaBelowThreshold', previousAmount: 90000 }),
		]);
		expect(trigger.warnings).toEqual([]);
	});

	it('a list whose failure 0.3.0 reported: still failing, not reported again; its bank change once when it reads', async () => {
		const trigger = upgraded('failingList');
		sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_SMALL', answer: FAIL, times: 2 });
		expect(await trigger.poll()).toEqual([]);
		expect(await trigger.poll()).toEqual([]);
		await bankChangeComesOnce(trigger);
	});
});

/**
 * Edits made after 0.3.0's last poll and before this release's first poll was saved (2.x's
 * scheduler runs no poll at the upgrade's restart, nor at a saved edit): the first poll meets the
 * 0.3.0 state with the parameters as edited (found by a hostile review).
 */
describe('states saved by 0.3.0, the parameters edited before the first poll of this release', () => {
	it.each([
		['an empty filter added', { filters: { currencyList: [], beneficiaryNick: '' } }],
		['the events edited', { events: ['beneficiaryBankDetailsChanged', 'beneficiaryRemoved'] }],
	])('%s: the same request, its baseline kept: a bank change made meanwhile comes once', async (_, edit) => {
		const trigger = upgraded('failingList', edit);
		await bankChangeComesOnce(trigger);
	});

	it('Quota Changed picked too: the move made meanwhile comes with the amount 0.3.0 saved', async () => {
		const trigger = upgraded('quotaBelow', { events: ['quotaBelowThreshold', 'quotaChanged'] });
		sim().setQuota('USER_ID', 'U-1001', '900000');
		const items = await trigger.poll();
		expect(Array.isArray(items) && items.find((q) => q.event === 'quotaChanged')).toMatchObject({
			previousAmount: 12500,
			availableQuotaAmount: 9000,
		});
		expect(trigger.warnings).toEqual([]);
	});

	it('the threshold edited: 0.3.0 keyed by it, so that subject starts anew, with a warning that says why, and nothing foreign', async () => {
		const trigger = upgraded('quotaBelow', { events: ['quotaBelowThreshold', 'quotaChanged'], threshold: 15000 });
		sim().setQuota('USER_ID', 'U-1001', '900000');
		expect(await trigger.poll()).toEqual([
			expect.objectContaining({ event: 'quotaBelowThreshold', previousAmount: null, threshold: 15000 }),
		]);
		expect(trigger.warnings).toEqual([
			expect.stringMatching(
				/1 of its entries, saved by release 0\.3\.0 or before, match no entry watched now .*threshold edited.*each records a fresh baseline/,
			),
		]);
		sim().setQuota('USER_ID', 'U-1001', '800000');
		expect(await trigger.poll()).toEqual([expect.objectContaining({ event: 'quotaChanged', previousAmount: 9000 })]);
	});
});
