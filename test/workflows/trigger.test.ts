/**
 * The polling trigger, driven through n8n-core's PollContext: several polls in a row over one
 * static data, against the simulator, which adds, removes and changes beneficiaries and moves a
 * quota between polls. Every poll's exact items are asserted.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { activateTrigger, sandboxCredentials, type PollerOptions } from '../../sandbox/engine';
import { QUOTA, setRefusal, useSimulator } from '../support/helpers';
import { SUMMARY_FIELDS } from '../support/beneficiaryDiff';

const { sim } = useSimulator();

function trigger(parameters: INodeParameters, staticData: IDataObject, extra: Partial<PollerOptions> = {}) {
	return activateTrigger({ parameters, credentials: sandboxCredentials(sim().url), staticData, ...extra });
}

async function emitted(poller: { poll: () => ReturnType<ReturnType<typeof activateTrigger>['poll']> }) {
	const result = await poller.poll();
	if (!result.ok) throw result.error;
	return result.items?.map((item) => item.json) ?? null;
}

// Items whole (masking is maskBankDetails.test.ts's, simplifying simplify.test.ts's), each naming its list.
const WHOLE = { options: { maskBankDetails: false, simplify: false } };
const SMALL = { customerIds: 'CUST_SMALL', ...WHOLE };
const OWNER = { whoseAccount: 'CUST_SMALL' };
/** Your own quota subject U-1001 as the trigger's one row, with `threshold` (none: no threshold). */
const ownQuota = (threshold?: unknown) =>
	({
		quotas: { quota: [{ connectedAccountId: 'own', ...QUOTA, ...(threshold === undefined ? {} : { threshold }) }] },
	}) as unknown as INodeParameters;
const BELOW = { events: ['quotaBelowThreshold'], ...ownQuota(10000) };
const setQuota = (value: string) => sim().setQuota('USER_ID', 'U-1001', value);

function newBeneficiary(n: number): Beneficiary {
	const template = sim().beneficiaries('CUST_SMALL')[0];
	return {
		...template,
		beneficiaryToken: Buffer.from(`token:ADDED-${n}`).toString('base64'),
		referenceBeneficiaryId: `REF-ADDED-${n}`,
		beneficiaryNick: `Added ${n}`,
	};
}

describe('beneficiaryAdded', () => {
	it('records a baseline first, then emits each new beneficiary exactly once', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryAdded'], ...SMALL }, state);
		expect(await emitted(poller)).toBeNull();
		expect(await emitted(poller)).toBeNull();
		const added = newBeneficiary(1);
		sim().beneficiaries('CUST_SMALL').push(added);
		expect(await emitted(poller)).toEqual([{ ...added, event: 'beneficiaryAdded', ...OWNER }]);
		expect(await emitted(poller)).toBeNull();
	});

	it('failed polls emit nothing and change nothing, their episode is reported once; the next successful poll emits what was missed', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryAdded'], ...SMALL }, state);
		await emitted(poller);
		const added = newBeneficiary(2);
		sim().beneficiaries('CUST_SMALL').push(added);
		// The list as saved: a failed read leaves it as it was (the poll only counts the failure).
		const listState = () =>
			JSON.stringify(Object.values((state.state as { entries: Record<string, IDataObject> }).entries)[0].state);
		const before = listState();
		// One failure episode, reported once (the first failed poll); the polls after it in the same
		// episode emit nothing and report nothing more.
		const outcomes: string[] = [];
		for (const fault of ['alterBody', 'staleTime', 'nonObjectItem', 'badResultStatus', 'http503'] as const) {
			// An HTTP 503 is retried: refused at every attempt, it fails the read.
			sim().addFault({ fault, operation: 'list', ...(fault === 'http503' ? {} : { times: 1 }) });
			const result = await poller.poll();
			outcomes.push(result.ok ? String(result.items?.length ?? 'quiet') : result.error.message);
			expect(listState()).toBe(before);
		}
		expect(outcomes).toEqual([expect.stringMatching(/signature/), 'quiet', 'quiet', 'quiet', 'quiet']);
		sim().clearFaults();
		expect(await emitted(poller)).toEqual([{ ...added, event: 'beneficiaryAdded', ...OWNER }]);
		expect(await emitted(poller)).toBeNull();
	});

	it('emits a burst of 620 in one poll, in order, each once', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryAdded'], customerIds: 'CUST_LARGE', ...WHOLE }, state);
		await emitted(poller);
		const burst = Array.from({ length: 620 }, (_, i) => newBeneficiary(1000 + i));
		sim()
			.beneficiaries('CUST_LARGE')
			.push(...burst);
		const first = await emitted(poller);
		expect(first?.map((b) => b.referenceBeneficiaryId)).toEqual(burst.map((b) => b.referenceBeneficiaryId));
		expect(await emitted(poller)).toBeNull();
	});
});

