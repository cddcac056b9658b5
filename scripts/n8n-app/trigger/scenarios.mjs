// The trigger's live scenarios (issue #20), in a running n8n app, read back from n8n's database:
//
//   node scripts/n8n-app/trigger/scenarios.mjs workflows <dir> <suffix> <quota ID prefix>
//     Writes the scenario workflows (IDs PaiScen<name><suffix>), each polling every
//     SCENARIO_TICK_SECONDS (10 on 1.x, 60 on 2.x, which refuses less than a minute).
//   node scripts/n8n-app/trigger/scenarios.mjs before-restart <simulator URL> <app dir> <database> <suffix> <quota ID prefix>
//     Waits for the scheduled polls to record their baselines, then, in the simulator: gives one
//     beneficiary of the partner's own account new bank details, swaps two beneficiaries of
//     CUST_LARGE while a poll reads its pages, and drops the first quota below the threshold;
//     waits for the executions, then lets the quota recover and waits for a poll to see it.
//   node scripts/n8n-app/trigger/scenarios.mjs fall <simulator URL> <quota ID prefix> [reference ID]
//     Drops the quota below the threshold again (run while n8n is stopped) and, given a reference
//     ID, binds a beneficiary with it to the own account (after-restart expects it reported once
//     when SCENARIO_BOUND_MEANWHILE names it).
//   node scripts/n8n-app/trigger/scenarios.mjs setup <simulator URL> <quota ID prefix>
//     Before the app starts: the first quota at 12,500 USD, the second at 0 (below from the start).
//   node scripts/n8n-app/trigger/scenarios.mjs after-restart <simulator URL> <app dir> <database> <suffix> <quota ID prefix> <label> <what before-restart printed>
//     Waits for the second alert, lets two more polls pass, and prints one ok/FAIL line per check.
//     With SCENARIO_EVERY_POLL_SAVED=1 (durable cursors: every poll saved) the quota below from
//     activation must alert exactly once across the restart; otherwise at most one repeat. The
//     scheduled quota workflow must have run, each time a success, before and after the restart.
//     With SCENARIO_BANK_ALERT set (bank-alert-workflow below, active in this session), also
//     changes the bank details of REF-SML-00001 (CUST_SMALL) once the restarted app polls ("restart":
//     the workflow was activated at this restart, so after its first scheduled poll; "running": it
//     was active before, so at once), and checks examples/bank-detail-change-alert.json live: one
//     execution, one alert reached its send node, saying "account ending 1234 -> ending 9876" from
//     the masked values, and no full account number, IBAN or token anywhere in the execution.
//   node scripts/n8n-app/trigger/scenarios.mjs bank-alert-workflow <dir> <suffix>
//     Writes the working copy of examples/bank-detail-change-alert.json (example-copy.mjs: its
//     Slack node a stand-in, polling every tick), ID PaiScenBankAlert<suffix>, and prints its ID.
//   node scripts/n8n-app/trigger/scenarios.mjs sets-workflows <dir> <suffix> <quota ID prefix>
//     Writes two Watch Many triggers (version 2), IDs PaiScenSetsQuota<suffix> (Quota Below
//     Threshold over <prefix>S1..S3) and PaiScenSetsCustomers<suffix> (Beneficiary Added over
//     CUST_SMALL and CUST_EMPTY), and prints their IDs. With SCENARIO_SETS set ("restart": activated
//     at this restart; "running": active before), after-restart also checks them live (checkSets):
//     two subjects falling in one poll are one execution with both while a third fails (reported
//     once, by the poll after, naming it); two customers binding a payee are one execution, each
//     item naming its customer; a subject added to the active set (<prefix>S4, already below) alerts
//     once and no other subject alerts again.
//   node scripts/n8n-app/trigger/scenarios.mjs activation <simulator URL> <app dir> <database> <suffix> <n8n URL> <label>
//     The workflow ActChanged (Beneficiary Changed on CUST_SMALL, imported inactive), driven as a
//     user would through n8n's REST API (2.x): activated, a bank-detail change made at once (after
//     the poll n8n runs at activation, before the first scheduled one) must be reported once;
//     deactivated, a change made while inactive, activated again, a change made at once: only the
//     latter may be reported, once.
//
// Every check reads the executions n8n saved and the reference IDs their data carries.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { workingCopy } from '../example-copy.mjs';
import { restClient } from '../rest.mjs';

