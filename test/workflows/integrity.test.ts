/**
 * An answer is used only when it is signed, fresh, about the request actually sent and of the
 * documented shape; the request sent must be the one asked for. One test per class, through n8n's
 * engine against the simulator taught each misbehaviour. (Bodies bounded in size and time, the
 * wire's caps and deadlines, are tested in test/nodes/transport.test.ts.)
 */
import { createCustomers, type Beneficiary } from '../../sandbox/data';
import { list, listedAs, OK_QUOTA, QUOTA, quota, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const LARGE = createCustomers().get('CUST_LARGE')?.beneficiaries as Beneficiary[];
const PLANTED = 'planted-0123456789abcdef';
/** What n8n shows of a failed run: its title, then its description (the error's detail, then its hint). */
const shown = (run: { error?: { message?: string; description?: string } }) =>
	`${run.error?.message}. ${run.error?.description ?? ''}`;

describe('freshness: a signed answer from another time is not used', () => {
	it.each([
		['staleTime', /The answer is not fresh: it is \d{3} s old by this n8n host's clock\. Its `response-time` is /],
		['futureTime', /The answer is not fresh: it is \d{3} s in the future by this n8n host's clock\. /],
		['badTime', /The answer's time is not a date, .*\. Its `response-time` is "x", not an ISO 8601 time with a zone/],
	] as const)('%s: refused, nothing emitted, not retried', async (fault, message) => {
		sim().addFault({ fault, operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(shown(run)).toMatch(message);
		expect(sim().requests).toHaveLength(1);
	});

	it("says what to do: the host's clock, or a proxy replaying answers", async () => {
		sim().addFault({ fault: 'staleTime', operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.error?.description).toMatch(/clock/);
		expect(run.error?.description).toMatch(/replaying/);
	});

	it('the tolerance is a credential setting: a 20-minute tolerance accepts a 10-minute-old answer', async () => {
		sim().addFault({ fault: 'staleTime', operation: 'quota' });
		const run = await quota(sim(), QUOTA, { credentials: { responseTimeToleranceSeconds: 1200 } });
		expect(run.status).toBe('success');
		expect(run.json).toEqual([OK_QUOTA]);
	});

	it.each([0, -5, 'abc'])('a tolerance of %p is refused, never "no check"', async (tolerance) => {
		const run = await quota(sim(), QUOTA, { credentials: { responseTimeToleranceSeconds: tolerance } });
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('Response Time Tolerance must be a whole number from 1 to 86400');
		expect(run.error?.description).toMatch(/^It is .*\. Correct Response Time Tolerance, then run again\./);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('the answer must be about the question', () => {
	it('a listing whose gateway ignored an exact filter is refused, naming the filter and the value', async () => {
		sim().addFault({ fault: 'ignoreFilters', operation: 'list' });
		const run = await list(sim(), {
			returnAll: true,
			filters: { currencyList: ['USD'] },
			customerId: 'CUST_LARGE',
		});
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toBe('CUST_LARGE beneficiaries: The gateway ignored the Currencies filter');
		expect(run.error?.description).toMatch(
			/^Beneficiary \d+ on page 1 has `currency` "(?!USD)[A-Z]{3}", but only \["USD"\] was asked for;/,
		);
	});

	it('a secret filter is checked without showing either value', async () => {
		sim().addFault({ fault: 'ignoreFilters', operation: 'list' });
		const token = LARGE[5].beneficiaryToken;
		const run = await list(sim(), {
			returnAll: true,
			filters: { beneficiaryToken: token },
			customerId: 'CUST_LARGE',
		});
		expect(run.status).toBe('error');
		expect(shown(run)).toMatch(/ignored the Beneficiary Token filter\. .*\(value hidden\), but only \(value hidden\)/);
		expect(JSON.stringify(run.error)).not.toContain(token);
	});

	it('with the filters honoured, every exact filter is satisfied and the listing is emitted', async () => {
		const run = await list(sim(), {
			returnAll: true,
			filters: { currencyList: ['USD', 'EUR'], assetType: 'BANK_ACCOUNT' },
			customerId: 'CUST_LARGE',
		});
		expect(run.status).toBe('success');
		expect(run.json.length).toBeGreaterThan(0);
		expect(run.json.every((b) => ['USD', 'EUR'].includes(b.currency as string) && b.assetType === 'BANK_ACCOUNT')).toBe(
			true,
		);
	});

	it.each([
		['quotaAccumulationId', QUOTA],
		['quotaAccumulationMethod', QUOTA],
		['availableQuota', QUOTA],
		[
			'tradeType',
			{ quotaAccumulationMethod: 'BENEFICIARY', quotaAccumulationId: 'B-4001', currency: 'USD', tradeType: 'GOODS' },
		],
	])('a quota answer without %s is refused, nothing emitted', async (field, parameters) => {
		sim().addFault({ fault: 'quotaMissingField', operation: 'quota', field });
		const run = await quota(sim(), parameters);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(shown(run)).toMatch(
			field === 'availableQuota'
				? /The quota answer has no available quota with a currency\. The API makes `availableQuota`/
				: new RegExp(`The quota answer has no [A-Z][A-Za-z ]+\\. The API makes \`${field}\` required`),
		);
	});
});

describe('the answer must be of the documented shape', () => {
	it.each([
		['a string', 'not a beneficiary'],
		['null', null],
		['a list', [1, 2]],
	])('a beneficiary that is %s is an error, not an item', async (what, item) => {
		sim().addFault({ fault: 'nonObjectItem', operation: 'list', item });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/The beneficiary list answer is not of the documented shape$/);
		expect(run.error?.description).toContain(`Beneficiary 1 on page 1 is ${what}, not an object`);
	});

	it('a page with items but totals of 0 is an impossible page, not "no beneficiaries"', async () => {
		sim().addFault({ fault: 'impossibleTotals', operation: 'list' });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_SMALL' });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.description).toMatch(
			/carries \d+ beneficiaries but reports `totalCount` 0 and `totalPageNumber` 0, an impossible page/,
		);
	});

	it('a resultStatus other than S, F or U is malformed, not a result', async () => {
		sim().addFault({ fault: 'badResultStatus', operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/The answer has a result status other than S, F or U$/);
		expect(run.error?.description).toMatch(/^Its `resultStatus` is "X"; /);
	});
});

describe('the request sent must be the request asked for', () => {
	it.each([
		[
			'Connected Account ID',
			() => quota(sim(), { ...QUOTA, connectedAccountId: 'ACC\u000701' }),
			/^Connected Account ID has an invisible character \(U\+0007\)\. It is at position 4 of 6\./,
		],
		[
			'Access Token (secret: the character is not shown)',
			() => quota(sim(), { ...QUOTA, connectedAccountId: 'ACC_0002' }, { credentials: { accessToken: 'tokén' } }),
			// The credential's: checked when the session opens, before any item.
			/^Access Token has a character an HTTP header cannot carry\. It has U\+00E9 at position 4;/,
		],
		[
			'Client ID',
			() => quota(sim(), QUOTA, { credentials: { clientId: 'SANDBOX_CLIENT_0001é' } }),
			/Client ID has a character an HTTP header cannot carry\. It has "é" \(U\+00E9\) at position 20;/,
		],
		[
			'Key Version (no splicing into the Signature header)',
			() => quota(sim(), QUOTA, { credentials: { keyVersion: '1, signature=AAAA' } }),
			/Key Version has a character it may not hold\. It may hold only letters, digits/,
		],
	])('%s that n8n would rewrite is refused before sending', async (_name, run, message) => {
		const result = await run();
		expect(result.status).toBe('error');
		expect(result.json).toEqual([]);
		expect(shown(result)).toMatch(message);
		expect(sim().requests).toHaveLength(0);
	});

	it('the access token is never shown, even its offending character', async () => {
		const result = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: 'ACC_0002' },
			{ credentials: { accessToken: 'secret客' } },
		);
		expect(result.status).toBe('error');
		expect(sim().requests).toHaveLength(0);
		expect(result.error?.message).toMatch(/Access Token/);
		expect(result.error?.message).not.toContain('secret');
		expect(result.error?.message).not.toContain('客');
	});
});

describe('fail fast and explain', () => {
	it('a gateway that ignores pageNumber is caught on the first page that shows it, not after every page', async () => {
		// CUST_BENCH: 10,000 beneficiaries, 200 pages of 50.
		sim().addFault({ fault: 'ignorePageNumber', customerId: 'CUST_BENCH' });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_BENCH' });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/The beneficiary list changed while it was being read$/);
		expect(run.error?.description).toMatch(/^Page \d+ was asked for but page 1 came back\./);
		// Two readings, each stopped at the first page that disagrees (at most 1 + 8 requests each, the
		// width), not 2 x 200.
		expect(sim().requests.length).toBeLessThanOrEqual(2 * (1 + 8));
	});

	it('a gateway with a lower page cap than the page size asked (50) is followed: the whole listing, exactly once', async () => {
		sim().addFault({ fault: 'lowerPageCap', customerId: 'CUST_LARGE', pageCap: 20 });
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_LARGE' });
		expect(run.status).toBe('success');
		expect(run.json).toEqual(listedAs(LARGE, 'CUST_LARGE'));
		// (Requests of an earlier test's abandoned pages may still arrive: count this listing's own.)
		// Its pages at the gateway's cap, read twice (the second read confirms the first).
		expect(sim().requests.filter((r) => r.body.includes('"customerId":"CUST_LARGE"'))).toHaveLength(
			2 * Math.ceil(LARGE.length / 20),
		);
	});

	it('an unsigned failure is marked signed: false in the error item', async () => {
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			unsigned: true,
			answer: { status: 'F', code: 'PROCESS_FAIL', message: 'no' },
		});
		const run = await quota(sim(), QUOTA, { continueOnFail: true });
		expect(run.status).toBe('success');
		expect(run.json).toEqual([expect.objectContaining({ resultCode: 'PROCESS_FAIL', signed: false })]);
	});

	it.each([
		['__proto__', /Unknown gateway "__proto__"/],
		['constructor', /Unknown gateway "constructor"/],
	])('a credential gateway of %s is a typed error', async (environment, message) => {
		const run = await quota(sim(), QUOTA, { credentials: { environment } });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(message);
	});
});

describe('secrets echoed by the gateway never reach an error', () => {
	it('an unsigned 4xx that echoes the request (access token header) is reported without the token', async () => {
		sim().addFault({ fault: 'echoRequest', operation: 'quota' });
		const run = await quota(
			sim(),
			{ ...QUOTA, connectedAccountId: 'ACC_0002' },
			{ credentials: { accessToken: PLANTED }, continueOnFail: true },
		);
		expect(run.json).toHaveLength(1);
		const shown = JSON.stringify(run.json) + JSON.stringify(run.error ?? '');
		expect(shown).toMatch(/HTTP 400/);
		expect(shown).toContain('[hidden]');
		expect(shown).not.toContain(PLANTED);
	});

	it('an unsigned failure whose resultMessage echoes the access token and the beneficiary token hides both', async () => {
		sim().addFault({ fault: 'echoInResult', operation: 'list' });
		const beneficiaryToken = LARGE[0].beneficiaryToken;
		const run = await list(
			sim(),
			{ returnAll: true, filters: { beneficiaryToken }, customerId: 'CUST_LARGE' },
			{ credentials: { accessToken: PLANTED }, continueOnFail: true },
		);
		const shown = JSON.stringify(run.json);
		expect(shown).toMatch(/PARAM_ILLEGAL/);
		expect(shown).not.toContain(PLANTED);
		expect(shown).not.toContain(beneficiaryToken);
	});

	it.each(['baseUrl', 'clientId'])('a private key pasted into %s is refused without being quoted', async (field) => {
		const key = sandboxKeyText();
		const run = await quota(sim(), QUOTA, { credentials: { [field]: key } });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/^The credential's (Base URL|Client ID) holds what looks like a key$/);
		expect(run.error?.description).toMatch(/^Its text is not shown\. Enter the real /);
		const body = key.split('\n')[1];
		expect(JSON.stringify(run.error)).not.toContain(body);
	});
});

function sandboxKeyText(): string {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { readSandboxKey } = require('../../sandbox/server') as typeof import('../../sandbox/server');
	return readSandboxKey('demo-partner-private.pem');
}
