/**
 * Mask Bank Details when an item repeats a bank value somewhere else (a JSON number, a key, after
 * a hyphen, URL-encoded, in full-width digits, joined to a currency code), in the action node's
 * items and in the trigger's Added, Removed and Changed items (version 2: on by default), through
 * n8n's engine against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { list, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

const first = () => sim().beneficiaries('CUST_SMALL')[0] as unknown as IDataObject;
const masked = async () => {
	const run = await list(sim(), { returnAll: true, options: { customerId: 'CUST_SMALL', maskBankDetails: true } });
	expect(run.status).toBe('success');
	return JSON.stringify(run.json);
};

describe('the action node: no whole bank value, however the item repeats it', () => {
	it('an account number the gateway echoes as a JSON number in extendInfo', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		(b.extendInfo as IDataObject).payToAccount = 6222021234567890;
		const out = await masked();
		expect(out).not.toContain('6222021234567890');
	});

	it('a Reference Beneficiary ID that embeds the account number after a hyphen', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		b.referenceBeneficiaryId = 'REF-6222021234567890';
		const out = await masked();
		expect(out).not.toContain('6222021234567890');
	});

	it('a beneficiary token URL-encoded in extendInfo', async () => {
		const b = first();
		// Base64 of a test text, with + and / in it: not a secret.
		const token = Buffer.from('foo\xfbbar-baz\xfcquxquuxcorge', 'latin1').toString('base64');
		b.beneficiaryToken = token;
		(b.extendInfo as IDataObject).detailsUrl = `https://example.com/b?token=${encodeURIComponent(token)}`;
		const out = await masked();
		expect(out).not.toContain(encodeURIComponent(token));
	});

	it('an account number as a key of extendInfo', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		(b.extendInfo as IDataObject).limits = { '6222021234567890': 'daily' };
		const out = await masked();
		expect(out).not.toContain('6222021234567890');
	});

	it('a short account number written in full-width digits in the nickname', async () => {
		const b = first();
		b.bankAccountNo = '4567123';
		b.beneficiaryNick = '家賃 ４５６７１２３';
		const out = await masked();
		expect(out).not.toContain('4567123');
		expect(out).not.toContain('４５６７１２３');
	});

	it('an account number joined to a currency code in extendInfo ("6222021234567890CNY")', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		(b.extendInfo as IDataObject).booking = `${b.bankAccountNo}CNY`;
		const out = await masked();
		expect(out).not.toContain('6222021234567890');
	});

	it('a token after a hyphen in extendInfo', async () => {
		const b = first();
		const token = Buffer.from('foobarbazquxquuxcorge').toString('base64');
		b.beneficiaryToken = token;
		(b.extendInfo as IDataObject).ref = `tok-${token}`;
		const out = await masked();
		expect(out).not.toContain(token);
	});
});

describe('the trigger (version 2, on by default): Added, Removed and Changed items masked alike', () => {
	const poller = (event: string) =>
		activateTrigger({
			parameters: { event, options: { customerId: 'CUST_SMALL' } },
			credentials: sandboxCredentials(sim().url),
			staticData: {},
			typeVersion: 2,
		});
	const emitted = async (p: ReturnType<typeof poller>) => {
		const result = await p.poll();
		if (!result.ok) throw result.error;
		return JSON.stringify(result.items?.map((item) => item.json) ?? null);
	};

	it('version 2: Mask Bank Details given by an expression that gives nothing masks, as version 2 does unset', async () => {
		const p = activateTrigger({
			parameters: {
				event: 'beneficiaryAdded',
				maskBankDetails: '={{ $vars.MASK ?? "" }}',
				options: { customerId: 'CUST_SMALL' },
			},
			credentials: sandboxCredentials(sim().url),
			staticData: {},
			typeVersion: 2,
			mode: 'manual',
		});
		const out = await emitted(p);
		expect(out).not.toContain(sim().beneficiaries('CUST_SMALL')[0].beneficiaryToken);
	});

	it('a Removed item masks an account number used as the Reference Beneficiary ID, as the Added item did', async () => {
		const b = first();
		b.bankAccountNo = '6222021234567890';
		b.referenceBeneficiaryId = '6222021234567890';
		const sample = await list(sim(), { returnAll: true, options: { customerId: 'CUST_SMALL', maskBankDetails: true } });
		expect(JSON.stringify(sample.json)).not.toContain('6222021234567890');
		const removing = poller('beneficiaryRemoved');
		expect(await emitted(removing)).toBe('null');
		sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const out = await emitted(removing);
		expect(out).toContain('beneficiaryRemoved');
		expect(out).not.toContain('6222021234567890');
	});

	it('a Removed item masks a short account number written in its nickname (it ends in the kept last four)', async () => {
		const b = first();
		b.bankAccountNo = '4567123';
		b.beneficiaryNick = 'Rent 4567123';
		const removing = poller('beneficiaryRemoved');
		expect(await emitted(removing)).toBe('null');
		sim().beneficiaries('CUST_SMALL').splice(0, 1);
		const out = await emitted(removing);
		expect(out).toContain('beneficiaryRemoved');
		expect(out).not.toContain('4567123');
	});

	it('a Changed item masks the old short account number in changes.beneficiaryNick.before', async () => {
		const b = first();
		b.bankAccountNo = '4567123';
		b.beneficiaryNick = 'Rent 4567123';
		const changing = poller('beneficiaryChanged');
		expect(await emitted(changing)).toBe('null');
		b.bankAccountNo = '9876543';
		b.beneficiaryNick = 'Rent 9876543';
		const out = await emitted(changing);
		expect(out).toContain('beneficiaryChanged');
		expect(out).not.toContain('4567123');
	});
});
