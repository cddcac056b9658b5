/**
 * The trigger a treasury team can act on (issue #20), through n8n-core's PollContext against the
 * simulator: identity across bank-detail changes, polls over a list changing while it is read,
 * state that belongs to one question, quota alerts (first poll, status U back-off), and n8n's
 * ways of keeping static data (saved only when a poll emits; restarts; 2.x's poll scheduler with
 * and without durable cursors), played by test/support/n8nApp.ts (more in triggerPollers.test.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { activateTrigger, newN8nProcess, sandboxCredentials, type PollerOptions } from '../../sandbox/engine';
import { n8nApp, type N8nPoll, type N8nSaving } from '../support/n8nApp';
import { startSimulator } from '../../sandbox/server';
import { QUOTA, useSimulator } from '../support/helpers';
import { entryStateOf } from '../support/pollerApp';

const { sim } = useSimulator();

type Poller = ReturnType<typeof activateTrigger>;

function trigger(parameters: INodeParameters, staticData: IDataObject, extra: Partial<PollerOptions> = {}): Poller {
	return activateTrigger({ parameters, credentials: sandboxCredentials(sim().url), staticData, ...extra });
}

async function emitted(poller: Poller): Promise<IDataObject[] | null> {
	const result = await poller.poll();
	if (!result.ok) throw result.error;
	return result.items?.map((item) => item.json) ?? null;
}

const SMALL = { customerIds: 'CUST_SMALL' };
const LARGE = { customerIds: 'CUST_LARGE' };
/** Your own quota subject U-1001 as the one row, its threshold if given. */
const ownQuota = (threshold?: number) =>
	({
		quotas: { quota: [{ connectedAccountId: 'own', ...QUOTA, ...(threshold === undefined ? {} : { threshold }) }] },
	}) as unknown as INodeParameters;

describe('a beneficiary keeps its identity when its bank details change', () => {
	it('one Beneficiary Changed naming the bank fields; no Added, no Removed', async () => {
		const watchers = Object.fromEntries(
			(['beneficiaryAdded', 'beneficiaryChanged', 'beneficiaryRemoved'] as const).map((event) => [
				event,
				trigger({ events: [event], ...SMALL, options: { maskBankDetails: false, simplify: false } }, {}),
			]),
		);
		for (const poller of Object.values(watchers)) expect(await emitted(poller)).toBeNull();
		const before = { ...sim().beneficiaries('CUST_SMALL')[0] };
		const after = sim().changeBankDetails('CUST_SMALL', before.referenceBeneficiaryId);
		expect(after.beneficiaryToken).not.toBe(before.beneficiaryToken);
		expect(await emitted(watchers.beneficiaryAdded)).toBeNull();
		expect(await emitted(watchers.beneficiaryRemoved)).toBeNull();
		const tail = (value: string) => `****${value.slice(-4)}`;
		const changes: IDataObject = {
			beneficiaryToken: { before: tail(before.beneficiaryToken), after: after.beneficiaryToken },
			bankAccountNo: { before: tail(before.bankAccountNo as string), after: after.bankAccountNo },
		};
		if (before.bankAccountIBAN)
			changes.bankAccountIBAN = { before: tail(before.bankAccountIBAN), after: after.bankAccountIBAN };
		const owner = { whoseAccount: 'CUST_SMALL' };
		expect(await emitted(watchers.beneficiaryChanged)).toEqual([
			{ ...after, event: 'beneficiaryChanged', changes, ...owner },
		]);
		expect(await emitted(watchers.beneficiaryChanged)).toBeNull();
	});

	it('the saved state holds neither the old nor the new bank details', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryChanged'], ...SMALL }, state);
		await emitted(poller);
		const before = { ...sim().beneficiaries('CUST_SMALL')[0] };
		const after = sim().changeBankDetails('CUST_SMALL', before.referenceBeneficiaryId);
		await emitted(poller);
		const text = JSON.stringify(state);
		for (const value of [before.bankAccountNo, after.bankAccountNo, before.beneficiaryToken, after.beneficiaryToken])
			expect(text).not.toContain(value);
	});
});

