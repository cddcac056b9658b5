/**
 * An item is answered only for the question it asked. An expression meant to fill a field that
 * decides whose data comes back (Customer ID, Connected Account ID, Access Token) or what is asked
 * (Accumulation ID), and that gives nothing for an item, fails that item instead of reading the
 * partner's own account; a field left empty as typed still means what it says. Each listed
 * beneficiary says whose list it came from (_listedFor).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { createCustomers, type Beneficiary } from '../../sandbox/data';
import { list, listedAs, OK_QUOTA, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const customers = createCustomers();
/** As the gateway returns them. */
const SMALL_RETURNED = customers.get('CUST_SMALL')?.beneficiaries as Beneficiary[];
const OWN_RETURNED = customers.get('')?.beneficiaries as Beneficiary[];
/** As the node lists them: each with _listedFor. */
const SMALL = listedAs(SMALL_RETURNED, 'CUST_SMALL');
const OWN = listedAs(OWN_RETURNED);
const bodies = () => sim().requests.map((r) => JSON.parse(r.body) as IDataObject);

/** A sheet of customers: a row with a value, one with an empty cell, one blank, one without the column. */
const ROWS: IDataObject[] = [{ customerId: 'CUST_SMALL' }, { customerId: '' }, { customerId: '   ' }, {}];
const BY_ROW = { returnAll: true, customerId: '={{ $json.customerId }}' };

const without = (items: IDataObject[], field: string) =>
	items.map((item) => Object.fromEntries(Object.entries(item).filter(([key]) => key !== field)));

describe('Customer ID by expression: a row whose cell is empty or blank is refused, not given your own list', () => {
	it('without Continue the node fails, naming the field and the item; no request without the customer is sent', async () => {
		const run = await list(sim(), BY_ROW, { items: ROWS });
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe(
			`Customer ID is an expression that gave "" for item 1; an empty Customer ID lists your own account's beneficiaries, not a customer's, so nothing was sent for this item`,
		);
		expect(run.error?.description).toMatch(/To leave it empty on purpose, remove Customer ID from the node/);
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
			const gave = ['""', '"   "', 'nothing'];
			failed.forEach((item, index) => {
				const fields = (onError === 'continueRegularOutput' ? item.json : item.json.details) as IDataObject;
				expect(item.json.error).toBe(
					`Customer ID is an expression that gave ${gave[index]} for item ${index + 1}; an empty Customer ID lists your own account's beneficiaries, not a customer's, so nothing was sent for this item`,
				);
				expect(fields.field).toBe('customerId');
			});
			// Only the row with a value reached the gateway: never a request for your own account.
			expect(bodies().map((body) => body.customerId)).toEqual(['CUST_SMALL']);
		},
	);

	it('Customer ID left empty as typed still lists your own account, on purpose', async () => {
		const run = await list(sim(), { returnAll: true, customerId: '' });
		expect(run.status).toBe('success');
		expect(run.json).toEqual(OWN);
		const plain = await list(sim(), { returnAll: true });
		expect(plain.json).toEqual(OWN);
	});

	it('an expression that gives a value is sent as given', async () => {
		const run = await list(sim(), { returnAll: true, customerId: '={{ "CUST_" + "SMALL" }}' });
		expect(run.json).toEqual(SMALL);
	});
});

describe('Options given as one expression (an imported or generated workflow)', () => {
	it('n8n 2.41 drops the collection before the node runs: no option reaches it (the README says to give each option its own expression)', async () => {
		// The node cannot tell this from Options left empty: each item is read as with no options.
		// Were n8n to hand the expression on, an empty access token would be refused (test/nodes/emptyExpressions.test.ts).
		await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL', options: '={{ { accessToken: $json.token } }}' },
			{ items: [{ token: 'tok-1' }], continueOnFail: true },
		);
		expect(bodies().map((body) => body.accessToken)).toEqual([undefined]);
		expect(bodies().map((body) => body.customerId)).toEqual(['CUST_SMALL']);
	});
});

