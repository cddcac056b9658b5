/**
 * Whose account, through the trigger's parameters (Events, Customer IDs, Quotas rows and Options >
 * Quotas as Text), n8n's engine and the simulator: one trigger over the same quota of three accounts
 * keeps them apart; events of both families are refused; Fetch Test Event shows one item of each
 * entry; a Customer IDs line that is empty (typed, or left so by an expression) is never your own
 * account; a credential's access token goes with every request and refuses `own`; a simplified
 * beneficiary item holds at most 10 fields. Where state is involved, under each way n8n saves a poll.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { QUOTA, setRefusal, useSimulator } from '../support/helpers';
import type { N8nPoll } from '../support/n8nApp';
import { itemsOf, payeeLike, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, SAVINGS } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);

const quotaRequests = () => sim().requests.filter((r) => r.path.includes('AvailableQuota'));
const listRequests = () => sim().requests.filter((r) => r.path.includes('Beneficiar'));
/** A Quotas row: `whose` account's U-1001 (USER_ID, USD), its threshold. */
const row = (whose: string, threshold = 10000) => ({ connectedAccountId: whose, ...QUOTA, threshold });
/** Moves U-1001 (minor units) of `whose` account: own, or a connected account's own. */
const setQuota = (whose: string, cents: string) =>
	sim().setQuota('USER_ID', whose === 'own' ? 'U-1001' : `${whose}/U-1001`, cents);
const params = (value: IDataObject) => value as unknown as INodeParameters;
/** A poll's failure, or what a failed edit or activation said (n8n's update runs no poll on its scheduler). */
const failureOf = async (poll: Promise<N8nPoll | undefined>, next: () => Promise<N8nPoll>) =>
	((await poll) ?? (await next())).error;

describe.each(SAVINGS)('one quota trigger over U-1001 of three accounts, n8n saving %s', (saving) => {
	it('own and ACC_A as rows, ACC_B as a line: each alert names its own account and subject, with its own amount', async () => {
		setQuota('ACC_A', '2000000'); // 20,000.00
		setQuota('ACC_B', '3000000'); // 30,000.00
		const n8n = app(
			params({
				events: ['quotaBelowThreshold'],
				quotas: { quota: [row('own'), row('ACC_A')] },
				options: { quotasText: 'ACC_B, USER_ID, U-1001, USD, 10000' },
			}),
			saving,
		);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]); // every account above its 10,000: no alert
		setQuota('own', '900000');
		setQuota('ACC_A', '800000');
		setQuota('ACC_B', '700000');
		const alerts = itemsOf(await n8n.poll());
		const alert = (whose: string, value: string, amount: number, previous: number) => ({
			event: 'quotaBelowThreshold',
			whoseAccount: whose,
			subject: `${whose} USER_ID U-1001 USD`,
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: 'U-1001',
			availableQuota: { currency: 'USD', value },
			availableQuotaAmount: amount,
			previousAmount: previous,
			threshold: 10000,
		});
		expect(alerts).toEqual([
			alert('own', '900000', 9000, 12500),
			alert('ACC_A', '800000', 8000, 20000),
			alert('ACC_B', '700000', 7000, 30000),
		]);
		// No two alike: not their subjects, not their items; none names an account any other way.
		expect(new Set(alerts.map((item) => item.subject)).size).toBe(3);
		expect(new Set(alerts.map((item) => JSON.stringify(item))).size).toBe(3);
		for (const item of alerts) expect(item).not.toHaveProperty('connectedAccountId');
		// Each read for its own account (own: no Connected-AccountId), and kept apart in the saved state.
		const accounts = quotaRequests().map((r) => r.headers['connected-accountid'] ?? 'own');
		expect([...new Set(accounts)].sort()).toEqual(['ACC_A', 'ACC_B', 'own']);
		const saved = n8n.saved().state as { entries: Record<string, unknown> };
		expect(Object.keys(saved.entries)).toHaveLength(3);
		// One account recovers and falls again: its alert alone, from its own last amount.
		setQuota('ACC_A', '2000000');
		expect(itemsOf(await n8n.poll())).toEqual([]);
		setQuota('ACC_A', '500000');
		expect(itemsOf(await n8n.poll())).toEqual([alert('ACC_A', '500000', 5000, 20000)]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
	});
});

