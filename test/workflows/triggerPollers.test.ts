/**
 * The trigger under each way n8n keeps a poll's static data (sandbox/engine.ts n8nApp: n8n's
 * default poller 'emit', 2.x's poll scheduler without durable cursors 'scheduler' and with them
 * 'durable', as n8n 2.41.1 really saves them), against the simulator: the back-off after status U,
 * the quota alert across restarts, the baseline at activation, deactivating and activating again,
 * and a Threshold that is no number.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { forgetWrittenStates } from '../../nodes/PartnerAccountInquiry/trigger/continuity';
import { activateTrigger, n8nApp, sandboxCredentials, type N8nPoll, type N8nSaving } from '../../sandbox/engine';
import { QUOTA, useSimulator } from './helpers';

const { sim } = useSimulator();

const SAVINGS = ['emit', 'scheduler', 'durable'] as const;
const MINUTE = 60_000;

/** The clock the node and the simulator read (Date.now), moved forward by the tests. */
let offset = 0;
const realNow = Date.now.bind(Date);
beforeEach(() => {
	offset = 0;
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
	forgetWrittenStates();
});
afterEach(() => jest.restoreAllMocks());
const later = (minutes: number) => {
	offset += minutes * MINUTE;
};

function app(parameters: INodeParameters, saving: N8nSaving) {
	return n8nApp({ parameters, credentials: sandboxCredentials(sim().url), saving, forget: forgetWrittenStates });
}

/** The number of items a poll emitted; a failed poll fails the test. */
function count(poll: N8nPoll | undefined): number {
	if (poll?.error) throw poll.error;
	return poll?.items?.length ?? 0;
}

