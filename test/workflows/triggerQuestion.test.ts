/**
 * What a trigger's saved state belongs to: the question it watches. Whatever decides whose data
 * comes back (here the credential's access token, an OAuth token that authorises one user's data)
 * is part of it, so a workflow switched to another token starts a fresh baseline instead of
 * reporting the difference between two users' data.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { QUOTA, setRefusal, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

async function emitted(poller: ReturnType<typeof activateTrigger>): Promise<IDataObject[] | null> {
	const result = await poller.poll();
	if (!result.ok) throw result.error;
	return result.items?.map((item) => item.json) ?? null;
}

/**
 * The trigger of one workflow, activated by a user or carried on after an edit ('update'); its
 * credential holds `accessToken` when one is given.
 */
const open = (
	parameters: INodeParameters,
	staticData: IDataObject,
	activation: 'activate' | 'update' | 'init',
	accessToken?: string,
) =>
	activateTrigger({
		parameters,
		credentials: { ...sandboxCredentials(sim().url), ...(accessToken ? { accessToken } : {}) },
		staticData,
		activation,
		workflowId: 'wf-access-token',
	});

/** One quota row: `whose` account's U-1001 (USD). */
const quotaOf = (whose: string, more: IDataObject = {}) =>
	({
		events: ['quotaChanged'],
		quotas: { quota: [{ connectedAccountId: whose, ...QUOTA, ...more }] },
	}) as INodeParameters;
const removals = { events: ['beneficiaryRemoved'], customerIds: 'CUST_SMALL' } as INodeParameters;
/** A token is one customer's: its quota is that customer's (own with a token is refused). */
const quotaChanges = quotaOf('ACC_A');

describe('the access token is part of the question', () => {
	it("beneficiaries: another token starts a fresh baseline, not a diff against the other user's list", async () => {
		const staticData: IDataObject = {};
		expect(await emitted(open(removals, staticData, 'activate', 'token-of-user-A'))).toBeNull();
		// The simulator serves one list for every token: user B's list lacks one entry of user A's.
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		expect(await emitted(open(removals, staticData, 'update', 'token-of-user-B'))).toBeNull();
		// The same token carries on as before.
		sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const again = await emitted(open(removals, staticData, 'update', 'token-of-user-B'));
		expect(again?.map((b) => b.referenceBeneficiaryId)).toHaveLength(1);
		expect(again?.[0].referenceBeneficiaryId).not.toBe(gone.referenceBeneficiaryId);
	});

	it("quota: another token starts a fresh baseline, not a Quota Changed whose previousAmount is the other user's", async () => {
		const staticData: IDataObject = {};
		expect(await emitted(open(quotaChanges, staticData, 'activate', 'token-of-user-A'))).toBeNull();
		sim().setQuota('USER_ID', 'U-1001', '300');
		expect(await emitted(open(quotaChanges, staticData, 'update', 'token-of-user-B'))).toBeNull();
	});

	it('quota: the Connected Account ID is sent, named on the item, and another one starts a fresh baseline', async () => {
		const staticData: IDataObject = {};
		const watch = quotaOf;
		expect(await emitted(open(watch('ACC_A'), staticData, 'activate'))).toBeNull();
		sim().setQuota('USER_ID', 'U-1001', '300');
		// Another account's quota: a baseline, not a change from ACC_A's.
		expect(await emitted(open(watch('ACC_B'), staticData, 'update'))).toBeNull();
		sim().setQuota('USER_ID', 'U-1001', '200');
		const items = await emitted(open(watch('ACC_B'), staticData, 'update'));
		expect(items?.map((i) => [i.subject, i.whoseAccount, i.previousAmount, i.availableQuotaAmount])).toEqual([
			['ACC_B USER_ID U-1001 USD', 'ACC_B', 3, 2],
		]);
		expect(items?.[0]).not.toHaveProperty('connectedAccountId');
		expect(sim().requests.map((r) => r.headers['connected-accountid'])).toEqual(['ACC_A', 'ACC_B', 'ACC_B']);
	});

	it('the token never reaches the saved state, only a digest of a digest of it', async () => {
		const staticData: IDataObject = {};
		await emitted(open(removals, staticData, 'activate', 'token-of-user-A'));
		expect(JSON.stringify(staticData)).not.toContain('token-of-user-A');
	});
});

describe('an expression that gives nothing is refused, never read as your own account', () => {
	it.each([
		['Customer IDs', { events: ['beneficiaryAdded'], customerIds: "={{ '' }}" }, 'Customer IDs is empty', undefined],
		[
			'Connected Account ID',
			quotaOf('={{ "  " }}'),
			'Quotas has 1 bad entry (row 1)',
			setRefusal('row 1: Connected Account ID is empty'),
		],
		[
			'Accumulation ID',
			quotaOf('own', { quotaAccumulationId: '={{ $vars.missing ?? "" }}' }),
			'Quotas has 1 bad entry (row 1)',
			setRefusal('row 1: Accumulation ID is empty'),
		],
	])('%s', async (_label, parameters, message, description) => {
		const staticData: IDataObject = {};
		const result = await open(parameters as INodeParameters, staticData, 'activate').poll();
		expect(result.ok).toBe(false);
		expect(result.ok ? '' : result.error.message).toBe(message);
		if (description !== undefined) expect(result.ok ? '' : result.error.description).toBe(description);
		expect(staticData.state).toBeUndefined();
		expect(sim().requests).toHaveLength(0);
	});

	it('Customer IDs left empty as typed is refused too (empty never means own); own watches your own account', async () => {
		const staticData: IDataObject = {};
		const empty = await open({ events: ['beneficiaryAdded'], customerIds: '' }, staticData, 'activate').poll();
		expect(empty.ok ? '' : empty.error.message).toBe('Customer IDs is empty');
		expect(staticData.state).toBeUndefined();
		expect(sim().requests).toHaveLength(0);
		const own = await open({ events: ['beneficiaryAdded'], customerIds: 'own' }, staticData, 'activate').poll();
		expect(own.ok).toBe(true);
		expect(staticData.state).toBeDefined();
		expect(sim().requests.length).toBeGreaterThan(0);
		expect(sim().requests.some((r) => r.body.includes('"customerId"'))).toBe(false);
	});
});
