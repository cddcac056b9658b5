/**
 * Mask Bank Details when an item repeats a bank value somewhere else (a JSON number, a key, after
 * a hyphen, URL-encoded, in full-width digits, joined to a currency code), in the action node's
 * items and in the trigger's Added, Removed and Changed items (on by default), through
 * n8n's engine against the simulator. Each test says where the masked value now stands (its last
 * four kept) and that the rest of the item is there, as well as what is gone.
 */
import type { IDataObject } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { list, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

const first = () => sim().beneficiaries('CUST_SMALL')[0] as unknown as IDataObject;
/** What a masked item keeps whole of `b`: the fields that say who the beneficiary is. */
const kept = (b: IDataObject) => ({
	accountName: b.accountName,
	currency: b.currency,
	bankName: b.bankName,
	status: b.status,
});
/** The listing with Mask Bank Details on: every item, the first one, and all of them as text. */
const masked = async () => {
	const before = { ...first() };
	const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL', options: { maskBankDetails: true } });
	expect(run.status).toBe('success');
	expect(run.json).toHaveLength(sim().beneficiaries('CUST_SMALL').length);
	const item = run.json[0];
	expect(item).toMatchObject(kept(before));
	return { item, extendInfo: item.extendInfo as IDataObject, out: JSON.stringify(run.json) };
};

describe('the action node: no whole bank value, however the item repeats it', () => {
	it('an account number the gateway echoes as a JSON number in extendInfo', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		(b.extendInfo as IDataObject).payToAccount = 6222021234567890;
		const { item, extendInfo, out } = await masked();
		expect(out).not.toContain('6222021234567890');
		expect(item).toMatchObject({ bankAccountNo: '****7890', referenceBeneficiaryId: b.referenceBeneficiaryId });
		expect(extendInfo).toMatchObject({ payToAccount: '****7890', tags: ['supplier'] });
	});

	it('a Reference Beneficiary ID that embeds the account number after a hyphen', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		b.referenceBeneficiaryId = 'REF-6222021234567890';
		const { item, out } = await masked();
		expect(out).not.toContain('6222021234567890');
		expect(item).toMatchObject({ referenceBeneficiaryId: 'REF-****7890', bankAccountNo: '****7890' });
	});

	it('a beneficiary token URL-encoded in extendInfo', async () => {
		const b = first();
		// Base64 of a test text, with + and / in it: not a secret.
		const token = Buffer.from('foo\xfbbar-baz\xfcquxquuxcorge', 'latin1').toString('base64');
		b.beneficiaryToken = token;
		(b.extendInfo as IDataObject).detailsUrl = `https://example.com/b?token=${encodeURIComponent(token)}`;
		const { item, extendInfo, out } = await masked();
		expect(out).not.toContain(encodeURIComponent(token));
		expect(item.beneficiaryToken).toBe(`****${token.slice(-4)}`);
		expect(extendInfo.detailsUrl).toBe(`https://example.com/b?token=****${token.slice(-4)}`);
	});

	it('an account number as a key of extendInfo', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		(b.extendInfo as IDataObject).limits = { '6222021234567890': 'daily' };
		const { extendInfo, out } = await masked();
		expect(out).not.toContain('6222021234567890');
		expect(extendInfo.limits).toEqual({ '****7890': 'daily' });
	});

	it('a short account number written in full-width digits in the nickname', async () => {
		const b = first();
		b.bankAccountNo = '4567123';
		b.beneficiaryNick = '家賃 ４５６７１２３';
		const { item, out } = await masked();
		expect(out).not.toContain('4567123');
		expect(out).not.toContain('４５６７１２３');
		expect(item).toMatchObject({ beneficiaryNick: '家賃 ****7123', bankAccountNo: '****7123' });
	});

	it('an account number joined to a currency code in extendInfo ("6222021234567890CNY")', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		(b.extendInfo as IDataObject).booking = `${b.bankAccountNo}CNY`;
		const { extendInfo, out } = await masked();
		expect(out).not.toContain('6222021234567890');
		expect(extendInfo.booking).toBe('****7890CNY');
	});

	it('a token after a hyphen in extendInfo', async () => {
		const b = first();
		const token = Buffer.from('foobarbazquxquuxcorge').toString('base64');
		b.beneficiaryToken = token;
		(b.extendInfo as IDataObject).ref = `tok-${token}`;
		const { extendInfo, out } = await masked();
		expect(out).not.toContain(token);
		expect(extendInfo.ref).toBe(`tok-****${token.slice(-4)}`);
	});
});

