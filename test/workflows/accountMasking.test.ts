/**
 * No full account number in any message: a receiving or virtual account that the gateway echoes
 * in a quota failure, or a bank filter of the listing, is masked in the error, the error item and
 * resultMessage, whatever its shape or case, as it is in the node parameters attached to the error;
 * other account-like runs in the gateway's text are masked too, and the node's own figures are not.
 */
import { list, quota, useSimulator } from '../support/helpers';

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
		// The message starts with the subject, its account by its last four as well.
		const subject = `own ${method} ${masked} USD`;
		// The code and its meaning in the message; the gateway's words, masked, in resultMessage only.
		expect(failed.error?.message).toBe(`${subject}: The API answered ACCOUNT_NOT_EXIST: the account does not exist`);
		expect(produced(failed)).not.toContain(id);

		const continued = await quota(sim(), parameters, { continueOnFail: true });
		expect(continued.json).toEqual([
			expect.objectContaining({
				error: `${subject}: The API answered ACCOUNT_NOT_EXIST: the account does not exist`,
				whoseAccount: 'own',
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
		expect(String(run.json[0].description)).toBe(
			'Check the Accumulation ID and the Connected Account ID, then run again.',
		);
	});

	it('a stale answer keeps its times and seconds: our own figures are not account numbers', async () => {
		sim().addFault({ fault: 'staleTime', operation: 'quota' });
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: 'RECEIVING_ACCOUNT', quotaAccumulationId: 'RA-2001', currency: 'USD' },
			{ continueOnFail: true },
		);
		expect(String(run.json[0].error)).toMatch(/The answer is not fresh: it is 6\d\d s old by this n8n host's clock$/);
		expect(String(run.json[0].description)).toMatch(
			/^Its `response-time` is \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00 and this host's clock said \d{4}-\d{2}-\d{2}T[\d:.]+Z; the credential's Response Time Tolerance accepts at most 300 s\./,
		);
	});
});

/** A signed F answer whose resultMessage the gateway wrote. */
function gatewaySays(message: string, operation: 'list' | 'quota') {
	sim().addFault({ fault: 'answer', operation, answer: { status: 'F', code: 'PARAM_ILLEGAL', message } });
}

/** The letters and digits of a text, in upper case: an account in whatever grouping or case. */
const compact = (text: string) => text.replace(/[^A-Za-z0-9]/g, '').toUpperCase();

describe("the request's own account, echoed by the gateway in another shape or case", () => {
	const cases: Array<[string, 'RECEIVING_ACCOUNT' | 'VIRTUAL_ACCOUNT', string, string, string]> = [
		[
			'dotted groups',
			'RECEIVING_ACCOUNT',
			'6222021234567890',
			'Account 6222.0212.3456.7890 is frozen',
			'Account ****7890 is frozen',
		],
		['lower case', 'VIRTUAL_ACCOUNT', 'VA20240001', 'Account va20240001 is frozen', 'Account ****0001 is frozen'],
		[
			'lower case, few digits',
			'VIRTUAL_ACCOUNT',
			'VA-0099',
			'virtual account va-0099 unknown',
			'virtual account ****0099 unknown',
		],
		[
			'slashes',
			'RECEIVING_ACCOUNT',
			'6222021234567890',
			'Account 6222/0212/3456/7890 is frozen',
			'Account ****7890 is frozen',
		],
	];
	it.each(cases)("the quota's accumulation ID in %s", async (_name, method, id, message, shown) => {
		gatewaySays(message, 'quota');
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: method, quotaAccumulationId: id, currency: 'USD' },
			{
				continueOnFail: true,
			},
		);
		expect(run.json[0].resultCode).toBe('PARAM_ILLEGAL');
		expect(run.json[0].resultMessage).toBe(shown);
		expect(compact(produced(run))).not.toContain(compact(id));
	});

	it("the listing's IBAN filter echoed in lower case", async () => {
		const iban = 'GB29NWBK60161331926819';
		gatewaySays(`No beneficiary with IBAN ${iban.toLowerCase()}`, 'list');
		const run = await list(sim(), { returnAll: true, filters: { bankAccountIBAN: iban } }, { continueOnFail: true });
		expect(run.json[0].resultCode).toBe('PARAM_ILLEGAL');
		expect(run.json[0].resultMessage).toBe('No beneficiary with IBAN ****6819');
		expect(produced(run).toUpperCase()).not.toContain(iban);
	});

	it("the listing's bank account number filter echoed in dotted groups", async () => {
		gatewaySays('No beneficiary with account 6222.0212.3456.78', 'list');
		const run = await list(
			sim(),
			{ returnAll: true, filters: { bankAccountNo: '62220212345678' } },
			{ continueOnFail: true },
		);
		expect(run.json[0].resultMessage).toBe('No beneficiary with account ****5678');
	});
});

describe("other accounts in the gateway's text, in any case and grouping, are masked; our own figures are not", () => {
	const cases: Array<[string, string, string]> = [
		['a lower-case IBAN', 'linked account de89370400440532013000 is closed', 'linked account ****3000 is closed'],
		['a mixed-case prefix', 'linked account Acct6222021234567890 is closed', 'linked account ****7890 is closed'],
		['a five-letter prefix', 'linked account ACCNO6222021234567890 is closed', 'linked account ****7890 is closed'],
		['dotted groups', 'linked account 6222.0212.3456.7890 is closed', 'linked account ****7890 is closed'],
		['underscore groups', 'linked account 6222_0212_3456_7890 is closed', 'linked account ****7890 is closed'],
		[
			'full-width digits',
			'linked account ６２２２０２１２３４５６７８９０ is closed',
			'linked account ****7890 is closed',
		],
		[
			'our own figures beside them',
			'account 6222.0212.3456.7890 closed on 31.01.2026 at 12:00; retry in 300 s (code 42, 3 of 200, 1250000.00 USD)',
			'account ****7890 closed on 31.01.2026 at 12:00; retry in 300 s (code 42, 3 of 200, 1250000.00 USD)',
		],
	];
	it.each(cases)('%s', async (_name, message, shown) => {
		gatewaySays(message, 'quota');
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD' },
			{
				continueOnFail: true,
			},
		);
		expect(run.json[0].resultCode).toBe('PARAM_ILLEGAL');
		expect(run.json[0].resultMessage).toBe(shown);
	});
});