// n8n 1.x polls as often as every 10 s when the seconds are listed ("*/10" is refused as "too
// short"); 2.x refuses any poll time under a minute. SCENARIO_TICK_SECONDS says which (10 or 60).
const TICK_SECONDS = Number(process.env.SCENARIO_TICK_SECONDS ?? 60);
const CRON = TICK_SECONDS === 10 ? '0,10,20,30,40,50 * * * * *' : '0 * * * * *';
const THRESHOLD = 10000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Until `n` scheduled polls have started from now, and 8 s more for them to finish. */
const afterTicks = (n) => {
	const period = TICK_SECONDS * 1000;
	const next = Math.ceil(Date.now() / period) * period;
	return sleep(next + (n - 1) * period + 8000 - Date.now());
};

/** name -> trigger parameters; the quota subjects are <prefix>1 (falls, recovers, falls) and <prefix>2 (below from the start). */
function scenarios(quotaPrefix) {
	const quota = (id) => ({
		event: 'quotaBelowThreshold',
		quotaAccumulationMethod: 'USER_ID',
		quotaAccumulationId: id,
		currency: 'USD',
		threshold: THRESHOLD,
	});
	return {
		OwnChanged: { event: 'beneficiaryChanged', filters: {}, options: {} },
		OwnAdded: { event: 'beneficiaryAdded', filters: {}, options: {} },
		OwnRemoved: { event: 'beneficiaryRemoved', filters: {}, options: {} },
		LargeAdded: { event: 'beneficiaryAdded', filters: {}, options: { customerId: 'CUST_LARGE' } },
		LargeRemoved: { event: 'beneficiaryRemoved', filters: {}, options: { customerId: 'CUST_LARGE' } },
		QuotaFalls: quota(`${quotaPrefix}1`),
		QuotaBelowAtStart: quota(`${quotaPrefix}2`),
	};
}

/** Imported but not activated: the activation scenario activates it through the REST API. */
const INACTIVE = { ActChanged: { event: 'beneficiaryChanged', filters: {}, options: { customerId: 'CUST_SMALL' } } };

const idOf = (name, suffix) => `PaiScen${name}${suffix}`.slice(0, 36);

function writeWorkflows(dir, suffix, quotaPrefix) {
	mkdirSync(dir, { recursive: true });
	const all = { ...scenarios(quotaPrefix), ...INACTIVE };
	for (const [name, parameters] of Object.entries(all)) {
		const workflow = {
			id: idOf(name, suffix),
			name: `[live] Trigger scenario ${name} ${suffix}`,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: `c0a1c2d3-0000-4000-8000-${String(Object.keys(all).indexOf(name)).padStart(12, '0')}`,
					name: 'Trigger',
					type: 'n8n-nodes-partner-account-inquiry.partnerAccountInquiryTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: { pollTimes: { item: [{ mode: 'custom', cronExpression: CRON }] }, ...parameters },
					credentials: { partnerAccountInquiryApi: { id: 'PaiSmokeCred0001', name: 'Partner Account Inquiry API account' } },
				},
			],
			connections: {},
			pinData: {},
		};
		writeFileSync(join(dir, `${name}.json`), JSON.stringify(workflow, null, 2));
	}
	// A scheduled action workflow (Schedule Trigger, then Get Available Quota): it must keep running
	// with its credential across the restart (and the upgrade, on the default poller's run).
	writeFileSync(
		join(dir, 'Scheduled.json'),
		JSON.stringify(
			{
				id: idOf('Scheduled', suffix),
				name: `[live] Scheduled quota check ${suffix}`,
				active: false,
				settings: { executionOrder: 'v1' },
				nodes: [
					{
						id: 'c0a1c2d3-0000-4000-8000-100000000001',
						name: 'Every tick',
						type: 'n8n-nodes-base.scheduleTrigger',
						typeVersion: 1.2,
						position: [0, 0],
						parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: TICK_SECONDS }] } },
					},
					{
						id: 'c0a1c2d3-0000-4000-8000-100000000002',
						name: 'Get Available Quota',
						type: 'n8n-nodes-partner-account-inquiry.partnerAccountInquiry',
						typeVersion: 1,
						position: [240, 0],
						parameters: { operation: 'getAvailableQuota', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD', options: {} },
						credentials: { partnerAccountInquiryApi: { id: 'PaiSmokeCred0001', name: 'Partner Account Inquiry API account' } },
					},
				],
				connections: { 'Every tick': { main: [[{ node: 'Get Available Quota', type: 'main', index: 0 }]] } },
				pinData: {},
			},
			null,
			2,
		),
	);
	// The IDs to activate before the app starts (not the INACTIVE ones).
	console.log([...Object.keys(scenarios(quotaPrefix)), 'Scheduled'].map((name) => idOf(name, suffix)).join(' '));
}

