/**
 * The simulator's admin routes (sandbox/http.ts `__admin/`), as docs/simulator.md calls them with
 * curl: each a change a trigger reports, seen through the node or the trigger in n8n's engine.
 * set-quota keeps what it is not given (an EUR subject stays EUR) and refuses, naming the field,
 * what the gateway could not answer with; a payee without a Reference Beneficiary ID (CUST_NO_REF)
 * gets new bank details in one call, which the trigger reports as a possible bank change.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../sandbox/engine';
import { quota, useSimulator } from './support/helpers';
import { customerTrigger } from './support/watchShapes';

const { sim } = useSimulator();

async function admin(action: string, body: unknown): Promise<{ status: number; json: IDataObject }> {
	const response = await fetch(`${sim().url}/__admin/${action}`, {
		method: 'POST',
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
	return { status: response.status, json: (await response.json()) as IDataObject };
}

const EUR_SUBJECT = { quotaAccumulationMethod: 'VIRTUAL_ACCOUNT', quotaAccumulationId: 'VA-3001', currency: 'EUR' };

/** The trigger (version 1) activated against the simulator: its first poll records the baseline. */
async function activated(parameters: INodeParameters) {
	const poller = activateTrigger({
		parameters,
		credentials: sandboxCredentials(sim().url),
		staticData: {},
		typeVersion: 1,
	});
	expect(await poller.poll()).toEqual({ ok: true, items: null });
	return async (): Promise<IDataObject[]> => {
		const result = await poller.poll();
		if (!result.ok) throw result.error;
		return (result.items ?? []).map((item) => item.json);
	};
}

describe('__admin/set-quota', () => {
	it("without currency keeps the subject's own (EUR): the node reads the new value in EUR", async () => {
		const set = await admin('set-quota', { method: 'VIRTUAL_ACCOUNT', id: 'VA-3001', value: '1000000' });
		expect(set).toEqual({ status: 200, json: expect.objectContaining({ value: '1000000', currency: 'EUR' }) });
		const run = await quota(sim(), EUR_SUBJECT);
		expect(run.status).toBe('success');
		expect(run.json).toEqual([
			expect.objectContaining({ availableQuota: { currency: 'EUR', value: '1000000' }, availableQuotaAmount: 10000 }),
		]);
	});

	it('without value keeps the value: only the currency moves', async () => {
		const set = await admin('set-quota', { method: 'RECEIVING_ACCOUNT', id: 'RA-2001', currency: 'EUR' });
		expect(set).toEqual({ status: 200, json: expect.objectContaining({ value: '98765432', currency: 'EUR' }) });
		const run = await quota(sim(), {
			...EUR_SUBJECT,
			quotaAccumulationMethod: 'RECEIVING_ACCOUNT',
			quotaAccumulationId: 'RA-2001',
		});
		expect(run.json).toEqual([expect.objectContaining({ availableQuotaAmount: 987654.32 })]);
	});

	it.each([['eur'], ['EURO'], ['E1R'], [''], [978]])(
		'currency %j is refused with a 400 naming the field; the quota stays as it was',
		async (currency) => {
			const set = await admin('set-quota', { method: 'VIRTUAL_ACCOUNT', id: 'VA-3001', value: '1', currency });
			expect(set.status).toBe(400);
			expect(set.json.error).toMatch(/^currency .* is not a 3-letter upper-case currency code/);
			const run = await quota(sim(), EUR_SUBJECT);
			expect(run.json).toEqual([expect.objectContaining({ availableQuotaAmount: 42000.5 })]);
		},
	);

	it.each([
		[{ id: 'U-1001', value: '1' }, /^method is required/],
		[{ method: 'USER', id: 'U-1001', value: '1' }, /^method "USER" is not a quota accumulation method/],
		[{ method: 'USER_ID', id: 'U-1001', value: '12.50' }, /^value "12.50" is not a whole number/],
		[{ method: 'USER_ID', id: 'U-1001' }, /^value or currency is required: nothing to set/],
		[{ method: 'USER_ID', id: 'U-NEW', currency: 'USD' }, /^value is required: USER_ID U-NEW holds no quota/],
		[{ method: 'BENEFICIARY', id: 'B-4001', value: '1' }, /^tradeType is required for method BENEFICIARY/],
	])('%j is refused with a 400 naming the field', async (body, message) => {
		const set = await admin('set-quota', body);
		expect(set.status).toBe(400);
		expect(set.json.error).toMatch(message);
	});

	it('the trigger watching an EUR subject alerts below its threshold after set-quota without currency', async () => {
		const poll = await activated({
			events: ['quotaBelowThreshold'],
			quotas: { quota: [{ connectedAccountId: 'own', ...EUR_SUBJECT, threshold: 20000 }] },
		} as unknown as INodeParameters);
		expect((await admin('set-quota', { method: 'VIRTUAL_ACCOUNT', id: 'VA-3001', value: '1000000' })).status).toBe(200);
		expect(await poll()).toEqual([
			expect.objectContaining({
				event: 'quotaBelowThreshold',
				availableQuota: { currency: 'EUR', value: '1000000' },
				availableQuotaAmount: 10000,
			}),
		]);
	});
});