describe('beneficiaryRemoved and beneficiaryChanged', () => {
	it('a removal carries the kept summary: bank details and token by their last four only', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryRemoved'], ...SMALL }, state);
		await emitted(poller);
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(1, 1);
		const items = await emitted(poller);
		expect(items).toEqual([
			{
				event: 'beneficiaryRemoved',
				referenceBeneficiaryId: gone.referenceBeneficiaryId,
				beneficiaryNick: gone.beneficiaryNick,
				beneficiaryType: gone.beneficiaryType,
				status: gone.status,
				assetType: gone.assetType,
				relationType: gone.relationType,
				currency: gone.currency,
				beneficiaryToken: `****${gone.beneficiaryToken.slice(-4)}`,
				...(gone.bankAccountNo ? { bankAccountNo: `****${gone.bankAccountNo.slice(-4)}` } : {}),
				...(gone.bankAccountIBAN ? { bankAccountIBAN: `****${gone.bankAccountIBAN.slice(-4)}` } : {}),
				...OWNER,
			},
		]);
		expect(JSON.stringify(state)).not.toContain(gone.beneficiaryToken);
		if (gone.bankAccountNo) expect(JSON.stringify(state)).not.toContain(gone.bankAccountNo);
		expect(await emitted(poller)).toBeNull();
	});

	it('a change carries the beneficiary as returned and each changed field, before and after', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryChanged'], ...SMALL }, state);
		await emitted(poller);
		const target = sim().beneficiaries('CUST_SMALL')[2];
		const before = { ...target };
		target.status = 'INACTIVE';
		target.beneficiaryNick = 'Renamed';
		target.bankAccountNo = 'NEWACCOUNT123';
		const items = await emitted(poller);
		expect(items).toEqual([
			{
				...target,
				event: 'beneficiaryChanged',
				changes: {
					status: { before: before.status, after: 'INACTIVE' },
					beneficiaryNick: { before: before.beneficiaryNick, after: 'Renamed' },
					// Bank details are kept by a fingerprint and their last four only, never whole.
					bankAccountNo: { before: `****${(before.bankAccountNo as string).slice(-4)}`, after: 'NEWACCOUNT123' },
				},
				...OWNER,
			},
		]);
		expect(await emitted(poller)).toBeNull();
	});

	it('the state holds digests, not the objects or their secrets', async () => {
		const state: IDataObject = {};
		await emitted(trigger({ events: ['beneficiaryAdded'], ...SMALL }, state));
		const text = JSON.stringify(state);
		for (const b of sim().beneficiaries('CUST_SMALL')) {
			expect(text).not.toContain(b.beneficiaryToken);
			if (b.bankAccountNo) expect(text).not.toContain(b.bankAccountNo);
		}
		// By value, only the short summary fields: one entry is [digests, ...one value per summary field].
		const [list] = Object.values(
			(state.state as { entries: Record<string, { state: { entries: Record<string, unknown[]> } }> }).entries,
		);
		const entries = Object.values(list.state.entries);
		expect(entries).toHaveLength(sim().beneficiaries('CUST_SMALL').length);
		for (const entry of entries) expect(entry).toHaveLength(1 + SUMMARY_FIELDS.length);
	});
});