/**
 * Activates the workflow between seconds 5 and 25 of a minute (the scheduled polls run at second 0)
 * and returns once its activation poll has reached the simulator (n8n may publish in the
 * background), so that a change made next comes after that poll and before the first scheduled one.
 */
async function activated(rest, id, simulatorUrl = process.argv[3]) {
	while (new Date().getUTCSeconds() < 5 || new Date().getUTCSeconds() > 25) await sleep(1000);
	const stats = async () => (await (await fetch(`${simulatorUrl}/__stats`)).json()).requests;
	const before = await stats();
	await rest.activate(id);
	const deadline = Date.now() + 25_000;
	while ((await stats()) === before && Date.now() < deadline) await sleep(500);
	if ((await stats()) === before) throw new Error(`no activation poll of ${id} reached the simulator within 25 s`);
	await sleep(3000);
}

/** n8n's REST API as the owner that check-app.mjs set up. */
async function restSession(base) {
	let cookie = '';
	const call = async (method, path, body) => {
		const res = await fetch(`${base}${path}`, {
			method,
			headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(120_000),
		});
		const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (auth) cookie = auth.split(';')[0];
		const text = await res.text();
		if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
		return text ? JSON.parse(text) : undefined;
	};
	await call('POST', '/rest/login', { emailOrLdapLoginId: 'owner@example.com', password: 'Smoke-Test-Pass-1' });
	return {
		/** Activates (publishes) the workflow; n8n runs its activation poll before it answers. */
		activate: async (id) => {
			const { data } = await call('GET', `/rest/workflows/${id}`);
			await call('POST', `/rest/workflows/${id}/activate`, { versionId: data.versionId });
		},
		deactivate: async (id) => {
			await call('POST', `/rest/workflows/${id}/deactivate`, {});
		},
	};
}

async function admin(simulatorUrl, action, body) {
	const response = await fetch(`${simulatorUrl}/__admin/${action}`, { method: 'POST', body: JSON.stringify(body) });
	const answer = await response.json();
	if (!response.ok) throw new Error(`simulator ${action}: ${JSON.stringify(answer)}`);
	return answer;
}

/** Per workflow: its executions (id, status) and the reference IDs each one's data carries. */
function readExecutions(appDir, databaseFile, workflowIds) {
	const sqlite3 = createRequire(join(appDir, 'package.json'))('sqlite3');
	const db = new sqlite3.Database(databaseFile, sqlite3.OPEN_READONLY);
	const all = (sql, params) =>
		new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))));
	const byWorkflow = {};
	return Promise.all(
		workflowIds.map(async (workflowId) => {
			const rows = await all(
				`select e.id as id, e.status as status, d.data as data from execution_entity e
				 left join execution_data d on d.executionId = e.id where e.workflowId = ? order by e.id`,
				[workflowId],
			);
			byWorkflow[workflowId] = rows.map((row) => ({
				id: row.id,
				status: row.status,
				references: [...new Set(String(row.data ?? '').match(/REF-[A-Z0-9-]+/g) ?? [])].sort(),
				data: String(row.data ?? ''),
			}));
		}),
	).then(
		() => {
			db.close();
			return byWorkflow;
		},
		(error) => {
			db.close();
			throw error;
		},
	);
}

/** Waits until `done(executions)` holds (true) or the deadline passes (false). */
async function waitFor(read, done, seconds) {
	const deadline = Date.now() + seconds * 1000;
	while (Date.now() < deadline) {
		if (done(await read())) return true;
		await sleep(2000);
	}
	return false;
}

/** examples/bank-detail-change-alert.json, as a working copy polling every tick (example-copy.mjs). */
const BANK_ALERT_EXAMPLE = 'examples/bank-detail-change-alert.json';
function writeBankAlert(dir, suffix) {
	mkdirSync(dir, { recursive: true });
	const example = JSON.parse(readFileSync(BANK_ALERT_EXAMPLE, 'utf8'));
	const copy = workingCopy(example, { id: idOf('BankAlert', suffix), name: `[live] ${example.name} ${suffix}`, cron: CRON });
	writeFileSync(join(dir, 'BankAlert.json'), JSON.stringify(copy, null, 2));
	console.log(copy.id);
}

/**
 * The bank-detail change the example must report: REF-SML-00001 of CUST_SMALL (an account number
 * and an IBAN) gets new ones. "restart": the workflow was activated at this restart, so first a
 * scheduled poll after its activation poll; "running": it has been polling since before.
 */
