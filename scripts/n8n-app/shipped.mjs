// The examples as a user gets them, each file imported by `n8n import:workflow` as it is (its ID,
// node versions, parameters and settings untouched), in a user folder and database of their own.
//
// The trigger examples live: activated as the editor does, n8n stopped, a change made while it is
// down, n8n started again: the change arrives once, at the poll n8n runs at its start; a second
// restart brings nothing again. So a workflow ID n8n does not save static data for (1.x: over 16
// characters) fails here. The Slack credential the examples name exists (2.x publishes no workflow
// without it) but reaches no Slack: each Slack node fails, and its message is read from the node
// before it, as a user sees it.
//
// The scheduled examples run by hand, as a user presses *Run now*: `n8n execute` starts from their
// Manual Trigger (a workflow without one answers "Missing node to start execution"). The quota checks
// bring the one message their note promises, read from what n8n saved (the Slack node fails, so the
// run is a failed one, saved). The export runs as n8n started from its user's home folder would, with
// n8n's default file access (no N8N_RESTRICT_FILE_ACCESS_TO: 2.x allows ~/.n8n-files only, 1.x all but
// ~/.n8n): without ~/.n8n-files it fails, and n8n keeps that failed run, whole bank details and all,
// as examples/README.md says; with the folder it writes the CSV there, and n8n keeps nothing of the
// successful run (the workflow's saveDataSuccessExecution "none").
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { ROOT, die, freePort, must, run, sleep, until } from './harness.mjs';
import { installTarball } from './install.mjs';
import { SMOKE_CREDENTIAL, cliMust, credentials, executions, n8nEnv, nodeItems, rest, settledExecutions, startN8n, startSimulator, triggerActivationErrors } from './n8n.mjs';
import { WHOLE, floorSubjects, readExample, simulated } from './smoke.mjs';

const SLACK = { id: 'PaiShippedSlack1', name: 'Slack account', type: 'slackApi' }; // the name the examples' Slack nodes give
const CUSTOMER = 'CUST_SMALL'; // the customer both beneficiary examples watch, as shipped

/** Each trigger example: its file, the node whose items are its messages, what changes while n8n is down and the one message it must bring. */
const EXAMPLES = [
	{
		file: 'bank-detail-change-alert',
		message: 'Bank change: message',
		down: (sim) => sim.admin('change-bank-details', { customerId: CUSTOMER, referenceBeneficiaryId: 'REF-SML-00001' }),
		want: (changed) => [`Customer ${CUSTOMER}`, '(REF-SML-00001)', `ending ${changed.bankAccountNo.slice(-4)}`],
	},
	{
		file: 'new-beneficiary-alert',
		message: 'Alert text',
		down: (sim, line) => sim.admin('add-beneficiary', { customerId: CUSTOMER, referenceBeneficiaryId: `REF-SHIPPED-${line}` }),
		want: (added) => [`for customer ${CUSTOMER}`, `(${added.referenceBeneficiaryId})`],
	},
	{
		file: 'quota-floors-watch-many',
		message: 'Alert text',
		// A subject above its threshold falls below it.
		down: async (sim, line, trigger) => {
			const subject = floorSubjects(trigger).find((s) => !s.below && !s.fails) ?? die('every subject of the example starts below its threshold');
			await sim.call('setQuota', subject.method, subject.key, subject.minor(subject.threshold / 2));
			return subject;
		},
		want: (subject) => [subject.label, `threshold ${subject.threshold.toLocaleString('en-US')}`],
	},
];