describe('a poll never reports a change that did not happen', () => {
	it('a list changed between two page reads: no false event; the real ones once', async () => {
		const added = trigger({ events: ['beneficiaryAdded'], ...LARGE }, {});
		const removed = trigger({ events: ['beneficiaryRemoved'], ...LARGE }, {});
		await emitted(added);
		await emitted(removed);
		const list = sim().beneficiaries('CUST_LARGE');
		const gone = list[10];
		// Read on its own, the first read would show `gone` still bound and miss list[50], which moves up onto page 1.
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 1, position: 10, times: 1 });
		sim().requests.length = 0;
		expect((await emitted(added))?.map((b) => b.referenceBeneficiaryId)).toEqual(['REF-SWAPPED-IN-1']);
		// Three reads of 7 pages: the mix, then two that agree.
		expect(sim().requests).toHaveLength(21);
		expect(await emitted(removed)).toEqual([
			expect.objectContaining({ referenceBeneficiaryId: gone.referenceBeneficiaryId }),
		]);
		expect(await emitted(added)).toBeNull();
		expect(await emitted(removed)).toBeNull();
	});

	it('a list that settles by the next poll is never an error: its change is reported once', async () => {
		const state: IDataObject = {};
		const removed = trigger({ events: ['beneficiaryRemoved'], ...LARGE }, state);
		await emitted(removed);
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 4 });
		const gone = sim().beneficiaries('CUST_LARGE').slice(10, 14);
		expect(await emitted(removed)).toBeNull();
		expect((await emitted(removed))?.map((b) => b.referenceBeneficiaryId)).toEqual(
			gone.map((b) => b.referenceBeneficiaryId),
		);
		// Changing again later starts a new count: two quiet polls before any report.
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 8 });
		expect(await emitted(removed)).toBeNull();
		expect(await emitted(removed)).toBeNull();
	});
});

describe('a quiet poll costs one read', () => {
	const listRequests = () => sim().requests.filter((r) => r.path.includes('Beneficiar')).length;

	it('a list of 7 pages as saved is read once; a changed one is read again before anything is emitted', async () => {
		const state: IDataObject = {};
		const added = trigger({ events: ['beneficiaryAdded'], ...LARGE }, state);
		await emitted(added); // the baseline: confirmed, 14 pages
		const baselineRequests = listRequests();
		expect(baselineRequests).toBe(14);
		const saved = entryStateOf(state);
		expect(await emitted(added)).toBeNull();
		expect(listRequests() - baselineRequests).toBe(7);
		expect(entryStateOf(state)).toBe(saved);
		const list = sim().beneficiaries('CUST_LARGE');
		list.push({
			...list[0],
			referenceBeneficiaryId: 'REF-QUIET-1',
			beneficiaryToken: Buffer.from('token:QUIET-1').toString('base64'),
		});
		const before = listRequests();
		expect((await emitted(added))?.map((b) => b.referenceBeneficiaryId)).toEqual(['REF-QUIET-1']);
		expect(listRequests() - before).toBe(14);
	});

	it('a change made as the last page was served, unseen by a first read equal to the state, is reported by the next poll, once', async () => {
		const state: IDataObject = {};
		const removed = trigger({ events: ['beneficiaryRemoved'], ...LARGE }, state);
		const added = trigger({ events: ['beneficiaryAdded'], ...LARGE }, {});
		await emitted(removed);
		await emitted(added);
		const last = sim().beneficiaries('CUST_LARGE')[319];
		// Served page 7 as it was, then unbound its last beneficiary and bound another at the end.
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 7, position: 319, times: 1 });
		const before = listRequests();
		expect(await emitted(removed)).toBeNull();
		expect(listRequests() - before).toBe(7);
		expect((await emitted(removed))?.map((b) => b.referenceBeneficiaryId)).toEqual([last.referenceBeneficiaryId]);
		expect((await emitted(added))?.map((b) => b.beneficiaryNick)).toEqual([expect.stringMatching(/^Bound while read/)]);
		expect(await emitted(removed)).toBeNull();
		expect(await emitted(added)).toBeNull();
	});

	it('a state migrated from 0.1.0 (no last four yet) is confirmed once, then quiet polls cost one read', async () => {
		const state: IDataObject = {};
		const removed = trigger({ events: ['beneficiaryRemoved'], ...LARGE }, state);
		await emitted(removed);
		// As 0.1.0 saved it: one subject's state at the top, version 3, entries without the last four.
		const saved = JSON.parse(entryStateOf(state) as string) as { version: number; entries: Record<string, unknown[]> };
		saved.version = 3;
		for (const key of Object.keys(saved.entries)) saved.entries[key] = saved.entries[key].slice(0, 8);
		state.state = saved;
		delete state.pollRecord;
		// The upgrade: n8n restarts with the new release (a new process), carrying on from what was saved.
		const upgraded = trigger({ events: ['beneficiaryRemoved'], ...LARGE }, state, {
			process: newN8nProcess(),
			activation: 'init',
		});
		let before = listRequests();
		expect(await emitted(upgraded)).toBeNull();
		expect(listRequests() - before).toBe(14);
		before = listRequests();
		expect(await emitted(upgraded)).toBeNull();
		expect(listRequests() - before).toBe(7);
	});
});

