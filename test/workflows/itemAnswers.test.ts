/**
 * An item is answered only for the question it asked. A field that decides whose data comes back
 * (Customer ID, Connected Account ID) or what is asked (Accumulation ID) that is empty, typed or
 * from an expression that gave nothing for an item, fails that item instead of reading the
 * partner's own account: `own` says your own account. A credential's Access Token is a customer's,
 * so `own` with it is refused too. Each listed beneficiary says whose list it came from (whoseAccount).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { createCustomers, type Beneficiary } from '../../sandbox/data';
import { list, listedAs, OK_QUOTA, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const customers = createCustomers();
/** As the gateway returns them. */
const SMALL_RETURNED = customers.get('CUST_SMALL')?.beneficiaries as Beneficiary[];
const OWN_RETURNED = customers.get('')?.beneficiaries as Beneficiary[];
/** As the node lists them: each with whoseAccount. */
const SMALL = listedAs(SMALL_RETURNED, 'CUST_SMALL');
const OWN = listedAs(OWN_RETURNED);
const bodies = () => sim().requests.map((r) => JSON.parse(r.body) as IDataObject);

/** A sheet of customers: a row with a value, one with an empty cell, one blank, one without the column. */
const ROWS: IDataObject[] = [{ customerId: 'CUST_SMALL' }, { customerId: '' }, { customerId: '   ' }, {}];
const BY_ROW = { returnAll: true, customerId: '={{ $json.customerId }}' };

const without = (items: IDataObject[], field: string) =>
	items.map((item) => Object.fromEntries(Object.entries(item).filter(([key]) => key !== field)));
const EMPTY_HINT = "Enter own for your own account, or the customer's ID. Nothing was sent.";

describe('Customer ID by expression: a row whose cell is empty or blank is refused, not given your own list', () => {
	it('without Continue the node fails, naming the field and the item; no request without the customer is sent', async () => {
		const run = await list(sim(), BY_ROW, { items: ROWS });
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('Customer ID is empty');
		expect(run.error?.description).toBe(EMPTY_HINT);
		expect(run.json).toEqual([]);
		// The row with a value was asked before the node failed: every request sent names its customer.
		expect([...new Set(bodies().map((body) => body.customerId))]).toEqual(['CUST_SMALL']);
	});

	it.each(['continueRegularOutput', 'continueErrorOutput'] as const)(
		'under %s: the row with a value gets its list, every other row an error in its own place',
		async (onError) => {
			const run = await list(sim(), BY_ROW, { items: ROWS, onError });
			const task = run.run.data.resultData.runData['Partner Account Inquiry'][0];
			const [main, errors] = (task.data?.main ?? []).map((output) => output ?? []);
			const failed = onError === 'continueRegularOutput' ? main.slice(SMALL.length) : errors;
			expect(main.slice(0, SMALL.length).map((item) => item.json)).toEqual(SMALL);
			expect(main.slice(0, SMALL.length).map((item) => item.pairedItem)).toEqual(SMALL.map(() => ({ item: 0 })));
			if (onError === 'continueErrorOutput') expect(main).toHaveLength(SMALL.length);
			expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }, { item: 3 }]);
			for (const item of failed) {
				const fields = (onError === 'continueRegularOutput' ? item.json : item.json.details) as IDataObject;
				expect(item.json.error).toBe('Customer ID is empty');
				expect(fields).toMatchObject({ field: 'customerId', description: EMPTY_HINT });
				// Whose account is not known: the item does not claim to be about your own.
				expect(fields).not.toHaveProperty('whoseAccount');
			}
			// Only the row with a value reached the gateway: never a request for your own account.
			expect(bodies().map((body) => body.customerId)).toEqual(['CUST_SMALL']);
		},
	);

	it('Customer ID left empty as typed is refused too; own (its default) lists your own account, on purpose', async () => {
		// A required field: n8n itself will not run the node (readWhoseAccount refuses it too: emptyExpressions.test.ts).
		await expect(list(sim(), { returnAll: true, customerId: '' })).rejects.toThrow(
			'Parameter "Customer ID" is required',
		);
		expect(sim().requests).toHaveLength(0);
		const own = await list(sim(), { returnAll: true, customerId: 'own' });
		expect(own.json).toEqual(OWN);
		const plain = await list(sim(), { returnAll: true });
		expect(plain.json).toEqual(OWN);
	});

	it('an expression that gives a value is sent as given', async () => {
		const run = await list(sim(), { returnAll: true, customerId: '={{ "CUST_" + "SMALL" }}' });
		expect(run.json).toEqual(SMALL);
	});
});

