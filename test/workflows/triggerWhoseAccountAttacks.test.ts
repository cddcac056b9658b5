/**
 * Hostile review, the trigger under each way n8n saves a poll: whose account every event carries
 * when own and customers are mixed in rows and pasted lines, in every spelling; an account that
 * changes under an expression or a credential's token that changes starts a fresh baseline, never a
 * diff across accounts or authorisations; lines moved between rows and text keep their baseline; an
 * event item whose `event` the gateway could overwrite.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { sandboxCredentials } from '../../sandbox/engine';
import { QUOTA, useSimulator } from '../support/helpers';
import { n8nApp } from '../support/n8nApp';
import { itemsOf, later, payeeLike, useClock } from '../support/pollerApp';
import { appOf, SAVINGS } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const params = (value: IDataObject) => value as unknown as INodeParameters;
/** A Quotas row: `whose` account's U-1001 (USER_ID, USD), its threshold. */
const row = (whose: string, threshold: unknown = 10000) => ({ connectedAccountId: whose, ...QUOTA, threshold });
/** Moves U-1001 (minor units) of `whose` account: own, or a connected account's own. */
const setQuota = (whose: string, cents: string) =>
	sim().setQuota('USER_ID', whose === 'own' ? 'U-1001' : `${whose}/U-1001`, cents);
const quotaRequests = () => sim().requests.filter((r) => r.path.includes('AvailableQuota'));
const summary = (items: IDataObject[]) =>
	items.map((item) => [item.event, item.whoseAccount, item.subject, item.availableQuotaAmount, item.previousAmount]);

describe.each(SAVINGS)('own in every spelling beside customers, rows and lines, n8n saving %s', (saving) => {
	it('own as " Own " (row) and OWN (line) of the same quota: refused as a repeat, never watched twice', async () => {
		const n8n = app(
			params({
				events: ['quotaBelowThreshold'],
				quotas: { quota: [row(' Own ')] },
				options: { quotasText: 'OWN, user_id, U-1001, usd, 10000' },
			}),
			saving,
		);
		const refused = (await n8n.activate()).error;
		expect(refused?.message).toBe('Quotas has 1 bad entry (line 1)');
		expect(refused?.description).toMatch(/line 1 repeats row 1/);
		expect(sim().requests).toHaveLength(0);
	});

	it('the same quota of own, a customer named like a method, a digits customer and one customer in two cases: 5 entries, each alert its own account and amount', async () => {
		setQuota('USER_ID', '2000000');
		setQuota('10005678', '3000000');
		setQuota('ACC_X', '4000000');
		setQuota('acc_x', '5000000');
		const n8n = app(
			params({
				events: ['quotaBelowThreshold', 'quotaChanged'],
				quotas: { quota: [row('own'), row('USER_ID')] },
				options: { quotasText: '10005678, USER_ID, U-1001, USD, 10000\nACC_X, USER_ID, U-1001, USD, 10000\n acc_x ;USER_ID;U-1001;USD;10000' },
			}),
			saving,
		);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		setQuota('own', '100000');
		setQuota('USER_ID', '200000');
		setQuota('10005678', '300000');
		setQuota('ACC_X', '400000');
		setQuota('acc_x', '500000');
		const items = itemsOf(await n8n.poll());
		const expected = (whose: string, amount: number, before: number) => [
			['quotaBelowThreshold', whose, `${whose} USER_ID U-1001 USD`, amount, before],
			['quotaChanged', whose, `${whose} USER_ID U-1001 USD`, amount, before],
		];
		expect(summary(items)).toEqual([
			...expected('own', 1000, 12500),
			...expected('USER_ID', 2000, 20000),
			...expected('10005678', 3000, 30000),
			...expected('ACC_X', 4000, 40000),
			...expected('acc_x', 5000, 50000),
		]);
		// The amount in each item is the one its own account's request answered.
		const byAccount = quotaRequests().map((r) => String(r.headers['connected-accountid'] ?? 'own'));
		expect([...new Set(byAccount)].sort()).toEqual(['10005678', 'ACC_X', 'USER_ID', 'acc_x', 'own']);
		expect(itemsOf(await n8n.poll())).toEqual([]);
	});

	it('lines moved between rows and text (and re-spelled) keep their baselines: no alert repeated, no change invented', async () => {
		setQuota('ACC_0002', '500000');
		const before = params({
			events: ['quotaBelowThreshold', 'quotaChanged'],
			quotas: { quota: [row('own', 20000)] },
			options: { quotasText: 'ACC_0002, USER_ID, U-1001, USD, 10000' },
		});
		const n8n = app(before, saving);
		const first = [...itemsOf(await n8n.activate()), ...itemsOf(await n8n.poll())];
		// Both already below: one alert each (activation or first poll), never twice.
		expect(first.map((item) => [item.event, item.whoseAccount]).sort()).toEqual([
			['quotaBelowThreshold', 'ACC_0002'],
			['quotaBelowThreshold', 'own'],
		]);
		const moved = params({
			events: ['quotaChanged', 'quotaBelowThreshold'],
			quotas: { quota: [row('ACC_0002')] },
			options: { quotasText: '  oWn ; USER_ID ; U-1001 ; usd ; 20000' },
		});
		const afterEdit = await n8n.update(moved);
		expect(afterEdit?.error).toBeUndefined();
		const again = [...itemsOf(afterEdit), ...itemsOf(await n8n.poll()), ...itemsOf(await n8n.poll())];
		expect(again).toEqual([]);
		setQuota('ACC_0002', '400000');
		expect(summary(itemsOf(await n8n.poll()))).toEqual([
			['quotaChanged', 'ACC_0002', 'ACC_0002 USER_ID U-1001 USD', 4000, 5000],
		]);
	});
});