describe('the life of a trigger', () => {
	it('"Fetch Test Event" emits a sample of real data (one item of the entry) without touching the saved state', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['beneficiaryAdded'], ...SMALL }, state);
		await emitted(poller);
		const saved = JSON.stringify(state);
		const sample = await emitted(
			trigger({ events: ['beneficiaryAdded'], ...SMALL }, state, {
				mode: 'manual',
				activation: 'manual',
			}),
		);
		expect(sample).toEqual(
			sim()
				.beneficiaries('CUST_SMALL')
				.slice(0, 1)
				.map((b) => ({ ...b, event: 'beneficiaryAdded', ...OWNER })),
		);
		expect(JSON.stringify(state)).toBe(saved);
	});

	it('reactivation starts from a fresh baseline; a restart of n8n carries on', async () => {
		const state: IDataObject = {};
		await emitted(trigger({ events: ['beneficiaryAdded'], ...SMALL }, state));
		sim().beneficiaries('CUST_SMALL').push(newBeneficiary(3));
		// n8n restarted ('init'): the change made meanwhile is emitted.
		expect(
			await emitted(trigger({ events: ['beneficiaryAdded'], ...SMALL }, state, { activation: 'init' })),
		).toHaveLength(1);
		sim().beneficiaries('CUST_SMALL').push(newBeneficiary(4));
		// Deactivated and activated again: a fresh baseline, nothing emitted.
		const reactivated = trigger({ events: ['beneficiaryAdded'], ...SMALL }, state, {
			activation: 'activate',
		});
		expect(await emitted(reactivated)).toBeNull();
		expect(await emitted(reactivated)).toBeNull();
	});

	it('changing the filters or the subject resets the state; another event keeps it (the request is the same)', async () => {
		const state: IDataObject = {};
		const usd = { filters: { currencyList: ['USD'] } };
		// Each change below would emit (or would have emitted) without the reset.
		await emitted(trigger({ events: ['beneficiaryAdded'], ...usd, ...SMALL }, state));
		// Filters: without a reset the beneficiaries in other currencies would be "added".
		const unfiltered = { events: ['beneficiaryAdded'], ...SMALL };
		expect(
			sim()
				.beneficiaries('CUST_SMALL')
				.some((x) => x.currency !== 'USD'),
		).toBe(true);
		expect(await emitted(trigger(unfiltered, state, { activation: 'update' }))).toBeNull();
		// Subject: without a reset CUST_LARGE's 320 would be "added".
		const large = { events: ['beneficiaryAdded'], customerIds: 'CUST_LARGE', ...WHOLE };
		expect(await emitted(trigger(large, state, { activation: 'update' }))).toBeNull();
		// Event: the same request, so the same baseline: the removal made since the last poll is the next poll's.
		const [gone] = sim().beneficiaries('CUST_LARGE').splice(0, 1);
		const removed = { ...large, events: ['beneficiaryRemoved'] };
		const edited = await emitted(trigger(removed, state, { activation: 'update' }));
		expect(edited?.map((b) => b.referenceBeneficiaryId)).toEqual([gone.referenceBeneficiaryId]);
		// And the state then works on: the next removal is emitted, the first not again.
		sim().beneficiaries('CUST_LARGE').splice(0, 1);
		const next = await emitted(trigger(removed, state, { activation: 'update' }));
		expect(next).toHaveLength(1);
		expect(next?.[0].referenceBeneficiaryId).not.toBe(gone.referenceBeneficiaryId);
	});
});

