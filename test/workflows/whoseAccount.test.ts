/**
 * The 1.0.0 items through n8n's engine against the simulator: whose account each item is about
 * (`whoseAccount`, the quota's `subject`), one execution over many accounts with no answer
 * mistaken for another's, Simplify and Mask Bank Details as a user meets them by default, a
 * credential's access token, and a quota value that is always text.
 */
import type { IDataObject } from 'n8n-workflow';

import { createCustomers, QUOTAS, type Beneficiary } from '../../sandbox/data';
import { list, listAsSet, listedAs, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const customers = createCustomers();
const returned = (customerId: string) => customers.get(customerId)?.beneficiaries as Beneficiary[];
const EMPTY_HINT = "Enter own for your own account, or the customer's ID. Nothing was sent.";
const tail = (value: string) => `****${value.slice(-4)}`;
const bodyOf = (body: string) => JSON.parse(body) as IDataObject;

/** No two of `items` alike (compared whole). */
function allDifferent(items: IDataObject[]): void {
	expect(new Set(items.map((item) => JSON.stringify(item))).size).toBe(items.length);
}

describe('Get Available Quota: one execution over several accounts', () => {
	const BY_ITEM = {
		connectedAccountId: '={{ $json.who }}',
		quotaAccumulationMethod: '={{ $json.method }}',
		quotaAccumulationId: '={{ $json.id }}',
		currency: 'USD',
	};
	const ITEMS: IDataObject[] = [
		{ who: 'own', method: 'USER_ID', id: 'U-1001' },
		{ who: 'ACC_A', method: 'USER_ID', id: 'U-1001' },
		{ who: 'ACC_B', method: 'USER_ID', id: 'U-1001' },
		{ who: 'own', method: 'RECEIVING_ACCOUNT', id: 'RA-2001' },
		// Meant for ACC_A, but its expression reads a column this row does not have.
		{ customer: 'ACC_A', method: 'USER_ID', id: 'U-1001' },
	];

	it('each item names its own account and subject; each request carries exactly its own Connected-AccountId; the empty one is refused, nothing sent for it', async () => {
		// ACC_A's user has a quota of its own; ACC_B's answers the very figures of your own account's.
		sim().setQuota('USER_ID', 'ACC_A/U-1001', '700000');
		const run = await quota(sim(), BY_ITEM, { items: ITEMS, continueOnFail: true });
		expect(run.status).toBe('success');
		const user = { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001' };
		expect(run.json).toEqual([
			{
				whoseAccount: 'own',
				subject: 'own USER_ID U-1001 USD',
				...user,
				availableQuota: { currency: 'USD', value: '1250000' },
				availableQuotaAmount: 12500,
			},
			{
				whoseAccount: 'ACC_A',
				subject: 'ACC_A USER_ID U-1001 USD',
				...user,
				availableQuota: { currency: 'USD', value: '700000' },
				availableQuotaAmount: 7000,
			},
			{
				whoseAccount: 'ACC_B',
				subject: 'ACC_B USER_ID U-1001 USD',
				...user,
				availableQuota: { currency: 'USD', value: '1250000' },
				availableQuotaAmount: 12500,
			},
			{
				whoseAccount: 'own',
				subject: 'own RECEIVING_ACCOUNT RA-2001 USD',
				quotaAccumulationMethod: 'RECEIVING_ACCOUNT',
				quotaAccumulationId: 'RA-2001',
				availableQuota: { currency: 'USD', value: '98765432' },
				availableQuotaAmount: 987654.32,
			},
			{ error: 'Connected Account ID is empty', description: EMPTY_HINT, field: 'connectedAccountId' },
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual(ITEMS.map((_, item) => ({ item })));
		// whoseAccount first, then the subject: what a Switch routes on comes first.
		for (const item of run.json.slice(0, 4)) expect(Object.keys(item).slice(0, 2)).toEqual(['whoseAccount', 'subject']);
		// The error item does not claim an account: whose it was meant to be is not known.
		expect(run.json[4]).not.toHaveProperty('whoseAccount');
		// Same gateway figures (own and ACC_B), still told apart; no two items alike.
		allDifferent(run.json);

		// One request per answered item, none for the empty one; each with its own header, once.
		const sent = sim().requests.map((request) => {
			const header = request.headers['connected-accountid'];
			expect(Array.isArray(header)).toBe(false);
			return [header ?? 'none', bodyOf(request.body).quotaAccumulationId].join(' ');
		});
		expect(sent.sort()).toEqual(['ACC_A U-1001', 'ACC_B U-1001', 'none RA-2001', 'none U-1001']);
	});
});

describe('Get Many Beneficiaries: one execution over your own account and two customers', () => {
	const ITEMS: IDataObject[] = [{ who: 'own' }, { who: 'CUST_SMALL' }, { who: 'CUST_NO_REF' }, { who: '' }];

	it("each customer's list under its own whoseAccount, in input order; each request names its own customer; the empty one is refused", async () => {
		const run = await list(
			sim(),
			{ returnAll: true, customerId: '={{ $json.who }}' },
			{ items: ITEMS, continueOnFail: true },
		);
		expect(run.status).toBe('success');
		const OWN = listedAs(returned(''));
		const SMALL = listedAs(returned('CUST_SMALL'), 'CUST_SMALL');
		const NO_REF = listedAs(returned('CUST_NO_REF'), 'CUST_NO_REF');
		expect(run.json).toEqual([
			...OWN,
			...SMALL,
			...NO_REF,
			{ error: 'Customer ID is empty', description: EMPTY_HINT, field: 'customerId' },
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([
			...OWN.map(() => ({ item: 0 })),
			...SMALL.map(() => ({ item: 1 })),
			...NO_REF.map(() => ({ item: 2 })),
			{ item: 3 },
		]);
		for (const item of run.json.slice(0, -1)) expect(Object.keys(item)[0]).toBe('whoseAccount');
		allDifferent(run.json);
		// One page each; the customer in the signed body only, never your own list asked for a customer.
		expect(sim().requests).toHaveLength(3);
		for (const request of sim().requests) expect(request.headers['connected-customerid']).toBeUndefined();
		expect(
			sim()
				.requests.map((request) => String(bodyOf(request.body).customerId ?? 'none'))
				.sort(),
		).toEqual(['CUST_NO_REF', 'CUST_SMALL', 'none']);
	});
});

describe('Simplify and Mask Bank Details as the node sets them by default', () => {
	/** The simplified item, spelled out here: these fields, in this order, when present. */
	function simplified(b: Beneficiary, whose: string, mask: boolean): IDataObject {
		const shown = (value: string) => (mask ? tail(value) : value);
		const item: IDataObject = { whoseAccount: whose, accountName: b.accountName, beneficiaryNick: b.beneficiaryNick };
		if (b.bankAccountIBAN) item.bankAccountIBAN = shown(b.bankAccountIBAN);
		else if (b.bankAccountNo) item.bankAccountNo = shown(b.bankAccountNo);
		const rest = { bankName: b.bankName, currency: b.currency, status: b.status };
		for (const [key, value] of Object.entries(rest)) if (value !== undefined) item[key] = value;
		if (b.referenceBeneficiaryId !== undefined) item.referenceBeneficiaryId = b.referenceBeneficiaryId;
		return item;
	}
	const SMALL = () => sim().beneficiaries('CUST_SMALL');

	it('the default item: at most 10 fields, in order, its bank account as **** and the last four', async () => {
		const run = await listAsSet(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		expect(run.status).toBe('success');
		const expected = SMALL().map((b) => simplified(b, 'CUST_SMALL', true));
		expect(run.json).toEqual(expected);
		run.json.forEach((item, index) => {
			expect(Object.keys(item)).toEqual(Object.keys(expected[index]));
			expect(Object.keys(item).length).toBeLessThanOrEqual(10);
			const account = (item.bankAccountIBAN ?? item.bankAccountNo) as string;
			expect(account).toMatch(/^\*{4}[A-Za-z0-9]{4}$/);
		});
		// Both kinds of bank account are seen: an IBAN where there is one, else the account number.
		expect(run.json.some((item) => 'bankAccountIBAN' in item)).toBe(true);
		expect(run.json.some((item) => 'bankAccountNo' in item)).toBe(true);
		const produced = JSON.stringify(run.json);
		for (const b of SMALL()) {
			expect(produced).not.toContain(b.bankAccountNo);
			expect(produced).not.toContain(b.beneficiaryToken);
		}
	});

	it('Simplify off gives the whole answer (masked by default); Mask Bank Details off too gives it as returned', async () => {
		const masked = await listAsSet(sim(), { returnAll: true, customerId: 'CUST_SMALL', simplify: false });
		expect(masked.json).toEqual(
			listedAs(SMALL(), 'CUST_SMALL').map((item) => ({
				...item,
				beneficiaryToken: tail(item.beneficiaryToken),
				...(item.bankAccountNo ? { bankAccountNo: tail(item.bankAccountNo) } : {}),
				...(item.bankAccountIBAN ? { bankAccountIBAN: tail(item.bankAccountIBAN) } : {}),
			})),
		);
		const whole = await listAsSet(sim(), {
			returnAll: true,
			customerId: 'CUST_SMALL',
			simplify: false,
			options: { maskBankDetails: false },
		});
		expect(whole.json).toEqual(listedAs(SMALL(), 'CUST_SMALL'));
	});

	it('Mask Bank Details off, Simplify on: whole numbers in the simplified item', async () => {
		const run = await listAsSet(sim(), {
			returnAll: true,
			customerId: 'CUST_SMALL',
			options: { maskBankDetails: false },
		});
		expect(run.json).toEqual(SMALL().map((b) => simplified(b, 'CUST_SMALL', false)));
	});

	it('Include Proof with Simplify on: not offered (n8n drops it, the items stay simplified and carry no proof)', async () => {
		const run = await listAsSet(sim(), { returnAll: true, customerId: 'CUST_SMALL', options: { includeProof: true } });
		expect(run.status).toBe('success');
		expect(run.json).toEqual(SMALL().map((b) => simplified(b, 'CUST_SMALL', true)));
	});

	it('Include Proof with Simplify on by an expression (so n8n passes it on) is refused before anything is sent', async () => {
		const run = await listAsSet(sim(), {
			returnAll: true,
			customerId: 'CUST_SMALL',
			simplify: '={{ true }}',
			options: { includeProof: true },
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('CUST_SMALL beneficiaries: Include Proof needs Simplify off');
		expect(run.error?.description).toMatch(/Turn Simplify off .* Nothing was sent\.$/);
		expect(sim().requests).toHaveLength(0);
	});

	it('Include Proof with Simplify off: whole, unmasked items, the first of each page with its proof', async () => {
		const run = await listAsSet(sim(), {
			returnAll: true,
			customerId: 'CUST_SMALL',
			simplify: false,
			options: { includeProof: true },
		});
		expect(run.status).toBe('success');
		const whole = listedAs(SMALL(), 'CUST_SMALL');
		expect(run.json.map((item) => Object.fromEntries(Object.entries(item).filter(([key]) => key !== 'proof')))).toEqual(
			whole,
		);
		expect(run.json[0].proof).toEqual(expect.objectContaining({ page: 1 }));
		expect(Object.keys(run.json[0].proof as IDataObject).length).toBeGreaterThan(1);
		expect(run.json.slice(1).map((item) => item.proof)).toEqual(whole.slice(1).map(() => ({ page: 1 })));
	});
});

describe("a credential's access token", () => {
	const PLANTED = 'tok-cust-0002-5a7e';
	const WITH_TOKEN = { credentials: { accessToken: PLANTED } };

	it('is sent in the listing body, and as the quota call’s Access-Token header', async () => {
		const listed = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }, WITH_TOKEN);
		expect(listed.status).toBe('success');
		expect(bodyOf(sim().requests[0].body)).toEqual({
			accessToken: PLANTED,
			customerId: 'CUST_SMALL',
			pageSize: 50,
			pageNumber: 1,
		});
		expect(sim().requests[0].headers['access-token']).toBeUndefined();
		const read = await quota(sim(), { ...QUOTA, connectedAccountId: 'ACC_0002' }, WITH_TOKEN);
		expect(read.status).toBe('success');
		const request = sim().requests.at(-1);
		expect(request?.headers['access-token']).toBe(PLANTED);
		expect(request?.headers['connected-accountid']).toBe('ACC_0002');
		expect(bodyOf(request?.body ?? '{}')).not.toHaveProperty('accessToken');
		// Not in any item either.
		expect(JSON.stringify([listed.json, read.json])).not.toContain(PLANTED);
	});

	it('is never in an error', async () => {
		sim().addFault({ fault: 'echoRequest', operation: 'quota' });
		const failed = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: 'ACC_0002' },
			{ ...WITH_TOKEN, continueOnFail: true },
		);
		expect(String(failed.json[0].error)).toMatch(/^ACC_0002 USER_ID U-1001 USD: /);
		expect(failed.json[0].whoseAccount).toBe('ACC_0002');
		sim().clearFaults();
		const refused = await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL' },
			{
				credentials: { accessToken: 'expired-token' },
			},
		);
		expect(refused.error?.message).toMatch(/^CUST_SMALL beneficiaries: The API answered OAUTH_FAIL/);
		for (const run of [failed, refused]) {
			const produced = [JSON.stringify(run.run.data.resultData), JSON.stringify(run.error ?? null)].join('\n');
			expect(produced).not.toContain(PLANTED);
			expect(produced).not.toContain('expired-token');
		}
	});

	it.each([
		[
			'Get Many Beneficiaries',
			() => list(sim(), { returnAll: true, customerId: 'own' }, WITH_TOKEN),
			"own beneficiaries: Customer ID is own, but the credential holds a customer's Access Token",
		],
		[
			'Get Available Quota',
			() => quota(sim(), { ...QUOTA, connectedAccountId: 'OWN' }, WITH_TOKEN),
			"own USER_ID U-1001 USD: Connected Account ID is own, but the credential holds a customer's Access Token",
		],
	])('%s: own with it is refused before any request', async (_name, run, message) => {
		const result = await run();
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toMatch(/Nothing was sent\.$/);
		expect(sim().requests).toHaveLength(0);
		expect(JSON.stringify(result.run.data.resultData)).not.toContain(PLANTED);
	});
});

describe('availableQuota.value is text, whatever the gateway sent', () => {
	it('a number from the gateway (VA-3001) and a string (U-1001) both come out as text; the amount is a number', async () => {
		// The simulator's own data: VA-3001's value is a number, U-1001's a string.
		expect(typeof QUOTAS.VIRTUAL_ACCOUNT['VA-3001']).toBe('object');
		expect(typeof (QUOTAS.VIRTUAL_ACCOUNT['VA-3001'] as { value: unknown }).value).toBe('number');
		expect(typeof (QUOTAS.USER_ID['U-1001'] as { value: unknown }).value).toBe('string');
		const run = await quota(
			sim(),
			{
				quotaAccumulationMethod: '={{ $json.method }}',
				quotaAccumulationId: '={{ $json.id }}',
				currency: '={{ $json.currency }}',
			},
			{
				items: [
					{ method: 'VIRTUAL_ACCOUNT', id: 'VA-3001', currency: 'EUR' },
					{ method: 'USER_ID', id: 'U-1001', currency: 'USD' },
				],
			},
		);
		expect(run.status).toBe('success');
		expect(run.json.map((item) => [item.availableQuota, item.availableQuotaAmount])).toEqual([
			[{ currency: 'EUR', value: '4200050' }, 42000.5],
			[{ currency: 'USD', value: '1250000' }, 12500],
		]);
		for (const item of run.json) {
			expect(typeof (item.availableQuota as IDataObject).value).toBe('string');
			expect(typeof item.availableQuotaAmount).toBe('number');
		}
	});

	it('a quota the gateway moves to a number is still text', async () => {
		sim().setQuota('USER_ID', 'U-1001', 99_900);
		const run = await quota(sim(), QUOTA);
		expect(run.json[0].availableQuota).toEqual({ currency: 'USD', value: '99900' });
		expect(run.json[0].availableQuotaAmount).toBe(999);
	});
});
