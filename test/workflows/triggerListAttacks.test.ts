/**
 * Hostile review, the trigger's lists and shapes: 1,000 entries and 1,001, duplicates, blank and
 * comment lines, a customer ID line with a separator, quota lines mixed with rows, a threshold in
 * the wrong column, Quota Below Threshold with an entry of no threshold, events switched between
 * families; every event shape simplified and masked by default (Fetch Test Event too); failure
 * reports that name whose account, whole, with no secret.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { QUOTA, useSimulator } from '../support/helpers';
import { itemsOf, payeeLike, useClock } from '../support/pollerApp';
import { appOf, SAVINGS } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const params = (value: IDataObject) => value as unknown as INodeParameters;
const row = (whose: string, threshold: unknown = 10000) => ({ connectedAccountId: whose, ...QUOTA, threshold });
const setQuota = (whose: string, cents: string) =>
	sim().setQuota('USER_ID', whose === 'own' ? 'U-1001' : `${whose}/U-1001`, cents);

/** Fetch Test Event (manual mode): the items, or the error; nothing saved. */
async function sample(parameters: INodeParameters, credentials: IDataObject = {}) {
	const staticData: IDataObject = {};
	const result = await activateTrigger({
		parameters,
		credentials: { ...sandboxCredentials(sim().url), ...credentials } as never,
		staticData,
		mode: 'manual',
		activation: 'manual',
	}).poll();
	expect(staticData).toEqual({});
	return result.ok
		? { items: result.items?.map((item) => item.json) ?? [], error: undefined }
		: { items: [] as IDataObject[], error: result.error as Error & { description?: string } };
}
const refusal = (error?: Error & { description?: string }) => `${error?.message} ${error?.description}`;