/** The scheduled examples' quota checks: the node whose item is the message, and the message the example must bring. */
const SCHEDULED = [
	{
		file: 'daily-quota-check',
		message: 'Alert text',
		// The account as typed in its Edit Fields node; the alert as the example's note promises it.
		want: (workflow) => {
			const a = Object.fromEntries(typedFields(workflow, 'Account and threshold').map((f) => [f.name, f.value]));
			const q = simulated(a.method, a.tradeType ? `${a.id}:${a.tradeType}` : a.id, a.currency);
			if (!(q.amount < a.threshold)) die(`the simulator no longer puts ${a.id} below ${a.threshold}`);
			return `Available FX settlement quota of ${a.id} is ${q.amount} ${a.currency}, below the threshold of ${a.threshold}`;
		},
	},
	{
		file: 'many-accounts-quota-check',
		message: 'Build one message',
		// The lines as typed (method, ID, currency, trade type for BENEFICIARY, threshold), read here again.
		want: (workflow) => {
			const text = typedFields(workflow).find((f) => f.name === 'accounts')?.value ?? die('no Edit Fields node holds the accounts (a field "accounts")');
			const accounts = String(text).split('\n').map((l) => l.split(/[,;\t]/).map((f) => f.trim())).filter((f) => f[0] && !f[0].startsWith('#'));
			const lines = [];
			let failed = 0;
			for (const [method, id, currency, ...more] of accounts) {
				const tradeType = method === 'BENEFICIARY' ? more.shift() : undefined;
				const threshold = Number(more[0]);
				const q = simulated(method, tradeType ? `${id}:${tradeType}` : id, currency);
				const name = `${method.endsWith('_ACCOUNT') ? `****${id.slice(-4)}` : id} (${[method, tradeType].filter(Boolean).join(' ')}, ${currency})`;
				if (q.code) lines.push(`- ${name}: not checked, the gateway answered ${q.code}`), failed++;
				else if (q.amount < threshold) lines.push(`- ${name}: ${q.amount} available, below its threshold of ${threshold}`);
			}
			if (!failed || lines.length - failed < 2 || lines.length === accounts.length) die(`the example's accounts no longer cover low, failed and fine ones (${lines.length} of ${accounts.length} named)`);
			return `FX settlement quota: ${lines.length} of ${accounts.length} accounts need attention\n${lines.join('\n')}`;
		},
	},
];
const EXPORT = 'weekly-beneficiary-export';
const SEND = 'Post to your Slack channel';

/** The fields typed in an example's Edit Fields nodes (all, or the one named). */
function typedFields(workflow, name) {
	return workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.set' && (!name || n.name === name)).flatMap((n) => n.parameters.assignments?.assignments ?? []);
}

/** `n8n execute` of a workflow, as a user starting n8n from `cwd` with `extra` in its environment (undefined: unset). */
async function execute(app, env, id, log, { cwd, extra = {} } = {}) {
	const fd = openSync(log, 'w');
	const { code } = await run(app.bin, ['execute', `--id=${id}`], { cwd, env: { ...env, ...extra, N8N_RUNNERS_BROKER_PORT: String(await freePort()) }, timeout: 240_000, stdio: ['ignore', fd, fd] });
	closeSync(fd);
	return { code, out: readFileSync(log, 'utf8') };
}

/** A workflow's saved executions as n8n's Executions list sees them or not: id, status, deletedAt, data (text), by the app's own sqlite3. */
async function savedRows(app, database, workflowId) {
	const read = `const s = require('sqlite3'); const db = new s.Database(process.argv[1], s.OPEN_READONLY);
		db.all("select e.id, e.status, e.deletedAt, d.data from execution_entity e left join execution_data d on d.executionId = e.id where e.workflowId = ? order by e.id", [process.argv[2]],
			(e, rows) => { if (e) throw e; process.stdout.write(JSON.stringify(rows)); db.close(); });`;
	return JSON.parse(await must('node', ['-e', read, database, workflowId], { cwd: app.dir, env: app.env })).map((r) => ({ ...r, data: String(r.data ?? '') }));
}