describe('the saved state belongs to one question', () => {
	it('another client ID or gateway starts a fresh baseline instead of reporting the other account', async () => {
		const other = await startSimulator({ clientId: 'OTHER_CLIENT_0002' });
		try {
			const state: IDataObject = {};
			await emitted(trigger({ events: ['beneficiaryRemoved'], ...SMALL }, state));
			// The other account has two beneficiaries fewer: carried on, they would be "removed".
			other.beneficiaries('CUST_SMALL').splice(0, 2);
			const otherAccount = { ...sandboxCredentials(other.url), clientId: 'OTHER_CLIENT_0002' };
			const switched = activateTrigger({
				parameters: { events: ['beneficiaryRemoved'], ...SMALL },
				credentials: otherAccount,
				staticData: state,
				activation: 'update',
			});
			expect(await emitted(switched)).toBeNull();
			other.beneficiaries('CUST_SMALL').splice(0, 1);
			expect(await emitted(switched)).toHaveLength(1);
			// The same gateway under another address is another question too.
			const elsewhere = activateTrigger({
				parameters: { events: ['beneficiaryRemoved'], ...SMALL },
				credentials: { ...otherAccount, baseUrl: other.url.replace('127.0.0.1', 'localhost') },
				staticData: state,
				activation: 'update',
			});
			other.beneficiaries('CUST_SMALL').splice(0, 1);
			expect(await emitted(elsewhere)).toBeNull();
		} finally {
			await other.close();
		}
	});

	it.each([
		['edited into text', 'not a state'],
		['of the older format', { version: 1, question: 'x', fields: [], entries: {} }],
		['with damaged entries', { version: 2, kind: 'beneficiaries', question: 'x', fields: [], entries: { a: 5 } }],
	])('a state %s is replaced by a fresh baseline with a warning, and the trigger carries on', async (_, saved) => {
		const state: IDataObject = { state: saved as IDataObject };
		const poller = trigger({ events: ['beneficiaryRemoved'], ...SMALL }, state, {
			activation: 'init',
		});
		expect(await emitted(poller)).toBeNull();
		expect(poller.warnings).toEqual([expect.stringMatching(/saved state cannot be used .*fresh baseline/)]);
		sim().beneficiaries('CUST_SMALL').splice(0, 1);
		expect(await emitted(poller)).toHaveLength(1);
		expect(poller.warnings).toHaveLength(1);
	});

	it('a quota state damaged the same way is replaced too', async () => {
		const state: IDataObject = { state: { version: 2, kind: 'quota', question: 'x', amount: 'lots' } };
		const poller = trigger({ events: ['quotaChanged'], ...ownQuota() }, state, { activation: 'init' });
		expect(await emitted(poller)).toBeNull();
		expect(poller.warnings).toHaveLength(1);
		sim().setQuota('USER_ID', 'U-1001', '1');
		expect(await emitted(poller)).toEqual([
			expect.objectContaining({ previousAmount: 12500, availableQuotaAmount: 0.01 }),
		]);
	});
});