describe('every field whose empty value would read your own account is decided the same way', () => {
	/** A credential that holds a customer's OAuth access token. */
	const TOKEN = { credentials: { accessToken: 'tok-1' } };
	const OWN_WITH_TOKEN = (label: string) => `${label} is own, but the credential holds a customer's Access Token`;
	const OWN_WITH_TOKEN_SAID =
		"An Access Token is one customer's authorisation; for your own account, use a credential without one. Enter the ID of the customer whose Access Token the credential holds. Nothing was sent.";

	it("the listing's Customer ID with a credential's Access Token: empty and own are refused, the customer listed with the token", async () => {
		const run = await list(sim(), BY_ROW, {
			items: [{ customerId: 'CUST_SMALL' }, { customerId: '' }, { customerId: 'own' }],
			continueOnFail: true,
			...TOKEN,
		});
		expect(run.json.slice(0, SMALL.length)).toEqual(SMALL);
		expect(run.json.slice(SMALL.length)).toEqual([
			{ error: 'Customer ID is empty', description: EMPTY_HINT, field: 'customerId' },
			expect.objectContaining({
				error: `own beneficiaries: ${OWN_WITH_TOKEN('Customer ID')}`,
				description: OWN_WITH_TOKEN_SAID,
				field: 'customerId',
				whoseAccount: 'own',
			}),
		]);
		expect(bodies()).toEqual([{ accessToken: 'tok-1', customerId: 'CUST_SMALL', pageSize: 50, pageNumber: 1 }]);
	});

	it("the quota's Connected Account ID, with and without a credential's Access Token", async () => {
		const rows: IDataObject[] = [{ account: 'ACC-1' }, { account: '' }, { account: 'own' }];
		const run = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: '={{ $json.account }}' },
			{ items: rows, continueOnFail: true, ...TOKEN },
		);
		expect(run.json).toEqual([
			{ ...OK_QUOTA, whoseAccount: 'ACC-1', subject: 'ACC-1 USER_ID U-1001 USD' },
			{ error: 'Connected Account ID is empty', description: EMPTY_HINT, field: 'connectedAccountId' },
			expect.objectContaining({
				error: `own USER_ID U-1001 USD: ${OWN_WITH_TOKEN('Connected Account ID')}`,
				description: OWN_WITH_TOKEN_SAID,
				field: 'connectedAccountId',
				whoseAccount: 'own',
			}),
		]);
		expect(sim().requests.map((r) => [r.headers['connected-accountid'], r.headers['access-token']])).toEqual([
			['ACC-1', 'tok-1'],
		]);
		// Without a token, own is your own quota.
		const own = await quota(sim(), { ...QUOTA, connectedAccountId: '={{ $json.account }}' }, { items: [rows[2]] });
		expect(own.json).toEqual([OK_QUOTA]);
	});

	it('the Accumulation ID (required): an expression that gives blank text is refused, saying what it must be', async () => {
		const run = await quota(
			sim(),
			{ ...QUOTA, quotaAccumulationId: '={{ $json.id }}' },
			{ items: [{ id: 'U-1001' }, { id: '  ' }], continueOnFail: true },
		);
		expect(run.json).toEqual([
			OK_QUOTA,
			expect.objectContaining({
				error: 'own quota: Accumulation ID is empty',
				description: 'Enter the service user ID whose quota to read. Nothing was sent.',
				field: 'quotaAccumulationId',
			}),
		]);
	});

	it('Connected Account ID left empty as typed is refused; own is your own quota, no OAuth', async () => {
		await expect(quota(sim(), { ...QUOTA, connectedAccountId: '' })).rejects.toThrow(
			'Parameter "Connected Account ID" is required',
		);
		expect(sim().requests).toHaveLength(0);
		const run = await quota(sim(), { ...QUOTA, connectedAccountId: 'own' }, { credentials: { accessToken: '' } });
		expect(run.json).toEqual([OK_QUOTA]);
		expect(sim().requests[0].headers['connected-accountid']).toBeUndefined();
		expect(sim().requests[0].headers['access-token']).toBeUndefined();
	});
});

