import { ERRORS_DOC } from '../../nodes/PartnerAccountInquiry/shared/core/links';
import { readSandboxKey } from '../../sandbox/server';
import { list, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
/** Where a status U error's hint sends the user for the API's retry schedule (the README's Errors and what to do). */
const RETRY_ADVICE = new RegExp(`${ERRORS_DOC.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** The API's own words (docs/api.md, Result codes), written here independently of the node's table. */
const SPEC: Record<string, { meaning: RegExp; action: RegExp; status: 'F' | 'U' }> = {
	PROCESS_FAIL: { status: 'F', meaning: /general business failure/i, action: /Do not retry.*contact support/ },
	PARAM_ILLEGAL: {
		status: 'F',
		meaning: /illegal parameter/i,
		action: /Check the node's parameters and the credential/,
	},
	UNKNOWN_EXCEPTION: { status: 'U', meaning: /unknown reasons/, action: /Retry later.*contact support/ },
	REQUEST_TRAFFIC_EXCEED_LIMIT: { status: 'U', meaning: /traffic exceeds the limit/, action: /Call again later/ },
	OAUTH_FAIL: { status: 'F', meaning: /OAuth authentication failed/, action: /Access Token/ },
	INVALID_API: { status: 'F', meaning: /invalid or not active/, action: /Check the Gateway/ },
	INVALID_CLIENT: { status: 'F', meaning: /Client ID does not exist or is invalid/i, action: /Check the Client ID/ },
	INVALID_SIGNATURE: { status: 'F', meaning: /signature is invalid/i, action: /Private Key/ },
	METHOD_NOT_SUPPORTED: { status: 'F', meaning: /HTTP method not implemented/, action: /POST.*report this as a bug/ },
	UN_SUPPORT_BUSINESS: { status: 'F', meaning: /unsupported business/i, action: /Check the currency/ },
	SYSTEM_ERROR: { status: 'F', meaning: /system error/i, action: /Do not retry: contact support/ },
	USER_NOT_EXIST: { status: 'F', meaning: /user does not exist/, action: /Check the Customer ID/ },
	CONTRACT_CHECK_FAIL: { status: 'F', meaning: /contract check failed/i, action: /Check the contract status/ },
	ACCOUNT_NOT_EXIST: { status: 'F', meaning: /account does not exist/, action: /Check the Accumulation ID/ },
};

/** The code and its meaning once, in the message; what to do in the description (after "outcome unknown" for U). */
function expectExplained(run: Awaited<ReturnType<typeof list>>, code: string) {
	expect(run.status).toBe('error');
	expect(run.json).toEqual([]);
	const { message = '', description = '' } = run.error ?? {};
	expect(message).toContain(`The API answered ${code}: `);
	expect(message).toMatch(SPEC[code].meaning);
	expect(description).not.toMatch(SPEC[code].meaning);
	expect(description).toMatch(SPEC[code].action);
	if (SPEC[code].status === 'U') {
		expect(description).toMatch(/^The outcome is unknown \(status U\)\. /);
		expect(description).toMatch(RETRY_ADVICE);
	} else expect(description).not.toMatch(RETRY_ADVICE);
}

describe('every section 7 code reaches the user with its meaning and action', () => {
	const LIST_CASES: Array<[string, () => Promise<Awaited<ReturnType<typeof list>>>]> = [
		['PROCESS_FAIL', () => list(sim(), { returnAll: true, customerId: 'CUST_PROCESS_FAIL' })],
		['SYSTEM_ERROR', () => list(sim(), { returnAll: true, customerId: 'CUST_SYSTEM_ERROR' })],
		['UNKNOWN_EXCEPTION', () => list(sim(), { returnAll: true, customerId: 'CUST_UNKNOWN' })],
		['PARAM_ILLEGAL', () => list(sim(), { returnAll: true, customerId: 'CUST_PARAM_ILLEGAL' })],
		['USER_NOT_EXIST', () => list(sim(), { returnAll: true, customerId: 'CUST_NOBODY' })],
		[
			'UN_SUPPORT_BUSINESS',
			() => list(sim(), { returnAll: true, filters: { currencyList: ['KRW'] }, customerId: 'CUST_SMALL' }),
		],
		[
			'OAUTH_FAIL',
			() =>
				list(sim(), { returnAll: true, customerId: 'CUST_SMALL' }, { credentials: { accessToken: 'expired-token' } }),
		],
		[
			'INVALID_API',
			() => list(sim(), { returnAll: true }, { credentials: { baseUrl: `${sim().url}/not-the-gateway` } }),
		],
		['INVALID_CLIENT', () => list(sim(), { returnAll: true }, { credentials: { clientId: 'SOMEBODY_ELSE' } })],
		[
			'INVALID_SIGNATURE',
			() => list(sim(), { returnAll: true }, { credentials: { privateKey: readSandboxKey('gateway-private.pem') } }),
		],
	];
	it.each(LIST_CASES)('list: %s', async (code, run) => {
		const result = await run();
		expectExplained(result, code);
		expect(result.error?.message).toContain(sim().requests.at(-1)?.resultCode);
	});

	it('list: INVALID_SIGNATURE for a key version the gateway does not know', async () => {
		expectExplained(await list(sim(), { returnAll: true }, { credentials: { keyVersion: '7' } }), 'INVALID_SIGNATURE');
	});

	it('list: REQUEST_TRAFFIC_EXCEED_LIMIT, after the node called again for its Timeout', async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_RATE_LIMITED', options: { timeout: 1000 } });
		expectExplained(run, 'REQUEST_TRAFFIC_EXCEED_LIMIT');
		expect(sim().requests.length).toBeGreaterThanOrEqual(4);
	});

	it.each(Object.keys(SPEC))('any operation: %s injected by the gateway', async (code) => {
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			answer: { status: SPEC[code].status, code, message: `simulated ${code}` },
		});
		const run = await quota(sim(), {
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: 'U-1001',
			currency: 'USD',
			// A traffic limit is called again for the Timeout: 1 s of pauses, not the default 30 s.
			options: { timeout: 1000 },
		});
		expectExplained(run, code);
		// The gateway's own words are the error item's resultMessage, not repeated in the message.
		expect(run.error?.message).not.toContain(`simulated ${code}`);
	});

	const QUOTA_CASES: Array<[string, Record<string, unknown>]> = [
		['CONTRACT_CHECK_FAIL', { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-CONTRACT', currency: 'USD' }],
		['ACCOUNT_NOT_EXIST', { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-9999', currency: 'USD' }],
		[
			'ACCOUNT_NOT_EXIST',
			{
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: 'U-1001',
				currency: 'USD',
				connectedAccountId: 'ACC_MISSING',
			},
		],
		['UNKNOWN_EXCEPTION', { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-UNKNOWN', currency: 'USD' }],
		['PARAM_ILLEGAL', { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'EUR' }],
	];
	it.each(QUOTA_CASES)('quota: %s', async (code, parameters) => {
		expectExplained(await quota(sim(), parameters as never), code);
	});

	it("quota: OAUTH_FAIL for the credential's expired access token", async () => {
		const run = await quota(
			sim(),
			{
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: 'U-1001',
				currency: 'USD',
				connectedAccountId: 'ACC_0002',
			},
			{ credentials: { accessToken: 'expired-token' } },
		);
		expectExplained(run, 'OAUTH_FAIL');
		expect(run.error?.message).toMatch(/^ACC_0002 USER_ID U-1001 USD: The API answered OAUTH_FAIL/);
	});

	it('the simulator answers a GET with a signed METHOD_NOT_SUPPORTED', async () => {
		const response = await fetch(`${sim().url}/amsin/api/v1/business/account/inquiryAvailableQuota`);
		expect(await response.json()).toMatchObject({ result: { resultStatus: 'F', resultCode: 'METHOD_NOT_SUPPORTED' } });
		expect(response.headers.get('signature')).toMatch(/^algorithm=RSA256/);
	});
});

describe('Continue On Fail', () => {
	it('turns a failure into an error item with the result code and goes on with the next item', async () => {
		const run = await quota(
			sim(),
			{ quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: '={{ $json.id }}', currency: 'USD' },
			{ items: [{ id: 'U-CONTRACT' }, { id: 'U-1001' }, { id: 'U-UNKNOWN' }], continueOnFail: true },
		);
		expect(run.status).toBe('success');
		expect(run.json).toHaveLength(3);
		expect(run.json[0]).toMatchObject({
			resultStatus: 'F',
			resultCode: 'CONTRACT_CHECK_FAIL',
			resultMessage: 'Contract check failed: contract expired',
		});
		expect(run.json[0].error).toMatch(/CONTRACT_CHECK_FAIL/);
		expect(run.json[0].description).toMatch(/Check the contract status/);
		expect(run.json[1]).toMatchObject({ availableQuotaAmount: 12500 });
		expect(run.json[2]).toMatchObject({ resultStatus: 'U', resultCode: 'UNKNOWN_EXCEPTION' });
		expect(run.json[2].description).toMatch(RETRY_ADVICE);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('gives a validation failure as an error item naming the field, and sends nothing for it', async () => {
		const run = await list(
			sim(),
			{ returnAll: false, limit: 2, filters: { bankAccountIBAN: '={{ $json.iban }}' } },
			{ items: [{ iban: 'GB29 NWBK 6016' }, { iban: '' }], continueOnFail: true },
		);
		expect(run.json[0]).toMatchObject({ field: 'bankAccountIBAN', whoseAccount: 'own' });
		expect(run.json[0].error).toBe(
			'own beneficiaries: Bank Account IBAN "****6016" is not in the form the API accepts',
		);
		expect(run.json[0].description).toMatch(/^It must be a country code, two check digits/);
		expect(run.json.slice(1)).toHaveLength(2);
		expect(sim().requests).toHaveLength(1);
	});
});

describe('as an AI agent’s tool', () => {
	it('answers a failure with an error item the model can read, instead of throwing', async () => {
		const { runNode, sandboxCredentials, NODE_TYPE } = await import('../../sandbox/engine');
		const run = await runNode({
			nodeTypeName: `${NODE_TYPE}Tool`,
			parameters: {
				operation: 'getAvailableQuota',
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: 'U-CONTRACT',
				currency: 'USD',
			},
			credentials: sandboxCredentials(sim().url),
		});
		expect(run.status).toBe('success');
		expect(run.json).toEqual([
			expect.objectContaining({
				resultStatus: 'F',
				resultCode: 'CONTRACT_CHECK_FAIL',
				error: expect.stringMatching(/CONTRACT_CHECK_FAIL/),
			}),
		]);
		expect(run.json[0].description).toMatch(/Check the contract status/);
	});
});