describe('quota events', () => {
	it('quotaBelowThreshold fires once on crossing, and again only after being back at or above', async () => {
		const state: IDataObject = {};
		const poller = trigger(BELOW, state);
		expect(await emitted(poller)).toBeNull(); // 12500: baseline, above
		sim().setQuota('USER_ID', 'U-1001', '900000');
		expect(await emitted(poller)).toEqual([
			{
				event: 'quotaBelowThreshold',
				whoseAccount: 'own',
				subject: 'own USER_ID U-1001 USD',
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: 'U-1001',
				availableQuota: { currency: 'USD', value: '900000' },
				availableQuotaAmount: 9000,
				previousAmount: 12500,
				threshold: 10000,
			},
		]);
		sim().setQuota('USER_ID', 'U-1001', '800000');
		expect(await emitted(poller)).toBeNull(); // still below: no second alert
		sim().setQuota('USER_ID', 'U-1001', '1000000');
		expect(await emitted(poller)).toBeNull(); // at the threshold: not below
		sim().setQuota('USER_ID', 'U-1001', '999999');
		expect((await emitted(poller))?.map((j) => j.availableQuotaAmount)).toEqual([9999.99]);
	});

	it('quotaChanged fires with previousAmount when the amount differs', async () => {
		const poller = trigger({ events: ['quotaChanged'], ...ownQuota() }, {});
		expect(await emitted(poller)).toBeNull();
		expect(await emitted(poller)).toBeNull();
		sim().setQuota('USER_ID', 'U-1001', '1250001');
		expect(await emitted(poller)).toEqual([
			expect.objectContaining({ event: 'quotaChanged', availableQuotaAmount: 12500.01, previousAmount: 12500 }),
		]);
		expect(await emitted(poller)).toBeNull();
	});

	it('a bad threshold is a typed error that names the field and does not carry the access token', async () => {
		const planted = 'planted-trigger-token-9d2e';
		const poller = activateTrigger({
			parameters: {
				events: ['quotaBelowThreshold'],
				quotas: { quota: [{ connectedAccountId: 'ACC_0002', ...QUOTA, threshold: -1 }] },
			},
			credentials: { ...sandboxCredentials(sim().url), accessToken: planted },
			staticData: {},
		});
		const failed = await poller.poll();
		expect(failed.ok).toBe(false);
		if (failed.ok) return;
		const { node, description } = failed.error as Error & { node: { parameters: unknown }; description?: string };
		expect(failed.error.message).toBe('Quotas has 1 bad entry (row 1)');
		expect(description).toBe(setRefusal('row 1: Threshold "-1" is not a number of at least 0'));
		expect(JSON.stringify(node)).not.toContain(planted);
		expect(`${failed.error.message} ${description ?? ''}`).not.toContain(planted);
		expect(sim().requests).toHaveLength(0);
	});

	it('a failed quota poll emits nothing and keeps the last amount', async () => {
		const state: IDataObject = {};
		const poller = trigger({ events: ['quotaChanged'], ...ownQuota() }, state);
		await emitted(poller);
		sim().setQuota('USER_ID', 'U-1001', '1');
		sim().addFault({ fault: 'staleTime', operation: 'quota', times: 1 });
		const failed = await poller.poll();
		expect(failed.ok).toBe(false);
		expect(!failed.ok && failed.error.message).toMatch(/not fresh/);
		expect(await emitted(poller)).toEqual([
			expect.objectContaining({ availableQuotaAmount: 0.01, previousAmount: 12500 }),
		]);
	});
});

describe('a Threshold that is no number is refused, naming the field', () => {
	const none = 'no threshold, which Quota Below Threshold needs';
	it.each([
		['an empty string', '', none],
		['text', 'ten thousand', 'Threshold "ten thousand" is not a number of at least 0'],
		['a negative number', -5, 'Threshold "-5" is not a number of at least 0'],
		['a negative number as text', '-5', 'Threshold "-5" is not a number of at least 0'],
		['nothing', null, none],
	])('%s', async (_, threshold, problem) => {
		const poller = activateTrigger({
			parameters: { ...BELOW, ...ownQuota(threshold) } as INodeParameters,
			credentials: sandboxCredentials(sim().url),
			staticData: {},
		});
		const sent = sim().requests.length;
		const result = await poller.poll();
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error.message).toBe('Quotas has 1 bad entry (row 1)');
		expect(result.error.description).toBe(setRefusal(`row 1: ${problem}`));
		expect(sim().requests.length).toBe(sent);
	});

	it('a number given as text (an expression) is read as that number', async () => {
		setQuota('900000');
		const poller = activateTrigger({
			parameters: { ...BELOW, ...ownQuota('10000') } as INodeParameters,
			credentials: sandboxCredentials(sim().url),
			staticData: {},
		});
		const result = await poller.poll();
		expect(result.ok && result.items?.map((item) => item.json.threshold)).toEqual([10000]);
	});
});
