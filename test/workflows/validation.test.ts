import type { INodeParameters } from 'n8n-workflow';

import { list, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();

/** What n8n shows of a failed run: its title, then its description (the error's detail, then its hint). */
const shown = (run: { error?: { message?: string; description?: string } }) =>
	`${run.error?.message}. ${run.error?.description ?? ''}`;

/** Each breaks one rule of spec sections 2 and 8; none may leave the machine. */
const LIST_CASES: Array<[string, INodeParameters, RegExp]> = [
	[
		'an invalid IBAN (spaces)',
		{ filters: { bankAccountIBAN: 'GB29 NWBK 6016 1331 9268 19' } },
		/^own beneficiaries: Bank Account IBAN "\*{4}8 19" is not in the form the API accepts\. It must be a country code, two check digits, then up to 30 letters or digits, without spaces\. /,
	],
	[
		'an invalid IBAN (no check digits)',
		{ filters: { bankAccountIBAN: 'GBXXNWBK60161331926819' } },
		/^own beneficiaries: Bank Account IBAN "\*{4}6819" is not in the form the API accepts\. It must be a country code, two check digits/,
	],
	[
		'an IBAN over 34 characters',
		{ filters: { bankAccountIBAN: `GB29${'A'.repeat(31)}` } },
		/^own beneficiaries: Bank Account IBAN is 35 characters long, more than the API's 34\. It is "\*{4}AAAA"\. /,
	],
	[
		'a lower-case bank account number',
		{ filters: { bankAccountNo: 'abc123' } },
		/^own beneficiaries: Bank Account Number "\*{4}c123" is not in the form the API accepts\. It must be capital letters and digits only, at most 34 of them\. /,
	],
	[
		'a bank account number over 34',
		{ filters: { bankAccountNo: '1'.repeat(35) } },
		/^own beneficiaries: Bank Account Number "\*{4}1111" is not in the form the API accepts\. It must be capital letters and digits only, at most 34 of them\. /,
	],
	[
		'a nickname of 71 characters',
		{ filters: { beneficiaryNick: '深'.repeat(71) } },
		/^own beneficiaries: Beneficiary Nickname is 71 characters long, more than the API's 70\. It is "深{71}"\. /,
	],
	[
		'a beneficiary token of 129 characters, without showing it',
		{ filters: { beneficiaryToken: 'A'.repeat(129) } },
		/^own beneficiaries: Beneficiary Token is 129 characters long, more than the API's 128\. Correct Beneficiary Token/,
	],
	[
		'a reference ID of 65 characters',
		{ filters: { referenceBeneficiaryId: 'R'.repeat(65) } },
		/^own beneficiaries: Reference Beneficiary ID is 65 characters long, more than the API's 64\. It is "R{65}"\. /,
	],
	[
		'an unsupported currency',
		{ filters: { currencyList: '={{ ["USD", "CHF"] }}' } },
		/^own beneficiaries: Currencies has "CHF", which is not one of its choices\. Each of its values must be one of AUD, CAD, CNH, CNY, EUR, GBP, HKD, JPY, KRW, NZD, SGD, USD\. /,
	],
	[
		'a duplicated currency',
		{ filters: { currencyList: '={{ ["USD", "USD"] }}' } },
		/^own beneficiaries: Currencies lists "USD" twice\. Correct Currencies/,
	],
	[
		'an unknown asset type',
		{ filters: { assetType: '={{ "ALIPAY_ACCOUNT" }}' } },
		/^own beneficiaries: Asset Type "ALIPAY_ACCOUNT" is not one of its choices\. It must be one of BANK_ACCOUNT, WALLET_ACCOUNT\. /,
	],
	[
		'an unknown relation',
		{ filters: { relationFilter: '={{ ["FAMILY"] }}' } },
		/^own beneficiaries: Relation has "FAMILY", which is not one of its choices\. Each of its values must be one of SAME_NAME, THIRD_PARTY\. /,
	],
	['a limit of 0', { returnAll: false, limit: 0 }, /Limit must be a whole number of at least 1\. It is 0\. /],
	[
		'a timeout of 999 ms',
		{ options: { timeout: 999 } },
		/Timeout must be a whole number from 1000 to 300000\. It is 999\. Correct Timeout/,
	],
];

describe('rules of spec sections 2 and 8 are checked before sending', () => {
	it.each(LIST_CASES)('list: %s', async (_name, parameters, message) => {
		const run = await list(sim(), { returnAll: true, ...parameters });
		expect(run.status).toBe('error');
		expect(shown(run)).toMatch(message);
		expect(run.error?.description).toMatch(/Nothing was sent\.$/);
		expect(sim().requests).toHaveLength(0);
	});

	it("list: a credential's access token over 64 characters, without showing it", async () => {
		const token = `secret-${'x'.repeat(60)}`;
		const run = await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL' },
			{ credentials: { accessToken: token } },
		);
		expect(run.error?.message).toMatch(/Access Token is 67 characters long, more than the API's 64$/);
		expect(JSON.stringify(run.error)).not.toContain(token);
		expect(sim().requests).toHaveLength(0);
	});

	const QUOTA_CASES: Array<[string, INodeParameters, RegExp]> = [
		[
			'an unknown method',
			{ quotaAccumulationMethod: '={{ "EMAIL" }}' },
			/^own quota: Accumulation Method "EMAIL" is not one of its choices\. It must be one of USER_ID, RECEIVING_ACCOUNT, VIRTUAL_ACCOUNT, BENEFICIARY\. /,
		],
		[
			'a blank accumulation ID',
			{ quotaAccumulationId: '   ' },
			/^own quota: Accumulation ID is empty\. Enter the service user ID whose quota to read\. /,
		],
		[
			'an accumulation ID expression that gives nothing',
			{ quotaAccumulationId: '={{ "" }}' },
			/^own quota: Accumulation ID is empty\. Enter the service user ID whose quota to read\. /,
		],
		[
			'a currency that is not 3 letters',
			{ currency: 'US' },
			/^own quota: Currency "US" is not one of its choices\. It must be one of \d+ currency codes \(ISO 4217 and CNH, such as USD, EUR\)\. /,
		],
		[
			'a currency with a digit',
			{ currency: 'U5D' },
			/^own quota: Currency "U5D" is not one of its choices\. It must be one of \d+ currency codes \(ISO 4217 and CNH/,
		],
		[
			'a currency of another case that is no code',
			{ currency: '={{ "xau" }}' },
			/^own quota: Currency "XAU" is not one of its choices/,
		],
		[
			'a 3-letter code that is no currency of the list (gold)',
			{ currency: '={{ "XAU" }}' },
			/^own quota: Currency "XAU" is not one of its choices\. It must be one of \d+ currency codes \(ISO 4217 and CNH/,
		],
		[
			'BENEFICIARY without trade type',
			{ quotaAccumulationMethod: 'BENEFICIARY', tradeType: '={{ "" }}' },
			/^own quota: Trade Type \(GOODS or SERVICE\) is needed for Accumulation Method BENEFICIARY\. /,
		],
		[
			'BENEFICIARY with an unknown trade type',
			{ quotaAccumulationMethod: 'BENEFICIARY', tradeType: '={{ "SHIPPING" }}' },
			/^own quota: Trade Type "SHIPPING" is not one of its choices\. It must be one of GOODS, SERVICE\. /,
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
		expect(shown(run)).toMatch(message);
		expect(run.error?.description).toMatch(/Nothing was sent\.$/);
		expect(sim().requests).toHaveLength(0);
	});

	it("quota: a credential's access token over 64 characters, without showing it", async () => {
		const token = 'y'.repeat(65);
		const run = await quota(
			sim(),
			{
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: 'U-1001',
				currency: 'USD',
				connectedAccountId: 'ACC_0002',
			},
			{ credentials: { accessToken: token } },
		);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Access Token is 65 characters long, more than the API's 64$/);
		expect(JSON.stringify(run.error)).not.toContain(token);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('credential problems are reported before anything is sent', () => {
	it.each([
		['a junk private key', { privateKey: 'not a key' }, /^The credential's Private Key could not be read/],
		[
			'a private key as service public key',
			{ servicePublicKey: '=PRIVATE' },
			/^The credential's Service Public Key holds a private key$/,
		],
		[
			'plain http to a remote host',
			{ baseUrl: 'http://gateway.example.com' },
			/^The credential's Base URL does not use https$/,
		],
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
		expect(run.error?.message).toMatch(/The answer's signature does not match its body$/);
		expect(run.error?.description).toMatch(/Service Public Key/);
	});
});
