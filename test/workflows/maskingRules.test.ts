/**
 * Mask Bank Details rule by rule (docs/reference.md, "Mask Bank Details: the rules"; masking.ts's
 * MASKING_RULES), through n8n's engine against the simulator. Each test says what an item keeps
 * (the routing value whole, the text around a masked number) as well as what it loses.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { list, useSimulator } from '../support/helpers';
import { customerSet, emitted, triggerOf } from '../support/pollerApp';

const { sim } = useSimulator();
const tail = (value: string) => `****${value.slice(-4)}`;

/** A customer's beneficiary at `index`, live: what a test writes into it the next answer carries. */
const beneficiary = (index = 0, customerId = 'CUST_SMALL') =>
	sim().beneficiaries(customerId)[index] as unknown as IDataObject;
const extendInfo = (b: IDataObject) => b.extendInfo as IDataObject;

/** The customer's list with Mask Bank Details on. */
async function maskedList(customerId = 'CUST_SMALL'): Promise<IDataObject[]> {
	const run = await list(sim(), { returnAll: true, customerId, options: { maskBankDetails: true } });
	expect(run.status).toBe('success');
	return run.json;
}

/** A trigger (masking on by default, its items whole) on CUST_SMALL; its first poll takes the baseline. */
async function watching(event: string): Promise<ReturnType<typeof activateTrigger>> {
	const poller = activateTrigger({
		parameters: {
			events: [event],
			customerIds: 'CUST_SMALL',
			options: { simplify: false },
		} as INodeParameters,
		credentials: sandboxCredentials(sim().url),
		staticData: {},
	});
	expect(await emitted(poller)).toBeNull();
	return poller;
}

describe('(a) the bank fields, by name at any depth', () => {
	it('own fields and one nested in extendInfo show their last four; the IDs and dates beside them stay whole', async () => {
		const b = beneficiary();
		b.bankAccountNo = '6222021234567890';
		extendInfo(b).bankAccountNo = '4000123456789012';
		const [item] = await maskedList();
		expect(item).toMatchObject({
			referenceBeneficiaryId: 'REF-SML-00001',
			beneficiaryToken: tail(b.beneficiaryToken as string),
			bankAccountNo: '****7890',
			bankAccountIBAN: tail(b.bankAccountIBAN as string),
			currency: b.currency,
			whoseAccount: 'CUST_SMALL',
			extendInfo: { createdAt: extendInfo(b).createdAt, bankAccountNo: '****9012' },
		});
	});

	it('a value of four characters or fewer shows only the mask; written elsewhere it is no more than a last four', async () => {
		const b = beneficiary();
		b.bankAccountNo = 'AB12';
		b.beneficiaryNick = 'Rent AB12';
		const [item] = await maskedList();
		expect(item).toMatchObject({
			bankAccountNo: '****',
			beneficiaryNick: 'Rent AB12',
			referenceBeneficiaryId: 'REF-SML-00001',
		});
	});
});