const quotaRequests = () => sim().requests.filter((request) => request.path.includes('AvailableQuota')).length;
const U = { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' } as const;
const BELOW = { event: 'quotaBelowThreshold', ...QUOTA, threshold: 10000 };
const CHANGED = { event: 'quotaChanged', ...QUOTA };
const setQuota = (value: string) => sim().setQuota('USER_ID', 'U-1001', value);

/**
 * Polls every minute for `minutes` minutes; returns the minutes (from the start) at which a request
 * went out and at which a poll failed.
 */
async function everyMinute(n8n: ReturnType<typeof app>, minutes: number, start = 0, restartAt?: number) {
	const asked: number[] = [];
	const failed: number[] = [];
	const errors: string[] = [];
	for (let minute = start; minute < start + minutes; minute++) {
		const sent = quotaRequests();
		const poll = minute === restartAt ? ((await n8n.restart()) ?? (await n8n.poll())) : await n8n.poll();
		if (quotaRequests() > sent) asked.push(minute);
		if (poll.error) failed.push(minute);
		if (poll.error) errors.push(`${poll.error.message} ${(poll.error as { description?: string }).description ?? ''}`);
		later(1);
	}
	return { asked, failed, errors };
}

/** The API's schedule: the first U at 0, then 5, 10, 20, 40, 80, 160, 320 minutes apart, then every 320. */
const SCHEDULE = [0, 5, 15, 35, 75, 155, 315, 635, 955];

describe.each(SAVINGS)('status U under n8n saving %s', (saving) => {
	it('polls every minute: a request only when the API allows; two reports, the start and after the 7th repeat; silence after', async () => {
		const n8n = app(CHANGED, saving);
		expect(count(await n8n.activate())).toBe(0);
		sim().addFault({ fault: 'answer', operation: 'quota', answer: U });
		const { asked, failed, errors } = await everyMinute(n8n, 1000);
		expect(asked).toEqual(SCHEDULE);
		expect(failed).toEqual([0, 635]);
		expect(errors[0]).toMatch(/stops asking this question until \S+Z \(5 minutes\).*at most 7 times in all.*10\.6 hours/);
		expect(errors[1]).toMatch(/each of its 7 repeats.*contact technical support/);
		// A success ends it.
		sim().clearFaults();
		later(320);
		setQuota('1');
		expect(count(await n8n.poll())).toBe(1);
		expect(n8n.saved().unknownBackoff).toBeUndefined();
	});

	it('a restart two minutes after the report: no repeat of it, no early request', async () => {
		const n8n = app(CHANGED, saving);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'quota', answer: U });
		const { asked, failed } = await everyMinute(n8n, 1000, 0, 637);
		if (saving === 'durable') {
			expect(asked).toEqual(SCHEDULE);
			expect(failed).toEqual([0, 635]);
		} else {
			// What a poll that emits nothing writes is not saved here: the back-off starts again at the restart.
			expect(asked.slice(0, 8)).toEqual(SCHEDULE.slice(0, 8));
			expect(asked[8]).toBe(637);
			expect(failed.slice(0, 2)).toEqual([0, 635]);
		}
	});

	it('U at the first poll after n8n starts is no failure to activate: the next poll that asks reports the start', async () => {
		const n8n = app(CHANGED, saving);
		await n8n.activate();
		await n8n.poll();
		sim().addFault({ fault: 'answer', operation: 'quota', answer: U });
		// The default poller runs a poll as n8n starts; a failure there would count as the workflow failing to activate.
		const restarted = await n8n.restart();
		expect(restarted?.error).toBeUndefined();
		const { failed, errors } = await everyMinute(n8n, 30);
		if (saving === 'emit') {
			expect(failed).toEqual([5]);
			expect(errors[0]).toMatch(/answered U \(outcome unknown\) 2 times in a row\. .*until \S+Z \(10 minutes\)/);
		} else {
			expect(failed).toEqual([0]);
		}
	});

	it('a restart during the back-off: saved every poll, the back-off holds; otherwise it costs early requests', async () => {
		const n8n = app(CHANGED, saving);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'quota', answer: U });
		const { asked } = await everyMinute(n8n, 100, 0, 20);
		if (saving === 'durable') expect(asked).toEqual([0, 5, 15, 35, 75]);
		else expect(asked).toEqual([0, 5, 15, 20, 25, 35, 55, 95]);
	});

	it('a back-off saved far in the future (edited, or a clock stepped back) is damaged: asked at once, with a warning', async () => {
		const n8n = app(CHANGED, saving);
		await n8n.activate();
		await n8n.poll();
		n8n.editSaved((data) => {
			data.unknownBackoff = {
				question: (data.state as IDataObject).question,
				unknowns: 2,
				nextPollAt: Date.now() + 10 * 24 * 60 * MINUTE,
			};
		});
		const sent = quotaRequests();
		const poll = (await n8n.restart()) ?? (await n8n.poll());
		expect(poll.error).toBeUndefined();
		expect(quotaRequests()).toBe(sent + 1);
		expect(n8n.warnings).toEqual([expect.stringMatching(/back-off after status U .*longer than the API ever asks/)]);
		// Saved where n8n saves a poll that emits nothing; the process carries it on anyway.
		if (saving !== 'scheduler') expect(n8n.saved().unknownBackoff).toBeUndefined();
		await n8n.poll();
		expect(quotaRequests()).toBe(sent + 2);
		expect(n8n.warnings).toHaveLength(1);
	});

	it("a back-off longer than its own step (U once, 300 minutes to wait) is damaged too; today's saved back-off is read as it is", async () => {
		const n8n = app(CHANGED, saving);
		await n8n.activate();
		await n8n.poll();
		const question = (n8n.saved().state as IDataObject).question;
		n8n.editSaved((data) => {
			data.unknownBackoff = { question, unknowns: 1, nextPollAt: Date.now() + 300 * MINUTE };
		});
		const sent = quotaRequests();
		await ((await n8n.restart()) ?? n8n.poll());
		expect(quotaRequests()).toBe(sent + 1);
		expect(n8n.warnings).toHaveLength(1);
		n8n.editSaved((data) => {
			data.unknownBackoff = { question, unknowns: 3, nextPollAt: Date.now() + 19 * MINUTE };
		});
		await ((await n8n.restart()) ?? n8n.poll());
		expect(quotaRequests()).toBe(sent + 1);
		expect(n8n.warnings).toHaveLength(1);
	});
});