describe.each(SAVINGS)('events of both families, n8n saving %s', (saving) => {
	it('are refused at activation before any request; nothing saved', async () => {
		const n8n = app(
			params({
				events: ['beneficiaryAdded', 'quotaChanged'],
				customerIds: 'CUST_SMALL',
				quotas: { quota: [row('own')] },
			}),
			saving,
		);
		const refused = (await n8n.activate()).error;
		expect(refused?.message).toBe('Events mixes beneficiary events and quota events');
		expect(refused?.description).toMatch(/^Pick events of one kind: .*Watch the other kind with a second trigger\.$/);
		expect(sim().requests).toHaveLength(0);
		expect(n8n.saved()).toEqual({});
	});

	it('an active trigger edited to them: refused before any request, its saved state left as it was', async () => {
		const quota = params({ events: ['quotaChanged'], quotas: { quota: [row('own')] } });
		const n8n = app(quota, saving);
		await n8n.activate();
		itemsOf(await n8n.poll());
		const [saved, sent] = [JSON.stringify(n8n.saved()), sim().requests.length];
		const mixed = params({ ...quota, events: ['quotaChanged', 'beneficiaryRemoved'] });
		const refused = await failureOf(n8n.update(mixed), () => n8n.poll());
		expect(refused?.message).toBe('Events mixes beneficiary events and quota events');
		expect(sim().requests.length).toBe(sent);
		expect(JSON.stringify(n8n.saved())).toBe(saved);
	});
});

describe('Fetch Test Event (manual mode): one item of each entry, nothing saved', () => {
	const sample = async (parameters: INodeParameters) => {
		const staticData: IDataObject = {};
		const result = await activateTrigger({
			parameters,
			credentials: sandboxCredentials(sim().url),
			staticData,
			mode: 'manual',
			activation: 'manual',
		}).poll();
		if (!result.ok) throw result.error;
		expect(staticData).toEqual({});
		return result.items?.map((item) => item.json) ?? [];
	};

	it('3 customers: 3 items, each naming its account', async () => {
		const items = await sample(params({ events: ['beneficiaryAdded'], customerIds: 'own\nCUST_SMALL\nCUST_FIVE' }));
		const first = (whose: string) => sim().beneficiaries(whose === 'own' ? '' : whose)[0].referenceBeneficiaryId;
		expect(items.map((item) => [item.event, item.whoseAccount, item.referenceBeneficiaryId])).toEqual(
			['own', 'CUST_SMALL', 'CUST_FIVE'].map((whose) => ['beneficiaryAdded', whose, first(whose)]),
		);
	});

	it('3 quotas (two rows, a line): 3 items, each its account, subject and amount', async () => {
		setQuota('ACC_A', '2000000');
		const items = await sample(
			params({
				events: ['quotaChanged'],
				quotas: { quota: [row('own'), row('ACC_A')] },
				options: { quotasText: 'ACC_B, USER_ID, U-1001, USD' },
			}),
		);
		expect(items.map((item) => [item.whoseAccount, item.subject, item.availableQuotaAmount])).toEqual([
			['own', 'own USER_ID U-1001 USD', 12500],
			['ACC_A', 'ACC_A USER_ID U-1001 USD', 20000],
			['ACC_B', 'ACC_B USER_ID U-1001 USD', 12500],
		]);
	});
});