async function changeForBankAlert(simulatorUrl, mode) {
	if (mode === 'restart') await afterTicks(1);
	const changedAt = Date.now();
	const changed = await admin(simulatorUrl, 'change-bank-details', { customerId: 'CUST_SMALL', referenceBeneficiaryId: 'REF-SML-00001' });
	return { changedAt, changed };
}

/** The example's verdict: one execution, one safe alert at its send node, no full bank detail anywhere. */
async function checkBankAlert(appDir, databaseFile, suffix, label, change) {
	const { changedAt, changed } = await change;
	const id = idOf('BankAlert', suffix);
	const what = `${BANK_ALERT_EXAMPLE} live (Mask Bank Details on)`;
	// The first scheduled poll after the change reports it; the one after that must report nothing.
	const period = TICK_SECONDS * 1000;
	const reported = Math.ceil(changedAt / period) * period;
	const extra = Math.max(0, reported + period + 8000 - Date.now());
	await sleep(extra);
	const read = async () => (await readExecutions(appDir, databaseFile, [id]))[id];
	await waitFor(read, (e) => e.length >= 1, 30);
	const executions = await read();
	const requireFromApp = createRequire(join(appDir, 'package.json'));
	const { createCustomers } = requireFromApp(resolve('.dev-dist/sandbox/data.js'));
	const original = createCustomers().get('CUST_SMALL').beneficiaries;
	const before = original.find((b) => b.referenceBeneficiaryId === changed.referenceBeneficiaryId);
	const want = `Payee ${before.beneficiaryNick} (${before.referenceBeneficiaryId}): account ending ${before.bankAccountNo.slice(-4)} → ending ${changed.bankAccountNo.slice(-4)}, IBAN ending ${before.bankAccountIBAN.slice(-4)} → ending ${changed.bankAccountIBAN.slice(-4)}`;
	const fail = (seen) => `FAIL trigger ${label}: ${what}: ${seen}`;
	if (executions.length !== 1 || executions[0].status !== 'success') {
		return fail(`expected one successful execution after the change of ${before.referenceBeneficiaryId}, saw ${JSON.stringify(executions.map((x) => ({ id: x.id, status: x.status, references: x.references })))}`);
	}
	const data = executions[0].data;
	// Every bank detail of CUST_SMALL's payees, as the simulator first listed them and as changed.
	const full = [...original, changed].flatMap((b) => [b.bankAccountNo, b.bankAccountIBAN, b.beneficiaryToken]).filter((v) => v && v.length > 4);
	const leaked = [...new Set(full.filter((value) => data.includes(value)))];
	if (leaked.length) return fail(`the execution holds ${leaked.length} full bank details (${leaked.map((v) => `****${v.slice(-4)}`).join(', ')})`);
	const run = requireFromApp('flatted').parse(data);
	const sent = run.resultData?.runData?.['Post to your Slack channel']?.[0]?.data?.main?.[0] ?? [];
	const messages = sent.map((item) => item.json?.message);
	if (messages.length !== 1 || messages[0] !== want) {
		return fail(`"Post to your Slack channel" received ${JSON.stringify(messages)}, expected [${JSON.stringify(want)}]`);
	}
	return `ok   trigger ${label}: ${what}: a bank-detail change of ${before.referenceBeneficiaryId} started one execution (the poll after it none), one alert reached "Post to your Slack channel": "${want}"; no full account number, IBAN or token in the execution (${Math.round(extra / 1000)} s of waiting beyond the scenarios')`;
}


/** The Watch Many triggers, live: one over quota subjects, one over customers (version 2). */
const SETS = ['SetsQuota', 'SetsCustomers'];
const setsSubjects = (prefix, n) => Array.from({ length: n }, (_, i) => `USER_ID, ${prefix}S${i + 1}, USD`).join('\n');
function writeSets(dir, suffix, prefix) {
	mkdirSync(dir, { recursive: true });
	const parameters = {
		SetsQuota: { event: 'quotaBelowThreshold', watch: 'many', subjectsEntry: 'text', subjectsText: setsSubjects(prefix, 3), threshold: THRESHOLD, options: {} },
		SetsCustomers: { event: 'beneficiaryAdded', watch: 'many', customersEntry: 'text', customersText: 'CUST_SMALL\nCUST_EMPTY', filters: {}, options: {} },
	};
	for (const [i, name] of SETS.entries()) {
		const workflow = {
			id: idOf(name, suffix),
			name: `[live] Watch Many ${name} ${suffix}`,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: `c0a1c2d3-0000-4000-8000-20000000000${i}`,
					name: 'Trigger',
					type: 'n8n-nodes-partner-account-inquiry.partnerAccountInquiryTrigger',
					typeVersion: 2,
					position: [0, 0],
					parameters: { pollTimes: { item: [{ mode: 'custom', cronExpression: CRON }] }, ...parameters[name] },
					credentials: { partnerAccountInquiryApi: { id: 'PaiSmokeCred0001', name: 'Partner Account Inquiry API account' } },
				},
			],
			connections: {},
			pinData: {},
		};
		writeFileSync(join(dir, `${name}.json`), JSON.stringify(workflow, null, 2));
	}
	console.log(SETS.map((name) => idOf(name, suffix)).join(' '));
}