describe('the trigger (on by default): Added, Removed and Changed items masked alike', () => {
	// The whole item (Simplify off): every field it carries is masked, not only those a simplified item keeps.
	const poller = (event: string) =>
		activateTrigger({
			parameters: { events: [event], customerIds: 'CUST_SMALL', options: { simplify: false } },
			credentials: sandboxCredentials(sim().url),
			staticData: {},
		});
	const emitted = async (p: ReturnType<typeof poller>) => {
		const result = await p.poll();
		if (!result.ok) throw result.error;
		return result.items?.map((item) => item.json) ?? null;
	};

	it('Mask Bank Details given by an expression that gives nothing masks, as it does unset', async () => {
		const p = activateTrigger({
			parameters: {
				events: ['beneficiaryAdded'],
				customerIds: 'CUST_SMALL',
				options: { maskBankDetails: '={{ $vars.MASK ?? "" }}', simplify: false },
			},
			credentials: sandboxCredentials(sim().url),
			staticData: {},
			mode: 'manual',
		});
		const items = (await emitted(p)) ?? [];
		const listed = sim().beneficiaries('CUST_SMALL');
		expect(JSON.stringify(items)).not.toContain(listed[0].beneficiaryToken);
		// Fetch Test Event: a sample of the entry's first, masked.
		expect(items.map((item) => [item.event, item.referenceBeneficiaryId, item.beneficiaryToken])).toEqual(
			listed
				.slice(0, 1)
				.map((b) => ['beneficiaryAdded', b.referenceBeneficiaryId, `****${b.beneficiaryToken.slice(-4)}`]),
		);
	});

	it('a Removed item masks an account number used as the Reference Beneficiary ID, as the Added item did', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		b.referenceBeneficiaryId = '6222021234567890';
		const sample = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL', options: { maskBankDetails: true } });
		expect(JSON.stringify(sample.json)).not.toContain('6222021234567890');
		expect(sample.json[0]).toMatchObject({ referenceBeneficiaryId: '****7890', beneficiaryNick: b.beneficiaryNick });
		const removing = poller('beneficiaryRemoved');
		expect(await emitted(removing)).toBeNull();
		sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const items = await emitted(removing);
		expect(JSON.stringify(items)).not.toContain('6222021234567890');
		expect(items).toEqual([
			expect.objectContaining({
				event: 'beneficiaryRemoved',
				referenceBeneficiaryId: '****7890',
				bankAccountNo: '****7890',
				beneficiaryNick: b.beneficiaryNick,
			}),
		]);
	});

	it('a Removed item masks a short account number written in its nickname (it ends in the kept last four)', async () => {
		const b = first();
		b.bankAccountNo = '4567123';
		b.beneficiaryNick = 'Rent 4567123';
		const removing = poller('beneficiaryRemoved');
		expect(await emitted(removing)).toBeNull();
		sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const items = await emitted(removing);
		expect(JSON.stringify(items)).not.toContain('4567123');
		expect(items).toEqual([
			expect.objectContaining({
				event: 'beneficiaryRemoved',
				referenceBeneficiaryId: b.referenceBeneficiaryId,
				beneficiaryNick: 'Rent ****7123',
				bankAccountNo: '****7123',
			}),
		]);
	});

	it('a Changed item masks the old short account number in changes.beneficiaryNick.before', async () => {
		const b = first();
		b.bankAccountNo = '4567123';
		b.beneficiaryNick = 'Rent 4567123';
		const changing = poller('beneficiaryChanged');
		expect(await emitted(changing)).toBeNull();
		b.bankAccountNo = '9876543';
		b.beneficiaryNick = 'Rent 9876543';
		const items = await emitted(changing);
		expect(JSON.stringify(items)).not.toContain('4567123');
		expect(items).toEqual([
			expect.objectContaining({
				event: 'beneficiaryChanged',
				referenceBeneficiaryId: b.referenceBeneficiaryId,
				changes: {
					beneficiaryNick: { before: 'Rent ****7123', after: 'Rent ****6543' },
					bankAccountNo: { before: '****7123', after: '****6543' },
				},
			}),
		]);
	});
});
