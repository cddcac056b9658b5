// The package's nodes run with `n8n execute` in a real app, against the simulator's data as shipped:
// the smoke workflows of workflows.mjs, every example that runs from a start node (working copies),
// every example imported as it is and checked against the app. Expectations are computed from the
// simulator's data set with predicates written here again, so a filter the simulator or the node
// got wrong shows up.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ACCOUNTS, AGENT_QUESTIONS, SMOKE, TOKEN_CREDENTIALS } from './workflows.mjs';
import { HERE, PACKAGE, ROOT, bg, die, freePort, until } from './harness.mjs';
import { installTarball } from './install.mjs';
import { SMOKE_CREDENTIAL, cli, cliMust, credentials, n8nEnv, startSimulator } from './n8n.mjs';

const requireHere = createRequire(import.meta.url);
const SEND = 'n8n-nodes-base.slack';

/**
 * A working copy of an example, for running it: its own ID and name; every Slack node a No
 * Operation stand-in of the same name (what it would post is its input); with `cron`, the package's
 * trigger polling on that schedule; with `manual`, its Schedule Trigger a Manual Trigger of the same
 * name unless it has one (`n8n execute` starts only from one: the examples' *Run now*); with
 * `exportDir`, files written there. The rest is the example's.
 */
export function workingCopy(example, { id, name, cron, manual: wanted, exportDir }) {
	const copy = { ...structuredClone(example), id, name, active: false };
	const manual = wanted && !example.nodes.some((n) => n.type === 'n8n-nodes-base.manualTrigger');
	copy.nodes = copy.nodes.map((node) => {
		const keep = { id: node.id, name: node.name, position: node.position };
		if (node.type === SEND) return { ...keep, type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} };
		if (manual && node.type === 'n8n-nodes-base.scheduleTrigger') return { ...keep, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} };
		if (cron && node.type === `${PACKAGE}.partnerAccountInquiryTrigger`) return { ...node, parameters: { ...node.parameters, pollTimes: { item: [{ mode: 'custom', cronExpression: cron }] } } };
		if (exportDir && node.type === 'n8n-nodes-base.readWriteFile') return { ...node, parameters: { ...node.parameters, fileName: node.parameters.fileName.replace(/^(=?).*\//, `$1${exportDir}/`) } };
		return node;
	});
	return copy;
}

const { createCustomers, quotaRecord } = requireHere(join(ROOT, '.dev-dist/sandbox/data.js'));
const customers = createCustomers();
const beneficiaries = (customerId) => customers.get(customerId).beneficiaries;
/** Every whole bank value (account number, IBAN, token) of the data set's customers as shipped. */
export const WHOLE = ['', 'CUST_SMALL', 'CUST_LARGE', 'CUST_TWICE', 'CUST_EMPTY', '10005678', '20005678']
	.flatMap((c) => beneficiaries(c).flatMap((b) => [b.bankAccountNo, b.bankAccountIBAN, b.beneficiaryToken]))
	.filter((v) => v && v.length > 4);
const MINOR_DIGITS = { USD: 2, EUR: 2, GBP: 2, JPY: 0, KRW: 0 };
/** An example file as shipped, and its package trigger node (if any). */
export function readExample(file) {
	const workflow = JSON.parse(readFileSync(join(ROOT, 'examples', `${file}.json`), 'utf8'));
	return { workflow, trigger: workflow.nodes.find((n) => n.type === `${PACKAGE}.partnerAccountInquiryTrigger`) };
}

/**
 * Quota lines as the examples and the trigger's Quotas as Text take them, read here again: whose
 * account (`own` or a customer's Connected Account ID), method, ID, currency, trade type (BENEFICIARY
 * only), threshold; `#` lines and blank ones skipped.
 */
export function quotaLines(text) {
	return String(text).split('\n').map((line) => line.split(/[,;\t]/).map((f) => f.trim())).filter((f) => f[0] && !f[0].startsWith('#')).map(([account, method, id, currency, ...rest]) => {
		const tradeType = method === 'BENEFICIARY' ? rest.shift() : '';
		return { account, method, id, currency, tradeType, threshold: Number(rest[0]) };
	});
}
/** A quota as the examples' messages and the node's `subject` name it: whose, method, ID (an account number by its last four), currency, trade type. */
export const quotaLabel = (q) => [q.account, q.method, ['RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT'].includes(q.method) ? `****${String(q.id).slice(-4)}` : q.id, q.currency, q.tradeType].filter(Boolean).join(' ');

/**
 * The quotas a quota trigger watches (its rows, then its Quotas as Text), each with its threshold, its
 * label (its `subject`), the simulator's key, whether it starts below its threshold or fails (the
 * simulator answers it with an error code).
 */
export function floorSubjects(trigger) {
	const rows = (trigger.parameters.quotas?.quota ?? []).map((r) => ({ account: r.connectedAccountId ?? 'own', method: r.quotaAccumulationMethod, id: r.quotaAccumulationId, currency: r.currency, tradeType: r.tradeType ?? '', threshold: Number(r.threshold) }));
	return [...rows, ...quotaLines(trigger.parameters.options?.quotasText ?? '')].map((q) => {
		const key = q.tradeType ? `${q.id}:${q.tradeType}` : q.id;
		const { amount } = simulated(q.method, key, q.currency, q.account);
		return { ...q, key: q.account === 'own' ? key : `${q.account}/${key}`, label: quotaLabel(q), fails: amount === undefined, below: amount < q.threshold, minor: (major) => String(Math.round(major * 10 ** MINOR_DIGITS[q.currency])) };
	});
}

/**
 * What the simulator holds for a quota subject of `account` (`own`, or a customer's Connected
 * Account ID: its own quota, else your own account's, as sandbox/accounts.ts answers): { amount } in
 * major units, or { code }.
 */
export function simulated(method, id, currency, account = 'own') {
	const record = (account === 'own' ? undefined : quotaRecord(method, `${account}/${id}`)) ?? quotaRecord(method, id) ?? die(`the simulator no longer knows ${account} ${method} ${id}`);
	if ('code' in record) return { code: record.code };
	if (record.currency !== currency) die(`the simulator holds ${account} ${method} ${id} in ${record.currency}, not ${currency}`);
	return { amount: Number(record.value) / 10 ** MINOR_DIGITS[currency] };
}
/**
 * The line the quota examples write for a quota (their "Alert text" / "What needs attention"), read
 * here again: below its threshold, or not checked with the gateway's code; '' when fine.
 */
export function attention(q) {
	const { amount, code } = simulated(q.method, q.tradeType ? `${q.id}:${q.tradeType}` : q.id, q.currency, q.account);
	if (code) return `${quotaLabel(q)}: not checked, the gateway answered ${code}`;
	return amount < q.threshold ? `${quotaLabel(q)}: ${amount} available, below its threshold of ${q.threshold}` : '';
}

const check = (ok, message) => ok || die(message);
/** The items of `node`'s one successful run. */
function items(run, node) {
	const runs = run.data?.resultData?.runData?.[node];
	check(Array.isArray(runs) && runs.length === 1 && runs[0].executionStatus === 'success', `node "${node}" did not run once successfully`);
	return runs[0].data.main[0] ?? [];
}
const sameTokens = (out, expected, what) => {
	const got = out.map((i) => i.json.beneficiaryToken);
	check(new Set(got).size === got.length, `${what}: duplicate beneficiaryToken values`);
	check(JSON.stringify(got) === JSON.stringify(expected.map((b) => b.beneficiaryToken)), `${what}: ${got.length} items, expected ${expected.length} in API order`);
};
const refsOf = (list) => list.map((b) => b.referenceBeneficiaryId);
/** The one message each stand-in of the example's send node received. */
const sent = (run, node = 'Post to your Slack channel') => {
	const out = items(run, node);
	check(out.length === 1, `"${node}" received ${out.length} items, expected one message`);
	return String(out[0].json.message ?? '');
};

/** name -> assertion on { run, exitCode, out, exportDir }: returns what held. */
export const CASES = {
	'list-all-pages': ({ run }) => {
		const out = items(run, 'Get Many Beneficiaries');
		sameTokens(out, beneficiaries('CUST_LARGE'), 'Return All');
		check(out.every((i) => typeof i.json.extendInfo === 'object'), 'a field the spec does not name (extendInfo) was dropped');
		check(out.every((i) => Object.keys(i.json)[0] === 'whoseAccount' && i.json.whoseAccount === 'CUST_LARGE'), 'an item does not say first whose list it came from (whoseAccount)');
		return '320 items (Simplify and Mask Bank Details off), 320 distinct beneficiaryToken values, in API order (7 pages of 50), extendInfo kept, each whoseAccount CUST_LARGE first';
	},
	'list-default': ({ run }) => {
		const out = items(run, 'Get Many Beneficiaries').map((i) => i.json);
		const all = beneficiaries('CUST_LARGE');
		const order = ['whoseAccount', 'accountName', 'beneficiaryNick', 'bankAccountIBAN', 'bankAccountNo', 'bankName', 'currency', 'status', 'referenceBeneficiaryId'];
		check(out.length === all.length && JSON.stringify(refsOf(out)) === JSON.stringify(refsOf(all)), `${out.length} items, not CUST_LARGE's ${all.length} in API order`);
		out.forEach((j, i) => {
			const b = all[i];
			const keys = Object.keys(j);
			const bank = b.bankAccountIBAN ? 'bankAccountIBAN' : 'bankAccountNo';
			check(keys.length <= 10 && JSON.stringify(keys) === JSON.stringify(order.filter((k) => k in j)) && j.whoseAccount === 'CUST_LARGE', `item ${i}: fields ${keys.join(', ')}`);
			check(!(bank === 'bankAccountIBAN' && 'bankAccountNo' in j) && j[bank] === `****${b[bank].slice(-4)}`, `item ${i}: ${bank} ${JSON.stringify(j[bank])}, expected ****${b[bank].slice(-4)}`);
		});
		const leaked = WHOLE.filter((v) => JSON.stringify(out).includes(v));
		check(leaked.length === 0, `${leaked.length} whole bank values in the items`);
		const most = Math.max(...out.map((j) => Object.keys(j).length));
		return `the default item (Simplify, Mask Bank Details on): ${out.length} items in API order, at most ${most} fields each (whoseAccount first, simplify.ts's order), the IBAN (else the account number) as **** and its last four, no whole bank value`;
	},
	'list-filtered': ({ run }) => {
		const out = items(run, 'Get Many Beneficiaries');
		const all = beneficiaries('CUST_LARGE');
		const usdEur = all.filter((b) => ['USD', 'EUR'].includes(b.currency));
		const want = usdEur.filter((b) => b.assetType === 'BANK_ACCOUNT');
		check(want.length > 0 && want.length < usdEur.length, 'the data set no longer makes this filter meaningful');
		sameTokens(out, want, 'currencyList [USD, EUR] + assetType BANK_ACCOUNT');
		return `${out.length} of 320 items, all USD or EUR bank accounts (currency alone: ${usdEur.length})`;
	},
	'list-account-name': ({ run }) => {
		const want = beneficiaries('CUST_SMALL').filter((b) => b.accountName.includes('深圳'));
		check(want.length === 2, 'the data set no longer has two 深圳 account names in CUST_SMALL');
		sameTokens(items(run, 'Get Many Beneficiaries'), want, 'accountName 深圳');
		return `2 items, both "${want[0].accountName}" (non-ASCII filter signed and matched)`;
	},
	'list-limit': ({ run }) => (sameTokens(items(run, 'Get Many Beneficiaries'), beneficiaries('CUST_LARGE').slice(0, 60), 'Limit 60 of CUST_LARGE'), '60 items, the first 60 of CUST_LARGE (2 of its 7 pages of 50)'),
	quota: ({ run }) => {
		const out = items(run, 'Get Available Quota').map((i) => i.json);
		check(out.length === 1 && out[0].whoseAccount === 'own' && out[0].subject === 'own USER_ID U-1001 USD' && out[0].availableQuotaAmount === 12500 && out[0].availableQuota?.currency === 'USD' && out[0].availableQuota?.value === '1250000' && out[0].quotaAccumulationId === 'U-1001',
			`got ${JSON.stringify(out).slice(0, 300)}`);
		return 'own U-1001: whoseAccount own, subject "own USER_ID U-1001 USD", availableQuotaAmount 12500 (USD "1250000" minor units, a string)';
	},
	'quota-accounts': ({ run, requests }) => {
		const out = items(run, 'Get Available Quota');
		const want = ACCOUNTS.map(([account, id]) => ({ account, id, subject: `${account} USER_ID ${id} USD`, amount: simulated('USER_ID', id, 'USD', account).amount }));
		check(new Set(want.map((w) => w.amount)).size === 3, 'the data set no longer gives the three accounts different amounts');
		const got = out.map((i) => [i.json.whoseAccount, i.json.subject, i.json.availableQuotaAmount, i.pairedItem?.item]);
		check(JSON.stringify(got) === JSON.stringify(want.map((w, i) => [w.account, w.subject, w.amount, i])), `items ${JSON.stringify(got)}`);
		const sent = requests.filter((r) => r.op === 'quota').map((r) => [r.id, r.account ?? null, r.code]).sort();
		check(JSON.stringify(sent) === JSON.stringify(want.map((w) => [w.id, w.account === 'own' ? null : w.account, 'SUCCESS'])), `the simulator was asked ${JSON.stringify(sent)}`);
		return `one execution, three items: ${want.map((w) => `${w.subject} ${w.amount}`).join(', ')}, each naming its whoseAccount and subject; its three requests each with exactly its own Connected-AccountId header (none for own)`;
	},
	'access-token': ({ run, requests }) => {
		const [acc, small] = [TOKEN_CREDENTIALS.ACC_0002.accessToken, TOKEN_CREDENTIALS.CUST_SMALL.accessToken];
		const own = items(run, 'Own quota').map((i) => i.json);
		const customer = items(run, 'ACC_0002 quota').map((i) => i.json);
		check(own.length === 1 && own[0].whoseAccount === 'own' && own[0].availableQuotaAmount === 12500, `Own quota gave ${JSON.stringify(own).slice(0, 300)}`);
		check(customer.length === 1 && customer[0].whoseAccount === 'ACC_0002' && customer[0].availableQuotaAmount === simulated('USER_ID', 'U-2001', 'USD', 'ACC_0002').amount, `ACC_0002 quota gave ${JSON.stringify(customer).slice(0, 300)}`);
		check(JSON.stringify(refsOf(items(run, 'Own beneficiaries').map((i) => i.json))) === JSON.stringify(refsOf(beneficiaries(''))), 'Own beneficiaries did not list your own account\'s payees');
		const listed = items(run, 'CUST_SMALL beneficiaries').map((i) => i.json);
		check(JSON.stringify(refsOf(listed)) === JSON.stringify(refsOf(beneficiaries('CUST_SMALL'))) && listed.every((j) => j.whoseAccount === 'CUST_SMALL'), `CUST_SMALL beneficiaries gave ${JSON.stringify(listed).slice(0, 300)}`);
		const refused = items(run, 'Own quota, ACC_0002 credential').map((i) => i.json);
		check(refused.length === 1 && /Access Token/.test(String(refused[0].error)) && refused[0].availableQuotaAmount === undefined, `own through the ACC_0002 credential gave ${JSON.stringify(refused).slice(0, 300)}`);
		// Each request with exactly its credential's token: ACC_0002's quota and CUST_SMALL's pages theirs, your own account's none; the refused one sent nothing.
		const seen = requests.map((r) => ({ whose: r.op === 'quota' ? r.account ?? 'own' : r.customer || 'own', op: r.op, token: r.token ?? null }));
		const expected = { own: null, ACC_0002: acc, CUST_SMALL: small };
		const wrong = seen.filter((r) => !(r.whose in expected) || r.token !== expected[r.whose]);
		const quotas = seen.filter((r) => r.op === 'quota').map((r) => r.whose).sort();
		const lists = [...new Set(seen.filter((r) => r.op === 'list').map((r) => r.whose))].sort();
		check(wrong.length === 0 && JSON.stringify(quotas) === JSON.stringify(['ACC_0002', 'own']) && JSON.stringify(lists) === JSON.stringify(['CUST_SMALL', 'own']), `the simulator saw ${JSON.stringify(seen.map((r) => ({ ...r, token: r.token && `${r.token.slice(0, 4)}…` })))}`);
		return `two customers' credentials of their own, each holding its Access Token, beside the plain one in one execution: ACC_0002's quota request carried ACC_0002's token, CUST_SMALL's listing (${listed.length} payees) CUST_SMALL's, your own account's quota and listing none (${seen.length} requests); own through ACC_0002's credential refused, nothing sent: "${String(refused[0].error).slice(0, 160)}"`;
	},
	'quota-expressions': ({ run }) => {
		const got = items(run, 'Get Available Quota').map((i) => [i.json.quotaAccumulationId, i.json.availableQuota?.currency, i.json.availableQuotaAmount, i.pairedItem?.item]);
		check(JSON.stringify(got) === JSON.stringify([['U-1001', 'USD', 12500, 0], ['RA-JPY', 'JPY', 5000000, 1]]), `got ${JSON.stringify(got)}`);
		return 'two items from expressions: U-1001 12500 USD, RA-JPY 5000000 JPY, each paired with its input';
	},
	'quota-error': ({ run, exitCode, out }) => {
		check(exitCode !== 0 && out.includes('CONTRACT_CHECK_FAIL') && run.status === 'error', `n8n execute exited ${exitCode}, status ${run.status}`);
		const { error } = run.data.resultData;
		check(String(error?.message).startsWith('own USER_ID U-CONTRACT USD: ') && String(error?.message).includes('CONTRACT_CHECK_FAIL') && error.node?.name === 'Get Available Quota' && /contract/i.test(String(error.description)), `the error is ${JSON.stringify(error).slice(0, 300)}`);
		return `n8n execute fails as it must: "${error.message}", with what to do`;
	},
	'quota-continue-on-fail': ({ run }) => {
		const out = items(run, 'Get Available Quota').map((i) => i.json);
		check(out.length === 1 && out[0].whoseAccount === 'own' && out[0].resultCode === 'CONTRACT_CHECK_FAIL' && out[0].resultStatus === 'F' && String(out[0].error).includes('CONTRACT_CHECK_FAIL'), `got ${JSON.stringify(out).slice(0, 300)}`);
		return `error item { whoseAccount: own, resultCode: CONTRACT_CHECK_FAIL, resultStatus: F, error: "${out[0].error}" }`;
	},
	'export-csv': ({ exportDir }) => {
		const file = join(exportDir, 'beneficiaries.csv');
		check(existsSync(file), `${file} was not written`);
		const lines = readFileSync(file, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter(Boolean);
		check(lines.length === 321 && lines[0].split(',')[0] === 'whoseAccount' && lines[0].split(',').includes('beneficiaryToken'), `the CSV has ${lines.length} lines, header ${lines[0].slice(0, 100)}`);
		check(lines.slice(1).every((l, i) => l.includes(beneficiaries('CUST_LARGE')[i].beneficiaryToken)) && lines.some((l) => l.includes('深圳市前海贸易有限公司')), 'a row does not hold its beneficiary, or a non-ASCII name broke');
		return 'beneficiaries.csv: a header (whoseAccount first) and 320 rows in API order, non-ASCII names intact';
	},
	'agent-tool': ({ run, llmLog }) => {
		const answers = items(run, 'AI Agent').map((i) => String(i.json.output ?? ''));
		check(answers.length === AGENT_QUESTIONS.length, `${answers.length} answers to ${AGENT_QUESTIONS.length} questions`);
		const [quota, customer, failure, empty, listing, own] = answers;
		const result = (text) => JSON.parse(text.replace(/^Tool result: /, '') || 'null');
		const first = (text) => [result(text)].flat()[0] ?? {};
		check(first(quota).whoseAccount === 'own' && first(quota).availableQuotaAmount === 12500 && first(quota).quotaAccumulationId === 'U-1001', `the own U-1001 answer: ${quota.slice(0, 300)}`);
		check(first(customer).whoseAccount === 'ACC_0002' && first(customer).subject === 'ACC_0002 USER_ID U-2001 USD' && first(customer).availableQuotaAmount === simulated('USER_ID', 'U-2001', 'USD', 'ACC_0002').amount, `the ACC_0002 U-2001 answer: ${customer.slice(0, 300)}`);
		check(first(failure).resultCode === 'CONTRACT_CHECK_FAIL' && first(failure).whoseAccount === 'own', `the U-CONTRACT answer: ${failure.slice(0, 300)}`);
		check(/Connected Account ID is empty/.test(empty) && !empty.includes('availableQuota'), `the answer to a question naming no account: ${empty.slice(0, 300)}`);
		const listed = (text) => refsOf([result(text) ?? []].flat());
		check(JSON.stringify(listed(listing)) === JSON.stringify(refsOf(beneficiaries('CUST_SMALL').filter((b) => b.accountName.includes('深圳')))), `the beneficiaries tool gave ${listing.slice(0, 300)}`);
		check(JSON.stringify(listed(own)) === JSON.stringify(refsOf(beneficiaries(''))), `the own-account tool gave ${own.slice(0, 300)}`);
		const shapes = [listing, own].flatMap((text) => [result(text) ?? []].flat());
		check(shapes.every((b) => Object.keys(b).length <= 10 && Object.keys(b)[0] === 'whoseAccount' && !('beneficiaryToken' in b) && String(b.bankAccountIBAN ?? b.bankAccountNo).startsWith('****')), `a beneficiary reached the model unsimplified or unmasked: ${JSON.stringify(shapes.find((b) => Object.keys(b).length > 10 || !String(b.bankAccountIBAN ?? b.bankAccountNo).startsWith('****')))}`);
		const offered = new Map(readFileSync(llmLog, 'utf8').trim().split('\n').flatMap((l) => JSON.parse(l).body?.tools ?? []).map((t) => [t.function.name, Object.keys(t.function.parameters?.properties ?? {}).sort().join(', ')]));
		for (const [name, args] of Object.entries({ Get_available_quota: 'account, currency, userId', List_beneficiaries: 'accountName, customerId', List_my_own_beneficiaries: 'accountName' })) {
			check(offered.get(name) === args, `n8n offered ${name} {${offered.get(name)}}, expected {${args}}`);
		}
		return "examples/ai-agent-tool.json's three tools offered to the model with their $fromAI() keys; own U-1001 answered 12500, ACC_0002's U-2001 5000, U-CONTRACT resultCode CONTRACT_CHECK_FAIL (whoseAccount own), an empty account refused (\"Connected Account ID is empty\"), CUST_SMALL 深圳 its 2 payees, the own account its 12, each simplified and masked";
	},
	'example-daily-quota-check': ({ run }) => {
		const [a] = items(run, 'Account and threshold').map((i) => i.json);
		const want = attention(a);
		check(want.includes('below its threshold'), `the data set no longer puts ${a.id} below ${a.threshold}`);
		const message = sent(run);
		check(message === want, `the alert is ${JSON.stringify(message)}, expected ${JSON.stringify(want)}`);
		return `one alert reached "Post to your Slack channel": "${message}"`;
	},
	'example-many-accounts-quota-check': ({ run }) => {
		const quotas = items(run, 'One item per quota').map((i) => i.json);
		const want = manyAccountsMessage(quotas);
		const message = sent(run);
		check(message === want, `the message is ${JSON.stringify(message)}, expected ${JSON.stringify(want)}`);
		return `one message for ${quotas.length} quotas, yours and your customers', naming exactly those below their threshold and those that failed, by result code: ${JSON.stringify(message)}`;
	},
	'example-many-accounts-all-fine': ({ run }) => {
		const quotas = items(run, 'One item per quota').map((i) => i.json);
		check(quotas.length === 2 && quotas.every((q) => !attention(q)), `the lines ${JSON.stringify(quotas)} are not all fine quotas`);
		const ran = Object.keys(run.data.resultData.runData);
		const after = ['All of them together', 'Build one message', 'Post to your Slack channel'].filter((n) => ran.includes(n));
		check(after.length === 0, `with nothing to report these nodes ran anyway: ${after.map((n) => `"${n}" (${(run.data.resultData.runData[n][0]?.data?.main?.[0] ?? []).map((i) => JSON.stringify(i.json)).join(', ')})`).join('; ')}`);
		return `every quota fine (${quotas.map(quotaLabel).join(', ')}): nothing reached "Post to your Slack channel", as its note says`;
	},
	'example-weekly-beneficiary-export': ({ exportDir }) => {
		const file = readdirSync(exportDir).find((f) => EXPORT_FILE.test(f)) ?? die(`no beneficiaries-<date>-<time>-<execution>.csv was written: ${readdirSync(exportDir).join(', ')}`);
		const lines = readFileSync(join(exportDir, file), 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter(Boolean);
		check(lines.length === 13 && lines[0].startsWith('Whose account,') && beneficiaries('').every((b, i) => lines[i + 1].startsWith('own,') && lines[i + 1].includes(b.referenceBeneficiaryId)), `${file} has ${lines.length} lines: ${lines.slice(0, 2).join(' | ')}`);
		return `${file}: a header (Whose account first) and the own account's 12 payees, in order`;
	},
	'quota-ssrf-blocked': ({ run, exitCode }) => {
		const { error } = run.data.resultData;
		const said = `${error?.message ?? ''} ${error?.description ?? ''}`;
		check(exitCode !== 0 && run.status === 'error' && /SSRF|N8N_SSRF_ALLOWED_IP_RANGES|restricted IP/i.test(said) && error.node?.name === 'Get Available Quota', `exit ${exitCode}, status ${run.status}: ${said.slice(0, 300)}`);
		return `SSRF protection on, loopback not allowed: the quota run fails and says why: "${String(error.message).slice(0, 160)}"`;
	},
	'quota-ssrf-allowed': (r) => `SSRF protection on, N8N_SSRF_ALLOWED_IP_RANGES=127.0.0.0/8: the quota run succeeds (${CASES.quota(r)})`,
};
/** Quota lines all above their thresholds (yours and a customer's), for many-accounts-quota-check's "nothing is sent". */
const FINE_QUOTAS = 'own, RECEIVING_ACCOUNT, RA-2001, USD, 100000\nACC_0003, USER_ID, U-3001, USD, 50000';
/** The weekly export's file: named by the date, time and execution, so no run overwrites another. */
export const EXPORT_FILE = /^beneficiaries-\d{4}-\d\d-\d\d-\d{6}-\d+\.csv$/;
/**
 * many-accounts-quota-check's one message for its quotas (each { account, method, id, currency,
 * tradeType, threshold }), read here again: the count of those needing attention, then a line each.
 */
export function manyAccountsMessage(quotas) {
	const lines = quotas.map(attention).filter(Boolean);
	const failed = lines.filter((l) => l.includes('not checked')).length;
	if (!failed || lines.length - failed < 2 || lines.length === quotas.length || !quotas.some((q) => q.account === 'own') || !quotas.some((q) => q.account !== 'own')) {
		die(`the example's quotas no longer cover low, failed and fine ones, yours and your customers' (${lines.length} of ${quotas.length} named)`);
	}
	return `FX settlement quota: ${lines.length} of ${quotas.length} need attention\n${lines.map((l) => `- ${l}`).join('\n')}`;
}
/** Runs whose data must hold no whole bank value: the examples' (the weekly export's job is a file of them, as its note says). */
const MASKED = ['agent-tool', 'example-daily-quota-check', 'example-many-accounts-quota-check'];

/** The execution JSON `n8n execute --rawOutput` printed (2.x prints a line after it; 1.x logs around it on failure). */
function execution(text) {
	const lines = text.split('\n');
	for (const start of lines.flatMap((l, i) => (l.startsWith('{') ? [i] : []))) {
		for (let end = lines.length - 1; end >= start; end--) {
			if (!lines[end].trimEnd().endsWith('}')) continue;
			try {
				const parsed = JSON.parse(lines.slice(start, end + 1).join('\n'));
				if (parsed && 'status' in parsed) return parsed;
			} catch {}
		}
	}
	die('n8n printed no execution JSON');
}

/** One line's smoke run, in its own user folder and database with its own simulator. */
export async function runSmoke(app, { work, registry, tarball, results, logs }) {
	const dir = join(work, 'S');
	const user = join(dir, 'user');
	const exportDir = join(dir, 'export');
	mkdirSync(join(user, '.n8n/nodes'), { recursive: true });
	mkdirSync(join(dir, 'workflows'), { recursive: true });
	mkdirSync(exportDir);
	const label = `${app.line}.x`;
	const record = (ok, text) => results.add(ok, `${label} ${text}`);
	const sim = await startSimulator(join(dir, 'simulator.log'));
	const llmPort = await freePort();
	const llmLog = join(dir, 'fake-openai.jsonl');
	const llm = bg('node', [join(HERE, 'fake-openai.mjs'), '--port', llmPort, '--log', llmLog], { log: join(dir, 'fake-openai.log') });
	const env = n8nEnv(app, user, { ...registry.clientEnv, PAI_SMOKE_EXPORT_DIR: exportDir, N8N_RESTRICT_FILE_ACCESS_TO: exportDir });
	try {
		await until(async () => (await fetch(`http://127.0.0.1:${llmPort}/v1/models`)).ok, 20_000);
		await cliMust(app, env, ['import:credentials', `--input=${credentials(join(dir, 'credentials.json'), [{ ...SMOKE_CREDENTIAL, url: sim.url }, ...Object.values(TOKEN_CREDENTIALS).map((c) => ({ ...c, url: sim.url })), { id: 'PaiSmokeOpenAi01', name: 'Local fake OpenAI', type: 'openAiApi', url: `http://127.0.0.1:${llmPort}/v1` }])}`]);
		await installTarball(app, user, tarball, env);
		// The smoke workflows; the agent's tool nodes taken from examples/ai-agent-tool.json as they are now.
		const example = (name) => JSON.parse(readFileSync(join(ROOT, 'examples', `${name}.json`), 'utf8'));
		const tools = example('ai-agent-tool').nodes.filter((n) => n.type === `${PACKAGE}.partnerAccountInquiryTool`);
		const runs = [];
		for (const [name, w] of Object.entries(SMOKE)) {
			w.nodes = w.nodes.map((n) => (n.type.endsWith('Tool') ? { ...(tools.find((t) => t.name === n.name) ?? die(`examples/ai-agent-tool.json has no tool "${n.name}"`)), id: n.id, position: n.position, credentials: n.credentials } : n));
			runs.push([name, w]);
		}
		for (const [name, id] of [['daily-quota-check', 'PaiRunDaily'], ['many-accounts-quota-check', 'PaiRunMany'], ['weekly-beneficiary-export', 'PaiRunWeekly']]) {
			runs.push([`example-${name}`, workingCopy(example(name), { id, name: `[run] examples/${name}.json`, manual: true, exportDir })]);
		}
		// Its note: "Nothing low and nothing failed: nothing is sent". The same workflow, its lines all fine quotas.
		const fine = workingCopy(example('many-accounts-quota-check'), { id: 'PaiRunManyFine', name: '[run] examples/many-accounts-quota-check.json, every quota fine', manual: true });
		(fine.nodes.find((n) => n.name === 'Your quotas, one a line') ?? die('many-accounts-quota-check.json has no "Your quotas, one a line"')).parameters.assignments.assignments[0].value = FINE_QUOTAS;
		runs.push(['example-many-accounts-all-fine', fine]);
		for (const [name, w] of runs) writeFileSync(join(dir, 'workflows', `${name}.json`), JSON.stringify(w));
		await cliMust(app, env, ['import:workflow', '--separate', `--input=${join(dir, 'workflows')}`]);
		const loaded = JSON.parse((await cliMust(app, env, ['export:nodes', `--output=${join(dir, 'nodes.json')}`]), readFileSync(join(dir, 'nodes.json'), 'utf8')));
		const run = async (name, id, extra = {}) => {
			// n8n 2.41.1's `n8n execute` on Node 24 at times crashes (SIGSEGV, 139) on its way out, after printing the execution: then judged on what it printed.
			// It can also crash while printing: a run that printed no whole execution is run again, up to three times.
			let result;
			const printed = (r) => r.code !== 139 || /^\{/m.test(r.out) && (() => { try { return execution(r.out); } catch { return false; } })();
			let from;
			for (let attempt = 0; attempt < 3 && (!result || !printed(result)); attempt++) (from = Date.now()), (result = await cli(app, { ...env, ...extra }, ['execute', `--id=${id}`, '--rawOutput'], join(dir, `run-${name}.log`)));
			const to = Date.now();
			const { code, out } = result;
			try {
				if (code === 124) die('n8n execute did not finish in time');
				// The simulator's requests of this run (the runs go one after the other).
				const requests = (await sim.requests()).filter((q) => q.at >= from && q.at <= to);
				const r = { run: execution(out), exitCode: code, out, exportDir, llmLog, requests };
				if (!name.includes('error') && !name.includes('blocked')) check([0, 139].includes(code) && r.run.status === 'success', `n8n execute exited ${code}, status ${r.run.status}`);
				record(true, `${name}: ${CASES[name](r)}${code === 139 ? ' (n8n execute crashed on its way out twice, after printing the execution)' : ''}`);
				if (MASKED.includes(name)) {
					const leaked = WHOLE.filter((v) => out.includes(v));
					record(leaked.length === 0, `${name}: the execution of the example holds no whole account number, IBAN or token of the simulator's data${leaked.length ? ` (saw ${leaked.length}: ${leaked.slice(0, 5).map((v) => `****${v.slice(-4)}`).join(', ')})` : ''}`);
				}
			} catch (error) {
				record(false, `${name}: ${error.message}`);
			}
		};
		for (const [name, w] of runs) await run(name, w.id);
		if (app.line === '2') {
			await run('quota-ssrf-blocked', 'PaiSmokeQuota001', { N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_IP_RANGES: '' });
			await run('quota-ssrf-allowed', 'PaiSmokeQuota001', { N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.0/8' });
		}
		// Every example as it is: imported (all in one command; one by one when that fails, to name the one), listed, and checked against the app.
		const files = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.json')).sort();
		mkdirSync(join(dir, 'examples'));
		for (const file of files) writeFileSync(join(dir, 'examples', file), readFileSync(join(ROOT, 'examples', file)));
		const all = await cli(app, env, ['import:workflow', '--separate', `--input=${join(dir, 'examples')}`]);
		for (const file of files) {
			const { code, out } = all.code === 0 && all.out.includes(`Successfully imported ${files.length} workflows`) ? all : await cli(app, env, ['import:workflow', `--input=${join(ROOT, 'examples', file)}`]);
			record(code === 0 && /Successfully imported \d+ workflows?/.test(out), `example ${file}: imported by n8n import:workflow as it is${code ? ` failed: ${out.slice(-300)}` : ''}`);
		}
		const listed = await cliMust(app, env, ['list:workflow']);
		for (const file of files) {
			const { name } = JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8'));
			record(listed.includes(`|${name}`), `n8n list:workflow shows "${name}"`);
		}
		await cliMust(app, env, ['export:workflow', '--all', `--output=${join(dir, 'exported.json')}`]);
		checkExamples(app, loaded, JSON.parse(readFileSync(join(dir, 'exported.json'), 'utf8')), files, record);
	} catch (error) {
		record(false, `smoke run: ${error.stack}`);
	} finally {
		await llm.stop();
		await sim.proc.stop();
	}
}

/**
 * Each example against the app it was imported into: every node type and version exists, no
 * parameter is unknown or hidden, n8n-workflow's NodeHelpers (as the editor uses them) flag no
 * issue, connections name real nodes, the credential (referenced by name) was resolved.
 */
function checkExamples(app, nodeTypes, exported, files, record) {
	const { NodeHelpers } = createRequire(join(app.dir, 'node_modules/n8n/package.json'))('n8n-workflow');
	for (const file of files) {
		const example = JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8'));
		const problems = [];
		const names = new Set(example.nodes.map((n) => n.name));
		for (const node of example.nodes) {
			const d = nodeTypes.find((t) => t.name === node.type && [t.version].flat().includes(node.typeVersion));
			if (!d) {
				problems.push(`"${node.name}": ${node.type} version ${node.typeVersion} is not in the app`);
				continue;
			}
			if (node.type.startsWith(PACKAGE) && !node.credentials?.partnerAccountInquiryApi?.name) problems.push(`"${node.name}" names no credential`);
			const parameters = NodeHelpers.getNodeParameters(d.properties, node.parameters, true, false, node, d) ?? {};
			for (const key of Object.keys(node.parameters ?? {})) if (!(key in parameters)) problems.push(`"${node.name}": parameter "${key}" is unknown or hidden`);
			const issues = NodeHelpers.getNodeParametersIssues(d.properties, { ...node, parameters }, d);
			if (issues) problems.push(`"${node.name}": the editor would flag ${JSON.stringify(issues.parameters ?? issues)}`);
		}
		if (!example.nodes.some((n) => n.type.startsWith(PACKAGE))) problems.push('uses no Partner Account Inquiry node');
		for (const [source, outputs] of Object.entries(example.connections ?? {})) {
			for (const target of [source, ...Object.values(outputs).flat(2).map((t) => t?.node)].filter(Boolean)) if (!names.has(target)) problems.push(`connection names unknown node "${target}"`);
		}
		const imported = exported.filter((w) => w.name === example.name);
		if (imported.length !== 1) problems.push(`the app holds ${imported.length} workflows named "${example.name}"`);
		else for (const n of imported[0].nodes) if (n.credentials?.partnerAccountInquiryApi && n.credentials.partnerAccountInquiryApi.id !== SMOKE_CREDENTIAL.id) problems.push(`"${n.name}": credential not resolved by name`);
		record(!problems.length, `example ${file}: ${problems.length ? problems.join('; ') : `imported as "${example.name}" (id ${example.id}), ${example.nodes.length} nodes known to n8n, no parameter issues, credential resolved by name`}`);
	}
}