/** The items the trigger node emitted in an execution (its stored run data). */
function triggerItems(appDir, execution) {
	const run = createRequire(join(appDir, 'package.json'))('flatted').parse(execution.data);
	return (run.resultData?.runData?.Trigger?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}

/** Adds a subject to the active SetsQuota workflow as the editor does: saved, and on 2.x published. */
async function addSubject(n8nUrl, id, line) {
	const rest = restClient(n8nUrl, 120_000);
	await rest.signIn();
	const got = await rest.call('GET', `/rest/workflows/${id}`);
	if (got.status !== 200) throw new Error(`GET /rest/workflows/${id} answered ${got.status}`);
	const workflow = got.data;
	const nodes = workflow.nodes.map((node) =>
		node.name === 'Trigger' ? { ...node, parameters: { ...node.parameters, subjectsText: `${node.parameters.subjectsText}\n${line}` } } : node,
	);
	const saved = await rest.call('PATCH', `/rest/workflows/${id}`, {
		name: workflow.name,
		nodes,
		connections: workflow.connections,
		settings: workflow.settings,
		versionId: workflow.versionId,
	});
	if (saved.status !== 200) throw new Error(`PATCH /rest/workflows/${id} answered ${saved.status}: ${saved.text.slice(0, 200)}`);
	// 2.x runs the published version: publishing the saved one is what the editor's Publish does.
	if ('activeVersionId' in workflow) {
		const published = await rest.call('POST', `/rest/workflows/${id}/activate`, { versionId: saved.data.versionId });
		if (published.status !== 200) throw new Error(`POST /rest/workflows/${id}/activate answered ${published.status}: ${published.text.slice(0, 200)}`);
	}
}

/** Watch Many, live (see the header): returns one ok/FAIL line per check. */
async function checkSets(simulatorUrl, appDir, databaseFile, suffix, prefix, label, mode, n8nUrl) {
	const ids = Object.fromEntries(SETS.map((name) => [name, idOf(name, suffix)]));
	const read = async () => readExecutions(appDir, databaseFile, Object.values(ids));
	const lines = [];
	const check = (ok, what, seen) => lines.push(`${ok ? 'ok  ' : 'FAIL'} trigger ${label}: Watch Many live: ${what}${ok ? '' : ` (saw ${seen})`}`);
	const show = (executions) => JSON.stringify(executions.map((x) => ({ id: x.id, status: x.status, items: x.status === 'success' ? triggerItems(appDir, x).map((j) => j.subject ?? `${j._listedFor?.customerId}:${j.referenceBeneficiaryId}`) : x.data.slice(0, 300) })));
	// Activated at this restart: its baselines are taken by the poll at n8n's start.
	if (mode === 'restart') await afterTicks(1);
	const before = await read();
	const seenBefore = Object.fromEntries(SETS.map((name) => [name, before[ids[name]].length]));
	const since = (e, name) => e[ids[name]].slice(seenBefore[name]);
	await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${prefix}S1`, value: '900000' });
	await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${prefix}S2`, value: '500000' });
	await admin(simulatorUrl, 'add-fault', {
		fault: 'answer',
		operation: 'quota',
		accumulationId: `${prefix}S3`,
		answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
	});
	await admin(simulatorUrl, 'add-beneficiary', { customerId: 'CUST_SMALL', referenceBeneficiaryId: `REF-SETS-${suffix}-1` });
	await admin(simulatorUrl, 'add-beneficiary', { customerId: 'CUST_EMPTY', referenceBeneficiaryId: `REF-SETS-${suffix}-2` });
	// The poll that sees them, then the one that reports the failure (a repeat would show in the next check).
	await afterTicks(2);
	const e = await read();
	const quota = since(e, 'SetsQuota');
	const subjects = (x) => triggerItems(appDir, x).map((j) => j.subject).sort();
	const failures = quota.filter((x) => x.status !== 'success');
	check(
		quota.length === 2 &&
			quota[0].status === 'success' &&
			JSON.stringify(subjects(quota[0])) === JSON.stringify([`USER_ID ${prefix}S1 USD`, `USER_ID ${prefix}S2 USD`]) &&
			failures.length === 1 &&
			failures[0].data.includes(`USER_ID ${prefix}S3 USD`) &&
			failures[0].data.includes('SYSTEM_ERROR'),
		`two subjects below in one poll are one execution with both, while a third fails (SYSTEM_ERROR); the failure is one failed execution, by the poll after, naming ${prefix}S3`,
		show(quota),
	);
	const customers = since(e, 'SetsCustomers');
	const bound = customers[0] ? triggerItems(appDir, customers[0]).map((j) => `${j._listedFor?.customerId}:${j.referenceBeneficiaryId}`).sort() : [];
	check(
		customers.length === 1 &&
			customers[0].status === 'success' &&
			JSON.stringify(bound) === JSON.stringify([`CUST_EMPTY:REF-SETS-${suffix}-2`, `CUST_SMALL:REF-SETS-${suffix}-1`]),
		'two customers each bound a payee: one execution, each item naming its customer (_listedFor)',
		show(customers),
	);
	// A subject added to the active workflow, already below: its alert once, the others not again.
	const seenAdd = (await read())[ids.SetsQuota].length;
	try {
		await addSubject(n8nUrl, ids.SetsQuota, `USER_ID, ${prefix}S4, USD`);
	} catch (error) {
		check(false, 'a subject added to the active workflow', error.message);
		return lines;
	}
	await afterTicks(2);
	const added = (await read())[ids.SetsQuota].slice(seenAdd);
	check(
		added.length === 1 && added[0].status === 'success' && JSON.stringify(subjects(added[0])) === JSON.stringify([`USER_ID ${prefix}S4 USD`]),
		`a subject added to the active workflow (${prefix}S4, below from the start): one alert for it; ${prefix}S1 and ${prefix}S2, still below, not again; ${prefix}S3, still failing, not reported again`,
		show(added),
	);
	return lines;
}

