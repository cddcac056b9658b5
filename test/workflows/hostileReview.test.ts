/**
 * What a hostile review of Mask Bank Details, the status U reports and the changing-list count
 * proved (each was a defect, now fixed), through n8n's engine against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { list, useSimulator } from '../support/helpers';
import { CHANGED, later, makeApp, U, useClock } from '../support/pollerApp';

const { sim } = useSimulator();

const first = () => sim().beneficiaries('CUST_SMALL')[0] as unknown as IDataObject;
const masked = async () => {
	const run = await list(sim(), { returnAll: true, options: { customerId: 'CUST_SMALL', maskBankDetails: true } });
	expect(run.status).toBe('success');
	return JSON.stringify(run.json);
};

describe('Mask Bank Details: no whole bank value, however the item repeats it', () => {
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

describe('Mask Bank Details in the trigger (version 2, on by default)', () => {
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

describe('status U back-off', () => {
	useClock();
	const app = makeApp(sim);
	const quotaRequests = () => sim().requests.filter((r) => r.path.includes('AvailableQuota')).length;

	it('durable cursors: a restart right after the start was reported repeats it at most once, as documented', async () => {
		const n8n = app(CHANGED, 'durable');
		expect((await n8n.activate()).error).toBeUndefined();
		sim().addFault({ fault: 'answer', operation: 'quota', answer: U });
		const first = await n8n.poll();
		expect(first.error?.description).toMatch(/stops asking this question/);
		// The poll that reports throws, which no poller saves: a restart before the next poll forgets it.
		await n8n.restart();
		const failed: number[] = [];
		for (let minute = 1; minute < 60; minute++) {
			later(1);
			if ((await n8n.poll()).error) failed.push(minute);
		}
		expect(failed).toHaveLength(1);
		// After the repeat, the back-off holds under durable cursors: asked at 5 minutes' steps, not every minute.
		expect(quotaRequests()).toBeLessThan(8);
	});
});

describe('a list that changed while read', () => {
	it('"the 3rd poll in a row": a poll that failed otherwise breaks the row', async () => {
		const state: IDataObject = {};
		const removed = activateTrigger({
			parameters: { event: 'beneficiaryRemoved', options: { customerId: 'CUST_LARGE' } },
			credentials: sandboxCredentials(sim().url),
			staticData: state,
		});
		expect((await removed.poll()).ok).toBe(true);
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 4 });
		expect(await removed.poll()).toEqual({ ok: true, items: null });
		sim().addFault({
			fault: 'answer',
			operation: 'list',
			answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
			times: 1,
		});
		expect((await removed.poll()).ok).toBe(false);
		sim().clearFaults();
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 8 });
		expect(await removed.poll()).toEqual({ ok: true, items: null });
		const second = await removed.poll();
		expect(second.ok ? 'quiet' : second.error.description).toBe('quiet');
	});
});
