import type { IDataObject } from 'n8n-workflow';

import { createCustomers, type Beneficiary } from '../../sandbox/data';
import { list, listedAs, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const data = createCustomers();
const LARGE = data.get('CUST_LARGE')?.beneficiaries as Beneficiary[];
const SMALL = data.get('CUST_SMALL')?.beneficiaries as Beneficiary[];
/** The beneficiaries as listed, each with whose list it came from. */
const LISTED_LARGE = listedAs(LARGE, 'CUST_LARGE');
const LISTED_SMALL = listedAs(SMALL, 'CUST_SMALL');

const bodies = () => sim().requests.map((r) => JSON.parse(r.body) as IDataObject);
/** Requests for a listing of `pages` pages: read twice to confirm it when there is more than one. */
const confirmed = (pages: number) => (pages > 1 ? 2 * pages : pages);

describe('Get Many Beneficiaries through n8n’s engine', () => {
	it('returns every beneficiary of a customer with a few hundred, complete, in API order, no duplicates', async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.status).toBe('success');
		expect(run.json).toHaveLength(320);
		expect(new Set(run.json.map((b) => b.beneficiaryToken)).size).toBe(320);
		expect(run.json).toEqual(LISTED_LARGE);
		expect(bodies().map((b) => b.pageNumber)).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 6, 7]));
		expect(sim().requests).toHaveLength(confirmed(7));
	});

	it('keeps fields the API does not name, untouched', async () => {
		const run = await list(sim(), { returnAll: false, limit: 1, customerId: 'CUST_LARGE' });
		expect(run.json[0]).toEqual(LISTED_LARGE[0]);
		expect(run.json[0].extendInfo).toEqual(LARGE[0].extendInfo);
	});

	it.each([
		[7, 1],
		[50, 1],
		[51, 2],
		[120, 3],
		[320, 7],
		[1000, 7],
	])(
		'limit %i gives exactly that many (or all) and reads only %i page(s) (twice to confirm several)',
		async (limit, pages) => {
			const run = await list(sim(), { returnAll: false, limit, customerId: 'CUST_LARGE' });
			expect(run.json).toEqual(LISTED_LARGE.slice(0, limit));
			expect(sim().requests).toHaveLength(confirmed(pages));
		},
	);

	it("asks for every page at the API's largest size, 50, each page once a read", async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.json).toEqual(LISTED_LARGE);
		expect(bodies().every((b) => b.pageSize === 50)).toBe(true);
		const pages = bodies()
			.map((b) => b.pageNumber as number)
			.sort((a, b) => a - b);
		expect(pages).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]);
	});

	it('options a saved workflow may still hold (Page Size, Concurrency, Include Owner, Confirm Whole List) change nothing', async () => {
		const saved = { pageSize: 10, pageConcurrency: 1, includeOwner: false, confirmWholeList: false };
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE', options: saved }, { typeVersion: 1 });
		expect(run.status).toBe('success');
		expect(run.json).toEqual(LISTED_LARGE);
		expect(bodies().every((b) => b.pageSize === 50)).toBe(true);
		expect(sim().requests).toHaveLength(confirmed(7));
	});

	it('returns nothing, successfully, for a customer with no beneficiaries', async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_EMPTY' });
		expect(run.status).toBe('success');
		expect(run.json).toEqual([]);
		expect(sim().requests).toHaveLength(1);
	});

	it('lists your own account by default (Customer ID own), and sends no customer at all', async () => {
		const run = await list(sim(), { returnAll: true });
		expect(run.json).toHaveLength(12);
		expect(run.json.every((b) => b.whoseAccount === 'own')).toBe(true);
		expect(sim().requests[0].headers['connected-customerid']).toBeUndefined();
		expect(bodies()[0]).toEqual({ pageSize: 50, pageNumber: 1 });
	});

	it("sends the customer and the credential's access token in the signed body, and no Connected-CustomerId header", async () => {
		await list(
			sim(),
			{ returnAll: false, limit: 5, customerId: 'CUST_SMALL' },
			{ credentials: { accessToken: 'tok-123' } },
		);
		expect(sim().requests[0].headers['connected-customerid']).toBeUndefined();
		expect(bodies()[0]).toEqual({ accessToken: 'tok-123', customerId: 'CUST_SMALL', pageSize: 50, pageNumber: 1 });
	});

	describe('each filter narrows as the API says', () => {
		const sample = LARGE.find((b) => b.bankAccountIBAN) as Beneficiary;
		it.each([
			['beneficiaryToken', sample.beneficiaryToken],
			['beneficiaryNick', sample.beneficiaryNick],
			['referenceBeneficiaryId', sample.referenceBeneficiaryId],
			['bankAccountNo', sample.bankAccountNo],
			['bankAccountIBAN', sample.bankAccountIBAN],
		])('%s matches exactly', async (field, value) => {
			const run = await list(sim(), {
				returnAll: true,
				filters: { [field]: value },
				customerId: 'CUST_LARGE',
			});
			expect(run.json).toEqual(LISTED_LARGE.filter((b) => b[field as keyof Beneficiary] === value));
			expect(run.json.length).toBeGreaterThanOrEqual(1);
			expect(bodies()[0][field]).toBe(value);
		});

		it('currencyList keeps only those currencies', async () => {
			const run = await list(sim(), {
				returnAll: true,
				filters: { currencyList: ['USD', 'JPY'] },
				customerId: 'CUST_LARGE',
			});
			const expected = LISTED_LARGE.filter((b) => ['USD', 'JPY'].includes(b.currency));
			expect(expected.length).toBeGreaterThan(10);
			expect(run.json).toEqual(expected);
		});

		it.each(['BANK_ACCOUNT', 'WALLET_ACCOUNT'])('assetType %s', async (assetType) => {
			const run = await list(sim(), { returnAll: true, filters: { assetType }, customerId: 'CUST_LARGE' });
			expect(run.json).toEqual(LISTED_LARGE.filter((b) => b.assetType === assetType));
		});

		it.each([[['SAME_NAME']], [['THIRD_PARTY']], [['SAME_NAME', 'THIRD_PARTY']]])(
			'relationFilter %j',
			async (relationFilter) => {
				const run = await list(sim(), {
					returnAll: true,
					filters: { relationFilter },
					customerId: 'CUST_LARGE',
				});
				expect(run.json).toEqual(LISTED_LARGE.filter((b) => relationFilter.includes(b.relationType)));
			},
		);

		it.each([
			['深圳', 2],
			['zoë müller', 1],
			['GÉNÉRALE', 1],
			['サクラ', 1],
			['nobody by that name', 0],
		])('accountName %p matches fuzzily (%i)', async (accountName, count) => {
			const run = await list(sim(), {
				returnAll: true,
				filters: { accountName },
				customerId: 'CUST_SMALL',
			});
			expect(run.status).toBe('success');
			expect(run.json).toHaveLength(count);
			for (const b of run.json) expect(LISTED_SMALL).toContainEqual(b);
			expect(bodies()[0].accountName).toBe(accountName);
		});

		it('combines filters', async () => {
			const run = await list(sim(), {
				returnAll: true,
				filters: { currencyList: ['USD'], assetType: 'BANK_ACCOUNT', relationFilter: ['THIRD_PARTY'] },
				customerId: 'CUST_LARGE',
			});
			expect(run.json).toEqual(
				LISTED_LARGE.filter(
					(b) => b.currency === 'USD' && b.assetType === 'BANK_ACCOUNT' && b.relationType === 'THIRD_PARTY',
				),
			);
		});

		it('sends no empty filter fields', async () => {
			await list(sim(), {
				returnAll: false,
				limit: 1,
				filters: { beneficiaryNick: '', currencyList: [], accountName: '   ' },
			});
			expect(bodies()[0]).toEqual({ pageSize: 50, pageNumber: 1 });
		});
	});

	it('runs each input item with its own resolved parameters and pairs the output', async () => {
		const run = await list(
			sim(),
			{
				returnAll: true,
				customerId: '={{ $json.customer }}',
				filters: { accountName: '={{ $json.name }}' },
			},
			{
				items: [
					{ customer: 'CUST_SMALL', name: 'Zoë' },
					{ customer: 'CUST_EMPTY', name: 'x' },
					{ customer: 'CUST_SMALL', name: '深圳' },
				],
			},
		);
		expect(run.status).toBe('success');
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 2 }, { item: 2 }]);
		expect(run.json.map((b) => b.accountName)).toEqual([
			'Zoë Müller GmbH',
			'深圳市前海贸易有限公司',
			'深圳市前海贸易有限公司',
		]);
	});
});
