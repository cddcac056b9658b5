import type { INodeParameters } from 'n8n-workflow';

import { list, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

/** Each breaks one rule of spec sections 2 and 8; none may leave the machine. */
const LIST_CASES: Array<[string, INodeParameters, RegExp]> = [
	[
		'an invalid IBAN (spaces)',
		{ filters: { bankAccountIBAN: 'GB29 NWBK 6016 1331 9268 19' } },
		/bankAccountIBAN "\*\*\*\*8 19" does not match the pattern/,
	],
	[
		'an invalid IBAN (no check digits)',
		{ filters: { bankAccountIBAN: 'GBXXNWBK60161331926819' } },
		/bankAccountIBAN .* does not match/,
	],
	[
		'an IBAN over 34 characters',
		{ filters: { bankAccountIBAN: `GB29${'A'.repeat(31)}` } },
		/bankAccountIBAN is 35 characters long; the API accepts at most 34/,
	],
	[
		'a lower-case bank account number',
		{ filters: { bankAccountNo: 'abc123' } },
		/bankAccountNo "\*\*\*\*c123" does not match the pattern/,
	],
	['a bank account number over 34', { filters: { bankAccountNo: '1'.repeat(35) } }, /bankAccountNo .* does not match/],
	[
		'a nickname of 71 characters',
		{ filters: { beneficiaryNick: '深'.repeat(71) } },
		/beneficiaryNick is 71 characters long; the API accepts at most 70/,
	],
	[
		'a beneficiary token of 129 characters, without showing it',
		{ filters: { beneficiaryToken: 'A'.repeat(129) } },
		/beneficiaryToken is 129 characters long; the API accepts at most 128$/,
	],
	[
		'a reference ID of 65 characters',
		{ filters: { referenceBeneficiaryId: 'R'.repeat(65) } },
		/referenceBeneficiaryId is 65 characters long; the API accepts at most 64/,
	],
	[
		'an unsupported currency',
		{ filters: { currencyList: '={{ ["USD", "CHF"] }}' } },
		/currencyList contains "CHF", which is not one of AUD, CAD, CNH, CNY, EUR, GBP, HKD, JPY, KRW, NZD, SGD, USD$/,
	],
	['a duplicated currency', { filters: { currencyList: '={{ ["USD", "USD"] }}' } }, /currencyList lists a value twice/],
	[
		'an unknown asset type',
		{ filters: { assetType: '={{ "ALIPAY_ACCOUNT" }}' } },
		/assetType "ALIPAY_ACCOUNT" is not one of BANK_ACCOUNT, WALLET_ACCOUNT/,
	],
	['an unknown relation', { filters: { relationFilter: '={{ ["FAMILY"] }}' } }, /relationFilter contains "FAMILY"/],
	['a limit of 0', { returnAll: false, limit: 0 }, /Limit must be a whole number of at least 1/],
	['a timeout of 999 ms', { options: { timeout: 999 } }, /Timeout must be a whole number from 1000 to 300000, got 999/],
];

describe('rules of spec sections 2 and 8 are checked before sending', () => {
	it.each(LIST_CASES)('list: %s', async (_name, parameters, message) => {
		const run = await list(sim(), { returnAll: true, ...parameters });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(message);
		expect(run.error?.description).toMatch(/Nothing was sent/);
		expect(sim().requests).toHaveLength(0);
	});

	it('list: an access token over 64 characters, without showing it', async () => {
		const token = `secret-${'x'.repeat(60)}`;
		const run = await list(sim(), { returnAll: true, options: { accessToken: token } });
		expect(run.error?.message).toMatch(/accessToken is 67 characters long; the API accepts at most 64$/);
		expect(JSON.stringify(run.error)).not.toContain(token);
		expect(sim().requests).toHaveLength(0);
	});

	const QUOTA_CASES: Array<[string, INodeParameters, RegExp]> = [
		[
			'an unknown method',
			{ quotaAccumulationMethod: '={{ "EMAIL" }}' },
			/quotaAccumulationMethod "EMAIL" is not one of USER_ID/,
		],
		['a blank accumulation ID', { quotaAccumulationId: '   ' }, /quotaAccumulationId is required: the service user ID/],
		[
			'an accumulation ID expression that gives nothing',
			{ quotaAccumulationId: '={{ "" }}' },
			/^Accumulation ID is an expression that gave "" for item 0, so nothing was sent for this item$/,
		],
		[
			'a currency that is not 3 letters',
			{ currency: 'US' },
			/^currency "US" is not one of \d+ currency codes \(ISO 4217 and CNH, such as USD, EUR\)$/,
		],
		[
			'a currency with a digit',
			{ currency: 'U5D' },
			/currency "U5D" is not one of \d+ currency codes \(ISO 4217 and CNH/,
		],
		['a currency of another case that is no code', { currency: '={{ "xau" }}' }, /currency "XAU" is not one of/],
		[
			'a 3-letter code that is no currency of the list (gold)',
			{ currency: '={{ "XAU" }}' },
			/currency "XAU" is not one of \d+ currency codes \(ISO 4217 and CNH/,
		],
		[
			'BENEFICIARY without trade type',
			{ quotaAccumulationMethod: 'BENEFICIARY', tradeType: '={{ "" }}' },
			/tradeType \(GOODS or SERVICE\) is required when quotaAccumulationMethod is BENEFICIARY/,
		],
		[
			'BENEFICIARY with an unknown trade type',
			{ quotaAccumulationMethod: 'BENEFICIARY', tradeType: '={{ "SHIPPING" }}' },
			/tradeType "SHIPPING" is not one of GOODS, SERVICE/,
		],
		[
			'an access token over 64 characters',
			{ options: { accessToken: 'y'.repeat(65) } },
			/accessToken is 65 characters long/,
		],
	];
	it.each(QUOTA_CASES)('quota: %s', async (_name, parameters, message) => {
		const run = await quota(sim(), {
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: 'U-1001',
			currency: 'USD',
			...parameters,
		});
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(message);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('credential problems are reported before anything is sent', () => {
	it.each([
		['a junk private key', { privateKey: 'not a key' }, /Private Key in the credential could not be read/],
		[
			'a private key as service public key',
			{ servicePublicKey: '=PRIVATE' },
			/Service Public Key in the credential holds a private key/,
		],
		['plain http to a remote host', { baseUrl: 'http://gateway.example.com' }, /does not use https/],
	])('%s', async (_name, credentials, message) => {
		const creds = { ...credentials } as Record<string, string>;
		if (creds.servicePublicKey === '=PRIVATE')
			creds.servicePublicKey = (await import('../../sandbox/server')).readSandboxKey('demo-partner-private.pem');
		const run = await list(sim(), { returnAll: true }, { credentials: creds });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(message);
		expect(JSON.stringify(run.error)).not.toMatch(/MII[A-Za-z0-9+/]{20}|not a key/);
		expect(sim().requests).toHaveLength(0);
	});

	it('a wrong service public key: the response is not verified, nothing is emitted', async () => {
		const { readSandboxKey } = await import('../../sandbox/server');
		const run = await list(
			sim(),
			{ returnAll: true },
			{ credentials: { servicePublicKey: readSandboxKey('demo-partner-public.pem') } },
		);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/response signature could not be verified/);
		expect(run.error?.description).toMatch(/Service Public Key/);
	});
});
