import type { IDataObject } from 'n8n-workflow';

import { quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const bodies = () => sim().requests.map((r) => JSON.parse(r.body) as IDataObject);

describe('Get Available Quota through n8n’s engine', () => {
	it.each([
		['USER_ID', 'U-1001', 'USD', undefined, { currency: 'USD', value: '1250000' }, 12500],
		['USER_ID', 'U-1002', 'USD', undefined, { currency: 'USD', value: '0' }, 0],
		['RECEIVING_ACCOUNT', 'RA-2001', 'USD', undefined, { currency: 'USD', value: '98765432' }, 987654.32],
		['RECEIVING_ACCOUNT', 'RA-JPY', 'JPY', undefined, { currency: 'JPY', value: '5000000' }, 5000000],
		// The gateway sends these two as numbers: the item's value is text whatever it sent.
		['VIRTUAL_ACCOUNT', 'VA-3001', 'EUR', undefined, { currency: 'EUR', value: '4200050' }, 42000.5],
		['VIRTUAL_ACCOUNT', 'VA-KRW', 'KRW', undefined, { currency: 'KRW', value: '75000000' }, 75000000],
		['BENEFICIARY', 'B-4001', 'USD', 'GOODS', { currency: 'USD', value: '3000000' }, 30000],
		['BENEFICIARY', 'B-4001', 'USD', 'SERVICE', { currency: 'USD', value: '150075' }, 1500.75],
	])('%s %s %s %s', async (method, id, currency, tradeType, availableQuota, amount) => {
		const run = await quota(sim(), {
			quotaAccumulationMethod: method,
			quotaAccumulationId: id,
			currency,
			...(tradeType ? { tradeType } : {}),
		});
		expect(run.status).toBe('success');
		expect(run.json).toEqual([
			{
				whoseAccount: 'own',
				subject: ['own', method, id, currency, tradeType].filter(Boolean).join(' '),
				quotaAccumulationMethod: method,
				quotaAccumulationId: id,
				...(tradeType ? { tradeType } : {}),
				availableQuota,
				availableQuotaAmount: amount,
			},
		]);
		expect(bodies()[0]).toEqual({
			quotaAccumulationMethod: method,
			quotaAccumulationId: id,
			currency,
			...(tradeType ? { tradeType } : {}),
		});
	});

	it('never sends tradeType for a method other than BENEFICIARY, even when the parameter holds a value', async () => {
		const run = await quota(sim(), {
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: 'U-1001',
			currency: 'USD',
			tradeType: 'SERVICE',
		});
		expect(run.status).toBe('success');
		expect(bodies()[0]).not.toHaveProperty('tradeType');
	});

	it('sends the Connected-AccountId header from the parameter and Access-Token from the credential', async () => {
		await quota(
			sim(),
			{
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: 'U-1001',
				currency: 'USD',
				connectedAccountId: 'ACC-77',
			},
			{ credentials: { accessToken: 'tok-9' } },
		);
		const { headers } = sim().requests[0];
		expect(headers['connected-accountid']).toBe('ACC-77');
		expect(headers['access-token']).toBe('tok-9');
		expect(bodies()[0]).not.toHaveProperty('accessToken');
	});

	it('accepts a lower-case currency and sends it upper-case', async () => {
		const run = await quota(sim(), {
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: 'U-1001',
			currency: 'usd',
		});
		expect(run.status).toBe('success');
		expect(bodies()[0].currency).toBe('USD');
	});

	it('gives one item per input item, each with its own expressions, paired', async () => {
		const run = await quota(
			sim(),
			{
				quotaAccumulationMethod: '={{ $json.method }}',
				quotaAccumulationId: '={{ $json.id }}',
				currency: '={{ $json.currency }}',
				tradeType: '={{ $json.trade }}',
			},
			{
				items: [
					{ method: 'USER_ID', id: 'U-1001', currency: 'USD' },
					{ method: 'BENEFICIARY', id: 'B-4001', currency: 'USD', trade: 'SERVICE' },
					{ method: 'RECEIVING_ACCOUNT', id: 'RA-JPY', currency: 'JPY' },
				],
			},
		);
		expect(run.status).toBe('success');
		expect(run.json.map((q) => q.availableQuotaAmount)).toEqual([12500, 1500.75, 5000000]);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});
});