const [command, ...args] = process.argv.slice(2);
if (command === 'workflows') {
	const [dir, suffix, quotaPrefix] = args;
	writeWorkflows(dir, suffix, quotaPrefix);
} else if (command === 'sets-workflows') {
	const [dir, suffix, quotaPrefix] = args;
	writeSets(dir, suffix, quotaPrefix);
} else if (command === 'bank-alert-workflow') {
	const [dir, suffix] = args;
	writeBankAlert(dir, suffix);
} else if (command === 'fall') {
	const [simulatorUrl, quotaPrefix, boundMeanwhile] = args;
	await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${quotaPrefix}1`, value: '800000' });
	// During an upgrade: a beneficiary bound to the own account while n8n is down.
	if (boundMeanwhile) await admin(simulatorUrl, 'add-beneficiary', { customerId: '', referenceBeneficiaryId: boundMeanwhile });
} else if (command === 'setup') {
	// Before the app starts: the first subject at 12,500 USD, the second at 0.
	const [simulatorUrl, quotaPrefix] = args;
	await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${quotaPrefix}1`, value: '1250000' });
	await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${quotaPrefix}2`, value: '0' });
	// Watch Many's subjects: S1..S3 at 12,500 USD, S4 (added later) at 0.
	for (const n of [1, 2, 3]) await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${quotaPrefix}S${n}`, value: '1250000' });
	await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${quotaPrefix}S4`, value: '0' });
} else if (command === 'before-restart' || command === 'after-restart') {
	const [simulatorUrl, appDir, databaseFile, suffix, quotaPrefix, label] = args;
	const ids = Object.fromEntries([...Object.keys(scenarios(quotaPrefix)), 'Scheduled'].map((name) => [name, idOf(name, suffix)]));
	const read = () => readExecutions(appDir, databaseFile, Object.values(ids));
	const count = (executions, name) => executions[ids[name]].length;
	if (command === 'before-restart') {
		// A scheduled poll after the app was ready: every baseline is recorded.
		await afterTicks(1);
		const bank = await admin(simulatorUrl, 'change-bank-details', { customerId: '', referenceBeneficiaryId: 'REF-OWN-00001' });
		await admin(simulatorUrl, 'add-fault', {
			fault: 'swapBeneficiary',
			operation: 'list',
			customerId: 'CUST_LARGE',
			pageNumber: 1,
			position: 10,
			times: 1,
		});
		await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${quotaPrefix}1`, value: '900000' });
		const arrived = await waitFor(
			read,
			(e) => ['OwnChanged', 'LargeAdded', 'LargeRemoved', 'QuotaFalls', 'QuotaBelowAtStart'].every((n) => count(e, n) >= 1),
			2 * TICK_SECONDS + 60,
		);
		if (!arrived) console.error('[scenarios] not every expected execution arrived in time');
		await admin(simulatorUrl, 'set-quota', { method: 'USER_ID', id: `${quotaPrefix}1`, value: '1250000' });
		// A poll sees the recovery (and emits nothing), and one more: where every poll is saved, the
		// node has then seen two quiet polls in a row saved.
		await afterTicks(2);
		// For after-restart: what changed, how many alerts the quota below from the start gave and
		// how many scheduled runs there were before the restart.
		const before = await read();
		console.log(`${bank.referenceBeneficiaryId} ${count(before, 'QuotaBelowAtStart')} ${count(before, 'Scheduled')}`);
	} else {
		const [changedRef, belowAtStartBeforeRestart, scheduledBeforeRestart] = args.slice(6);
		// examples/bank-detail-change-alert.json, when active in this session: its change, made
		// beside the waits below (checked after them).
		const bankAlert = process.env.SCENARIO_BANK_ALERT ? changeForBankAlert(simulatorUrl, process.env.SCENARIO_BANK_ALERT) : undefined;
		bankAlert?.catch(() => {});
		// Watch Many, when active in this session: beside the waits below too.
		const sets = process.env.SCENARIO_SETS
			? checkSets(simulatorUrl, appDir, databaseFile, suffix, quotaPrefix, label, process.env.SCENARIO_SETS, process.env.SCENARIO_N8N_URL).catch(
					(error) => [`FAIL trigger ${label}: Watch Many live: ${error.message}`],
				)
			: undefined;
		await waitFor(read, (e) => count(e, 'QuotaFalls') >= 2, 2 * TICK_SECONDS + 60);
		// One more poll: nothing may be repeated.
		await afterTicks(1);
		const e = await read();
		const lines = [];
		const check = (ok, what, seen) => lines.push(`${ok ? 'ok  ' : 'FAIL'} trigger ${label}: ${what}${ok ? '' : ` (saw ${seen})`}`);
		const show = (name) =>
			JSON.stringify(e[ids[name]].map((x) => ({ id: x.id, status: x.status, references: x.references.slice(0, 6) })));
		const one = (name, references) =>
			count(e, name) === 1 &&
			e[ids[name]][0].status === 'success' &&
			JSON.stringify(e[ids[name]][0].references) === JSON.stringify(references);
		const changed = e[ids.OwnChanged][0]?.data ?? '';
		check(
			one('OwnChanged', [changedRef]) && changed.includes('bankAccountNo') && changed.includes('beneficiaryChanged'),
			`a bank-detail change (${changedRef}: new account number, new token) is one Beneficiary Changed naming bankAccountNo`,
			show('OwnChanged'),
		);
		// SCENARIO_BOUND_MEANWHILE: a beneficiary bound while n8n was down (being upgraded); the
		// version after the restart must report it once from the state the one before saved.
		const boundMeanwhile = process.env.SCENARIO_BOUND_MEANWHILE;
		check(
			(boundMeanwhile ? one('OwnAdded', [boundMeanwhile]) : count(e, 'OwnAdded') === 0) && count(e, 'OwnRemoved') === 0,
			boundMeanwhile
				? `the bank-detail change started no Beneficiary Added and no Beneficiary Removed; ${boundMeanwhile}, bound while n8n was down, is one Beneficiary Added`
				: 'the bank-detail change started no Beneficiary Added and no Beneficiary Removed execution',
			`${show('OwnAdded')} ${show('OwnRemoved')}`,
		);
		check(
			one('LargeAdded', ['REF-SWAPPED-IN-1']) || one('LargeAdded', ['REF-SWAPPED-IN-2']),
			'a list changed while a poll read its pages: the one bound meanwhile is added once, no false event',
			show('LargeAdded'),
		);
		check(
			count(e, 'LargeRemoved') === 1 &&
				e[ids.LargeRemoved][0].status === 'success' &&
				e[ids.LargeRemoved][0].references.length === 1,
			'a list changed while a poll read its pages: the one unbound meanwhile is removed once, no false event',
			show('LargeRemoved'),
		);
		check(
			count(e, 'QuotaFalls') === 2 && e[ids.QuotaFalls].every((x) => x.status === 'success'),
			'a quota that falls, recovers, and falls again while n8n is restarted: two alerts',
			show('QuotaFalls'),
		);
		// Durable cursors save every poll, which the node sees: exactly once. Elsewhere at most one repeat.
		const everyPollSaved = process.env.SCENARIO_EVERY_POLL_SAVED === '1';
		check(
			belowAtStartBeforeRestart === '1' &&
				count(e, 'QuotaBelowAtStart') <= (everyPollSaved ? 1 : 2) &&
				e[ids.QuotaBelowAtStart].every((x) => x.status === 'success'),
			everyPollSaved
				? 'a quota already below when the workflow is activated, still below across an n8n restart: exactly one alert'
				: `a quota already below when the workflow is activated: one alert (after the restart it stayed below through: ${count(e, 'QuotaBelowAtStart') - 1} repeat, at most one, as documented)`,
			`${belowAtStartBeforeRestart} before the restart; ${show('QuotaBelowAtStart')}`,
		);
		const scheduled = e[ids.Scheduled];
		check(
			Number(scheduledBeforeRestart) >= 1 &&
				scheduled.length > Number(scheduledBeforeRestart) &&
				scheduled.every((x) => x.status === 'success' && x.data.includes('availableQuota')),
			`a scheduled Get Available Quota workflow ran before the restart (${scheduledBeforeRestart} runs) and after it (${scheduled.length - Number(scheduledBeforeRestart)}), each a success with its credential`,
			`${scheduledBeforeRestart} before the restart; ${JSON.stringify(scheduled.map((x) => ({ id: x.id, status: x.status })))}`,
		);
		if (bankAlert) {
			lines.push(
				await checkBankAlert(appDir, databaseFile, suffix, label, bankAlert).catch(
					(error) => `FAIL trigger ${label}: ${BANK_ALERT_EXAMPLE} live: ${error.message}`,
				),
			);
		}
		if (sets) lines.push(...(await sets));
		console.log(lines.join('\n'));
		process.exit(lines.some((line) => line.startsWith('FAIL')) ? 1 : 0);
	}
} else if (command === 'activation') {
	const [simulatorUrl, appDir, databaseFile, suffix, n8nUrl, label] = args;
	const id = idOf('ActChanged', suffix);
	const read = async () => (await readExecutions(appDir, databaseFile, [id]))[id];
	const lines = [];
	const check = (ok, what, seen) => lines.push(`${ok ? 'ok  ' : 'FAIL'} trigger ${label}: ${what}${ok ? '' : ` (saw ${seen})`}`);
	const show = (executions) => JSON.stringify(executions.map((x) => ({ id: x.id, status: x.status, references: x.references })));
	const change = (reference) => admin(simulatorUrl, 'change-bank-details', { customerId: 'CUST_SMALL', referenceBeneficiaryId: reference });
	try {
		const rest = await restSession(n8nUrl);
		await activated(rest, id);
		await change('REF-SML-00002');
		await afterTicks(1);
		await waitFor(read, (e) => e.length >= 1, TICK_SECONDS + 30);
		await afterTicks(1);
		const first = await read();
		check(
			first.length === 1 && first[0].status === 'success' && JSON.stringify(first[0].references) === '["REF-SML-00002"]',
			'a bank-detail change made right after the poll n8n runs at activation, before the next one: one Beneficiary Changed',
			show(first),
		);
		await rest.deactivate(id);
		await change('REF-SML-00003');
		await activated(rest, id);
		await change('REF-SML-00004');
		await afterTicks(1);
		await waitFor(read, (e) => e.length >= 2, TICK_SECONDS + 30);
		await afterTicks(1);
		const after = (await read()).slice(first.length);
		check(
			after.length === 1 && after[0].status === 'success' && JSON.stringify(after[0].references) === '["REF-SML-00004"]',
			'deactivated, a change made meanwhile (REF-SML-00003), activated again: a fresh baseline, that change never reported; the one made after the activation once',
			show(after),
		);
	} catch (error) {
		check(false, 'the activation scenario ran', error.message);
	}
	console.log(lines.join('\n'));
	process.exit(lines.some((line) => line.startsWith('FAIL')) ? 1 : 0);
} else {
	console.error('usage: scenarios.mjs workflows|bank-alert-workflow|sets-workflows|setup|before-restart|fall|after-restart|activation ...');
	process.exit(2);
}
