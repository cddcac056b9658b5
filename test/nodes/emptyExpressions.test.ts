/**
 * Whose account an item asks about (api/whoseAccount.ts): `own` (any case, trimmed) is your own
 * account, anything else a customer's ID. Empty is always refused, typed or from an expression
 * that gave '', '  ', null or nothing: it is never read as your own account, which would answer an
 * item that asked about a customer with your own list or quota. Nothing is sent for such an item.
 */
import type { IDataObject } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, CUSTOMER_ID } from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { readWhoseAccount } from '../../nodes/PartnerAccountInquiry/shared/core/api/whoseAccount';
import { ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { thrown } from '../fixtures/thrown';
import { list, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

const EMPTY_HINT = "Enter own for your own account, or the customer's ID. Nothing was sent.";
/** What an expression may give for an item that should have named a customer. */
const NOTHING: Array<[string, unknown]> = [
	['empty text', ''],
	['blank text', '  '],
	['a tab and a line feed', '\t\n'],
	['null', null],
	['undefined', undefined],
];

describe('readWhoseAccount', () => {
	describe.each([CUSTOMER_ID, CONNECTED_ACCOUNT_ID])('$label', (rule) => {
		it.each(NOTHING)('%s is refused, naming the field, never read as own', (_name, value) => {
			const error = thrown(() => readWhoseAccount(rule, value)) as ValidationError;
			expect(error).toBeInstanceOf(ValidationError);
			expect(error.field).toBe(rule.name);
			expect(error.message).toBe(`${rule.label} is empty`);
			expect(error.hint).toBe(EMPTY_HINT);
		});

		it.each(['own', 'OWN', ' Own ', 'oWn\t'])('%p means your own account', (value) => {
			expect(readWhoseAccount(rule, value)).toBe('own');
		});

		it("anything else is the customer's ID, trimmed, its case kept", () => {
			expect(readWhoseAccount(rule, ' CUST_0001 ')).toBe('CUST_0001');
			expect(readWhoseAccount(rule, 'acc_0002')).toBe('acc_0002');
			// Only the whole word is own.
			expect(readWhoseAccount(rule, 'owner')).toBe('owner');
			expect(readWhoseAccount(rule, 'own 1')).toBe('own 1');
			expect(readWhoseAccount(rule, 0)).toBe('0');
		});
	});
});

/** Input items whose `who` is each of NOTHING (a missing field for undefined). */
const ITEMS: IDataObject[] = NOTHING.map(([, value]) => (value === undefined ? {} : { who: value }));

describe('through the engine: an expression that gives nothing', () => {
	it.each([
		['Get Many Beneficiaries', CUSTOMER_ID, list, { returnAll: true }],
		['Get Available Quota', CONNECTED_ACCOUNT_ID, quota, QUOTA],
	] as const)(
		'%s: each such item is an error item naming the field (Continue On Fail); nothing is sent',
		async (_name, rule, run, parameters) => {
			const result = await run(
				sim(),
				{ ...parameters, [rule.name]: '={{ $json.who }}' },
				{ items: ITEMS, continueOnFail: true },
			);
			expect(result.status).toBe('success');
			expect(result.json).toEqual(
				ITEMS.map(() => ({ error: `${rule.label} is empty`, description: EMPTY_HINT, field: rule.name })),
			);
			// Whose account is not known: no item claims to be about your own account.
			for (const item of result.json) expect(item).not.toHaveProperty('whoseAccount');
			expect(result.items.map((item) => item.pairedItem)).toEqual(ITEMS.map((_, item) => ({ item })));
			expect(sim().requests).toHaveLength(0);
		},
	);

	it.each([
		['Get Many Beneficiaries', CUSTOMER_ID, list, { returnAll: true }],
		['Get Available Quota', CONNECTED_ACCOUNT_ID, quota, QUOTA],
	] as const)(
		'%s: without Continue On Fail the node fails on the first such item',
		async (_name, rule, run, parameters) => {
			const result = await run(sim(), { ...parameters, [rule.name]: '={{ $json.who }}' }, { items: [{ who: '' }] });
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe(`${rule.label} is empty`);
			expect(result.json).toEqual([]);
			expect(sim().requests).toHaveLength(0);
		},
	);

	it.each([
		['Get Many Beneficiaries', CUSTOMER_ID, list, { returnAll: true }],
		['Get Available Quota', CONNECTED_ACCOUNT_ID, quota, QUOTA],
	] as const)(
		'%s: typed empty is refused too: n8n will not run a required field left empty',
		async (_name, rule, run, parameters) => {
			await expect(run(sim(), { ...parameters, [rule.name]: '' })).rejects.toThrow(
				`Parameter "${rule.label}" is required`,
			);
			expect(sim().requests).toHaveLength(0);
		},
	);

	it('the Accumulation ID by an expression that gives nothing: refused, nothing sent', async () => {
		const result = await quota(
			sim(),
			{ ...QUOTA, quotaAccumulationId: '={{ $json.id }}' },
			{ items: [{ id: '' }, {}], continueOnFail: true },
		);
		// Whose account is known before the quota is: the error is said to be its.
		const refused = [
			'own quota: Accumulation ID is empty',
			'Enter the service user ID whose quota to read. Nothing was sent.',
			'quotaAccumulationId',
			'own',
		];
		expect(result.json.map((item) => [item.error, item.description, item.field, item.whoseAccount])).toEqual([
			refused,
			refused,
		]);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('through the engine: own in any case', () => {
	const OWNS = [{ who: 'own' }, { who: 'OWN' }, { who: ' Own ' }];

	it('Get Many Beneficiaries lists your own account (no customerId sent) for each', async () => {
		const result = await list(sim(), { returnAll: true, customerId: '={{ $json.who }}' }, { items: OWNS });
		expect(result.status).toBe('success');
		expect(sim().requests).toHaveLength(OWNS.length);
		for (const request of sim().requests) {
			expect(JSON.parse(request.body)).not.toHaveProperty('customerId');
			expect(request.headers['connected-customerid']).toBeUndefined();
		}
		expect(new Set(result.json.map((item) => item.whoseAccount))).toEqual(new Set(['own']));
		expect(result.json).toHaveLength(OWNS.length * sim().beneficiaries('').length);
	});

	it('Get Available Quota reads your own quota (no Connected-AccountId header) for each', async () => {
		const result = await quota(sim(), { ...QUOTA, connectedAccountId: '={{ $json.who }}' }, { items: OWNS });
		expect(result.status).toBe('success');
		expect(result.json.map((item) => [item.whoseAccount, item.subject])).toEqual(
			OWNS.map(() => ['own', 'own USER_ID U-1001 USD']),
		);
		expect(sim().requests).toHaveLength(OWNS.length);
		for (const request of sim().requests) expect(request.headers['connected-accountid']).toBeUndefined();
	});
});
