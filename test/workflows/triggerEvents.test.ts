/**
 * One trigger, the events the user picks, one read serving them all, each item
 * naming its event. Bank Details Changed without an expression, and the bank change that arrives
 * as Removed plus Added (no reference ID, or another payee under the ID) caught by the same
 * trigger. For one customer alone and in a set.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { useSimulator } from '../support/helpers';
import { count, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, SHAPES } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const small = () => sim().beneficiaries('CUST_SMALL');
const BANK_WATCH = ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryBankDetailsChanged'];
const events = (items: IDataObject[] | null | undefined) =>
	(items ?? []).map((item) => [item.event, item.referenceBeneficiaryId]);

/** New bank details for `b` in place (a new account number, so a new token), as a bank swap makes them. */
function newBankDetails(b: Beneficiary, n: number): void {
	b.bankAccountNo = `6222${String(n).padStart(8, '0')}`;
	b.beneficiaryToken = Buffer.from(`token:swap:${n}`).toString('base64');
}

describe.each(SHAPES)('events picked together, %s customer', (shape) => {
	it('Bank Details Changed alone: a nickname change is no event; a bank change is one, masked, naming the bank fields', async () => {
		const n8n = app(customerTrigger(shape, ['beneficiaryBankDetailsChanged']), 'emit');
		await n8n.activate();
		small()[1].beneficiaryNick = 'Renamed';
		expect(count(await n8n.poll())).toBe(0);
		const changed = sim().changeBankDetails('CUST_SMALL', small()[2].referenceBeneficiaryId);
		const [item] = (await n8n.poll()).items ?? [];
		expect(item).toMatchObject({
			event: 'beneficiaryBankDetailsChanged',
			referenceBeneficiaryId: changed.referenceBeneficiaryId,
		});
		expect(Object.keys(item.changes as IDataObject)).toEqual(
			expect.arrayContaining(['beneficiaryToken', 'bankAccountNo']),
		);
		const account = String(changed.bankAccountNo);
		expect(item.bankAccountNo).toBe(`****${account.slice(-4)}`);
		expect(JSON.stringify(item)).not.toContain(account);
		expect(item.whoseAccount).toBe('CUST_SMALL');
	});

	it('Beneficiary Changed with Bank Details Changed: a bank change comes once, as Bank Details Changed; a nickname change as Changed', async () => {
		const n8n = app(customerTrigger(shape, ['beneficiaryChanged', 'beneficiaryBankDetailsChanged']), 'emit');
		await n8n.activate();
		small()[1].beneficiaryNick = 'Renamed';
		const changed = sim().changeBankDetails('CUST_SMALL', small()[2].referenceBeneficiaryId);
		expect(events((await n8n.poll()).items)).toEqual([
			['beneficiaryChanged', small()[1].referenceBeneficiaryId],
			['beneficiaryBankDetailsChanged', changed.referenceBeneficiaryId],
		]);
		expect(count(await n8n.poll())).toBe(0);
	});

	it('one trigger catches a bank change both ways: as Bank Details Changed, and as Removed plus Added', async () => {
		// A payee without a reference ID is its token: new bank details make it another entry.
		const untagged = small()[3];
		delete (untagged as Partial<Beneficiary>).referenceBeneficiaryId;
		const n8n = app(customerTrigger(shape, BANK_WATCH), 'emit');
		await n8n.activate();
		const tagged = sim().changeBankDetails('CUST_SMALL', small()[0].referenceBeneficiaryId);
		const before = untagged.beneficiaryToken;
		newBankDetails(untagged, 1);
		const items = (await n8n.poll()).items ?? [];
		expect(items.map((item) => item.event)).toEqual([
			'beneficiaryBankDetailsChanged',
			'beneficiaryAdded',
			'beneficiaryRemoved',
		]);
		expect(items[0].referenceBeneficiaryId).toBe(tagged.referenceBeneficiaryId);
		// The same payee (its nickname), as Added with the new account and Removed with the old one's last four.
		expect(items[1].beneficiaryNick).toBe(untagged.beneficiaryNick);
		expect(items[2].beneficiaryNick).toBe(untagged.beneficiaryNick);
		expect(items[2].beneficiaryToken).toBe(`****${before.slice(-4)}`);
		// Each names the other (possibleBankChange), by their last four; the tagged change carries nothing of it.
		expect(items[0].possibleBankChange).toBeUndefined();
		expect(items[1].possibleBankChange).toEqual({
			event: 'beneficiaryRemoved',
			beneficiaryNick: untagged.beneficiaryNick,
			beneficiaryToken: `****${before.slice(-4)}`,
			bankAccountNo: expect.stringMatching(/^\*\*\*\*\w{4}$/),
		});
		expect(items[2].possibleBankChange).toEqual({
			event: 'beneficiaryAdded',
			beneficiaryNick: untagged.beneficiaryNick,
			beneficiaryToken: `****${untagged.beneficiaryToken.slice(-4)}`,
			bankAccountNo: `****${String(untagged.bankAccountNo).slice(-4)}`,
		});
		// A vetted reference ID that now pays another account under another name: one Bank Details
		// Changed naming the account name too (picked without it, it is Removed plus Added).
		const stranger = sim().reuseReference('CUST_SMALL', 4);
		const reused = (await n8n.poll()).items ?? [];
		expect(events(reused)).toEqual([['beneficiaryBankDetailsChanged', stranger.referenceBeneficiaryId]]);
		expect(Object.keys(reused[0].changes as object)).toEqual(
			expect.arrayContaining(['accountName', 'beneficiaryToken']),
		);
		expect(count(await n8n.poll())).toBe(0);
	});
});

