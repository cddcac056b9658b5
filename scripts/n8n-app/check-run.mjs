// Asserts what one `n8n execute --id <id> --rawOutput` run of a smoke workflow produced.
//
//   node scripts/n8n-app/check-run.mjs <workflow file name> <captured output> <exit code>
//
// The expectations are computed from the simulator's own data set (.dev-dist/sandbox/data.js),
// with predicates written here again, so a filter the gateway or the node got wrong shows up.
// Prints one "ok ..." line, or a "FAIL ..." line and exits 1.
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const [caseFile, outputFile, exitCodeText] = process.argv.slice(2);
const caseName = caseFile.replace(/\.json$/, '');
const exitCode = Number(exitCodeText);
const text = readFileSync(outputFile, 'utf8');
const require = createRequire(import.meta.url);
const { createCustomers, quotaRecord } = require(resolve('.dev-dist/sandbox/data.js'));
const customers = createCustomers();

class Failure extends Error {}
function check(condition, message) {
	if (!condition) throw new Failure(message);
}

/**
 * The execution JSON that `n8n execute --rawOutput` printed. 1.x prints only the JSON on success
 * and puts it between log lines on failure; 2.x prints a line after it. So: the whole output if
 * it parses, else the longest block that starts with a line opening "{" and ends with a line
 * closing "}" and parses as an object with a status.
 */
function execution() {
	try {
		return JSON.parse(text);
	} catch {
		const lines = text.split('\n');
		const starts = lines.flatMap((line, i) => (line.startsWith('{') ? [i] : []));
		const ends = lines.flatMap((line, i) => (line.trimEnd().endsWith('}') ? [i] : [])).reverse();
		for (const start of starts) {
			for (const end of ends) {
				if (end < start) break;
				try {
					const parsed = JSON.parse(lines.slice(start, end + 1).join('\n'));
					if (parsed && typeof parsed === 'object' && 'status' in parsed) return parsed;
				} catch {
					// not this block
				}
			}
		}
		check(false, 'n8n printed no execution JSON');
	}
}

function items(run, node) {
	const runs = run.data?.resultData?.runData?.[node];
	check(Array.isArray(runs) && runs.length === 1, `node "${node}" did not run exactly once`);
	check(runs[0].executionStatus === 'success', `node "${node}" ended with status ${runs[0].executionStatus}`);
	return runs[0].data.main[0] ?? [];
}

function succeeded() {
	check(exitCode === 0, `n8n execute exited with ${exitCode}`);
	const run = execution();
	check(run.status === 'success' && run.finished === true, `execution status is "${run.status}", not success`);
	return run;
}

function sameTokens(actual, expected, what) {
	const got = actual.map((item) => item.json.beneficiaryToken);
	const want = expected.map((b) => b.beneficiaryToken);
	check(got.length === want.length, `${what}: ${got.length} items, expected ${want.length}`);
	check(new Set(got).size === got.length, `${what}: duplicate beneficiaryToken values`);
	const firstDiff = got.findIndex((token, i) => token !== want[i]);
	check(firstDiff < 0, `${what}: item ${firstDiff} is ${got[firstDiff]}, expected ${want[firstDiff]} (API order)`);
}

const beneficiaries = (customerId) => customers.get(customerId).beneficiaries;

