// The package's nodes run with `n8n execute` in a real app, against the simulator's data as shipped:
// the smoke workflows of workflows.mjs, every example that runs from a start node (working copies),
// every example imported as it is and checked against the app. Expectations are computed from the
// simulator's data set with predicates written here again, so a filter the simulator or the node
// got wrong shows up.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { SMOKE } from './workflows.mjs';
import { HERE, PACKAGE, ROOT, bg, die, freePort, until } from './harness.mjs';
import { installTarball } from './install.mjs';
import { SMOKE_CREDENTIAL, cli, cliMust, credentials, n8nEnv, startSimulator } from './n8n.mjs';

const requireHere = createRequire(import.meta.url);
const SEND = 'n8n-nodes-base.slack';

/**
 * A working copy of an example, for running it: its own ID and name; every Slack node a No
 * Operation stand-in of the same name (what it would post is its input); with `cron`, the package's
 * trigger polling on that schedule; with `manual`, its Schedule Trigger a Manual Trigger of the same
 * name (`n8n execute` starts only from one); with `exportDir`, files written there. The rest is the example's.
 */
export function workingCopy(example, { id, name, cron, manual, exportDir }) {
	const copy = { ...structuredClone(example), id, name, active: false };
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
 * The subjects a Watch Many quota trigger's pasted text names, each with its threshold (its own, else
 * the Threshold), how its alert names it, the simulator's key, whether it starts below its threshold or
 * fails (the simulator answers it with an error code).
 */
export function floorSubjects(trigger) {
	return trigger.parameters.subjectsText.split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((line) => {
		const [method, id, currency, ...rest] = line.split(/[,;\t]/).map((f) => f.trim());
		const tradeType = method === 'BENEFICIARY' ? rest.shift() : undefined;
		const threshold = Number(rest[0] || trigger.parameters.threshold);
		const key = tradeType ? `${id}:${tradeType}` : id;
		const { amount } = simulated(method, key, currency);
		const label = method.endsWith('ACCOUNT') ? `${method} ****${id.slice(-4)} ${currency}` : [method, id, currency, tradeType].filter(Boolean).join(' ');
		return { method, key, currency, threshold, label, fails: amount === undefined, below: amount < threshold, minor: (major) => String(Math.round(major * 10 ** MINOR_DIGITS[currency])) };
	});
}

