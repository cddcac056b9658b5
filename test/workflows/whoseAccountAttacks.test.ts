/**
 * Hostile review, the action node through n8n's engine against the simulator: whose account every
 * item, error and error item carries when own and customers' IDs are mixed in one run, in every
 * spelling; what is emitted by default and with Simplify / Mask Bank Details / Include Proof; the
 * AI-tool path; errors naming whose account, with no secret and no whole bank number.
 */
import type { IDataObject } from 'n8n-workflow';

import { NODE_TYPE, runNode, sandboxCredentials } from '../../sandbox/engine';
import { createCustomers, type Beneficiary } from '../../sandbox/data';
import { list, listAsSet, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const customers = createCustomers();
const returned = (customerId: string) => customers.get(customerId)?.beneficiaries as Beneficiary[];
const bodyOf = (body: string) => JSON.parse(body) as IDataObject;
const TOKEN = ['tok', 'hostile', 'CUST', '9f8e7d6c5b4a'].join('-');
const EMPTY_HINT = "Enter own for your own account, or the customer's ID. Nothing was sent.";

/** Every whole bank value of a list (account numbers, IBANs, tokens). */
const bankValues = (beneficiaries: Beneficiary[]) =>
	beneficiaries.flatMap((b) => [b.bankAccountNo, b.bankAccountIBAN, b.beneficiaryToken]).filter(Boolean) as string[];

describe('own in every spelling, customers beside it, one run of Get Many Beneficiaries', () => {
	it('OWN, " own ", Own and oWn are your own account: whoseAccount own, no customer sent; customers keep theirs', async () => {
		const who = ['OWN', ' own ', 'Own', 'CUST_SMALL', 'oWn', '10005678', '20005678'];
		const run = await list(
			sim(),
			{ returnAll: true, customerId: '={{ $json.who }}' },
			{ items: who.map((w) => ({ who: w })) },
		);
		expect(run.status).toBe('success');
		const expected = who.flatMap((w) => {
			const whose = w.trim().toLowerCase() === 'own' ? 'own' : w;
			return returned(whose === 'own' ? '' : whose).map((b) => ({ whoseAccount: whose, ...b }));
		});
		expect(run.json).toEqual(expected);
		// Each item paired with the input item it answers.
		const counts = who.map((w) => returned(w.trim().toLowerCase() === 'own' ? '' : w).length);
		expect(run.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
			counts.flatMap((n, i) => Array<number>(n).fill(i)),
		);
		const sent = sim()
			.requests.map((r) => String(bodyOf(r.body).customerId ?? 'none'))
			.sort();
		expect(sent).toEqual(['10005678', '20005678', 'CUST_SMALL', 'none', 'none', 'none', 'none']);
	});

	it('numeric customer IDs ending in the same four digits stay whole in whoseAccount with masking on (the default)', async () => {
		const run = await listAsSet(
			sim(),
			{ returnAll: true, customerId: '={{ $json.who }}' },
			{ items: [{ who: '10005678' }, { who: '20005678' }] },
		);
		expect(run.status).toBe('success');
		expect(run.json.map((item) => item.whoseAccount)).toEqual(['10005678', '10005678', '20005678', '20005678']);
		const text = JSON.stringify(run.json);
		for (const value of [...bankValues(returned('10005678')), ...bankValues(returned('20005678'))])
			expect(text).not.toContain(value);
	});

	it('a customer ID named like a method or like own with a suffix is a customer, sent as typed', async () => {
		const run = await list(
			sim(),
			{ returnAll: true, customerId: '={{ $json.who }}' },
			{ items: [{ who: 'USER_ID' }, { who: 'owner' }, { who: 'own2' }], continueOnFail: true },
		);
		expect(run.json.map((item) => item.whoseAccount)).toEqual(['USER_ID', 'owner', 'own2']);
		for (const item of run.json) expect(String(item.error)).toMatch(new RegExp(`^${String(item.whoseAccount)} beneficiaries: `));
		expect(sim().requests.map((r) => bodyOf(r.body).customerId).sort()).toEqual(['USER_ID', 'own2', 'owner']);
	});
});

describe('Get Available Quota: whose account in every spelling, many accounts in one run', () => {
	const BY_ITEM = {
		connectedAccountId: '={{ $json.who }}',
		quotaAccumulationMethod: 'USER_ID',
		quotaAccumulationId: '={{ $json.id }}',
		currency: 'USD',
	};

	it('the same quota for own (4 spellings), a method-named ID, a digits ID and one account in two cases: each item its own whoseAccount, subject and figures', async () => {
		sim().setQuota('USER_ID', 'ACC_0002/U-1001', '300000');
		sim().setQuota('USER_ID', 'USER_ID/U-1001', '400000');
		sim().setQuota('USER_ID', '10005678/U-1001', '600000');
		const who = ['own', 'OWN', ' Own ', 'ACC_0002', 'acc_0002', 'USER_ID', '10005678', 'oWN'];
		const run = await quota(sim(), BY_ITEM, { items: who.map((w) => ({ who: w, id: 'U-1001' })) });
		expect(run.status).toBe('success');
		const amount: Record<string, number> = { own: 12500, ACC_0002: 3000, acc_0002: 12500, USER_ID: 4000, '10005678': 6000 };
		expect(run.json.map((item) => [item.whoseAccount, item.subject, item.availableQuotaAmount])).toEqual(
			who.map((w) => {
				const whose = w.trim().toLowerCase() === 'own' ? 'own' : w.trim();
				return [whose, `${whose} USER_ID U-1001 USD`, amount[whose]];
			}),
		);
		const headers = sim()
			.requests.map((r) => String(r.headers['connected-accountid'] ?? 'none'))
			.sort();
		expect(headers).toEqual(['10005678', 'ACC_0002', 'USER_ID', 'acc_0002', 'none', 'none', 'none', 'none']);
	});

	it('empty from an expression in each place an account or subject is asked: refused, nothing sent, the error says which', async () => {
		const run = await quota(
			sim(),
			{ ...BY_ITEM },
			{
				items: [
					{ who: '', id: 'U-1001' },
					{ who: '   ', id: 'U-1001' },
					{ id: 'U-1001' },
					{ who: 'ACC_0002', id: '' },
					{ who: 'ACC_0002', id: '  ' },
				],
				continueOnFail: true,
			},
		);
		expect(run.json.slice(0, 3)).toEqual(
			Array(3).fill({ error: 'Connected Account ID is empty', description: EMPTY_HINT, field: 'connectedAccountId' }),
		);
		for (const item of run.json.slice(3)) {
			expect(item.whoseAccount).toBe('ACC_0002');
			expect(String(item.error)).toMatch(/^ACC_0002 quota: Accumulation ID is empty/);
		}
		expect(sim().requests).toHaveLength(0);
	});

	it('a receiving account in an error: by its last four in the message, the error item and n8n’s saved run', async () => {
		const longAccount = '6222021234567890123';
		sim().addFault({ fault: 'echoAccount', operation: 'quota' });
		const run = await quota(
			sim(),
			{ connectedAccountId: 'ACC_0002', quotaAccumulationMethod: 'RECEIVING_ACCOUNT', quotaAccumulationId: longAccount, currency: 'USD' },
			{ continueOnFail: true },
		);
		expect(run.json[0].whoseAccount).toBe('ACC_0002');
		expect(String(run.json[0].error)).toMatch(/^ACC_0002 RECEIVING_ACCOUNT \*\*\*\*0123 USD: /);
		expect(JSON.stringify(run.run.data.resultData)).not.toMatch(/6222021234567890123|62220212|2345678901/);
	});
});

describe('an Access Token in the credential', () => {
	const WITH_TOKEN = { credentials: { accessToken: TOKEN } };

	it.each(['own', 'OWN', ' own ', 'Own'])('own spelled %j is refused in both operations, nothing sent, no token shown', async (own) => {
		const listed = await list(sim(), { returnAll: true, customerId: own }, { ...WITH_TOKEN, continueOnFail: true });
		const read = await quota(sim(), { ...QUOTA, connectedAccountId: own }, { ...WITH_TOKEN, continueOnFail: true });
		expect(listed.json).toHaveLength(1);
		expect(listed.json[0]).toMatchObject({ whoseAccount: 'own', field: 'customerId' });
		expect(String(listed.json[0].error)).toMatch(/^own beneficiaries: Customer ID is own, but the credential holds/);
		expect(read.json[0]).toMatchObject({ whoseAccount: 'own', field: 'connectedAccountId' });
		expect(String(read.json[0].error)).toMatch(/^own USER_ID U-1001 USD: Connected Account ID is own, but/);
		expect(sim().requests).toHaveLength(0);
		for (const run of [listed, read]) expect(JSON.stringify(run.run)).not.toContain(TOKEN);
	});

	it('customers beside own in one run: the customers answered, own refused in its place', async () => {
		const run = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: '={{ $json.who }}' },
			{ ...WITH_TOKEN, continueOnFail: true, items: [{ who: 'ACC_0002' }, { who: 'own' }, { who: 'ACC_0003' }] },
		);
		expect(run.json.map((item) => item.whoseAccount)).toEqual(['ACC_0002', 'own', 'ACC_0003']);
		expect(run.json[1].error).toBeDefined();
		expect(run.json[0].availableQuotaAmount).toBe(12500);
		expect(sim().requests.map((r) => r.headers['access-token'])).toEqual([TOKEN, TOKEN]);
	});

	it('an echoed request (unsigned 400): the error names whose account and holds no piece of the token', async () => {
		sim().addFault({ fault: 'echoRequest' });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }, { ...WITH_TOKEN, continueOnFail: true });
		expect(run.json[0].whoseAccount).toBe('CUST_SMALL');
		expect(String(run.json[0].error)).toMatch(/^CUST_SMALL beneficiaries: /);
		const everything = JSON.stringify(run.run);
		for (let i = 0; i + 8 <= TOKEN.length; i++) expect(everything).not.toContain(TOKEN.slice(i, i + 8));
	});
});