describe('whose list: whoseAccount on each listed beneficiary', () => {
	it('always first: the customer sent, otherwise the item exactly as the API returned it', async () => {
		const run = await list(sim(), BY_ROW, { items: [{ customerId: 'CUST_SMALL' }] });
		expect(run.json.map((item) => item.whoseAccount)).toEqual(SMALL.map(() => 'CUST_SMALL'));
		expect(run.json.map((item) => Object.keys(item)[0])).toEqual(SMALL.map(() => 'whoseAccount'));
		expect(without(run.json, 'whoseAccount')).toEqual(SMALL_RETURNED);
	});

	it("your own account says so; a credential's access token is never shown", async () => {
		const own = await list(sim(), { returnAll: true });
		expect(own.json.map((item) => item.whoseAccount)).toEqual(OWN_RETURNED.map(() => 'own'));
		const token = await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL' },
			{ credentials: { accessToken: 'tok-secret-77' } },
		);
		expect(token.json).toEqual(SMALL);
		expect(JSON.stringify(token.run.data.resultData)).not.toContain('tok-secret-77');
	});

	it('beside a proof, and per item when items list several customers', async () => {
		const parameters: INodeParameters = {
			returnAll: false,
			limit: 2,
			customerId: '={{ $json.customerId }}',
			options: { includeProof: true },
		};
		const run = await list(sim(), parameters, {
			items: [{ customerId: 'CUST_SMALL' }, { customerId: 'CUST_LARGE' }],
		});
		expect(run.items.map((item) => [item.pairedItem, item.json.whoseAccount])).toEqual([
			[{ item: 0 }, 'CUST_SMALL'],
			[{ item: 0 }, 'CUST_SMALL'],
			[{ item: 1 }, 'CUST_LARGE'],
			[{ item: 1 }, 'CUST_LARGE'],
		]);
		expect(run.json[1].proof).toEqual({ page: 1 });
	});

	const CARRIES = 'CUST_SMALL beneficiaries: Beneficiary 1 of the answer has a field named whoseAccount';

	it('an answer that carries whoseAccount is refused: never passed on as if it said whose list it is', async () => {
		const small = sim().beneficiaries('CUST_SMALL');
		small[0] = { ...small[0], whoseAccount: 'CUST_OTHER' } as unknown as (typeof small)[number];
		for (const simplify of [false, true]) {
			const listed = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL', simplify });
			expect(listed.status).toBe('error');
			expect(listed.json).toEqual([]);
			expect(listed.error?.message).toBe(CARRIES);
		}
	});

	it('an answer that already carries whoseAccount is refused rather than overwritten', async () => {
		sim().addFault({
			fault: 'nonObjectItem',
			operation: 'list',
			item: { ...SMALL_RETURNED[0], whoseAccount: 'SOMEONE_ELSE' },
		});
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }, { continueOnFail: true });
		expect(run.json).toEqual([expect.objectContaining({ error: CARRIES, whoseAccount: 'CUST_SMALL' })]);
	});
});