describe.each(SAVINGS)('quota alerts under n8n saving %s', (saving) => {
	it('a quota already below at activation, still below across a restart: exactly once under durable cursors, else one repeat', async () => {
		setQuota('0');
		const n8n = app(BELOW, saving);
		expect(count(await n8n.activate())).toBe(1);
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		const afterRestart = count(await n8n.restart()) + count(await n8n.poll());
		// Durable cursors save every poll, which the node has seen (two quiet polls in a row saved), and
		// the activation's run in the global static data is the saved state's: nothing re-armed it.
		// Elsewhere a quiet poll that re-armed it may have been lost: at least once.
		expect(afterRestart).toBe(saving === 'durable' ? 0 : 1);
		for (let i = 0; i < 3; i++) expect(count(await n8n.poll())).toBe(0);
		expect(n8n.savedGlobal()).toEqual({ partnerAccountInquiryRuns: { trigger: 1 } });
	});

	it('falls, recovers, n8n restarts, falls again meanwhile: two alerts, never a miss', async () => {
		const n8n = app(BELOW, saving);
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
		const n8n = app(BELOW, saving);
		expect(count(await n8n.activate())).toBe(1);
		expect(count(await n8n.restart()) + count(await n8n.poll())).toBeLessThanOrEqual(1);
		expect(count(await n8n.poll())).toBe(0);
	});

	it("today's saved quota state (no poll record) carries on: at least once, then exactly once", async () => {
		setQuota('0');
		const n8n = app(BELOW, saving);
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
});

const SMALL = { options: { customerId: 'CUST_SMALL' } };

describe.each(SAVINGS)('the baseline of an activation under n8n saving %s', (saving) => {
	it('a change between the first and the second poll after activation is reported, once', async () => {
		const changed = app({ event: 'beneficiaryChanged', ...SMALL }, saving);
		const removed = app({ event: 'beneficiaryRemoved', ...SMALL }, saving);
		expect(count(await changed.activate())).toBe(0);
		expect(count(await removed.activate())).toBe(0);
		const list = sim().beneficiaries('CUST_SMALL');
		const after = sim().changeBankDetails('CUST_SMALL', list[0].referenceBeneficiaryId);
		const [gone] = list.splice(1, 1);
		const first = await changed.poll();
		expect(first.items).toEqual([
			expect.objectContaining({ referenceBeneficiaryId: after.referenceBeneficiaryId, event: 'beneficiaryChanged' }),
		]);
		expect((await removed.poll()).items).toEqual([
			expect.objectContaining({ referenceBeneficiaryId: gone.referenceBeneficiaryId, event: 'beneficiaryRemoved' }),
		]);
		for (let i = 0; i < 2; i++) {
			expect(count(await changed.poll())).toBe(0);
			expect(count(await removed.poll())).toBe(0);
		}
	});

	it('deactivated, changed meanwhile, activated again: a fresh baseline, nothing reported; later changes once', async () => {
		const removed = app({ event: 'beneficiaryRemoved', ...SMALL }, saving);
		await removed.activate();
		for (let i = 0; i < 2; i++) expect(count(await removed.poll())).toBe(0);
		removed.deactivate();
		sim().beneficiaries('CUST_SMALL').splice(0, 2);
		expect(count(await removed.activate())).toBe(0);
		for (let i = 0; i < 2; i++) expect(count(await removed.poll())).toBe(0);
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		expect((await removed.poll()).items).toEqual([
			expect.objectContaining({ referenceBeneficiaryId: gone.referenceBeneficiaryId }),
		]);
		expect(count(await removed.poll())).toBe(0);
	});

	it('deactivated and activated again with a change made right after the activation poll: only that change', async () => {
		const removed = app({ event: 'beneficiaryRemoved', ...SMALL }, saving);
		await removed.activate();
		await removed.poll();
		await removed.poll();
		removed.deactivate();
		const [meanwhile] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		await removed.activate();
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const reported = (await removed.poll()).items?.map((b) => b.referenceBeneficiaryId);
		expect(reported).toEqual([gone.referenceBeneficiaryId]);
		expect(reported).not.toContain(meanwhile.referenceBeneficiaryId);
	});

	it('deactivated, changed meanwhile, activated again, n8n restarted before the next poll: the change is not reported', async () => {
		const removed = app({ event: 'beneficiaryRemoved', ...SMALL }, saving);
		await removed.activate();
		for (let i = 0; i < 3; i++) expect(count(await removed.poll())).toBe(0);
		removed.deactivate();
		sim().beneficiaries('CUST_SMALL').splice(0, 2);
		expect(count(await removed.activate())).toBe(0); // durable cursors: a testing poll, not committed
		expect(count(await removed.restart())).toBe(0);
		expect(count(await removed.poll())).toBe(0);
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		expect((await removed.poll()).items).toEqual([
			expect.objectContaining({ referenceBeneficiaryId: gone.referenceBeneficiaryId }),
		]);
		expect(count(await removed.poll())).toBe(0);
	});

	it("the previous release's state (no runs in the global static data): no fresh baseline at the upgrade", async () => {
		const removed = app({ event: 'beneficiaryRemoved', ...SMALL }, saving);
		await removed.activate();
		for (let i = 0; i < 2; i++) expect(count(await removed.poll())).toBe(0);
		removed.editSaved((data) => {
			delete data.pollRecord;
		});
		removed.editSavedGlobal((global) => {
			delete global.partnerAccountInquiryRuns;
		});
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const seen = [await removed.restart(), await removed.poll()].flatMap((p) => p?.items ?? []);
		expect(seen.map((b) => b.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
		expect(count(await removed.poll())).toBe(0);
	});

	it('a restart carries on: a change made across it is reported once', async () => {
		const changed = app({ event: 'beneficiaryChanged', ...SMALL }, saving);
		await changed.activate();
		await changed.poll();
		await changed.poll();
		const after = sim().changeBankDetails('CUST_SMALL', sim().beneficiaries('CUST_SMALL')[2].referenceBeneficiaryId);
		const seen = count(await changed.restart()) + count(await changed.poll());
		expect(seen).toBe(1);
		expect(count(await changed.poll())).toBe(0);
		expect(after.referenceBeneficiaryId).toBeDefined();
	});

	it('a beneficiary first seen by a poll that emitted nothing, then removed: reported (n8n running throughout)', async () => {
		const removed = app({ event: 'beneficiaryRemoved', ...SMALL }, saving);
		await removed.activate();
		const template = sim().beneficiaries('CUST_SMALL')[0];
		sim()
			.beneficiaries('CUST_SMALL')
			.push({
				...template,
				referenceBeneficiaryId: 'REF-QUIET-1',
				beneficiaryToken: Buffer.from('token:QUIET-1').toString('base64'),
			});
		expect(count(await removed.poll())).toBe(0); // first seen, nothing to emit for this event
		const list = sim().beneficiaries('CUST_SMALL');
		list.splice(
			list.findIndex((b) => b.referenceBeneficiaryId === 'REF-QUIET-1'),
			1,
		);
		expect((await removed.poll()).items).toEqual([expect.objectContaining({ referenceBeneficiaryId: 'REF-QUIET-1' })]);
		expect(count(await removed.poll())).toBe(0);
	});
});

describe('a Threshold that is no number is refused, naming the field', () => {
	it.each([
		['an empty string', ''],
		['text', 'ten thousand'],
		['a negative number', -5],
		['a negative number as text', '-5'],
		['nothing', null],
	])('%s', async (_, threshold) => {
		const poller = activateTrigger({
			parameters: { ...BELOW, threshold: threshold as number },
			credentials: sandboxCredentials(sim().url),
			staticData: {},
		});
		const sent = sim().requests.length;
		const result = await poller.poll();
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error.message).toMatch(/^Threshold must be a number of at least 0/);
		expect(sim().requests.length).toBe(sent);
	});

	it('a number given as text (an expression) is read as that number', async () => {
		setQuota('900000');
		const poller = activateTrigger({
			parameters: { ...BELOW, threshold: '10000' as unknown as number },
			credentials: sandboxCredentials(sim().url),
			staticData: {},
		});
		const result = await poller.poll();
		expect(result.ok && result.items?.map((item) => item.json.threshold)).toEqual([10000]);
	});
});