describe('possibleBankChange: only an Added and a Removed that could be one payee', () => {
	it('an unrelated unbind and bind of payees with reference IDs, or of other nicknames, carry nothing', async () => {
		const n8n = app(customerTrigger('one', BANK_WATCH), 'emit');
		await n8n.activate();
		const [gone] = small().splice(0, 1);
		small().push({ ...gone, referenceBeneficiaryId: 'REF-OTHER-1', beneficiaryToken: 'TKN-OTHER-1' });
		const untagged = small()[1];
		delete (untagged as Partial<Beneficiary>).referenceBeneficiaryId;
		small().push({ ...untagged, beneficiaryNick: 'Another nickname', beneficiaryToken: 'TKN-OTHER-2' });
		const items = [...((await n8n.poll()).items ?? []), ...((await n8n.poll()).items ?? [])];
		expect(items.map((item) => item.event).sort()).toEqual([
			'beneficiaryAdded',
			'beneficiaryAdded',
			'beneficiaryRemoved',
		]);
		expect(items.filter((item) => item.possibleBankChange !== undefined)).toEqual([]);
	});
});

describe('the events a trigger accepts', () => {
	const poller = (parameters: INodeParameters) =>
		activateTrigger({ parameters, credentials: sandboxCredentials(sim().url), staticData: {}, typeVersion: 1 });

	it.each([
		['no event', { events: [] } as INodeParameters, /^Events is empty: pick at least one event$/, undefined],
		[
			'events of both families',
			{ ...quotaTrigger('one', ['quotaChanged', 'beneficiaryAdded']) } as INodeParameters,
			/^Events mixes beneficiary events and quota events$/,
			undefined,
		],
		[
			'an unknown event',
			{ events: ['beneficiaryDeleted'] } as INodeParameters,
			/^Events has an event this trigger does not know$/,
			/^Unknown: beneficiaryDeleted\. /,
		],
	])('%s is refused before anything is sent, naming the field', async (_, parameters, message, description) => {
		const sent = sim().requests.length;
		const result = await poller(parameters).poll();
		expect(!result.ok && result.error.message).toMatch(message);
		if (description) expect(!result.ok && result.error.description).toMatch(description);
		expect(sim().requests.length).toBe(sent);
	});

	it('"Fetch Test Event" shows current data named by its first event and subject', async () => {
		const parameters = quotaTrigger('one', ['quotaChanged', 'quotaBelowThreshold']);
		const result = await activateTrigger({
			parameters,
			credentials: sandboxCredentials(sim().url),
			staticData: {},
			typeVersion: 1,
			mode: 'manual',
			activation: 'manual',
		}).poll();
		expect(result.ok && result.items?.map((item) => [item.json.event, item.json.subject])).toEqual([
			['quotaBelowThreshold', 'own USER_ID U-1001 USD'],
		]);
	});
});