describe('errors once whose account is known', () => {
	it.each([
		['a Limit of 0', 0],
		['a Limit that is text', 'ten'],
		['a negative Limit', -5],
	])('%s for a customer: the error names the customer and the error item carries whoseAccount', async (_name, limit) => {
		const run = await list(
			sim(),
			{ returnAll: false, limit: '={{ $json.limit }}', customerId: 'CUST_SMALL' },
			{ items: [{ limit }], continueOnFail: true },
		);
		expect(sim().requests).toHaveLength(0);
		expect(run.json).toHaveLength(1);
		expect(run.json[0].whoseAccount).toBe('CUST_SMALL');
		expect(String(run.json[0].error)).toMatch(/^CUST_SMALL beneficiaries: /);
	});

	it('an Accumulation ID expression that fails (n8n’s own error) for a customer: the error item still says whose account', async () => {
		const run = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: 'ACC_0002', quotaAccumulationId: '={{ $json.missing.deep }}' },
			{ items: [{}], continueOnFail: true },
		);
		expect(sim().requests).toHaveLength(0);
		expect(run.json).toHaveLength(1);
		expect(run.json[0].error).toBeDefined();
		expect(run.json[0].whoseAccount).toBe('ACC_0002');
	});

	it('an unknown customer and a missing connected account: each error item names its own account, its message too', async () => {
		const listed = await list(
			sim(),
			{ returnAll: true, customerId: '={{ $json.who }}' },
			{ items: [{ who: 'CUST_SMALL' }, { who: 'CUST_GONE' }, { who: 'own' }], continueOnFail: true },
		);
		expect(listed.json.filter((item) => item.error).map((item) => [item.whoseAccount, item.error])).toEqual([
			['CUST_GONE', expect.stringMatching(/^CUST_GONE beneficiaries: The API answered USER_NOT_EXIST/)],
		]);
		const read = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: '={{ $json.who }}' },
			{ items: [{ who: 'ACC_MISSING' }, { who: 'own' }], continueOnFail: true },
		);
		expect(read.json[0]).toMatchObject({ whoseAccount: 'ACC_MISSING' });
		expect(String(read.json[0].error)).toMatch(/^ACC_MISSING USER_ID U-1001 USD: The API answered ACCOUNT_NOT_EXIST/);
		expect(read.json[1]).toMatchObject({ whoseAccount: 'own', availableQuotaAmount: 12500 });
	});

	it('without Continue: the first failure in input order names its account, not a later one', async () => {
		const run = await list(
			sim(),
			{ returnAll: true, customerId: '={{ $json.who }}' },
			{ items: [{ who: 'own' }, { who: 'CUST_PROCESS_FAIL' }, { who: 'CUST_GONE' }] },
		);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/^CUST_PROCESS_FAIL beneficiaries: The API answered PROCESS_FAIL/);
	});
});