/** One line's scheduled examples as shipped, run by hand in `user`'s n8n (not started meanwhile). */
async function runScheduled(app, { user, env, log, results }) {
	const check = (ok, what, seen) => results.add(ok, `${app.line}.x the scheduled examples as shipped: ${what}${ok ? '' : ` (saw ${String(seen).slice(0, 1200)})`}`);
	const database = join(user, '.n8n/database.sqlite');
	try {
		const all = [...SCHEDULED.map((x) => x.file), EXPORT].map((file) => ({ file, ...readExample(file) }));
		for (const x of all) await cliMust(app, env, ['import:workflow', `--input=${join(ROOT, 'examples', `${x.file}.json`)}`], log(`import-${x.file}`));
		const saved = async (id) => (await executions(app, database, [id]))[id];
		for (const x of SCHEDULED) {
			const { workflow } = all.find((w) => w.file === x.file);
			const want = x.want(workflow);
			const before = (await saved(workflow.id)).length;
			const { code, out } = await execute(app, env, workflow.id, log(`execute-${x.file}`));
			const runs = (await saved(workflow.id)).slice(before);
			const data = runs[0]?.run?.resultData;
			const got = nodeItems(runs[0]?.run, x.message).map((j) => String(j.message));
			const sent = data?.runData?.[SEND]?.[0];
			const leaked = WHOLE.filter((v) => runs[0]?.data.includes(v));
			check(runs.length === 1 && got.length === 1 && got[0] === want && sent && leaked.length === 0,
				`${x.file}.json (${workflow.id}) run by hand (n8n execute, from its Manual Trigger "Run now"): one message reached "${SEND}", exactly ${JSON.stringify(want)}; no whole bank value in what n8n saved`,
				`exit ${code}, ${runs.length} execution(s), messages ${JSON.stringify(got)}, ${SEND} ${sent ? 'ran' : 'did not run'}, ${leaked.length} whole values; ${out.slice(-400)}`);
		}
		// The export, as n8n started from its user's home folder with n8n's default file access.
		const { workflow } = all.find((w) => w.file === EXPORT);
		const home = user; // ~/.n8n (n8n's own folder) and ~/.n8n-files side by side, as on a desktop or in Docker
		const as = { cwd: home, extra: { HOME: home, N8N_RESTRICT_FILE_ACCESS_TO: undefined } };
		const folder = join(home, '.n8n-files');
		const settings = workflow.settings ?? {};
		check(settings.saveDataSuccessExecution === 'none' && settings.saveManualExecutions === false,
			`${EXPORT}.json saves no successful run's data (settings saveDataSuccessExecution "none", saveManualExecutions false)`, JSON.stringify(settings));
		if (existsSync(folder)) die(`${folder} exists before the first run`);
		const first = await execute(app, env, workflow.id, log('execute-export-no-folder'), as);
		const failedRuns = await saved(workflow.id);
		const failure = failedRuns[0]?.run?.resultData?.error;
		const kept = WHOLE.filter((v) => failedRuns[0]?.data.includes(v));
		check(first.code !== 0 && failedRuns.length === 1 && failedRuns[0].status === 'error' && failure?.node?.name === 'Write CSV to Disk' && kept.length > 0,
			`${EXPORT}.json run by hand before ~/.n8n-files exists: fails in "Write CSV to Disk" ("${String(failure?.message).slice(0, 160)}"), and n8n keeps that failed run with the whole bank details the listing read (${kept.length} values), as examples/README.md warns`,
			`exit ${first.code}, ${failedRuns.length} execution(s) ${failedRuns.map((r) => r.status)}, error ${JSON.stringify(failure?.message)} in ${failure?.node?.name}, ${kept.length} whole values kept; ${first.out.slice(-600)}`);
		mkdirSync(folder);
		const second = await execute(app, env, workflow.id, log('execute-export'), as);
		const { createCustomers } = createRequire(import.meta.url)(join(ROOT, '.dev-dist/sandbox/data.js'));
		const own = createCustomers().get('').beneficiaries;
		const file = readdirSync(folder).find((f) => /^beneficiaries-\d{4}-\d\d-\d\d\.csv$/.test(f));
		const rows = file ? readFileSync(join(folder, file), 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/).filter(Boolean) : [];
		// 1.x deletes the run's row at its end; 2.x leaves it without data, marked deleted (not listed), for its pruning to remove.
		const after = await savedRows(app, database, workflow.id);
		const listed = after.filter((r) => r.deletedAt === null);
		const others = after.filter((r) => r.id !== failedRuns[0]?.id);
		const holding = after.filter((r) => WHOLE.some((v) => r.data.includes(v)));
		check([0, 139].includes(second.code) && rows.length === own.length + 1 && own.every((b, i) => rows[i + 1].includes(b.referenceBeneficiaryId)) &&
			listed.length === 1 && holding.length === 1 && others.every((r) => r.deletedAt !== null),
			`${EXPORT}.json run by hand once ~/.n8n-files exists, n8n's file access as it comes (${app.line === '1' ? '1.x: no N8N_RESTRICT_FILE_ACCESS_TO' : '2.x: ~/.n8n-files only'}): ~/.n8n-files/${file ?? 'beneficiaries-<date>.csv'} holds a header and the own account's ${own.length} payees in order; n8n kept no data of the successful run (the failed run is the one execution listed and the one holding bank details${others.length ? `; the successful run's row, without data, is marked deleted for n8n's pruning` : ''})`,
			`exit ${second.code}, ${file ?? 'no file'} with ${rows.length} lines, rows ${JSON.stringify(after.map((r) => ({ id: r.id, status: r.status, deletedAt: r.deletedAt, bytes: r.data.length })))}, ${holding.length} holding whole values; ${second.out.slice(-600)}`);
	} catch (error) {
		check(false, 'the run went to its end', error.stack);
	}
}

