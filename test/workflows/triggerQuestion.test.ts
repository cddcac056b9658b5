/**
 * What a trigger's saved state belongs to: the question it watches. Whatever decides whose data
 * comes back (here the access token, an OAuth token that authorises one user's data) is part of
 * it, so a workflow switched to another token starts a fresh baseline instead of reporting the
 * difference between two users' data; a state saved by the previous release, which left the token out, is
 * carried on from.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { QUOTA, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

async function emitted(poller: ReturnType<typeof activateTrigger>): Promise<IDataObject[] | null> {
	const result = await poller.poll();
	if (!result.ok) throw result.error;
	return result.items?.map((item) => item.json) ?? null;
}

/** The trigger of one workflow, activated by a user or carried on after an edit ('update'). */
const open = (
	parameters: INodeParameters,
	staticData: IDataObject,
	activation: 'activate' | 'update' | 'init',
	workflowId = 'wf-access-token',
) => activateTrigger({ parameters, credentials: sandboxCredentials(sim().url), staticData, activation, workflowId });

const removals = (accessToken: string) =>
	({
		triggerOn: 'beneficiaries',
		events: ['beneficiaryRemoved'],
		customerId: 'CUST_SMALL',
		options: { accessToken },
	}) as INodeParameters;
const quotaChanges = (accessToken: string) =>
	({ triggerOn: 'quota', events: ['quotaChanged'], ...QUOTA, options: { accessToken } }) as INodeParameters;

describe('the access token is part of the question', () => {
	it("beneficiaries: another token starts a fresh baseline, not a diff against the other user's list", async () => {
		const staticData: IDataObject = {};
		expect(await emitted(open(removals('token-of-user-A'), staticData, 'activate'))).toBeNull();
		// The simulator serves one list for every token: user B's list lacks one entry of user A's.
		const [gone] = sim().beneficiaries('CUST_SMALL').splice(0, 1);
		expect(await emitted(open(removals('token-of-user-B'), staticData, 'update'))).toBeNull();
		// The same token carries on as before.
		sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const again = await emitted(open(removals('token-of-user-B'), staticData, 'update'));
		expect(again?.map((b) => b.referenceBeneficiaryId)).toHaveLength(1);
		expect(again?.[0].referenceBeneficiaryId).not.toBe(gone.referenceBeneficiaryId);
	});

	it("quota: another token starts a fresh baseline, not a Quota Changed whose previousAmount is the other user's", async () => {
		const staticData: IDataObject = {};
		expect(await emitted(open(quotaChanges('token-of-user-A'), staticData, 'activate'))).toBeNull();
		sim().setQuota('USER_ID', 'U-1001', '300');
		expect(await emitted(open(quotaChanges('token-of-user-B'), staticData, 'update'))).toBeNull();
	});

	it('quota: the Connected Account ID is sent, named on the item, and another one starts a fresh baseline', async () => {
		const staticData: IDataObject = {};
		const watch = (connectedAccountId: string) =>
			({ triggerOn: 'quota', events: ['quotaChanged'], ...QUOTA, connectedAccountId }) as INodeParameters;
		expect(await emitted(open(watch('ACC_A'), staticData, 'activate'))).toBeNull();
		sim().setQuota('USER_ID', 'U-1001', '300');
		// Another account's quota: a baseline, not a change from ACC_A's.
		expect(await emitted(open(watch('ACC_B'), staticData, 'update'))).toBeNull();
		sim().setQuota('USER_ID', 'U-1001', '200');
		const items = await emitted(open(watch('ACC_B'), staticData, 'update'));
		expect(items?.map((i) => [i.subject, i.connectedAccountId, i.previousAmount, i.availableQuotaAmount])).toEqual([
			['USER_ID U-1001 USD', 'ACC_B', 3, 2],
		]);
		expect(sim().requests.map((r) => r.headers['connected-accountid'])).toEqual(['ACC_A', 'ACC_B', 'ACC_B']);
	});

	it('the token never reaches the saved state, only a digest of a digest of it', async () => {
		const staticData: IDataObject = {};
		await emitted(open(removals('token-of-user-A'), staticData, 'activate'));
		expect(JSON.stringify(staticData)).not.toContain('token-of-user-A');
	});
});

describe('an expression that gives nothing is refused, never read as your own account', () => {
	it.each([
		['Customer ID', { triggerOn: 'beneficiaries', events: ['beneficiaryAdded'], customerId: "={{ '' }}" }],
		[
			'Connected Account ID',
			{ triggerOn: 'quota', events: ['quotaChanged'], ...QUOTA, connectedAccountId: '={{ "  " }}' },
		],
		[
			'Accumulation ID',
			{ triggerOn: 'quota', events: ['quotaChanged'], ...QUOTA, quotaAccumulationId: '={{ $vars.missing ?? "" }}' },
		],
	])('%s', async (label, parameters) => {
		const staticData: IDataObject = {};
		const result = await open(parameters as INodeParameters, staticData, 'activate').poll();
		expect(result.ok).toBe(false);
		expect(result.ok ? '' : String(result.error)).toContain(`${label} is an expression that gave`);
		expect(staticData.state).toBeUndefined();
		expect(sim().requests).toHaveLength(0);
	});

	it('a Customer ID left empty as typed watches your own account, as before', async () => {
		const staticData: IDataObject = {};
		const result = await open(
			{ triggerOn: 'beneficiaries', events: ['beneficiaryAdded'], customerId: '' } as INodeParameters,
			staticData,
			'activate',
		).poll();
		expect(result.ok).toBe(true);
		expect(staticData.state).toBeDefined();
	});
});