describe('quota alerts', () => {
	const BELOW = { events: ['quotaBelowThreshold'], ...ownQuota(10000) };

	it('a quota already below when the workflow is activated alerts on the first poll, once', async () => {
		sim().setQuota('USER_ID', 'U-1001', '100');
		const poller = trigger(BELOW, {});
		expect(await emitted(poller)).toEqual([
			expect.objectContaining({ event: 'quotaBelowThreshold', availableQuotaAmount: 1, previousAmount: null }),
		]);
		expect(await emitted(poller)).toBeNull();
		expect(await emitted(poller)).toBeNull();
	});

	it('U on a beneficiary list backs off the same way', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryAdded'], ...SMALL }, state);
		await emitted(poller);
		sim().addFault({
			fault: 'answer',
			operation: 'list',
			times: 1,
			answer: { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' },
		});
		expect((await poller.poll()).ok).toBe(false);
		const sent = sim().requests.length;
		expect(await emitted(poller)).toBeNull();
		expect(sim().requests.length).toBe(sent);
	});
});

/** n8n's ways of keeping a trigger's static data (test/support/n8nApp.ts), counting the items of each poll. */
function n8n(parameters: INodeParameters, saving: N8nSaving) {
	const app = n8nApp({ parameters, credentials: sandboxCredentials(sim().url), saving });
	const count = (poll: N8nPoll | undefined) => {
		if (poll?.error) throw poll.error;
		return poll?.items?.length ?? 0;
	};
	return {
		activate: async () => count(await app.activate()),
		poll: async () => count(await app.poll()),
		/** n8n stops and starts again; where it runs no poll at a start, the first scheduled poll. */
		restart: async () => count((await app.restart()) ?? (await app.poll())),
	};
}

describe.each(['emit', 'scheduler', 'durable'] as const)('quota alerts across restarts, n8n saving %s', (saving) => {
	const BELOW = { events: ['quotaBelowThreshold'], ...ownQuota(10000) };
	const setQuota = (value: string) => sim().setQuota('USER_ID', 'U-1001', value);

	it('falls, recovers, n8n restarts, falls again while it was down: two alerts', async () => {
		const app = n8n(BELOW, saving);
		expect(await app.activate()).toBe(0);
		setQuota('900000');
		expect(await app.poll()).toBe(1);
		expect(await app.poll()).toBe(0);
		setQuota('1250000');
		expect(await app.poll()).toBe(0); // re-armed, by a poll that emits nothing
		setQuota('800000');
		expect(await app.restart()).toBe(1);
		expect(await app.poll()).toBe(0);
	});

	it('falls, recovers, falls again without a restart: two alerts, no repeat', async () => {
		const app = n8n(BELOW, saving);
		await app.activate();
		const alerts: number[] = [];
		for (const value of ['900000', '850000', '1250000', '1300000', '800000', '700000', '750000'])
			alerts.push((setQuota(value), await app.poll()));
		expect(alerts).toEqual([1, 0, 0, 0, 1, 0, 0]);
	});

	it('still below across a restart: reported again at most once (the documented repeat)', async () => {
		const app = n8n(BELOW, saving);
		await app.activate();
		setQuota('900000');
		expect(await app.poll()).toBe(1);
		const afterRestart = await app.restart();
		expect(afterRestart).toBe(1);
		expect(await app.poll()).toBe(0);
		expect(await app.poll()).toBe(0);
	});
});

describe("n8n 2.x's poll budget", () => {
	it('a list too large to read within it ends the poll whole: nothing emitted, nothing saved, size and budget named', async () => {
		const state: IDataObject = {};
		await emitted(trigger({ events: ['beneficiaryRemoved'], ...LARGE }, state));
		const saved = entryStateOf(state);
		sim().beneficiaries('CUST_LARGE').splice(0, 3);
		sim().setLatency(150);
		const hurried = trigger({ events: ['beneficiaryRemoved'], ...LARGE }, state, {
			pollBudgetMs: 400,
			activation: 'update',
		});
		const failed = await hurried.poll();
		sim().setLatency(0);
		expect(failed.ok).toBe(false);
		if (failed.ok) return;
		expect(failed.error.message).toBe(
			"CUST_LARGE beneficiaries: The beneficiary list could not be read within n8n's 0.4 s poll budget",
		);
		expect(failed.error.description).toMatch(
			/^It holds 317 beneficiaries in 7 pages, each read at least twice to confirm the list is whole\. This poll emitted nothing and the saved state did not change\. .*Filters/,
		);
		expect(entryStateOf(state)).toBe(saved);
		const relaxed = trigger({ events: ['beneficiaryRemoved'], ...LARGE }, state, {
			pollBudgetMs: 60_000,
			activation: 'update',
		});
		expect(await emitted(relaxed)).toHaveLength(3);
	});
});