describe('1,000 entries and 1,001 (Fetch Test Event reads the first 10)', () => {
	const quotaLines = (n: number, from = 0) =>
		Array.from({ length: n }, (_, i) => `own, USER_ID, U-B${i + from}, USD, 0`).join('\n');

	it('1,000 quota lines, with blank and comment lines among them: accepted, one sample of each of the first 10', async () => {
		const text = `# my quotas\n\n${quotaLines(500)}\n   \n# more\n${quotaLines(500, 500)}\n`;
		const { items, error } = await sample(params({ events: ['quotaChanged'], options: { quotasText: text } }));
		expect(error).toBeUndefined();
		expect(items.map((item) => item.quotaAccumulationId)).toEqual(Array.from({ length: 10 }, (_, i) => `U-B${i}`));
		for (const item of items) expect(item.whoseAccount).toBe('own');
	});

	it('999 lines and 2 rows: 1,001, refused before anything is sent', async () => {
		const { error } = await sample(
			params({ events: ['quotaChanged'], quotas: { quota: [row('own'), row('ACC_0002')] }, options: { quotasText: quotaLines(999) } }),
		);
		expect(error?.message).toBe('Quotas has 1001 entries, more than the 1000 one trigger watches');
		expect(sim().requests).toHaveLength(0);
	});

	it('1,000 customer IDs accepted; 1,001 refused; a repeat in another case of own refused by line', async () => {
		const ids = ['own', 'CUST_SMALL', 'CUST_NO_REF', 'CUST_EMPTY', '10005678', '20005678', 'CUST_FIVE_0', 'CUST_FIVE_1', 'CUST_FIVE_2', 'CUST_FIVE_3'];
		const rest = Array.from({ length: 990 }, (_, i) => `C_${i}`);
		const ok = await sample(params({ events: ['beneficiaryAdded'], customerIds: [...ids, ...rest].join('\n') }));
		expect(ok.error).toBeUndefined();
		expect([...new Set(ok.items.map((item) => item.whoseAccount))]).toEqual(ids.filter((id) => id !== 'CUST_EMPTY'));
		const tooMany = await sample(params({ events: ['beneficiaryAdded'], customerIds: [...ids, ...rest, 'C_X'].join('\n') }));
		expect(tooMany.error?.message).toBe('Customer IDs has 1001 entries, more than the 1000 one trigger watches');
		const repeated = await sample(params({ events: ['beneficiaryAdded'], customerIds: 'own\nCUST_SMALL\n  OWN  \nCUST_SMALL' }));
		expect(repeated.error?.message).toBe('Customer IDs has 2 bad entries (line 3, line 4)');
		expect(repeated.error?.description).toMatch(/line 3 repeats line 1; line 4 repeats line 2/);
	});

	it('a customer ID line with a comma, a semicolon or a tab: refused by line, never read as two customers nor as one', async () => {
		const { error } = await sample(
			params({ events: ['beneficiaryAdded'], customerIds: 'CUST_SMALL, CUST_NO_REF\nown;CUST_EMPTY\nCUST_FIVE_0\tx' }),
		);
		expect(refusal(error)).toMatch(/line 1: 2 fields, expected one ID a line; line 2: 2 fields, expected one ID a line; line 3: 2 fields/);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('quota lines and rows: a threshold in the wrong column, no threshold', () => {
	const refused = async (more: IDataObject, events = ['quotaBelowThreshold']) =>
		refusal((await sample(params({ events, ...more }))).error);

	it('a threshold typed before the currency: refused naming the Currency column, nothing sent', async () => {
		expect(await refused({ options: { quotasText: 'own, USER_ID, U-1001, 20000, USD' } })).toMatch(/line 1: .*Currency "20000"/);
		expect(sim().requests).toHaveLength(0);
	});

	it('a BENEFICIARY line without its trade type, the threshold in its place: refused naming Trade Type', async () => {
		expect(await refused({ options: { quotasText: 'ACC_0002, BENEFICIARY, B-4001, USD, 5000' } })).toMatch(/line 1: .*Trade Type/);
	});

	it('a threshold written with a thousands comma (10,000): refused as too many fields, not read as 10', async () => {
		expect(await refused({ options: { quotasText: 'own, USER_ID, U-1001, USD, 10,000' } })).toMatch(/line 1: 6 fields, more than the 5/);
	});

	it('Quota Below Threshold: a row and a line without a threshold refused by where they are', async () => {
		const text = await refused({
			quotas: { quota: [row('own'), row('ACC_0002', '')] },
			options: { quotasText: 'ACC_0003, USER_ID, U-3001, USD\nown, USER_ID, U-1002, USD, 5' },
		});
		expect(text).toMatch(/row 2: no threshold, which Quota Below Threshold needs; line 1: no threshold/);
		expect(text).not.toMatch(/row 1|line 2/);
	});

	it('Quota Changed only: an entry without a threshold is watched; a threshold that is text is still refused', async () => {
		const { error, items } = await sample(params({ events: ['quotaChanged'], quotas: { quota: [row('own', '')] } }));
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(await refused({ quotas: { quota: [row('own', 'lots')] } }, ['quotaChanged'])).toMatch(/row 1: Threshold "lots"/);
	});

	it('a trade type in lower case (the method and currency are read in any case)', async () => {
		const { error, items } = await sample(
			params({ events: ['quotaChanged'], options: { quotasText: 'own, beneficiary, B-4001, usd, goods, 100' } }),
		);
		if (error) expect(refusal(error)).toMatch(/line 1: .*Trade Type/);
		else expect(items.map((item) => item.subject)).toEqual(['own BENEFICIARY B-4001 USD GOODS']);
	});
});

describe.each(SAVINGS)('events switched between families, n8n saving %s', (saving) => {
	it('quota to beneficiary events and back: each poll reports only its own family, each item its own account', async () => {
		const quotas = params({ events: ['quotaBelowThreshold', 'quotaChanged'], quotas: { quota: [row('own', 20000)] }, customerIds: 'CUST_SMALL' });
		const n8n = app(quotas, saving);
		const all: IDataObject[] = [];
		all.push(...itemsOf(await n8n.activate()), ...itemsOf(await n8n.poll()));
		const lists = params({ ...quotas, events: ['beneficiaryAdded', 'beneficiaryRemoved'] });
		const edited = await n8n.update(lists);
		const listItems = [...itemsOf(edited), ...itemsOf(await n8n.poll())];
		expect(listItems).toEqual([]);
		sim().beneficiaries('CUST_SMALL').push(payeeLike(sim, 'FAM-1'));
		setQuota('own', '100');
		const bound = itemsOf(await n8n.poll());
		expect(bound.map((item) => [item.event, item.whoseAccount, item.referenceBeneficiaryId])).toEqual([
			['beneficiaryAdded', 'CUST_SMALL', 'REF-FAM-1'],
		]);
		for (const item of bound) expect(item).not.toHaveProperty('subject');
		await n8n.update(quotas);
		const back = [...itemsOf(await n8n.poll()), ...itemsOf(await n8n.poll())];
		for (const item of back) {
			expect(['quotaBelowThreshold', 'quotaChanged']).toContain(item.event);
			expect(item.subject).toBe('own USER_ID U-1001 USD');
		}
		// Never a Quota Changed computed from the beneficiary family's state.
		expect(back.filter((item) => item.event === 'quotaChanged' && item.previousAmount !== 12500)).toEqual([]);
	});
});

describe.each(SAVINGS)('every beneficiary event shape as shown by default (Simplify and Mask on), n8n saving %s', (saving) => {
	it('Added, Removed, Changed, Bank Details Changed, possible bank change pairs: at most 10 fields, no whole bank value, changes before/after masked', async () => {
		const events = ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged', 'beneficiaryBankDetailsChanged'];
		const n8n = app(params({ events, customerIds: 'CUST_SMALL\nCUST_NO_REF\n10005678' }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		const whole: string[] = [];
		const remember = (b: Beneficiary) =>
			whole.push(...([b.bankAccountNo, b.bankAccountIBAN, b.beneficiaryToken].filter(Boolean) as string[]));
		for (const id of ['CUST_SMALL', 'CUST_NO_REF', '10005678']) sim().beneficiaries(id).forEach(remember);
		const small = sim().beneficiaries('CUST_SMALL');
		small[0].accountName = `Acct ${String(small[0].bankAccountNo)}`; // a bank number in a changed free-text field
		remember(sim().changeBankDetails('CUST_SMALL', small[1].referenceBeneficiaryId));
		const numeric = sim().beneficiaries('10005678');
		const removed = numeric.splice(0, 1)[0];
		remember(removed);
		const untagged = sim().beneficiaries('CUST_NO_REF')[0];
		untagged.bankAccountNo = '622202000000777123';
		untagged.beneficiaryToken = Buffer.from('token:untagged-new-2').toString('base64');
		remember(untagged);
		const items = [...itemsOf(await n8n.poll()), ...itemsOf(await n8n.poll())];
		expect(items.length).toBeGreaterThanOrEqual(5);
		expect(new Set(items.map((item) => item.event))).toEqual(new Set(events));
		for (const item of items) {
			expect(Object.keys(item).length).toBeLessThanOrEqual(10);
			expect(['CUST_SMALL', 'CUST_NO_REF', '10005678']).toContain(item.whoseAccount);
		}
		const text = JSON.stringify(items);
		for (const value of whole) expect(text).not.toContain(value);
		// The removal names the numeric customer whole, never by its last four.
		expect(items.find((item) => item.event === 'beneficiaryRemoved' && item.referenceBeneficiaryId === removed.referenceBeneficiaryId)?.whoseAccount).toBe('10005678');
	});

	it('Fetch Test Event samples by default: at most 10 fields each, masked, each its own account', async () => {
		const { items, error } = await sample(params({ events: ['beneficiaryBankDetailsChanged'], customerIds: 'own\nCUST_SMALL\n10005678' }));
		expect(error).toBeUndefined();
		expect(items.map((item) => item.whoseAccount)).toEqual(['own', 'CUST_SMALL', '10005678']);
		const text = JSON.stringify(items);
		for (const id of ['', 'CUST_SMALL', '10005678']) {
			const b = sim().beneficiaries(id)[0];
			for (const value of [b.bankAccountNo, b.bankAccountIBAN, b.beneficiaryToken].filter(Boolean) as string[])
				expect(text).not.toContain(value);
		}
		for (const item of items) expect(Object.keys(item).length).toBeLessThanOrEqual(10);
	});
});

describe.each(SAVINGS)('failure reports name whose account, whole, with no secret, n8n saving %s', (saving) => {
	it('two numeric customers ending in the same four digits: the failing one is named whole', async () => {
		const n8n = app(params({ events: ['beneficiaryAdded'], customerIds: '10005678\n20005678\nown' }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		sim().addFault({ fault: 'answer', answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' }, customerId: '20005678' });
		let error;
		for (let i = 0; i < 3 && !error; i++) error = (await n8n.poll()).error;
		expect(refusal(error)).toMatch(/20005678 beneficiaries \(line 2\): /);
		expect(refusal(error)).not.toMatch(/10005678 beneficiaries/);
	});

	it('a quota set with a token credential: the gateway echoing the request names the entry, no piece of the token', async () => {
		const token = ['grant', 'Z', 'abcdefgh12345678'].join('-');
		const withToken = appOf(sim, { accessToken: token });
		const n8n = withToken(
			params({ events: ['quotaChanged'], quotas: { quota: [row('ACC_0002')] }, options: { quotasText: 'ACC_0003, VIRTUAL_ACCOUNT, VA-98765432, EUR' } }),
			saving,
		);
		sim().setQuota('VIRTUAL_ACCOUNT', 'ACC_0003/VA-98765432', '100', 'EUR');
		expect(itemsOf(await n8n.activate())).toEqual([]);
		sim().addFault({ fault: 'echoInResult', accumulationId: 'VA-98765432' });
		let error;
		for (let i = 0; i < 3 && !error; i++) error = (await n8n.poll()).error;
		const text = `${refusal(error)} ${JSON.stringify(error)}`;
		expect(text).toMatch(/ACC_0003 VIRTUAL_ACCOUNT \*\*\*\*5432 EUR \(line 1\)/);
		for (let i = 0; i + 8 <= token.length; i++) expect(text).not.toContain(token.slice(i, i + 8));
		expect(text).not.toContain('98765432');
	});
});

describe('a Quotas row whose method comes from an expression', () => {
	const beneficiaryRow = (method: string, threshold: unknown) => ({
		connectedAccountId: 'ACC_0002',
		quotaAccumulationMethod: method,
		quotaAccumulationId: 'B-4001',
		currency: 'USD',
		tradeType: 'GOODS',
		threshold,
	});

	it.each([
		['upper case', '={{ "BENEFICIARY" }}'],
		['lower case', '={{ "beneficiary" }}'],
	])('BENEFICIARY in %s, Trade Type GOODS in the row: watched as typed, or refused naming the method, never a wrong Trade Type', async (_name, method) => {
		const { items, error } = await sample(params({ events: ['quotaChanged'], quotas: { quota: [beneficiaryRow(method, 100)] } }));
		if (error) {
			expect(refusal(error)).not.toMatch(/Trade Type/);
			expect(refusal(error)).toMatch(/Accumulation Method/);
		} else {
			expect(items.map((item) => [item.whoseAccount, item.subject])).toEqual([['ACC_0002', 'ACC_0002 BENEFICIARY B-4001 USD GOODS']]);
		}
	});
});
