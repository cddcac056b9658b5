/**
 * Events waiting behind the 500 cap come as they would have come at once (a hostile review found
 * both through n8n's engine): a quota alert with its amounts whole (held events are masked as
 * bank details only for beneficiaries: an amount of 8 digits is no account number; a receiving
 * account, a quota subject that is a bank account, kept by its last four and given back whole), and a bank
 * change without a reference ID never parted, also when masking changed one side's nickname (the
 * pair is told by the possibleBankChange each names the other in, not by the nickname).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { useSimulator } from '../support/helpers';
import { itemsOf, subjectRow, useClock } from '../support/pollerApp';
import { appOf, customerTrigger } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const small = () => sim().beneficiaries('CUST_SMALL');

describe.each(['emit', 'scheduler', 'durable'] as const)('events held behind the cap (%s)', (saving) => {
	it('a quota alert held comes with the amounts the API returned, as the first 500 do', async () => {
		const ids = Array.from({ length: 510 }, (_, i) => `U-M${i}`);
		for (const id of ids) sim().setQuota('USER_ID', id, '1234567800'); // USD 12,345,678.00
		const below = {
			triggerOn: 'quota',
			events: ['quotaBelowThreshold'],
			watch: 'many',
			threshold: 100_000_000,
			subjects: { subject: ids.map((id) => subjectRow(id)) },
		} as unknown as INodeParameters;
		const n8n = app(below, saving);
		expect(itemsOf(await n8n.activate())).toHaveLength(500);
		const held = itemsOf(await n8n.poll());
		expect(held).toHaveLength(10);
		for (const item of held) {
			expect(item.availableQuota).toEqual({ currency: 'USD', value: '1234567800' });
			expect(item.availableQuotaAmount).toBe(12345678);
			expect(item.threshold).toBe(100_000_000);
		}
	});

	it("a receiving account's alert held: the state keeps the account by its last four, the item gives it whole", async () => {
		const accounts = Array.from({ length: 510 }, (_, i) => `62220299${String(10000000 + i)}`);
		for (const id of accounts) sim().setQuota('RECEIVING_ACCOUNT', id, '500'); // USD 5.00
		const row = (id: string) => ({ ...subjectRow(id), quotaAccumulationMethod: 'RECEIVING_ACCOUNT' });
		const below = {
			triggerOn: 'quota',
			events: ['quotaBelowThreshold'],
			watch: 'many',
			threshold: 100,
			subjects: { subject: accounts.map(row) },
		} as unknown as INodeParameters;
		const n8n = app(below, saving);
		const first = itemsOf(await n8n.activate());
		expect(first).toHaveLength(500);
		const saved = JSON.stringify(n8n.saved()) + JSON.stringify(n8n.savedGlobal());
		expect(accounts.filter((id) => saved.includes(id))).toEqual([]);
		const held = itemsOf(await n8n.poll());
		expect(held.map((item) => item.quotaAccumulationId)).toEqual(accounts.slice(500));
		expect(held.map((item) => item.subject)).toEqual(accounts.slice(500).map((id) => `RECEIVING_ACCOUNT ${id} USD`));
	});

	it('an untagged bank change at the cap, its nickname holding the last four of the new account: Added and Removed in one poll', async () => {
		const untagged = small()[3];
		delete (untagged as Partial<Beneficiary>).referenceBeneficiaryId;
		untagged.beneficiaryNick = 'Acme 12-3456';
		const n8n = app(customerTrigger('one', ['beneficiaryAdded', 'beneficiaryRemoved']), saving);
		expect(itemsOf(await n8n.activate())).toEqual([]);
		// 499 payees bound ahead of it: its Added is the 500th event, its Removed the 501st.
		const bound = Array.from({ length: 499 }, (_, i) => ({
			...small()[0],
			referenceBeneficiaryId: `REF-P-${i}`,
			beneficiaryToken: Buffer.from(`token:REF-P-${i}`).toString('base64'),
		}));
		small().unshift(...bound);
		untagged.bankAccountNo = '6222029999123456';
		untagged.beneficiaryToken = Buffer.from('token:swap:pair').toString('base64');
		const polls: IDataObject[][] = [itemsOf(await n8n.poll()), itemsOf(await n8n.poll())];
		const pollOf = (event: string) =>
			polls.findIndex((items) => items.some((i) => i.event === event && i.referenceBeneficiaryId === undefined));
		expect(pollOf('beneficiaryAdded')).toBeGreaterThanOrEqual(0);
		expect(pollOf('beneficiaryRemoved')).toBe(pollOf('beneficiaryAdded'));
	});
});