const cases = {
	'list-all-pages'() {
		const out = items(succeeded(), 'List Beneficiaries');
		check(out.length === 320, `Return All gave ${out.length} items, expected 320`);
		check(new Set(out.map((i) => i.json.beneficiaryToken)).size === 320, 'Return All gave duplicate beneficiaryToken values');
		sameTokens(out, beneficiaries('CUST_LARGE'), 'Return All');
		check(out.every((i) => typeof i.json.extendInfo === 'object'), 'a field the spec does not name (extendInfo) was dropped');
		return '320 items, 320 distinct beneficiaryToken values, in API order (7 pages of 50)';
	},
	'list-filtered'() {
		const out = items(succeeded(), 'List Beneficiaries');
		const currencies = ['USD', 'EUR'];
		const all = beneficiaries('CUST_LARGE');
		const expected = all.filter((b) => currencies.includes(b.currency) && b.assetType === 'BANK_ACCOUNT');
		const currencyOnly = all.filter((b) => currencies.includes(b.currency)).length;
		check(out.every((i) => currencies.includes(i.json.currency) && i.json.assetType === 'BANK_ACCOUNT'), 'an item outside the filters came back');
		check(expected.length > 0 && expected.length < currencyOnly, 'the data set no longer makes this filter meaningful');
		sameTokens(out, expected, 'currencyList [USD, EUR] + assetType BANK_ACCOUNT');
		return `${out.length} of 320 items, all USD or EUR bank accounts (currency alone: ${currencyOnly})`;
	},
	'list-account-name'() {
		const out = items(succeeded(), 'List Beneficiaries');
		const expected = beneficiaries('CUST_SMALL').filter((b) => b.accountName.includes('深圳'));
		check(expected.length === 2, 'the data set no longer has two 深圳 account names in CUST_SMALL');
		check(out.every((i) => i.json.accountName.includes('深圳')), 'an item whose account name lacks 深圳 came back');
		sameTokens(out, expected, 'accountName 深圳');
		return `2 items, both "${out[0].json.accountName}" (non-ASCII filter signed and matched)`;
	},
	'list-limit'() {
		const out = items(succeeded(), 'List Beneficiaries');
		sameTokens(out, beneficiaries('').slice(0, 5), 'Limit 5 with page size 2');
		return '5 items, the first 5 of the own account (3 pages of 2)';
	},
	quota() {
		const out = items(succeeded(), 'Get Available Quota');
		check(out.length === 1, `${out.length} items, expected 1`);
		const { json } = out[0];
		check(json.availableQuotaAmount === 12500, `availableQuotaAmount is ${JSON.stringify(json.availableQuotaAmount)}, expected 12500`);
		check(json.availableQuota?.currency === 'USD' && String(json.availableQuota?.value) === '1250000', `availableQuota is ${JSON.stringify(json.availableQuota)}`);
		check(json.quotaAccumulationMethod === 'USER_ID' && json.quotaAccumulationId === 'U-1001', 'the quota is not U-1001 by USER_ID');
		return 'U-1001: availableQuotaAmount 12500 (USD 1250000 minor units)';
	},
	'quota-expressions'() {
		const out = items(succeeded(), 'Get Available Quota');
		check(out.length === 2, `${out.length} items, expected 2 (one per input item)`);
		const got = out.map((i) => [i.json.quotaAccumulationId, i.json.availableQuota?.currency, i.json.availableQuotaAmount, i.pairedItem?.item]);
		const want = [
			['U-1001', 'USD', 12500, 0],
			['RA-JPY', 'JPY', 5000000, 1],
		];
		check(JSON.stringify(got) === JSON.stringify(want), `got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
		return 'two items from expressions: U-1001 12500 USD, RA-JPY 5000000 JPY, each paired with its input';
	},
	'quota-error'() {
		check(exitCode !== 0, 'n8n execute exited 0 for a workflow that must fail');
		check(text.includes('CONTRACT_CHECK_FAIL'), 'CONTRACT_CHECK_FAIL appears nowhere in what n8n printed');
		const run = execution();
		check(run.status === 'error', `execution status is "${run.status}", not error`);
		const error = run.data.resultData.error;
		check(error && String(error.message).includes('CONTRACT_CHECK_FAIL'), `the error message is ${JSON.stringify(error?.message)}`);
		check(error.node?.name === 'Get Available Quota', `the error names node ${JSON.stringify(error.node?.name)}`);
		check(/contract/i.test(String(error.description)), `the error description ${JSON.stringify(error.description)} gives no meaning or action`);
		return `failed as it must: "${error.message}"`;
	},
	'quota-continue-on-fail'() {
		const out = items(succeeded(), 'Get Available Quota');
		check(out.length === 1, `${out.length} items, expected 1 error item`);
		const { json } = out[0];
		check(json.resultCode === 'CONTRACT_CHECK_FAIL', `resultCode is ${JSON.stringify(json.resultCode)}`);
		check(String(json.error).includes('CONTRACT_CHECK_FAIL'), `error is ${JSON.stringify(json.error)}`);
		check(json.resultStatus === 'F', `resultStatus is ${JSON.stringify(json.resultStatus)}`);
		return `error item { resultCode: CONTRACT_CHECK_FAIL, resultStatus: F, error: "${json.error}" }`;
	},
	'export-csv'() {
		succeeded();
		const file = join(process.env.PAI_SMOKE_EXPORT_DIR ?? '', 'beneficiaries.csv');
		check(existsSync(file), `${file} was not written`);
		// Convert to File writes a UTF-8 byte order mark first, so spreadsheet programs read non-ASCII names right.
		const lines = readFileSync(file, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter((line) => line.length > 0);
		check(lines.length === 321, `the CSV has ${lines.length} lines, expected 321 (a header and 320 rows)`);
		const header = lines[0].split(',');
		check(header.includes('beneficiaryToken') && header.includes('accountName'), `the CSV header is ${lines[0].slice(0, 120)}`);
		check(lines.slice(1).every((line, i) => line.includes(beneficiaries('CUST_LARGE')[i].beneficiaryToken)), 'a CSV row does not hold its beneficiary');
		check(lines.some((line) => line.includes('深圳市前海贸易有限公司')), 'non-ASCII account names did not survive the CSV');
		return 'beneficiaries.csv written: header + 320 rows, non-ASCII names intact';
	},
};

cases['agent-tool'] = () => {
	const out = items(succeeded(), 'AI Agent');
	check(out.length === 4, `the agent gave ${out.length} answers, expected 4 (one per question)`);
	const [quota, failure, listing, own] = out.map((i) => String(i.json.output ?? ''));
	check(/"availableQuotaAmount":\s*12500\b/.test(quota) && quota.includes('"quotaAccumulationId":"U-1001"'), `the answer about U-1001 does not carry its quota 12500: ${quota.slice(0, 300)}`);
	check(failure.includes('"resultCode":"CONTRACT_CHECK_FAIL"'), `the answer about U-CONTRACT does not carry resultCode CONTRACT_CHECK_FAIL: ${failure.slice(0, 300)}`);
	const listed = JSON.parse(listing.replace(/^Tool result: /, '') || '[]');
	const expected = beneficiaries('CUST_SMALL').filter((b) => b.accountName.includes('深圳')).map((b) => b.beneficiaryToken);
	check(JSON.stringify(listed.map((b) => b.beneficiaryToken)) === JSON.stringify(expected), `the beneficiaries tool gave ${listing.slice(0, 300)}`);
	const ownListed = JSON.parse(own.replace(/^Tool result: /, '') || '[]');
	const ownExpected = beneficiaries('').map((b) => b.beneficiaryToken);
	check(JSON.stringify(ownListed.map((b) => b.beneficiaryToken)) === JSON.stringify(ownExpected), `the own-account tool gave ${own.slice(0, 300)}`);
	// What n8n offered the model: both tools, their arguments being the $fromAI() keys.
	const requests = readFileSync(process.env.PAI_SMOKE_LLM_LOG ?? '', 'utf8').trim().split('\n').map((line) => JSON.parse(line));
	const tools = new Map(requests.flatMap((r) => r.body?.tools ?? []).map((t) => [t.function.name, Object.keys(t.function.parameters?.properties ?? {}).sort().join(', ')]));
	const want = {
		Get_available_quota: 'currency, userId',
		List_beneficiaries: 'accountName, customerId',
		List_my_own_beneficiaries: 'accountName',
	};
	for (const [name, args] of Object.entries(want)) check(tools.get(name) === args, `n8n offered tool ${name} with arguments {${tools.get(name)}}, expected {${args}}`);
	return 'tools Get_available_quota {currency, userId}, List_beneficiaries {accountName, customerId} and List_my_own_beneficiaries {accountName} offered; U-1001 answered 12500, U-CONTRACT answered resultCode CONTRACT_CHECK_FAIL, CUST_SMALL "深圳" answered its 2 beneficiaries, the own account its 12';
};

// The quota examples (examples/daily-quota-check.json, examples/many-accounts-quota-check.json),
// run from their Run now trigger in a working copy whose Slack node is a No Operation stand-in of
// the same name (example-copy.mjs): what reaches that node is the message the example would post.
// The expected text is made here from the simulator's data set, so the message must name exactly
// the accounts below their floor and the ones that failed (by result code), nothing else.
const SEND = 'Post to your Slack channel';
const MINOR_DIGITS = { USD: 2, EUR: 2, GBP: 2, JPY: 0, KRW: 0 };
/** What the simulator holds for an account: { amount } in major units, or { code } for a failure. */
function simulated(method, id, currency, tradeType) {
	// A beneficiary's quota is kept per trade type ("B-4001:SERVICE"), as the gateway answers it.
	const record = quotaRecord(method, method === 'BENEFICIARY' ? `${id}:${tradeType}` : id);
	check(record, `the simulator no longer knows ${method} ${id}`);
	if ('code' in record) return { code: record.code };
	check(record.currency === currency && currency in MINOR_DIGITS, `the simulator holds ${method} ${id} in ${record.currency}, not ${currency}`);
	return { amount: Number(record.value) / 10 ** MINOR_DIGITS[currency] };
}
/** The one message that reached the send node's stand-in. */
function sent(run) {
	const out = items(run, SEND);
	check(out.length === 1, `"${SEND}" received ${out.length} items, expected one message`);
	return String(out[0].json.message ?? '');
}

cases['example-daily-quota-check'] = () => {
	const run = succeeded();
	const [account] = items(run, 'Account and threshold').map((i) => i.json);
	const quota = simulated(account.method, account.id, account.currency);
	check(quota.amount !== undefined && quota.amount < account.threshold, `the data set no longer puts ${account.id} below ${account.threshold}`);
	const want = `Available FX settlement quota of ${account.id} is ${quota.amount} ${account.currency}, below the threshold of ${account.threshold}`;
	const message = sent(run);
	check(message === want, `the alert is ${JSON.stringify(message)}, expected ${JSON.stringify(want)}`);
	return `one alert reached "${SEND}": "${message}"`;
};

cases['example-many-accounts-quota-check'] = () => {
	const run = succeeded();
	const accounts = items(run, 'Accounts and their floors').map((i) => i.json);
	const quotas = items(run, 'Get Available Quota');
	check(quotas.length === accounts.length, `Get Available Quota gave ${quotas.length} items for ${accounts.length} accounts (On Error = Continue keeps one per account)`);
	const lines = [];
	let low = 0;
	let failed = 0;
	let fine = 0;
	accounts.forEach((account, i) => {
		const expected = simulated(account.method, account.id, account.currency, account.tradeType);
		const masked = ['RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT'].includes(account.method);
		const shown = masked ? `****${String(account.id).slice(-4)}` : account.id;
		const kind = account.method === 'BENEFICIARY' ? `${account.method} ${account.tradeType}` : account.method;
		const name = `${shown} (${kind}, ${account.currency})`;
		if (expected.code) {
			check(quotas[i].json.resultCode === expected.code, `${account.id}: the item is ${JSON.stringify(quotas[i].json).slice(0, 200)}, expected resultCode ${expected.code}`);
			lines.push(`- ${name}: not checked, the gateway answered ${expected.code}`);
			failed++;
		} else if (expected.amount < account.floor) {
			lines.push(`- ${name}: ${expected.amount} available, below its floor of ${account.floor}`);
			low++;
		} else fine++;
	});
	check(low >= 2 && failed >= 1 && fine >= 1, `the example's accounts no longer cover low (${low}), failed (${failed}) and fine (${fine}) ones`);
	const want = `FX settlement quota: ${lines.length} of ${accounts.length} accounts need attention\n${lines.join('\n')}`;
	const message = sent(run);
	check(message === want, `the message is ${JSON.stringify(message)}, expected ${JSON.stringify(want)}`);
	return `one message reached "${SEND}" for ${accounts.length} accounts: ${low} below their floor and ${failed} failed (${lines.map((l) => l.slice(2).split(' ')[0]).join(', ')}), the ${fine} others not named`;
};

// 2.x with N8N_SSRF_PROTECTION_ENABLED=true and loopback not in N8N_SSRF_ALLOWED_IP_RANGES: the
// quota workflow's request to the simulator on 127.0.0.1 is blocked. The error must say why: the
// node names SSRF or the setting to change; n8n's own message says "restricted IP address".
cases['quota-ssrf-blocked'] = () => {
	check(exitCode !== 0, 'n8n execute exited 0: the request to a loopback gateway was not blocked');
	const run = execution();
	check(run.status === 'error', `execution status is "${run.status}", not error`);
	const error = run.data.resultData.error;
	const said = `${error?.message ?? ''} ${error?.description ?? ''}`;
	check(/SSRF|N8N_SSRF_ALLOWED_IP_RANGES|restricted IP/i.test(said), `the error does not say the request was blocked: ${JSON.stringify(said.slice(0, 300))}`);
	check(error.node?.name === 'Get Available Quota', `the error names node ${JSON.stringify(error.node?.name)}`);
	const names = /N8N_SSRF_ALLOWED_IP_RANGES/.test(said) ? 'names N8N_SSRF_ALLOWED_IP_RANGES' : 'says the address is restricted';
	return `SSRF protection on, loopback not allowed: the quota run fails and the error ${names}: "${String(error.message).slice(0, 160)}"`;
};

// The same with loopback allowed (N8N_SSRF_ALLOWED_IP_RANGES=127.0.0.0/8): the quota run succeeds.
cases['quota-ssrf-allowed'] = () =>
	`SSRF protection on, N8N_SSRF_ALLOWED_IP_RANGES=127.0.0.0/8: the quota run succeeds (${cases.quota()})`;

const run = cases[caseName];
try {
	check(run, `no expectations defined for ${caseFile}`);
	console.log(`ok   ${caseName}: ${run()}`);
} catch (error) {
	console.log(`FAIL ${caseName}: ${error instanceof Failure ? error.message : error?.stack ?? error}`);
	process.exit(1);
}
