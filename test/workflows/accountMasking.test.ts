/**
 * No full account number in any message: a receiving or virtual account that the gateway echoes
 * in a quota failure is masked in the error, the error item and resultMessage, whatever its shape,
 * as it is in the node parameters attached to the error; other account-like runs in the gateway's
 * text are masked too, and the node's own figures are not.
 */
import { quota, useSimulator } from './helpers';

const { sim } = useSimulator();

const SHAPES: Array<[string, 'RECEIVING_ACCOUNT' | 'VIRTUAL_ACCOUNT', string]> = [
	['hyphens', 'RECEIVING_ACCOUNT', '6222-0212-3456'],
	['fewer than 8 digits', 'RECEIVING_ACCOUNT', '1234567'],
	['a letter prefix', 'VIRTUAL_ACCOUNT', 'VA-0099'],
	['a letter prefix and 8 digits', 'VIRTUAL_ACCOUNT', 'VA20240001'],
];

/** Every text the run produced about the failure, as n8n stores and shows it. */
const produced = (run: Awaited<ReturnType<typeof quota>>) =>
	[JSON.stringify(run.run.data.resultData), JSON.stringify(run.items), JSON.stringify(run.error ?? null)].join('\n');

describe('a quota failure that echoes the accumulation ID shows it by its last four characters only', () => {
	it.each(SHAPES)('ACCOUNT_NOT_EXIST, an ID with %s', async (_name, method, id) => {
		const parameters = { quotaAccumulationMethod: method, quotaAccumulationId: id, currency: 'USD' };
		const masked = `****${id.slice(-4)}`;

		const failed = await quota(sim(), parameters);
		expect(failed.status).toBe('error');
		expect(failed.error?.message).toBe(`The API answered ACCOUNT_NOT_EXIST: No ${method} ${masked}`);
		expect(produced(failed)).not.toContain(id);

		const continued = await quota(sim(), parameters, { continueOnFail: true });
		expect(continued.json).toEqual([
			expect.objectContaining({
				error: `The API answered ACCOUNT_NOT_EXIST: No ${method} ${masked}`,
				resultCode: 'ACCOUNT_NOT_EXIST',
				resultMessage: `No ${method} ${masked}`,
			}),
		]);
		expect(produced(continued)).not.toContain(id);
	});

	it('PARAM_ILLEGAL for a currency the account does not hold', async () => {
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: 'RECEIVING_ACCOUNT', quotaAccumulationId: 'RA-2001', currency: 'EUR' },
			{ continueOnFail: true },
		);
		expect(run.json[0].resultMessage).toBe('****2001 holds quota in USD, not EUR');
		expect(produced(run)).not.toContain('RA-2001');
	});

	it('the ID regrouped, and other accounts of any shape the gateway names, are masked too', async () => {
		sim().addFault({ fault: 'echoAccount', operation: 'quota' });
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: 'RECEIVING_ACCOUNT', quotaAccumulationId: '6222-0212-3456', currency: 'USD' },
			{ continueOnFail: true },
		);
		expect(run.json[0].resultMessage).toBe(
			'Account ****3456 (****3456, ****3456) does not exist; linked accounts ****7890, ****3456 and ****8 19',
		);
		const text = produced(run);
		for (const full of ['6222-0212-3456', '622202123456', '6222 0212 3456', '6222-0212-3456-7890', 'VA00123456'])
			expect(text).not.toContain(full);
		expect(text).not.toContain('6016 1331');
	});

	it('a user ID is no account number: the gateway text keeps it, and the node keeps its own figures', async () => {
		sim().addFault({ fault: 'echoAccount', operation: 'quota' });
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD' },
			{ continueOnFail: true },
		);
		expect(String(run.json[0].resultMessage)).toMatch(/^Account U-1001 \(1001, 1001\) does not exist/);
		expect(String(run.json[0].description)).toContain('Check the account (the accumulation ID or Connected Account ID)');
	});

	it('a stale answer keeps its times and seconds: our own figures are not account numbers', async () => {
		sim().addFault({ fault: 'staleTime', operation: 'quota' });
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: 'RECEIVING_ACCOUNT', quotaAccumulationId: 'RA-2001', currency: 'USD' },
			{ continueOnFail: true },
		);
		expect(String(run.json[0].error)).toMatch(
			/response-time \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00 is 6\d\d s old .*\(\d{4}-\d{2}-\d{2}T[\d:.]+Z\); at most 300 s/,
		);
	});
});