describe('a trigger event in one admin call', () => {
	const watching = (customerId: string, events: string[]) => customerTrigger('one', events, customerId);

	it('change-bank-details of a CUST_NO_REF payee, by its token: Added plus Removed, each naming the other', async () => {
		const [payee] = sim().beneficiaries('CUST_NO_REF');
		expect(payee.referenceBeneficiaryId).toBeUndefined();
		const before = payee.beneficiaryToken;
		const poll = await activated(
			watching('CUST_NO_REF', ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryBankDetailsChanged']),
		);
		const changed = await admin('change-bank-details', { customerId: 'CUST_NO_REF', beneficiaryToken: before });
		expect(changed.status).toBe(200);
		expect(changed.json.beneficiaryToken).not.toBe(before);
		const items = await poll();
		expect(items.map((item) => [item.event, item.beneficiaryNick])).toEqual([
			['beneficiaryAdded', payee.beneficiaryNick],
			['beneficiaryRemoved', payee.beneficiaryNick],
		]);
		expect(items[0].possibleBankChange).toMatchObject({
			event: 'beneficiaryRemoved',
			beneficiaryToken: `****${before.slice(-4)}`,
		});
		expect(items[1].possibleBankChange).toMatchObject({ event: 'beneficiaryAdded' });
	});

	it('change-beneficiary sets a nickname: Beneficiary Changed with the change', async () => {
		const poll = await activated(watching('CUST_SMALL', ['beneficiaryChanged', 'beneficiaryBankDetailsChanged']));
		const body = {
			customerId: 'CUST_SMALL',
			referenceBeneficiaryId: 'REF-SML-00003',
			set: { beneficiaryNick: 'Renamed' },
		};
		expect((await admin('change-beneficiary', body)).status).toBe(200);
		expect(await poll()).toEqual([
			expect.objectContaining({
				event: 'beneficiaryChanged',
				referenceBeneficiaryId: 'REF-SML-00003',
				changes: { beneficiaryNick: { before: 'Société USD #3', after: 'Renamed' } },
			}),
		]);
	});

	it.each([
		[{ customerId: 'CUST_SMALL', referenceBeneficiaryId: 'REF-SML-00003' }, /^set is required/],
		[
			{ customerId: 'CUST_SMALL', referenceBeneficiaryId: 'REF-SML-00003', set: { bankAccountNo: '1' } },
			/^set.bankAccountNo cannot be changed here/,
		],
		[
			{ customerId: 'CUST_SMALL', referenceBeneficiaryId: 'REF-NONE', set: { status: 'PENDING' } },
			/^no beneficiary REF-NONE for CUST_SMALL/,
		],
	])('change-beneficiary %j is refused with a 400 that says why', async (body, message) => {
		const answer = await admin('change-beneficiary', body);
		expect(answer.status).toBe(400);
		expect(answer.json.error).toMatch(message);
	});

	it('add-fault refuses a fault the catalogue does not have, listing those it has', async () => {
		const answer = await admin('add-fault', { fault: 'rateLimited' });
		expect(answer.status).toBe(400);
		expect(answer.json.error).toMatch(/^fault "rateLimited" is not in the catalogue: give one of .*\brateLimit\b/);
		expect((await admin('add-fault', { fault: 'rateLimit', times: 1 })).status).toBe(200);
	});
});