describe("(b) the item's bank values wherever else they appear", () => {
	it('a short account number in any separator form, inside longer text too; the text around it and the codes stay', async () => {
		const b = beneficiary();
		b.bankAccountNo = '4567123';
		b.beneficiaryNick = 'Rent 456-7123';
		// Base64 of a test text with "+" and "/" in it, not a secret; a JSON writer may escape "/" as "\/".
		const token = Buffer.from('foo\xfbbar-baz\xfcquxquuxcorge', 'latin1').toString('base64');
		b.beneficiaryToken = token;
		Object.assign(extendInfo(b), {
			spaced: 'rent 456 7123 monthly',
			dotted: 'acct 456.7123',
			link: 'https://pay.example/?nick=Rent%20456%207123',
			wide: '家賃 ４５６７１２３',
			joined: 'A4567123CNY',
			raw: JSON.stringify({ token }).replace(/\//g, '\\/'),
			iban: `linked ${(b.bankAccountIBAN as string).toLowerCase().replace(/(.{4})/g, '$1 ')}`.trim(),
		});
		const [item] = await maskedList();
		expect(item).toMatchObject({
			referenceBeneficiaryId: 'REF-SML-00001',
			beneficiaryNick: 'Rent ****7123',
			bankAccountNo: '****7123',
			beneficiaryToken: tail(token),
			whoseAccount: 'CUST_SMALL',
			extendInfo: {
				createdAt: extendInfo(b).createdAt,
				spaced: 'rent ****7123 monthly',
				dotted: 'acct ****7123',
				link: 'https://pay.example/?nick=Rent%20****7123',
				wide: '家賃 ****7123',
				joined: 'A****7123CNY',
				raw: `{"token":"${tail(token)}"}`,
				iban: `linked ${tail(b.bankAccountIBAN as string)}`,
			},
		});
	});

	it('the trigger keeps only a tail of a removed account: a nickname number ending in it goes; a reference ID with letters stays', async () => {
		const [first, second] = sim().beneficiaries('CUST_SMALL') as unknown as IDataObject[];
		Object.assign(first, {
			bankAccountNo: '4567123',
			beneficiaryNick: 'Rent 456-7123',
			referenceBeneficiaryId: 'REF-20257123',
		});
		// A gateway ID that is only digits, ending in the kept tail, may be the account itself: taken for it.
		Object.assign(second, { bankAccountNo: '6222021234567123', referenceBeneficiaryId: '6222021234567123' });
		const removing = await watching('beneficiaryRemoved');
		sim().beneficiaries('CUST_SMALL').splice(0, 2);
		const items = await emitted(removing);
		expect(
			items?.map((i) => [i.event, i.referenceBeneficiaryId, i.bankAccountNo, i.beneficiaryNick, i.currency]),
		).toEqual([
			['beneficiaryRemoved', 'REF-20257123', '****7123', 'Rent ****7123', first.currency],
			['beneficiaryRemoved', '****7123', '****7123', second.beneficiaryNick, second.currency],
		]);
	});

	it("a Changed item: the old nickname in changes.beneficiaryNick.before loses the old account's number, spaced", async () => {
		const b = beneficiary();
		Object.assign(b, {
			bankAccountNo: '4567123',
			beneficiaryNick: 'Rent 456 7123',
			referenceBeneficiaryId: 'REF-20250001',
		});
		const changing = await watching('beneficiaryChanged');
		Object.assign(b, { bankAccountNo: '9876543', beneficiaryNick: 'Rent 987-6543' });
		const [item] = (await emitted(changing)) ?? [];
		expect(item).toMatchObject({
			event: 'beneficiaryChanged',
			referenceBeneficiaryId: 'REF-20250001',
			bankAccountNo: '****6543',
			beneficiaryNick: 'Rent ****6543',
			changes: {
				bankAccountNo: { before: '****7123', after: '****6543' },
				beneficiaryNick: { before: 'Rent ****7123', after: 'Rent ****6543' },
			},
		});
	});
});

describe('(c) the codes a workflow routes on stay whole', () => {
	it('a reference ID, numeric customer IDs ending alike, subject and resultCode; the same text in free text is masked', async () => {
		Object.assign(beneficiary(0, '10005678'), {
			referenceBeneficiaryId: 'REF-20250001',
			subject: 'USER_ID 20250001 USD',
			resultCode: 'CODE_20250001',
		});
		extendInfo(beneficiary(0, '10005678')).note = 'see REF-20250001';
		const [item] = await maskedList('10005678');
		expect(item).toMatchObject({
			referenceBeneficiaryId: 'REF-20250001',
			subject: 'USER_ID 20250001 USD',
			resultCode: 'CODE_20250001',
			status: 'ACTIVE',
			whoseAccount: '10005678',
			extendInfo: { note: 'see ****0001' },
		});
		const other = await maskedList('20005678');
		expect(other.map((i) => i.whoseAccount)).toEqual(['20005678', '20005678']);
	});

	it('a trigger watching many customers: 10005678 and 20005678 stay apart, so a Switch per customer routes right', async () => {
		const set = customerSet(['10005678', '20005678'], 'beneficiaryAdded');
		const poller = triggerOf(sim)({ ...set, options: { simplify: false } }, {});
		expect(await emitted(poller)).toBeNull();
		const added: Beneficiary[] = [];
		for (const customerId of ['10005678', '20005678']) {
			const listed = sim().beneficiaries(customerId);
			const payee = {
				...listed[0],
				referenceBeneficiaryId: `REF-2025${customerId.slice(0, 4)}`,
				bankAccountNo: `622202${customerId}`,
			};
			payee.beneficiaryToken = Buffer.from(`token:${payee.referenceBeneficiaryId}`).toString('base64');
			listed.push(payee);
			added.push(payee);
		}
		const items = await emitted(poller);
		expect(items?.map((i) => [i.event, i.whoseAccount, i.referenceBeneficiaryId, i.bankAccountNo])).toEqual([
			['beneficiaryAdded', '10005678', 'REF-20251000', '****5678'],
			['beneficiaryAdded', '20005678', 'REF-20252000', '****5678'],
		]);
		expect(JSON.stringify(items)).not.toContain(added[0].bankAccountNo);
	});

	it('unless it holds a bank value of its item: only that value goes, and only in that item', async () => {
		const embedding = beneficiary(0, '10005678');
		Object.assign(embedding, { bankAccountNo: '6222021234567890', referenceBeneficiaryId: 'REF-6222021234567890' });
		// The customer's ID is this payee's account number.
		beneficiary(1, '10005678').bankAccountNo = '10005678';
		const [first, second] = await maskedList('10005678');
		expect([first.referenceBeneficiaryId, first.whoseAccount, first.bankAccountNo]).toEqual([
			'REF-****7890',
			'10005678',
			'****7890',
		]);
		expect([second.referenceBeneficiaryId, second.whoseAccount, second.bankAccountNo]).toEqual([
			'REF-NUMA-00002',
			'****5678',
			'****5678',
		]);
	});
});

describe('(d) free text: account-like runs too', () => {
	it('8+ digits, an IBAN, letters joined to 6+ digits, a whole number of 8+ digits go; a short number, a date, an amount stay', async () => {
		const b = beneficiary();
		b.beneficiaryNick = 'Supplier 12345678';
		Object.assign(extendInfo(b), {
			linked: 'linked de89370400440532013000',
			supplier: 'SUP123456 priority',
			orderNo: 87654321,
			// Not a value of the item, fewer than 8 digits: cannot be told from a phone or invoice number.
			phone: 'call 555-0199',
			due: 'due 2026-01-31',
			amount: 1250000.5,
			rate: 7.123456789,
		});
		const [item] = await maskedList();
		expect(item).toMatchObject({
			referenceBeneficiaryId: 'REF-SML-00001',
			beneficiaryNick: 'Supplier ****5678',
			extendInfo: {
				linked: 'linked ****3000',
				supplier: '****3456 priority',
				orderNo: '****4321',
				phone: 'call 555-0199',
				due: 'due 2026-01-31',
				amount: 1250000.5,
				rate: 7.123456789,
			},
		});
	});
});