describe.each(SAVINGS)('a Customer IDs line that is empty is never your own account, n8n saving %s', (saving) => {
	it('an expression that gives nothing is refused; an edit to it leaves the saved state as it was', async () => {
		const small = customerTrigger('one', ['beneficiaryAdded'], 'CUST_SMALL');
		const n8n = app(small, saving);
		expect((await n8n.activate()).error).toBeUndefined();
		itemsOf(await n8n.poll());
		const [saved, sent] = [JSON.stringify(n8n.saved()), sim().requests.length];
		const nothing = params({ ...small, customerIds: '={{ $vars.missing ?? "" }}' });
		const refused = await failureOf(n8n.update(nothing), () => n8n.poll());
		expect(refused?.message).toBe('Customer IDs is empty');
		expect(refused?.description).toMatch(/Enter own for your own account, or a customer's ID/);
		expect(sim().requests.length).toBe(sent);
		expect(JSON.stringify(n8n.saved())).toBe(saved);
	});

	it('a blank line, a line of spaces and a line an expression left empty are no entries: only the customers named are read', async () => {
		const lines = '={{ "CUST_SMALL\\n\\n   \\n" + ($vars.missing ?? "") + "\\nCUST_EMPTY" }}';
		const n8n = app(params({ events: ['beneficiaryAdded'], customerIds: lines }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		const read = listRequests().map((r) => (JSON.parse(r.body) as IDataObject).customerId);
		expect([...new Set(read)].sort()).toEqual(['CUST_EMPTY', 'CUST_SMALL']);
		// A payee bound to your own list is none of this trigger's; one bound to CUST_SMALL is.
		sim().beneficiaries('').push(payeeLike(sim, 'OWN-1'));
		sim().beneficiaries('CUST_SMALL').push(payeeLike(sim, 'SMALL-1'));
		const items = [...itemsOf(await n8n.poll()), ...itemsOf(await n8n.poll())];
		expect(items.map((item) => [item.whoseAccount, item.referenceBeneficiaryId])).toEqual([
			['CUST_SMALL', 'REF-SMALL-1'],
		]);
		expect(listRequests().filter((r) => !r.body.includes('"customerId"'))).toEqual([]);
	});
});

describe.each(SAVINGS)("an access token in the credential (a customer's authorisation), n8n saving %s", (saving) => {
	const GRANT = 'token-of-a-customer-7f3a9c';
	const withToken = appOf(sim, { accessToken: GRANT });

	it('is sent with every request: the listing in its body, the quota in its header; it is saved nowhere', async () => {
		const lists = withToken(customerTrigger('set', ['beneficiaryAdded'], 'CUST_SMALL'), saving);
		expect(itemsOf(await lists.activate())).toEqual([]);
		itemsOf(await lists.poll());
		sim().beneficiaries('CUST_SMALL').push(payeeLike(sim, 'T-1'));
		expect(itemsOf(await lists.poll()).map((item) => [item.whoseAccount, item.referenceBeneficiaryId])).toEqual([
			['CUST_SMALL', 'REF-T-1'],
		]);
		const quotas = withToken(
			params({
				events: ['quotaChanged'],
				quotas: { quota: [row('ACC_A')] },
				options: { quotasText: 'ACC_B, USER_ID, U-1001, USD' },
			}),
			saving,
		);
		expect(itemsOf(await quotas.activate())).toEqual([]);
		itemsOf(await quotas.poll());
		expect(listRequests().length).toBeGreaterThan(2);
		for (const request of listRequests()) expect((JSON.parse(request.body) as IDataObject).accessToken).toBe(GRANT);
		expect(quotaRequests().length).toBeGreaterThan(2);
		for (const request of quotaRequests()) {
			expect(request.headers['access-token']).toBe(GRANT);
			expect(request.body).not.toContain(GRANT);
		}
		for (const n8n of [lists, quotas]) {
			expect(JSON.stringify(n8n.saved())).not.toContain(GRANT);
			expect(JSON.stringify(n8n.savedGlobal())).not.toContain(GRANT);
		}
	});

	it('own with it is refused before any request: a Customer IDs line, a quota row and a quota line', async () => {
		const owner =
			"is own, but the credential holds a customer's Access Token (an Access Token is one customer's authorisation; for your own account, use a credential without one)";
		const lists = withToken(params({ events: ['beneficiaryAdded'], customerIds: 'CUST_SMALL\nown' }), saving);
		const listRefusal = (await lists.activate()).error;
		expect(listRefusal?.message).toBe('Customer IDs has 1 bad entry (line 2)');
		expect(listRefusal?.description).toBe(setRefusal(`line 2: Customer ID ${owner}`));
		const quotas = withToken(
			params({
				events: ['quotaChanged'],
				quotas: { quota: [row('own'), row('ACC_A')] },
				options: { quotasText: 'OWN, USER_ID, U-1002, USD' },
			}),
			saving,
		);
		const quotaRefusal = (await quotas.activate()).error;
		expect(quotaRefusal?.message).toBe('Quotas has 2 bad entries (row 1, line 1)');
		expect(quotaRefusal?.description).toBe(
			setRefusal(`row 1: Connected Account ID ${owner}; line 1: Connected Account ID ${owner}`),
		);
		expect(sim().requests).toHaveLength(0);
		for (const n8n of [lists, quotas]) expect(n8n.saved()).toEqual({});
		for (const error of [listRefusal, quotaRefusal])
			expect(`${error?.message} ${error?.description}`).not.toContain(GRANT);
	});
});

describe.each(SAVINGS)('simplified beneficiary items (Simplify on by default), n8n saving %s', (saving) => {
	/** The fields a simplified item may hold, in their order, spelled out here (not taken from the node's code). */
	const SIMPLIFIED = [
		'event',
		'whoseAccount',
		'accountName',
		'beneficiaryNick',
		'bankAccountIBAN',
		'bankAccountNo',
		'bankName',
		'currency',
		'status',
		'referenceBeneficiaryId',
		'changes',
		'possibleBankChange',
	];

	it('every event item holds at most 10 fields, those of Simplify in their order, bank details masked', async () => {
		const events = ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged', 'beneficiaryBankDetailsChanged'];
		const n8n = app(params({ events, customerIds: 'CUST_SMALL\nCUST_NO_REF' }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		itemsOf(await n8n.poll());
		const small = sim().beneficiaries('CUST_SMALL');
		small[1].beneficiaryNick = 'Renamed'; // Changed
		const moved = sim().changeBankDetails('CUST_SMALL', small[2].referenceBeneficiaryId as string); // Bank Details Changed
		small.push(payeeLike(sim, 'S-1')); // Added
		small.splice(3, 1); // Removed
		// A payee without a reference ID given new bank details: Added and Removed, each naming the other.
		const untagged = sim().beneficiaries('CUST_NO_REF')[0] as Beneficiary;
		untagged.bankAccountNo = '622202000000777';
		untagged.beneficiaryToken = Buffer.from('token:untagged-new').toString('base64');
		const items = [...itemsOf(await n8n.poll()), ...itemsOf(await n8n.poll())];
		expect([...new Set(items.map((item) => item.event))].sort()).toEqual([...events].sort());
		expect(items.some((item) => item.possibleBankChange !== undefined)).toBe(true);
		expect(items.some((item) => item.changes !== undefined)).toBe(true);
		for (const item of items) {
			const fields = Object.keys(item);
			expect(fields.length).toBeLessThanOrEqual(10);
			expect(fields).toEqual(SIMPLIFIED.filter((field) => field in item));
			expect(fields).not.toEqual(expect.arrayContaining(['bankAccountIBAN', 'bankAccountNo']));
			expect(item.whoseAccount).toMatch(/^CUST_(SMALL|NO_REF)$/);
		}
		const text = JSON.stringify(items);
		for (const whole of [moved.bankAccountNo, untagged.bankAccountNo, moved.beneficiaryToken])
			expect(text).not.toContain(String(whole));
	});
});