/** What the simulator holds for a quota subject: { amount } in major units, or { code }. */
export function simulated(method, id, currency) {
	const record = quotaRecord(method, id) ?? die(`the simulator no longer knows ${method} ${id}`);
	if ('code' in record) return { code: record.code };
	if (record.currency !== currency) die(`the simulator holds ${method} ${id} in ${record.currency}, not ${currency}`);
	return { amount: Number(record.value) / 10 ** MINOR_DIGITS[currency] };
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
		check(out.every((i) => i.json._listedFor?.customerId === 'CUST_LARGE'), 'an item does not say whose list it came from (_listedFor.customerId, always added)');
		return '320 items, 320 distinct beneficiaryToken values, in API order (7 pages of 50), extendInfo kept, each _listedFor CUST_LARGE';
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
		check(out.length === 1 && out[0].availableQuotaAmount === 12500 && out[0].availableQuota?.currency === 'USD' && String(out[0].availableQuota?.value) === '1250000' && out[0].quotaAccumulationId === 'U-1001',
			`got ${JSON.stringify(out).slice(0, 300)}`);
		return 'U-1001: availableQuotaAmount 12500 (USD 1250000 minor units)';
	},
	'quota-expressions': ({ run }) => {
		const got = items(run, 'Get Available Quota').map((i) => [i.json.quotaAccumulationId, i.json.availableQuota?.currency, i.json.availableQuotaAmount, i.pairedItem?.item]);
		check(JSON.stringify(got) === JSON.stringify([['U-1001', 'USD', 12500, 0], ['RA-JPY', 'JPY', 5000000, 1]]), `got ${JSON.stringify(got)}`);
		return 'two items from expressions: U-1001 12500 USD, RA-JPY 5000000 JPY, each paired with its input';
	},
	'quota-error': ({ run, exitCode, out }) => {
		check(exitCode !== 0 && out.includes('CONTRACT_CHECK_FAIL') && run.status === 'error', `n8n execute exited ${exitCode}, status ${run.status}`);
		const { error } = run.data.resultData;
		check(String(error?.message).includes('CONTRACT_CHECK_FAIL') && error.node?.name === 'Get Available Quota' && /contract/i.test(String(error.description)), `the error is ${JSON.stringify(error).slice(0, 300)}`);
		return `n8n execute fails as it must: "${error.message}", with what to do`;
	},
	'quota-continue-on-fail': ({ run }) => {
		const out = items(run, 'Get Available Quota').map((i) => i.json);
		check(out.length === 1 && out[0].resultCode === 'CONTRACT_CHECK_FAIL' && out[0].resultStatus === 'F' && String(out[0].error).includes('CONTRACT_CHECK_FAIL'), `got ${JSON.stringify(out).slice(0, 300)}`);
		return `error item { resultCode: CONTRACT_CHECK_FAIL, resultStatus: F, error: "${out[0].error}" }`;
	},
	'export-csv': ({ exportDir }) => {
		const file = join(exportDir, 'beneficiaries.csv');
		check(existsSync(file), `${file} was not written`);
		const lines = readFileSync(file, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter(Boolean);
		check(lines.length === 321 && lines[0].split(',').includes('beneficiaryToken'), `the CSV has ${lines.length} lines, header ${lines[0].slice(0, 100)}`);
		check(lines.slice(1).every((l, i) => l.includes(beneficiaries('CUST_LARGE')[i].beneficiaryToken)) && lines.some((l) => l.includes('深圳市前海贸易有限公司')), 'a row does not hold its beneficiary, or a non-ASCII name broke');
		return 'beneficiaries.csv: a header and 320 rows in API order, non-ASCII names intact';
	},
	'agent-tool': ({ run, llmLog }) => {
		const [quota, failure, listing, own] = items(run, 'AI Agent').map((i) => String(i.json.output ?? ''));
		check(/"availableQuotaAmount":\s*12500\b/.test(quota) && quota.includes('"quotaAccumulationId":"U-1001"'), `the U-1001 answer: ${quota.slice(0, 300)}`);
		check(failure.includes('"resultCode":"CONTRACT_CHECK_FAIL"'), `the U-CONTRACT answer: ${failure.slice(0, 300)}`);
		const listed = (text) => refsOf(JSON.parse(text.replace(/^Tool result: /, '') || '[]'));
		check(JSON.stringify(listed(listing)) === JSON.stringify(refsOf(beneficiaries('CUST_SMALL').filter((b) => b.accountName.includes('深圳')))), `the beneficiaries tool gave ${listing.slice(0, 300)}`);
		check(JSON.stringify(listed(own)) === JSON.stringify(refsOf(beneficiaries(''))), `the own-account tool gave ${own.slice(0, 300)}`);
		const offered = new Map(readFileSync(llmLog, 'utf8').trim().split('\n').flatMap((l) => JSON.parse(l).body?.tools ?? []).map((t) => [t.function.name, Object.keys(t.function.parameters?.properties ?? {}).sort().join(', ')]));
		for (const [name, args] of Object.entries({ Get_available_quota: 'currency, userId', List_beneficiaries: 'accountName, customerId', List_my_own_beneficiaries: 'accountName' })) {
			check(offered.get(name) === args, `n8n offered ${name} {${offered.get(name)}}, expected {${args}}`);
		}
		return "examples/ai-agent-tool.json's three tools offered to the model with their $fromAI() keys; U-1001 answered 12500, U-CONTRACT resultCode CONTRACT_CHECK_FAIL, CUST_SMALL 深圳 its 2 payees, the own account its 12";
	},
	'example-daily-quota-check': ({ run }) => {
		const [a] = items(run, 'Account and threshold').map((i) => i.json);
		const { amount } = simulated(a.method, a.tradeType ? `${a.id}:${a.tradeType}` : a.id, a.currency);
		check(amount < a.threshold, `the data set no longer puts ${a.id} below ${a.threshold}`);
		const message = sent(run);
		check(message.includes(a.id) && message.includes(String(amount)) && message.includes(String(a.threshold)), `the alert is ${JSON.stringify(message)}`);
		return `one alert reached "Post to your Slack channel": "${message}"`;
	},
	'example-many-accounts-quota-check': ({ run }) => {
		const accounts = items(run, 'Accounts and their thresholds').map((i) => i.json);
		let low = 0;
		let failed = 0;
		const message = sent(run);
		for (const a of accounts) {
			const q = simulated(a.method, a.tradeType ? `${a.id}:${a.tradeType}` : a.id, a.currency);
			// Named as the recipe names it: `B-4001 (BENEFICIARY SERVICE, USD)`, an account number by its last four.
			const shown = ['RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT'].includes(a.method) ? `****${String(a.id).slice(-4)}` : a.id;
			const named = message.includes(`${shown} (${a.method === 'BENEFICIARY' ? `${a.method} ${a.tradeType}` : a.method}, ${a.currency})`);
			if (q.code) check(named && message.includes(q.code), `${a.id} (${q.code}) is not named with its code`), failed++;
			else if (q.amount < a.threshold) check(named, `${a.id} (${q.amount} below ${a.threshold}) is not named`), low++;
			else check(!named, `${a.id} (${q.amount}, threshold ${a.threshold}) is named though fine`);
		}
		check(low >= 2 && failed >= 1 && low + failed < accounts.length, `the example's accounts no longer cover low (${low}), failed (${failed}) and fine ones`);
		return `one message for ${accounts.length} accounts names exactly the ${low} below their threshold and the ${failed} that failed, by result code`;
	},
	'example-weekly-beneficiary-export': ({ exportDir }) => {
		const file = readdirSync(exportDir).find((f) => /^beneficiaries-\d{4}-\d\d-\d\d\.csv$/.test(f)) ?? die('no beneficiaries-<date>.csv was written');
		const lines = readFileSync(join(exportDir, file), 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter(Boolean);
		check(lines.length === 13 && beneficiaries('').every((b, i) => lines[i + 1].includes(b.referenceBeneficiaryId)), `${file} has ${lines.length} lines`);
		return `${file}: a header and the own account's 12 payees, in order`;
	},
	'quota-ssrf-blocked': ({ run, exitCode }) => {
		const { error } = run.data.resultData;
		const said = `${error?.message ?? ''} ${error?.description ?? ''}`;
		check(exitCode !== 0 && run.status === 'error' && /SSRF|N8N_SSRF_ALLOWED_IP_RANGES|restricted IP/i.test(said) && error.node?.name === 'Get Available Quota', `exit ${exitCode}, status ${run.status}: ${said.slice(0, 300)}`);
		return `SSRF protection on, loopback not allowed: the quota run fails and says why: "${String(error.message).slice(0, 160)}"`;
	},
	'quota-ssrf-allowed': (r) => `SSRF protection on, N8N_SSRF_ALLOWED_IP_RANGES=127.0.0.0/8: the quota run succeeds (${CASES.quota(r)})`,
};
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
		await cliMust(app, env, ['import:credentials', `--input=${credentials(join(dir, 'credentials.json'), [{ ...SMOKE_CREDENTIAL, url: sim.url }, { id: 'PaiSmokeOpenAi01', name: 'Local fake OpenAI', type: 'openAiApi', url: `http://127.0.0.1:${llmPort}/v1` }])}`]);
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
		for (const [name, w] of runs) writeFileSync(join(dir, 'workflows', `${name}.json`), JSON.stringify(w));
		await cliMust(app, env, ['import:workflow', '--separate', `--input=${join(dir, 'workflows')}`]);
		const loaded = JSON.parse((await cliMust(app, env, ['export:nodes', `--output=${join(dir, 'nodes.json')}`]), readFileSync(join(dir, 'nodes.json'), 'utf8')));
		const run = async (name, id, extra = {}) => {
			// n8n 2.41.1's `n8n execute` on Node 24 at times crashes (SIGSEGV, 139) on its way out, after printing the execution: then judged on what it printed.
			// It can also crash while printing: a run that printed no whole execution is run again, up to three times.
			let result;
			const printed = (r) => r.code !== 139 || /^\{/m.test(r.out) && (() => { try { return execution(r.out); } catch { return false; } })();
			for (let attempt = 0; attempt < 3 && (!result || !printed(result)); attempt++) result = await cli(app, { ...env, ...extra }, ['execute', `--id=${id}`, '--rawOutput'], join(dir, `run-${name}.log`));
			const { code, out } = result;
			try {
				if (code === 124) die('n8n execute did not finish in time');
				const r = { run: execution(out), exitCode: code, out, exportDir, llmLog };
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