describe.each(SAVINGS)('an account that an expression changes between polls, n8n saving %s', (saving) => {
	it('a quota line from own to ACC_0002: a fresh baseline for ACC_0002, never a Quota Changed from own’s amount', async () => {
		setQuota('ACC_0002', '700000'); // 7,000: below 10,000
		const switchAt = Date.now() + 30 * 60_000;
		const text = `={{ $now.toMillis() > ${switchAt} ? "ACC_0002, USER_ID, U-1001, USD, 10000" : "own, USER_ID, U-1001, USD, 10000" }}`;
		const n8n = app(params({ events: ['quotaChanged', 'quotaBelowThreshold'], options: { quotasText: text } }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		later(60);
		const items = itemsOf(await n8n.poll());
		// ACC_0002 is newly watched: already below, alerted once, with no previous amount of another account's.
		expect(items.filter((item) => item.event === 'quotaChanged')).toEqual([]);
		for (const item of items) {
			expect(item.whoseAccount).toBe('ACC_0002');
			expect(item.previousAmount).not.toBe(12500);
		}
		later(1);
		expect(itemsOf(await n8n.poll())).toEqual([]);
	});

	it('a Customer IDs line from CUST_SMALL to CUST_NO_REF: no Added/Removed across the two lists', async () => {
		const switchAt = Date.now() + 30 * 60_000;
		const ids = `={{ $now.toMillis() > ${switchAt} ? "CUST_NO_REF" : "CUST_SMALL" }}`;
		const n8n = app(
			params({ events: ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged'], customerIds: ids }),
			saving,
		);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		later(60);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		sim().beneficiaries('CUST_NO_REF').push({ ...sim().beneficiaries('CUST_NO_REF')[0], beneficiaryToken: Buffer.from('token:NEW-1').toString('base64'), beneficiaryNick: 'New one' });
		const items = itemsOf(await n8n.poll());
		expect(items.map((item) => [item.event, item.whoseAccount, item.beneficiaryNick])).toEqual([
			['beneficiaryAdded', 'CUST_NO_REF', 'New one'],
		]);
	});
});

describe.each(SAVINGS)("the credential's Access Token changed under a running trigger, n8n saving %s", (saving) => {
	const running = (parameters: INodeParameters, credentials: ICredentialDataDecryptedObject) =>
		n8nApp({ parameters, credentials, saving, typeVersion: 1 });

	it('beneficiaries: a payee bound as the token changes is not reported as Added across two authorisations', async () => {
		const credentials = { ...sandboxCredentials(sim().url), accessToken: 'grant-A-1111' };
		const n8n = running(params({ events: ['beneficiaryAdded', 'beneficiaryRemoved'], customerIds: 'CUST_SMALL' }), credentials);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		credentials.accessToken = 'grant-B-2222';
		sim().beneficiaries('CUST_SMALL').push(payeeLike(sim, 'X-1'));
		expect(itemsOf(await n8n.poll())).toEqual([]);
		const sent = sim().requests.map((r) => String(JSON.parse(r.body).accessToken));
		expect(sent.at(-1)).toBe('grant-B-2222');
		// From then on, changes under the new authorisation are reported.
		sim().beneficiaries('CUST_SMALL').push(payeeLike(sim, 'X-2'));
		expect(itemsOf(await n8n.poll()).map((item) => item.referenceBeneficiaryId)).toEqual(['REF-X-2']);
		expect(JSON.stringify([n8n.saved(), n8n.savedGlobal()])).not.toMatch(/grant-[AB]/);
	});

	it('quota: a quota moved as the token changes is no Quota Changed across two authorisations', async () => {
		const credentials = { ...sandboxCredentials(sim().url), accessToken: 'grant-A-1111' };
		const n8n = running(params({ events: ['quotaChanged'], quotas: { quota: [row('ACC_0002')] } }), credentials);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		credentials.accessToken = 'grant-B-2222';
		setQuota('ACC_0002', '100');
		expect(itemsOf(await n8n.poll())).toEqual([]);
		expect(quotaRequests().at(-1)?.headers['access-token']).toBe('grant-B-2222');
		setQuota('ACC_0002', '200');
		expect(summary(itemsOf(await n8n.poll()))).toEqual([['quotaChanged', 'ACC_0002', 'ACC_0002 USER_ID U-1001 USD', 2, 1]]);
	});

	it('a token added to a credential that watched own: the next poll refuses own, never reads a customer’s answer as yours', async () => {
		const credentials: ICredentialDataDecryptedObject = { ...sandboxCredentials(sim().url) };
		const n8n = running(params({ events: ['quotaChanged'], quotas: { quota: [row('own')] } }), credentials);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		credentials.accessToken = 'grant-C-3333';
		setQuota('own', '100');
		const polled = await n8n.poll();
		expect(polled.items ?? []).toEqual([]);
		expect(`${polled.error?.message} ${polled.error?.description}`).toMatch(/row 1: Connected Account ID is own, but the credential holds/);
		expect(quotaRequests().filter((r) => r.headers['access-token'] !== undefined)).toHaveLength(0);
		expect(JSON.stringify(polled.error)).not.toContain('grant-C-3333');
	});

	it('the refusal names the bad entry in its title and why in its description', async () => {
		const credentials: ICredentialDataDecryptedObject = { ...sandboxCredentials(sim().url), accessToken: 'grant-D-4444' };
		const n8n = running(params({ events: ['quotaChanged'], quotas: { quota: [row('own')] } }), credentials);
		const refused = (await n8n.activate()).error;
		expect(refused?.message).toBe('Quotas has 1 bad entry (row 1)');
		expect(refused?.description).toMatch(/row 1: Connected Account ID is own/);
	});
});

describe.each(SAVINGS)('empty from an expression in every place a trigger asks for an account, n8n saving %s', (saving) => {
	it.each([
		['a row’s Connected Account ID', { quotas: { quota: [row('={{ "" }}')] } }, /row 1: Connected Account ID is empty/],
		['a row’s Connected Account ID of spaces', { quotas: { quota: [row('={{ "   " }}')] } }, /row 1: Connected Account ID is empty/],
		[
			'a row’s Accumulation ID',
			{ quotas: { quota: [{ ...row('ACC_0002'), quotaAccumulationId: '={{ $vars.none ?? "" }}' }] } },
			/row 1: Accumulation ID is empty/,
		],
		['a pasted line’s first field', { options: { quotasText: '={{ ($vars.none ?? "") + ", USER_ID, U-1001, USD, 10000" }}' } }, /line 1: Connected Account ID is empty/],
	])('%s: refused before anything is sent', async (_name, more, detail) => {
		const n8n = app(params({ events: ['quotaBelowThreshold'], ...more }), saving);
		const refused = (await n8n.activate()).error;
		expect(`${refused?.message} ${refused?.description}`).toMatch(detail);
		expect(sim().requests).toHaveLength(0);
	});
});

describe.each(SAVINGS)('a field the gateway adds to a beneficiary, n8n saving %s', (saving) => {
	it('a new payee carrying its own `event` field is still emitted as Beneficiary Added (or refused), never as another event', async () => {
		const n8n = app(
			params({ events: ['beneficiaryAdded', 'beneficiaryRemoved'], customerIds: 'CUST_SMALL', options: { simplify: false } }),
			saving,
		);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		const payee = { ...payeeLike(sim, 'EV-1'), event: 'beneficiaryRemoved' };
		sim().beneficiaries('CUST_SMALL').push(payee as unknown as ReturnType<typeof payeeLike>);
		const polled = await n8n.poll();
		const items = polled.items ?? [];
		// Either the answer is refused (as a `whoseAccount` field is), or the event is the trigger's own word.
		for (const item of items) {
			if (item.referenceBeneficiaryId === 'REF-EV-1') expect(item.event).toBe('beneficiaryAdded');
		}
		if (!polled.error) expect(items.map((item) => item.referenceBeneficiaryId)).toEqual(['REF-EV-1']);
	});

	it('with Simplify on (the default): the same payee is not shown as Beneficiary Removed', async () => {
		const n8n = app(params({ events: ['beneficiaryAdded', 'beneficiaryRemoved'], customerIds: 'CUST_SMALL' }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		expect(itemsOf(await n8n.poll())).toEqual([]);
		const payee = { ...payeeLike(sim, 'EV-2'), event: 'beneficiaryRemoved' };
		sim().beneficiaries('CUST_SMALL').push(payee as unknown as ReturnType<typeof payeeLike>);
		const items = (await n8n.poll()).items ?? [];
		expect(items.filter((item) => item.event === 'beneficiaryRemoved')).toEqual([]);
	});
});

describe.each(SAVINGS)('a gateway field named like the trigger’s own item fields, n8n saving %s', (saving) => {
	it('a new payee carrying `changes` and `possibleBankChange`: an Added item never carries a change the trigger did not find', async () => {
		const n8n = app(params({ events: ['beneficiaryAdded'], customerIds: 'CUST_SMALL' }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		const payee = {
			...payeeLike(sim, 'CH-1'),
			changes: { bankAccountNo: { before: '****0000', after: '****1111' } },
			possibleBankChange: { event: 'beneficiaryRemoved', beneficiaryNick: 'Someone else' },
		};
		sim().beneficiaries('CUST_SMALL').push(payee as unknown as ReturnType<typeof payeeLike>);
		const polled = await n8n.poll();
		for (const item of polled.items ?? []) {
			expect(item).not.toHaveProperty('changes');
			expect(item).not.toHaveProperty('possibleBankChange');
		}
	});
});


describe.each(SAVINGS)('1,000 accounts of one quota, rows and lines, n8n saving %s', (saving) => {
	it('every account’s change arrives once, with its own account, subject and amounts', async () => {
		const N = 1000;
		const whoOf = (i: number) => (i === 0 ? 'own' : i % 2 ? `ACC_${i}` : `acc-${i}`);
		const cents = (i: number, round: number) => String((i + 1) * 100 + round);
		for (let i = 1; i < N; i++) setQuota(whoOf(i), cents(i, 1));
		setQuota('own', cents(0, 1));
		const rows = [0, 1, 2, 3, 4].map((i) => row(whoOf(i), ''));
		const lines = Array.from({ length: N - 5 }, (_, k) => `${whoOf(k + 5)}, USER_ID, U-1001, USD`).join('\n');
		const n8n = app(params({ events: ['quotaChanged'], quotas: { quota: rows }, options: { quotasText: lines } }), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		for (let i = 0; i < N; i++) setQuota(whoOf(i), cents(i, 2));
		const seen = new Map<string, IDataObject>();
		for (let poll = 0; poll < 20 && seen.size < N; poll++) {
			for (const item of itemsOf(await n8n.poll())) {
				const whose = String(item.whoseAccount);
				expect(seen.has(whose)).toBe(false);
				seen.set(whose, item);
			}
		}
		expect(seen.size).toBe(N);
		for (let i = 0; i < N; i++) {
			const item = seen.get(whoOf(i)) as IDataObject;
			expect([item.subject, item.availableQuotaAmount, item.previousAmount]).toEqual([
				`${whoOf(i)} USER_ID U-1001 USD`,
				Number(cents(i, 2)) / 100,
				Number(cents(i, 1)) / 100,
			]);
		}
		expect(itemsOf(await n8n.poll())).toEqual([]);
	});
});