describe('what is emitted: Simplify, Mask Bank Details, Include Proof, the AI-tool path', () => {
	const small = () => returned('CUST_SMALL');

	it('Include Proof by expression with Simplify off and Mask Bank Details on by expression: refused, nothing sent', async () => {
		const run = await listAsSet(sim(), {
			returnAll: true,
			customerId: 'CUST_SMALL',
			simplify: '={{ false }}',
			options: { includeProof: '={{ true }}', maskBankDetails: '={{ true }}' },
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('CUST_SMALL beneficiaries: Mask Bank Details and Include Proof cannot both be on');
		expect(sim().requests).toHaveLength(0);
	});

	it('Simplify as the text "false" from an expression: whole items, masked by default', async () => {
		const run = await listAsSet(sim(), { returnAll: true, customerId: 'CUST_SMALL', simplify: '={{ "false" }}' });
		expect(run.status).toBe('success');
		expect(Object.keys(run.json[0])).toContain('extendInfo');
		const text = JSON.stringify(run.json);
		for (const value of bankValues(small())) expect(text).not.toContain(value);
	});

	it('as an AI tool: items simplified (at most 10 fields) and masked by default; a failure is an item naming whose account', async () => {
		const run = await runNode({
			nodeTypeName: `${NODE_TYPE}Tool`,
			parameters: { operation: 'listBeneficiaries', customerId: '={{ $json.who }}', returnAll: true },
			credentials: sandboxCredentials(sim().url),
			items: [{ who: 'CUST_SMALL' }, { who: 'CUST_GONE' }],
		});
		expect(run.status).toBe('success');
		const answers = run.json.filter((item) => !item.error);
		expect(answers).toHaveLength(small().length);
		for (const item of answers) {
			expect(Object.keys(item).length).toBeLessThanOrEqual(10);
			expect(item.whoseAccount).toBe('CUST_SMALL');
		}
		const text = JSON.stringify(answers);
		for (const value of bankValues(small())) expect(text).not.toContain(value);
		const failed = run.json.filter((item) => item.error);
		expect(failed).toEqual([expect.objectContaining({ whoseAccount: 'CUST_GONE' })]);
	});

	it('a bank number in the gateway’s free text (nickname) is masked in the default simplified item', async () => {
		const payee = small()[0];
		payee.beneficiaryNick = `Pay to ${String(payee.bankAccountNo)} weekly`;
		const run = await listAsSet(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		expect(JSON.stringify(run.json)).not.toContain(String(payee.bankAccountNo));
	});
});

describe('error items on the error output, and tokens a header cannot carry', () => {
	it('On Error: Continue (error output): a failed customer’s item carries whoseAccount under details', async () => {
		const run = await list(
			sim(),
			{ returnAll: true, customerId: '={{ $json.who }}' },
			{ items: [{ who: 'CUST_SMALL' }, { who: 'CUST_GONE' }], onError: 'continueErrorOutput' },
		);
		const task = run.run.data.resultData.runData['Partner Account Inquiry']?.[0];
		const errors = (task?.data?.main?.[1] ?? []).map((item) => item.json);
		expect(errors).toHaveLength(1);
		expect((errors[0].details as IDataObject | undefined)?.whoseAccount ?? errors[0].whoseAccount).toBe('CUST_GONE');
		expect(String(errors[0].error)).toMatch(/^CUST_GONE beneficiaries: /);
	});

	it.each([
		['65 characters', `tok-${'a1B2c3D4'.repeat(7)}xxxxx`],
		['a character beyond ASCII', 'tok-secret-Zq9Xw8é-77aa66bb'],
		['a control character', 'tok-secret-Zq9Xw8\u0007-77aa66bb'],
	])('a credential token of %s: refused for every item, no piece of it anywhere', async (_name, token) => {
		const run = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: '={{ $json.who }}' },
			{ credentials: { accessToken: token }, items: [{ who: 'ACC_0002' }, { who: 'ACC_0003' }], continueOnFail: true },
		);
		expect(sim().requests).toHaveLength(0);
		expect(run.json).toHaveLength(2);
		for (const item of run.json) expect(String(item.error)).toMatch(/Access Token/);
		const everything = JSON.stringify(run.run);
		for (let i = 0; i + 8 <= token.length; i++) expect(everything).not.toContain(token.slice(i, i + 8));
	});
});

describe('invisible characters and empty fields', () => {
	it('a Customer ID of own with an invisible zero-width space: read as own, or refused naming the character; never sent as a customer that prints as own', async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'own\u200B' }, { continueOnFail: true });
		const sentCustomers = sim().requests.map((r) => bodyOf(r.body).customerId).filter((c) => c !== undefined);
		if (run.json[0]?.error) expect(sim().requests).toHaveLength(0);
		else expect(run.json.every((item) => item.whoseAccount === 'own')).toBe(true);
		expect(sentCustomers).toEqual([]);
	});

	it('a beneficiary whose IBAN is an empty string: the simplified item shows its account number (masked), not an empty IBAN', async () => {
		const payee = returnedLive('CUST_SMALL')[0];
		payee.bankAccountIBAN = '';
		const run = await listAsSet(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		const item = run.json.find((i) => i.referenceBeneficiaryId === payee.referenceBeneficiaryId) as IDataObject;
		expect(item.bankAccountNo).toBe(`****${String(payee.bankAccountNo).slice(-4)}`);
	});
});

function returnedLive(customerId: string): Beneficiary[] {
	return sim().beneficiaries(customerId);
}