describe('every field whose empty value reads your own account is decided the same way', () => {
	const tokenRows: IDataObject[] = [{ token: 'tok-1' }, { token: '' }, { token: ' ' }];

	it("the listing's Access Token: refused without showing what the expression gave", async () => {
		const run = await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL', options: { accessToken: '={{ $json.token }}' } },
			{ items: tokenRows, continueOnFail: true },
		);
		expect(run.json.slice(0, SMALL.length)).toEqual(listedAs(SMALL_RETURNED, 'CUST_SMALL', true));
		expect(run.json.slice(SMALL.length)).toEqual([
			expect.objectContaining({
				error: expect.stringMatching(
					/^Access Token is an expression that gave nothing for item 1; an empty Access Token sends the request without that OAuth authorization/,
				),
				field: 'accessToken',
			}),
			expect.objectContaining({ error: expect.stringMatching(/gave nothing for item 2/), field: 'accessToken' }),
		]);
		expect(bodies().map((body) => body.accessToken)).toEqual(['tok-1']);
	});

	it("the quota's Connected Account ID and Access Token", async () => {
		const rows: IDataObject[] = [
			{ account: 'ACC-1', token: 'tok-1' },
			{ account: '', token: 'tok-2' },
			{ account: 'ACC-3', token: '' },
		];
		const run = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: '={{ $json.account }}', options: { accessToken: '={{ $json.token }}' } },
			{ items: rows, continueOnFail: true },
		);
		expect(run.json).toEqual([
			OK_QUOTA,
			expect.objectContaining({
				error: `Connected Account ID is an expression that gave "" for item 1; an empty Connected Account ID reads your own account's quota, not the managed customer's, so nothing was sent for this item`,
				field: 'connectedAccountId',
			}),
			expect.objectContaining({
				error: expect.stringMatching(/^Access Token is an expression that gave nothing for item 2/),
				field: 'accessToken',
			}),
		]);
		expect(sim().requests.map((r) => r.headers['connected-accountid'])).toEqual(['ACC-1']);
	});

	it('the Accumulation ID (required): the error says the expression gave nothing, for which item', async () => {
		const run = await quota(
			sim(),
			{ ...QUOTA, quotaAccumulationId: '={{ $json.id }}' },
			{ items: [{ id: 'U-1001' }, { id: '  ' }], continueOnFail: true },
		);
		expect(run.json).toEqual([
			OK_QUOTA,
			expect.objectContaining({
				error: 'Accumulation ID is an expression that gave "  " for item 1, so nothing was sent for this item',
				field: 'quotaAccumulationId',
			}),
		]);
	});

	it('fields left empty as typed keep their meaning: your own quota, no OAuth', async () => {
		const run = await quota(sim(), { ...QUOTA, connectedAccountId: '', options: { accessToken: '' } });
		expect(run.json).toEqual([OK_QUOTA]);
		expect(sim().requests[0].headers['connected-accountid']).toBeUndefined();
	});
});

describe('whose list: _listedFor on each listed beneficiary', () => {
	/** Every node version: saved workflows (1) and new nodes (1.1) alike. */
	const V1 = { typeVersion: 1 };
	const V1_1 = { typeVersion: 1.1 };

	it.each([V1, V1_1])(
		'always (node version $typeVersion): the customer sent, otherwise the item exactly as the API returned it',
		async (version) => {
			const run = await list(sim(), BY_ROW, { items: [{ customerId: 'CUST_SMALL' }], ...version });
			expect(run.json.map((item) => item._listedFor)).toEqual(SMALL.map(() => ({ customerId: 'CUST_SMALL' })));
			expect(without(run.json, '_listedFor')).toEqual(SMALL_RETURNED);
		},
	);

	it('your own account says so; an access token is named, never shown', async () => {
		const own = await list(sim(), { returnAll: true }, V1_1);
		expect(own.json.map((item) => item._listedFor)).toEqual(OWN_RETURNED.map(() => ({ ownAccount: true })));
		const token = await list(sim(), { returnAll: true, options: { accessToken: 'tok-secret-77' } }, V1_1);
		expect(token.json[0]._listedFor).toEqual({ viaAccessToken: true });
		expect(JSON.stringify(token.json)).not.toContain('tok-secret-77');
		const both = await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL', options: { accessToken: 'tok-secret-77' } },
			V1_1,
		);
		expect(both.json[0]._listedFor).toEqual({ customerId: 'CUST_SMALL', viaAccessToken: true });
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
			...V1_1,
		});
		expect(run.items.map((item) => [item.pairedItem, (item.json._listedFor as IDataObject).customerId])).toEqual([
			[{ item: 0 }, 'CUST_SMALL'],
			[{ item: 0 }, 'CUST_SMALL'],
			[{ item: 1 }, 'CUST_LARGE'],
			[{ item: 1 }, 'CUST_LARGE'],
		]);
		expect(run.json[1].proof).toEqual({ page: 1 });
	});

	it('an answer that carries _listedFor is refused, in every node version: never passed on as if it said whose list it is', async () => {
		const small = sim().beneficiaries('CUST_SMALL');
		small[0] = { ...small[0], _listedFor: { customerId: 'CUST_OTHER' } } as unknown as (typeof small)[number];
		const runs = [
			await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }, V1),
			await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }, V1_1),
		];
		for (const listed of runs) {
			expect(listed.status).toBe('error');
			expect(listed.json).toEqual([]);
			expect(listed.error?.message).toBe(
				'Beneficiary 1 of the answer carries a field named _listedFor, the name this node gives the field that says whose list an item came from',
			);
		}
	});

	it('an answer that already carries _listedFor is refused rather than overwritten', async () => {
		sim().addFault({
			fault: 'nonObjectItem',
			operation: 'list',
			item: { ...SMALL_RETURNED[0], _listedFor: { customerId: 'SOMEONE_ELSE' } },
		});
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }, V1_1);
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe(
			'Beneficiary 1 of the answer carries a field named _listedFor, the name this node gives the field that says whose list an item came from',
		);
	});
});