/** One line's trigger examples as shipped, in a user folder, database and simulator of their own. */
export async function runShipped(app, { work, registry, tarball, results, logs }) {
	const dir = join(work, 'X');
	const user = join(dir, 'user');
	mkdirSync(join(user, '.n8n/nodes'), { recursive: true });
	const log = (name) => join(dir, `${name}.log`);
	const check = (ok, what, seen) => results.add(ok, `${app.line}.x the trigger examples as shipped: ${what}${ok ? '' : ` (saw ${String(seen).slice(0, 1200)})`}`);
	const sim = await startSimulator(log('simulator'));
	const env = n8nEnv(app, user, registry.clientEnv);
	const examples = EXAMPLES.map((x) => ({ ...x, ...readExample(x.file) }));
	const ids = examples.map((x) => x.workflow.id);
	const exec = () => settledExecutions(app, join(user, '.n8n/database.sqlite'), ids);
	/** The messages of an example's executions after the first `from`. */
	const messages = (e, x, from = 0) => e[x.workflow.id].slice(from).flatMap((run) => nodeItems(run.run, x.message).map((j) => String(j.message)));
	let n8n;
	/** Starts n8n; returns when it was asked to (n8n activates its workflows, polling each once, before it is ready). */
	const start = async () => {
		const asked = Date.now();
		n8n = await startN8n(app, env, log('n8n'));
		return asked;
	};
	/** Waits until every example's trigger has read the simulator since `since` (the poll n8n runs at its start). */
	const polled = async (since) => {
		const read = (r) => (r.op === 'list' ? r.customer === CUSTOMER : true);
		const ok = await until(async () => {
			const seen = (await sim.requests()).filter((r) => r.at >= since && read(r));
			return seen.filter((r) => r.op === 'list').length >= 2 && seen.some((r) => r.op === 'quota') && 'polled';
		}, 240_000);
		if (!ok) die('the examples did not poll at n8n\'s start');
		await sleep(5000);
	};
	try {
		await cliMust(app, env, ['import:credentials', `--input=${credentials(join(dir, 'credentials.json'), [{ ...SMOKE_CREDENTIAL, url: sim.url }, SLACK])}`], log('import-credentials'));
		await installTarball(app, user, tarball, env);
		for (const x of examples) await cliMust(app, env, ['import:workflow', `--input=${join(ROOT, 'examples', `${x.file}.json`)}`], log(`import-${x.file}`));
		// The scheduled examples first, by hand, while n8n is not started.
		await runScheduled(app, { user, env, log, results });
		// The bank example under an ID longer than either line saves static data for (16 in 1.x, 21 from 2.7).
		const tooLong = { ...examples[0].workflow, id: 'PaiShippedIdTooLong022', name: '[too long an ID] bank-change alert' };
		writeFileSync(join(dir, 'too-long.json'), JSON.stringify(tooLong));
		await cliMust(app, env, ['import:workflow', `--input=${join(dir, 'too-long.json')}`], log('import-too-long'));
		await start();
		const r = rest(n8n.url);
		await r.signIn();
		for (const x of examples) await r.activate(x.workflow.id);
		// 1.x answers the activation with the trigger's error; 2.x publishes the workflow "partially" (200),
		// its publication service recording the trigger's error, which the editor shows.
		const database = join(user, '.n8n/database.sqlite');
		const refused = await r.activate(tooLong.id).then(
			async () => (await until(async () => (await triggerActivationErrors(app, database, tooLong.id)).join(' | '), 60_000, 2000)) || 'activated, no error recorded',
			(error) => error.message,
		);
		const limit = app.line === '1' ? 16 : 21;
		check(refused.includes(`longer than ${limit} characters`) && /PaiShippedIdTooLong022\W+ has 22/.test(refused),
			`the bank-change example imported under a 22-character ID: its trigger is refused at activation (${app.line === '1' ? 'the activation fails' : 'published partially, the trigger not active'}), the error naming this n8n's limit, ${limit}, and the ID`, refused);
		// The quota example's alert of the activation's poll (an execution n8n may start after the activation returns).
		const [bank, payee, thresholds] = examples;
		/** Waits until each workflow of `counts` has more executions than its count there (2 minutes at most); then all of them. */
		const arrived = async (counts) => {
			await until(async () => {
				const e = await exec();
				return Object.entries(counts).every(([id, n]) => e[id].length > n) && 'arrived';
			}, 120_000);
			await sleep(3000);
			return exec();
		};
		const activated = await arrived({ [thresholds.workflow.id]: 0 });
		const subjects = floorSubjects(thresholds.trigger);
		const below = subjects.filter((s) => s.below).map((s) => s.label);
		/** The quota subjects a list of alerts names, one label per alert. */
		const named = (list) => list.map((m) => subjects.find((s) => m.includes(s.label))?.label ?? m).sort();
		check([bank, payee].every((x) => activated[x.workflow.id].length === 0) && activated[thresholds.workflow.id].length === 1 && JSON.stringify(named(messages(activated, thresholds))) === JSON.stringify([...below].sort()),
			`imported as they are (${ids.join(', ')}) and activated through the REST API: the beneficiary examples record their baselines (no execution), ${thresholds.file}.json alerts the ${below.length} subjects below their thresholds, once`,
			`${JSON.stringify(Object.values(activated).map((e) => e.length))} ${JSON.stringify(messages(activated, thresholds))}`);
		await n8n.stop();
		const made = [];
		for (const x of examples) made.push(await x.down(sim, app.line, x.trigger));
		await polled(await start());
		const after = await arrived(Object.fromEntries(ids.map((id) => [id, activated[id].length])));
		examples.forEach((x, i) => {
			const got = messages(after, x, activated[x.workflow.id].length);
			const want = x.want(made[i]);
			const mine = got.filter((m) => m.includes(want[0]));
			// README: on n8n's default poller a restart may repeat a quota alert still standing, once.
			const repeats = named(got.filter((m) => !mine.includes(m)));
			check(mine.length === 1 && want.every((text) => mine[0].includes(text)) && (x === thresholds ? repeats.every((l, k) => below.includes(l) && repeats.indexOf(l) === k) : repeats.length === 0),
				`${x.file}.json (${x.workflow.id}, every 15 minutes): a change made while n8n was stopped is one message at n8n's start, naming ${want.map((t) => `"${t}"`).join(', ')}${x === thresholds ? `; besides it, at most the documented one repeat of each alert still standing (${repeats.length})` : ''}`,
				JSON.stringify(got));
		});
		await n8n.stop();
		await polled(await start());
		await sleep(10_000);
		const again = await exec();
		const news = (x) => messages(again, x, after[x.workflow.id].length);
		const standing = [...below, made[2].label];
		const repeated = named(news(thresholds));
		check([bank, payee].every((x) => again[x.workflow.id].length === after[x.workflow.id].length) && repeated.every((l, k) => standing.includes(l) && repeated.indexOf(l) === k),
			`n8n restarted once more: the beneficiary examples report nothing again; ${thresholds.file}.json at most repeats its alerts still standing, once each (${repeated.length} of ${standing.length})`,
			JSON.stringify([bank, payee].map((x) => news(x)).concat([repeated])));
	} catch (error) {
		check(false, 'the run went to its end', error.stack);
	} finally {
		await n8n?.stop();
		await sim.proc.stop();
		logs.push(log('n8n'));
	}
}
