// n8n dying under the trigger (issue 54): per poller setup (1.x default poller; 2.x default poller
// and durable cursors) one n8n app whose triggers are placed each in another window of a poll's
// life, n8n killed (SIGKILL) at one instant and started again; on durable cursors also n8n dropping
// a poll's items while it runs, and an orderly stop (SIGTERM) while polls are under way; in
// test:queue a worker killed during an execution. What reaches the workflow is counted where a
// user sees it: each trigger's workflow goes on to an HTTP Request node that calls this file's gate
// once per item, so an event "told" is a call that arrived (answered, or cut by the kill).
//
// The windows, each a trigger of its own (its customer, a payee bound before the poll):
//   Read   its poll's requests held by the gate when n8n dies (the read under way)
//   Emit   n8n dies the instant it has saved the poll (seen in its database): the default poller
//          saves the workflow's static data before it saves the execution; durable cursors save the
//          cursor and the execution in one transaction
//   Exec   its execution under way: its HTTP Request held by the gate when n8n dies
// Nothing races a sleep: every wait is on the gate's log (which requests came, which are held), on
// n8n's own log, or on its database (watchDb). runTorn repeats issue 54's torn list with a stop and a
// start (and, `drop`, with n8n dropping the Removed poll). Standalone: see the end of this file.
// What was measured: docs/reliability.md, *n8n killed*.
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

import { PACKAGE, ROOT, bg, die, say, sleep, until } from './harness.mjs';
import { installTarball } from './install.mjs';
import { cliMust, credentials, executions, n8nEnv, rest, settledExecutions, startN8n, startSimulator } from './n8n.mjs';

const TRIGGER = `${PACKAGE}.partnerAccountInquiryTrigger`;
const DURABLE = { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true', N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' };

/**
 * THE one place a trigger's node version and parameters are written (change them here): version 1,
 * the beneficiary events given, of one customer (Customer IDs: one ID a line), the default
 * (simplified) item, which keeps `event` and `referenceBeneficiaryId`.
 */
export function triggerParameters({ customerId, events }) {
	return { typeVersion: 1, parameters: { events, customerIds: customerId, filters: {}, options: {} } };
}

/** A trigger's credential: its own, its Base URL its own port of the gate, so that the gate's log names the workflow of every request. */
const credentialOf = (workflowId) => ({ id: `Cred${workflowId}`, name: `Partner Account Inquiry account (${workflowId})` });

/**
 * A trigger workflow polling on `cron` through its own credential, then an HTTP Request that calls
 * the gate's `/told/<id>?ref=<reference ID>&event=<event>` once per item: the gate's log is what
 * reached the workflow's downstream.
 */
export function crashWorkflow(spec, cron, gateUrl) {
	const { typeVersion, parameters } = triggerParameters(spec);
	const trigger = {
		id: randomUUID(), name: 'Trigger', type: TRIGGER, typeVersion, position: [0, 0], credentials: { partnerAccountInquiryApi: credentialOf(spec.id) },
		parameters: { pollTimes: { item: [{ mode: 'custom', cronExpression: cron }] }, ...parameters },
	};
	const tell = {
		id: randomUUID(), name: 'Tell', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [240, 0],
		parameters: { method: 'GET', url: `={{ '${gateUrl}/told/${spec.id}?ref=' + encodeURIComponent($json.referenceBeneficiaryId) + '&event=' + $json.event }}`, options: { timeout: 600_000 } },
	};
	return {
		id: spec.id, name: `[crash] ${spec.id}`, active: false, settings: { executionOrder: 'v1' }, pinData: {},
		nodes: [trigger, tell], connections: { Trigger: { main: [[{ node: 'Tell', type: 'main', index: 0 }]] } },
	};
}

/**
 * The gate: the workflows' HTTP Request target (`/told/<id>`), and in front of the simulator a port
 * per trigger (`front(name)`: its credential's Base URL) that passes its requests on. Logs every
 * request ({ at, token: the front's name or `told:<id>`, op, page, ref, event, held, released,
 * answeredAt, gone }); holds the requests of a name it is told to until released; a held request
 * whose client went away (n8n killed) is dropped.
 */
/** Waits until `f` made `n` polls since `since` (the gate's log; a poll: requests less than `gap` apart), else dies naming `what`. */
async function pollsSince(gate, f, n, since, what, tick, gap) {
	const ok = await until(async () => {
		const b = pollsOf(gate.log, f.id, since, gap);
		return b.length > n || (b.length === n && Date.now() - b[n - 1].end > gap);
	}, (n + 3) * tick + 180_000, 500);
	if (!ok) die(`${f.id} polled ${pollsOf(gate.log, f.id, since, gap).length} times since ${at(since)}, expected ${n} (${what})`);
}

export async function startGate(target) {
	const log = [];
	const holding = new Map(); // key -> waiters (resolve functions)
	const servers = [];
	const handler = (front) => async (req, res) => {
		const chunks = [];
		for await (const c of req) chunks.push(c);
		const raw = Buffer.concat(chunks);
		let body = {};
		try {
			body = JSON.parse(raw.toString('utf8') || '{}');
		} catch {}
		const url = new URL(req.url, 'http://gate');
		const told = front === undefined ? /^\/told\/([^/]+)$/.exec(url.pathname)?.[1] : undefined;
		if (front === undefined && !told) return res.writeHead(404).end();
		const token = told ? `told:${told}` : front;
		const entry = { at: Date.now(), token, op: told ? 'told' : url.pathname.includes('Quota') ? 'quota' : 'list', page: body.pageNumber, ref: url.searchParams.get('ref'), event: url.searchParams.get('event') };
		log.push(entry);
		res.on('close', () => {
			if (!res.writableFinished) entry.gone = true;
		});
		if (holding.has(token)) {
			entry.held = true;
			await new Promise((resolve) => {
				holding.get(token).push(resolve);
				req.socket.on('close', resolve);
			});
			entry.released = Date.now();
		}
		if (entry.gone || req.socket.destroyed) return;
		if (told) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}', () => (entry.answeredAt = Date.now()));
		const out = httpRequest(`${target}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(target).host }, agent: false }, (answer) => {
			res.writeHead(answer.statusCode, answer.headers);
			answer.pipe(res).on('finish', () => (entry.answeredAt = Date.now()));
		});
		out.on('error', () => res.destroy());
		out.end(raw);
	};
	const listen = async (front) => {
		const server = createServer(handler(front));
		servers.push(server);
		await new Promise((r) => server.listen(0, '127.0.0.1', r));
		return `http://127.0.0.1:${server.address().port}`;
	};
	const url = await listen(undefined);
	const release = (key) => {
		for (const go of holding.get(key) ?? []) go();
		holding.delete(key);
	};
	return {
		url, log,
		/** A port of its own into the simulator: every request through it is logged as `name`'s. */
		front: listen,
		/** Holds every later request of `key` (a front's name, or `told:<id>`). */
		hold: (key) => holding.has(key) || holding.set(key, []),
		/** Lets `key`'s held requests go; no more are held. */
		release,
		releaseAll: () => [...holding.keys()].forEach(release),
		/** Requests of `key` held now (their clients alive). */
		heldNow: (key) => log.filter((e) => e.token === key && e.held && !e.released && !e.gone).length,
		close: () => Promise.all(servers.map((server) => new Promise((r) => (server.closeAllConnections?.(), server.close(r))))),
	};
}

/** The polls of `token` in the gate's log after `since`: bursts of its requests (`gap` ms apart at most). */
function pollsOf(log, token, since, gap) {
	const out = [];
	for (const r of log.filter((e) => e.token === token && e.op !== 'told')) {
		if (out.length && r.at - out.at(-1).end <= gap) out.at(-1).end = Math.max(out.at(-1).end, r.answeredAt ?? r.at);
		else out.push({ start: r.at, end: r.answeredAt ?? r.at });
	}
	return out.filter((b) => b.start >= since);
}

/** n8n's stdout, line by line, each with the time it arrived: `find(re, since)` is the first such line after `since`. */
function logLines(proc) {
	const lines = [];
	let rest = '';
	const feed = (chunk) => {
		const parts = (rest + chunk).split('\n');
		rest = parts.pop();
		const at = Date.now();
		for (const text of parts) lines.push({ at, text });
	};
	proc.stdout.on('data', feed);
	proc.stderr.on('data', feed);
	return { lines, find: (re, since = 0) => lines.find((l) => l.at >= since && re.test(l.text)) };
}

/** The lines of n8n's log file (its debug lines carry their time, HH:MM:SS.mmm, UTC here) matching `re`, each { at, text }. */
function loggedLines(file, re) {
	const now = new Date();
	return readFileSync(file, 'utf8').split('\n').flatMap((text) => {
		const m = /^(\d\d):(\d\d):(\d\d)\.(\d{3})\s/.exec(text);
		if (!m || !re.test(text)) return [];
		let at = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), +m[1], +m[2], +m[3], +m[4]);
		if (at > now.getTime() + 60_000) at -= 86_400_000;
		return [{ at, text }];
	});
}

/**
 * When what n8n saves of one workflow becomes visible to a reader: its static data (the trigger's
 * state on n8n's default poller), its poll cursor (2.x durable cursors) and its executions (id and
 * status), read by the app's own sqlite3 on the line's Node whenever the database's folder changes
 * (and every 250 ms). Each change is one { at, what, value }.
 */
function watchDb(app, database, workflowId) {
	const script = `const s = require('sqlite3'); const fs = require('fs'); const path = require('path');
		const [file, id] = process.argv.slice(1); const db = new s.Database(file, s.OPEN_READONLY); db.configure('busyTimeout', 0);
		const seen = {}; let busy = false, again = false;
		const note = (what, value) => { const v = JSON.stringify(value); if (seen[what] !== v) { seen[what] = v; process.stdout.write(JSON.stringify({ at: Date.now(), what, value }) + '\\n'); } };
		const q = (sql) => new Promise((r) => db.all(sql, [id], (e, rows) => r(e ? undefined : rows)));
		async function read() {
			if (busy) return void (again = true);
			busy = true;
			const w = await q('select staticData from workflow_entity where id = ?'); if (w) note('static', w[0]?.staticData ?? null);
			const c = await q('select cursor from poller_state where workflowId = ?'); if (c) note('cursor', c.map((r) => r.cursor));
			const e = await q('select e.id, e.status, (select count(*) from execution_data d where d.executionId = e.id) as data from execution_entity e where e.workflowId = ? order by e.id'); if (e) note('executions', e.map((r) => r.id + ' ' + r.status + (r.data ? '' : ' nodata')));
			busy = false; if (again) { again = false; read(); }
		}
		fs.watch(path.dirname(file), () => read()); setInterval(read, 250); read();`;
	const proc = bg('node', ['-e', script, database, workflowId], { cwd: app.dir, env: app.env });
	const events = [];
	const watching = { events, on: undefined, stop: () => proc.stop(5000) };
	let rest = '';
	proc.stdout.on('data', (chunk) => {
		const parts = (rest + chunk).split('\n');
		rest = parts.pop();
		for (const p of parts) {
			events.push(JSON.parse(p));
			watching.on?.(events.at(-1));
		}
	});
	return watching;
}

/** One write into the app's SQLite database (what n8n's own scheduler would do), by the app's sqlite3; resolves the rows changed. */
async function sqliteWrite(app, database, query, params) {
	const script = `const s = require('sqlite3'); const db = new s.Database(process.argv[1]); db.configure('busyTimeout', 20000);
		db.run(process.argv[2], JSON.parse(process.argv[3]), function (e) { if (e) throw e; process.stdout.write(String(this.changes)); db.close(); });`;
	let out = '';
	const proc = bg('node', ['-e', script, database, query, JSON.stringify(params)], { cwd: app.dir, env: app.env });
	proc.stdout.on('data', (c) => (out += c));
	const code = await proc.done;
	return code === 0 ? Number(out) : die(`sqlite write failed (exit ${code})`);
}

/** A process and every process it started (n8n's task runners), by their IDs. */
function processTree(pid) {
	let children = [];
	try {
		children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
	} catch {}
	return [pid, ...children.flatMap(processTree)];
}
/** SIGKILL to `pids` at once; returns when. */
function killNow(pids) {
	const at = Date.now();
	for (const pid of pids) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {}
	}
	return at;
}
/** SIGKILL to n8n and the task runners it started (which it would have stopped): nothing of it runs on. */
async function killN8n(n8n) {
	const at = killNow(processTree(n8n.proc.pid));
	await n8n.proc.done;
	return at;
}

/**
 * `n8n start` after a kill. n8n 2.41.1 can exit at its first start after a SIGKILL that caught a
 * polled execution as it started: its startup recovery amends that execution from the event log and
 * runs its end hooks, and the insights hook reads `startedAt`, which is null ("Cannot read properties
 * of null (reading 'getTime')", insights-collection.service.js:128, from execution-recovery.service.js
 * recoverFromLogs). The amended execution is saved first, so the next start gets past it, as a
 * container's restart policy would: started once more, and said.
 */
export const startFailures = [];
async function startAgain(app, processEnv, file, label) {
	try {
		return await startN8n(app, processEnv, file);
	} catch (error) {
		const last = readFileSync(file, 'utf8').split('==== n8n start').at(-1);
		if (!/Exiting due to an error/.test(last)) throw error;
		const why = /TypeError: [^\n]*/.exec(last)?.[0] ?? 'see its log';
		startFailures.push(`${label}: ${why}`);
		say(`${label}: n8n exited at its start after the kill (${why}); started once more`);
		return await startN8n(app, processEnv, file);
	}
}

/** The setups crash.mjs runs per line: 1.x its default poller; 2.x the default poller and durable cursors. */
export function crashSetups(line) {
	return line === '1' ? [{ key: 'K', label: 'default poller' }] : [{ key: 'K', label: 'default poller' }, { key: 'KD', label: 'durable cursors', durable: true }];
}

/** The triggers of a setup: the three windows of the kill, and (durable cursors) the list torn while read, then SIGTERM. */
const ROLES = [
	{ role: 'Read', customerId: 'CUST_FIVE_0', events: ['beneficiaryAdded'] },
	{ role: 'Emit', customerId: 'CUST_FIVE_1', events: ['beneficiaryAdded'] },
	{ role: 'Exec', customerId: 'CUST_FIVE_2', events: ['beneficiaryAdded'] },
	{ role: 'TornAdd', customerId: 'CUST_LARGE', events: ['beneficiaryAdded'], durable: true },
	{ role: 'TornRem', customerId: 'CUST_LARGE', events: ['beneficiaryRemoved'], durable: true },
	{ role: 'Drop', customerId: 'CUST_FIVE_4', events: ['beneficiaryAdded'], durable: true },
];
const at = (ms) => new Date(ms).toISOString().slice(11, 23);

/**
 * One setup of a line, in a user folder, database, simulator and gate of its own:
 * 1. n8n started, every trigger's baseline taken (two polls each).
 * 2. A payee bound for Read, Emit and Exec; at their next poll Read's requests are held, Emit's held
 *    then let go, Exec's execution held in its HTTP Request. n8n is killed (SIGKILL) the instant it
 *    has saved Emit's poll (the default poller: the workflow's static data; durable cursors: the
 *    cursor and the execution row), then started again, and each trigger polls twice.
 * 3. Exec's crashed execution retried through the REST API, as a user does from the Executions list.
 * 4. Durable cursors: issue 54's case, n8n dropping the items of the poll that found a change (its
 *    task failed while it read); then CUST_LARGE's list torn while its triggers read it (a payee
 *    unbound on page 1, another bound at the end), their reads held; SIGTERM, the reads let go while
 *    n8n stops; started again.
 * Checks what each trigger told (the gate's log) against what n8n saved at the kill.
 */
export async function runCrash(app, spec, { work, registry, tarball, results }) {
	const dir = join(work, `crash-${spec.key}`);
	const user = join(dir, 'user');
	mkdirSync(join(user, '.n8n/nodes'), { recursive: true });
	const log = (name) => join(dir, `${name}.log`);
	const label = `${app.line}.x crash, ${spec.label}`;
	const check = (ok, what, seen) => results.add(ok, `${label}: ${what}${ok ? '' : ` (saw ${String(seen).slice(0, 1500)})`}`);
	const tick = app.tick * 1000;
	const gap = tick / 4; // a poll's requests: on a loaded machine seconds apart (a 1-page read confirmed, 8 s seen)
	const cron = app.tick === 10 ? '0,10,20,30,40,50 * * * * *' : '0 * * * * *';
	const sim = await startSimulator(log('simulator'));
	const gate = await startGate(sim.url);
	// Debug: n8n logs the moment a poll's items are handed over. No jitter: the triggers of one cron poll together.
	const processEnv = n8nEnv(app, user, { ...registry.clientEnv, ...(spec.durable ? { ...DURABLE, N8N_SCHEDULER_JITTER_RATIO: '0' } : {}), N8N_LOG_LEVEL: 'debug' });
	const database = join(user, '.n8n/database.sqlite');
	const flows = ROLES.filter((r) => !r.durable || spec.durable).map((r) => ({ ...r, id: `PaiC${app.line}${spec.key}${r.role}`, ref: `REF-CRASH-${app.line}${spec.key}-${r.role.toUpperCase()}` }));
	const [read, emit, exec] = flows;
	const ids = flows.map((f) => f.id);
	const held = (f) => gate.heldNow(f.id);
	/** The gate's record of what `f` told (its HTTP Request's calls) of `ref`: `answered` ones went through, the rest were cut. */
	const told = (f, ref = f.ref, since = 0) => gate.log.filter((e) => e.op === 'told' && e.token === `told:${f.id}` && e.ref === ref && e.at >= since);
	const tellsOf = (list) => list.map((t) => `${t.answeredAt ? 'answered' : 'cut'} ${at(t.at)}`).join(', ') || 'none';
	const holding = (e, ref) => e.filter((x) => x.data.includes(ref));
	const showExec = (list) => list.map((x) => `${x.id} ${x.status} ${at(x.at)}`).join(', ') || 'none';
	let n8n;
	let lines;
	const start = async (what) => {
		const asked = Date.now();
		n8n = await startAgain(app, processEnv, log('n8n'), label);
		lines = logLines(n8n.proc);
		say(`${label}: n8n ${what} (${Math.round((Date.now() - asked) / 1000)} s)`);
		return asked;
	};
	const waitPolls = (f, n, since, what) => pollsSince(gate, f, n, since, what, tick, gap);
	const emitted = (f, since) => loggedLines(log('n8n'), new RegExp(`Received (event to trigger execution|trigger) for workflow "\\[crash\\] ${f.id}"`)).filter((l) => l.at >= since);
	let watchers = {};
	try {
		const creds = await Promise.all(flows.map(async (f) => ({ ...credentialOf(f.id), url: await gate.front(f.id) })));
		await cliMust(app, processEnv, ['import:credentials', `--input=${credentials(join(dir, 'credentials.json'), creds)}`], log('import-credentials'));
		await installTarball(app, user, tarball, processEnv);
		mkdirSync(join(dir, 'workflows'), { recursive: true });
		for (const f of flows) writeFileSync(join(dir, 'workflows', `${f.id}.json`), JSON.stringify(crashWorkflow(f, cron, gate.url)));
		await cliMust(app, processEnv, ['import:workflow', '--separate', `--input=${join(dir, 'workflows')}`], log('import-workflows'));
		for (const f of flows) await cliMust(app, processEnv, app.line === '1' ? ['update:workflow', `--id=${f.id}`, '--active=true'] : ['publish:workflow', `--id=${f.id}`], log(`publish-${f.id}`));
		watchers = Object.fromEntries([read, emit, exec].map((f) => [f.role, watchDb(app, database, f.id)]));
		const last = (f, what, until = Infinity) => watchers[f.role].events.filter((e) => e.what === what && e.at <= until).at(-1)?.value;
		const launched = await start('started');
		await Promise.all(flows.map((f) => waitPolls(f, 2, launched, 'a baseline and a poll after it')));

		// 2. The three windows, then SIGKILL the instant Emit's poll is saved.
		gate.hold(read.id);
		gate.hold(emit.id);
		gate.hold(`told:${exec.id}`);
		for (const f of [read, emit, exec]) await sim.admin('add-beneficiary', { customerId: f.customerId, referenceBeneficiaryId: f.ref });
		const placed = await until(async () => held(read) > 0 && held(emit) > 0 && gate.heldNow(`told:${exec.id}`) > 0, 3 * tick + 60_000, 200);
		if (!placed) die(`the windows were not reached (held: Read ${held(read)}, Emit ${held(emit)}, Exec's HTTP Request ${gate.heldNow(`told:${exec.id}`)})`);
		await sleep(1000); // the watchers' view settled (they read at every change, and every 250 ms)
		const savedBefore = spec.durable ? JSON.stringify(last(emit, 'executions')) : last(emit, 'static');
		const what = spec.durable ? 'executions' : 'static';
		const pids = processTree(n8n.proc.pid);
		let killedAt;
		const seenSaved = new Promise((resolve) => {
			watchers.Emit.on = (e) => {
				if (killedAt || e.what !== what || (spec.durable ? JSON.stringify(e.value) : e.value) === savedBefore) return;
				killedAt = killNow(pids); // at once, from the watcher's line: no timer between
				resolve(e);
			};
		});
		const released = Date.now();
		gate.release(emit.id);
		const saved = await Promise.race([seenSaved, sleep(2 * tick + 60_000)]);
		if (!saved) die(`Emit's poll was not saved within ${2 * app.tick + 60} s of its release`);
		await n8n.proc.done;
		await sleep(500);
		const emitLine = emitted(emit, released)[0];
		const atKill = { static: last(emit, 'static') !== savedBefore && !spec.durable, rows: last(emit, 'executions') ?? [] };
		const before = await executions(app, database, ids);
		say(`${label}: killed ${killedAt - saved.at} ms after Emit's ${what} was seen saved (${emitLine ? `${saved.at - emitLine.at} ms after its items were handed over` : 'no hand-over logged'}); Emit's execution rows at the kill: ${JSON.stringify(atKill.rows)}`);
		gate.releaseAll();
		const relaunched = await start('started again');
		await Promise.all([read, emit, exec].map((f) => waitPolls(f, 2, relaunched, 'two polls after the restart')));
		const after = await settledExecutions(app, database, ids);

		// The checks of the kill.
		const readE = holding(after[read.id], read.ref);
		check(told(read).length === 1 && told(read)[0].answeredAt && told(read)[0].at > relaunched && readE.length === 1 && readE[0].status === 'success',
			`killed while a poll read the list (its requests held): the payee it was reading (${read.ref}) is told once, by the poll after the restart`,
			`told ${tellsOf(told(read))}; executions ${showExec(readE)}`);
		const execE = holding(after[exec.id], exec.ref);
		const crashed = execE.length === 1 && execE[0].status === 'crashed' && before[exec.id].some((x) => x.id === execE[0].id);
		check(crashed && told(exec).length === 1 && !told(exec)[0].answeredAt,
			`killed during an execution (its HTTP Request under way): n8n marks it crashed at its next start and does not run it again; the trigger, whose state was saved with the poll, does not report ${exec.ref} again: told once, cut (the request arrived, its answer never read)`,
			`told ${tellsOf(told(exec))}; executions ${showExec(execE)}; before the restart ${showExec(before[exec.id])}`);
		if (crashed) {
			const since = Date.now();
			const r = rest(n8n.url);
			await r.signIn();
			const retried = await r.call('POST', `/rest/executions/${execE[0].id}/retry`, { loadWorkflow: false });
			const again = told(exec, exec.ref, since);
			check(retried.status === 200 && again.length === 1 && again[0].answeredAt,
				`Executions > the crashed execution > Retry (POST /rest/executions/${execE[0].id}/retry): its items run again from the trigger's output, ${exec.ref} told once more`,
				`${retried.status} ${retried.text.slice(0, 300)}; told since ${tellsOf(again)}`);
		}
		const emitE = holding(after[emit.id], emit.ref);
		const emitTold = told(emit);
		const gapMs = (f, since) => {
			const e = emitted(f, since)[0];
			const st = e && watchers[f.role].events.find((x) => x.what === 'static' && x.at >= e.at - 5);
			// The execution saved with its items (its row and its data: 1.x writes the row first).
			const row = e && watchers[f.role].events.find((x) => x.what === 'executions' && x.at >= e.at - 5 && x.value.length > (last(f, 'executions', e.at - 5)?.length ?? 0) && !x.value.at(-1).endsWith(' nodata'));
			return st && row ? row.at - st.at : undefined;
		};
		// The window a kill loses the event in (the default poller): from the state saved to the execution
		// saved, in the polls that reported after the restart (the kill's own is cut short).
		const windows = [read, emit].map((f) => gapMs(f, relaunched)).filter((w) => w !== undefined);
		if (!spec.durable) say(`${label}: the workflow's static data saved before the execution with its items by ${windows.join(' and ')} ms (the polls that reported after the restart)`);
		// What the kill left decides what a user gets: nothing saved, the state alone, an execution not started, one under way.
		const row = atKill.rows.at(-1);
		// What became of Emit's event, as a user finds it: told once; in a crashed execution that holds its
		// items (Executions > Retry); or lost (no execution holds it, nothing told).
		const emitAll = after[emit.id].filter((x) => !before[emit.id].some((y) => y.id === x.id) || x.status !== 'success');
		const outcome = emitTold.length === 1 && emitTold[0].answeredAt && emitE.length === 1 && emitE[0].status === 'success' ? 'told once'
			: emitTold.length <= 1 && emitE.length === 1 && emitE[0].status === 'crashed' ? 'crashed, its items kept (Retry)'
			: emitTold.length === 0 && emitE.length === 0 ? 'lost' : 'other';
		const killedWhen = `${!row ? 'no execution row' : `execution row ${JSON.stringify(row)}`}${spec.durable ? '' : `, static data ${atKill.static ? 'saved' : 'not saved'}`}`;
		if (spec.durable) {
			// The cursor and the execution (with its items) are one transaction: a kill before it is Read's
			// case; after it, the execution not started is run at the next start, one started is crashed.
			check(/ new$/.test(row ?? '') ? outcome === 'told once' : outcome === 'crashed, its items kept (Retry)',
				`killed the instant n8n committed the poll's cursor and its execution (one transaction; at the kill: ${killedWhen}): ${emit.ref} ${outcome} (not started: n8n runs it at its next start; started: crashed, its items in it)`,
				`${outcome}; told ${tellsOf(emitTold)}; executions ${showExec(after[emit.id])}`);
		} else {
			// The default poller saves the workflow's static data without waiting and makes the execution
			// beside it: a kill after the one and before the other's data loses the event (n8n's design).
			const documented = outcome === 'told once' || outcome === 'crashed, its items kept (Retry)' || (outcome === 'lost' && atKill.static);
			check(documented,
				`killed the instant n8n had saved the poll's static data (at the kill: ${killedWhen}): ${emit.ref} ${outcome}; in the polls after the restart the static data and the execution row were saved ${windows.join(' and ') || '?'} ms apart (n8n's default poller: a kill between them loses the event, as documented)`,
				`${outcome}; told ${tellsOf(emitTold)}; executions ${showExec(emitAll)}`);
		}
		for (const f of [read, emit, exec]) say(`${label}: ${f.role}: told ${tellsOf(told(f))}; executions ${showExec(holding(after[f.id], f.ref))}`);

		// 4. Durable cursors. (a) Issue 54's case: n8n drops a poll's items. While Drop's poll reads, its
		// scheduler task is marked failed, as n8n's reaper marks a poll that outlived its lease (under load
		// its 45 s poll timeout drops them the same way); n8n then skips the commit (cursor and execution)
		// and means the next poll to read the same window again. Drop's next poll runs before the stop, so
		// that the restart does not mend what that poll did. (b) An orderly stop (SIGTERM) while the polls
		// of a list torn while read are under way.
		if (spec.durable) {
			const [add, rem, drop] = flows.slice(3);
			gate.hold(drop.id);
			await sim.admin('add-beneficiary', { customerId: drop.customerId, referenceBeneficiaryId: drop.ref });
			if (!(await until(async () => held(drop) > 0, 2 * tick + 60_000, 200))) die('Drop\'s poll did not come');
			const failed = await sqliteWrite(app, database, `update scheduled_task set status = 'failed', finishedAt = strftime('%Y-%m-%d %H:%M:%f', 'now'), errorMessage = 'Lease expired (crash.mjs, as n8n''s reaper)' where status = 'running' and payload like ?`, [`%"workflowId":"${drop.id}"%`]);
			const dropped = Date.now();
			gate.release(drop.id);
			const skipped = await until(async () => lines.find(new RegExp(`Poll cursor commit skipped.*${drop.id}`), dropped), 2 * tick, 100);
			await waitPolls(drop, 1, dropped, 'the dropped poll');
			say(`${label}: Drop's task marked failed (${failed} row) while it read; n8n ${skipped ? 'logged "Poll cursor commit skipped: the poll no longer holds its lease"' : 'logged no skipped commit'}`);
			const unbound = 'REF-LRG-00011';
			gate.hold(add.id);
			gate.hold(rem.id);
			await sim.admin('add-fault', { fault: 'swapBeneficiary', operation: 'list', customerId: 'CUST_LARGE', pageNumber: 1, position: 10, times: 1 });
			const next = Date.now();
			if (!(await until(async () => held(add) > 0 && held(rem) > 0, 2 * tick + 60_000, 200))) die('the torn list\'s polls did not come');
			await waitPolls(drop, 1, next, 'Drop\'s poll after the dropped one');
			const stopAsked = Date.now();
			n8n.proc.kill('SIGTERM');
			const stopping = await until(async () => lines.find(/Received SIGTERM/, stopAsked), 30_000, 5);
			gate.release(add.id);
			gate.release(rem.id);
			const timer = setTimeout(() => n8n.proc.kill('SIGKILL'), 60_000);
			await n8n.proc.done;
			clearTimeout(timer);
			const stoppedAt = Date.now();
			const handed = [add, rem].map((f) => emitted(f, stopAsked)[0]);
			say(`${label}: SIGTERM; the torn reads let go ${stopping ? stopping.at - stopAsked : '?'} ms after it; n8n stopped ${stoppedAt - stopAsked} ms after it; items handed over during the stop: ${handed.map((h, i) => `${[add, rem][i].role} ${h ? `+${h.at - stopAsked} ms` : 'no'}`).join(', ')}`);
			const stopped = await executions(app, database, [add.id, rem.id]);
			const again = await start('started again after the SIGTERM');
			await Promise.all([add, rem, drop].map((f) => waitPolls(f, 2, again, 'two polls after the restart')));
			const e = await settledExecutions(app, database, [add.id, rem.id, drop.id]);
			const swapped = gate.log.filter((x) => x.token === `told:${add.id}` && /^REF-SWAPPED-IN-/.test(x.ref ?? ''));
			const removed = told(rem, unbound);
			const list = (f) => e[f.id].filter((x) => x.at >= stopAsked - tick);
			check(removed.length === 1 && removed[0].answeredAt && swapped.length === 1 && swapped[0].answeredAt && [...list(add), ...list(rem)].every((x) => x.status === 'success'),
				`an orderly stop (SIGTERM) while a list torn while read (${unbound} unbound, a payee bound at the end) is being read: n8n does not wait for the polls under way; ${unbound} told once as Removed, the bound payee once as Added, by the polls after the start, every execution a success`,
				`Removed told ${tellsOf(removed)}, Added told ${tellsOf(swapped)}; executions at the stop Add ${showExec(stopped[add.id])}, Rem ${showExec(stopped[rem.id])}; after Add ${showExec(list(add))}, Rem ${showExec(list(rem))}`);
			check(failed === 1 && told(drop).length === 1 && told(drop)[0].answeredAt,
				`issue 54's case: n8n drops the poll that found a change (in the issue's run its 45 s poll timeout under load, "Poll exceeded its timeout and was abandoned"; here its task marked failed while it read, as n8n's reaper marks a poll past its lease: no execution, no cursor, "the next poll repeats the same window"): ${drop.ref} told once by a later poll`,
				`task rows failed ${failed}; told ${tellsOf(told(drop))}; executions ${showExec(e[drop.id])}`);
		}
	} catch (error) {
		check(false, 'the crash run went to its end', error.stack);
	} finally {
		if (n8n && n8n.proc.exitCode === null && n8n.proc.signalCode === null) await n8n.stop();
		await Promise.all(Object.values(watchers).map((w) => w.stop()));
		await sim.proc.stop();
		await gate.close();
		// Its n8n log (debug, and crashes on purpose) stays out of the line's check of package warnings.
	}
}

/**
 * test:queue's part (2.x queue mode: the main polls, the workers run executions): a trigger made and
 * activated through the REST API, a payee bound, its execution held in its HTTP Request on the worker
 * that took it; that worker killed (SIGKILL). What n8n then does with the execution, and what was told.
 */
export async function crashQueue({ url, sim, workers, workerLog, sql, results }) {
	const check = (ok, what, seen) => results.add(ok, `queue mode, a worker killed: ${what}${ok ? '' : ` (saw ${String(seen).slice(0, 1500)})`}`);
	const gate = await startGate(sim.url);
	const f = { id: 'PaiCrashQueue01', customerId: 'CUST_FIVE_3', events: ['beneficiaryAdded'], ref: 'REF-CRASH-QUEUE' };
	try {
		const r = rest(url);
		await r.signIn();
		// Its credential (the simulator's keys, its Base URL its own port of the gate) and the workflow, made through the REST API.
		const { simulatorCredential } = createRequire(import.meta.url)(join(ROOT, '.dev-dist/sandbox/credentialFile.js'));
		const { data, type } = simulatorCredential(await gate.front(f.id), credentialOf(f.id));
		const credential = await r.ok('POST', '/rest/credentials', { name: credentialOf(f.id).name, type, data });
		const { id: _, ...body } = crashWorkflow(f, '0 * * * * *', gate.url);
		body.nodes[0].credentials = { partnerAccountInquiryApi: { id: credential.id, name: credential.name } };
		const workflowId = (await r.ok('POST', '/rest/workflows', body)).id;
		const activated = Date.now();
		await r.activate(workflowId);
		if (!(await until(async () => pollsOf(gate.log, f.id, activated, 5000).length >= 2 && Date.now() - pollsOf(gate.log, f.id, activated, 5000)[1].end > 5000, 5 * 60_000, 1000))) die(`${f.id} did not poll twice after its activation`);
		gate.hold(`told:${f.id}`);
		await sim.admin('add-beneficiary', { customerId: f.customerId, referenceBeneficiaryId: f.ref });
		if (!(await until(async () => gate.heldNow(`told:${f.id}`) > 0, 3 * 60_000, 200))) die('the execution did not reach its HTTP Request');
		const executionId = await sql(`select id from execution_entity where "workflowId" = '${workflowId}' order by id desc limit 1`);
		const n = [1, 2].find((k) => workerLog(k).includes(`Worker started execution ${executionId} `)) ?? die(`no worker logged starting execution ${executionId}`);
		const killedAt = await killN8n({ proc: workers[n - 1] });
		gate.releaseAll();
		const status = async () => sql(`select status from execution_entity where id = '${executionId}'`);
		// Bull's lock (60 s) lapses, the other worker's stalled-job check (every 30 s) finds it; 2.x retries no stalled job.
		const ended = await until(async () => { const now = await status(); return !['new', 'running'].includes(now) && now; }, 5 * 60_000, 1000);
		const endedAfter = Math.round((Date.now() - killedAt) / 1000);
		const other = 3 - n;
		// A poll after it: the trigger does not report it again.
		const afterEnd = Date.now();
		await until(async () => { const b = pollsOf(gate.log, f.id, afterEnd, 5000); return b.length >= 1 && Date.now() - b[0].end > 5000; }, 3 * 60_000, 1000);
		const holdingRef = Number(await sql(`select count(*) from execution_entity e join execution_data d on d."executionId" = e.id where e."workflowId" = '${workflowId}' and d.data like '%${f.ref}%'`));
		const count = Number(await sql(`select count(*) from execution_entity where "workflowId" = '${workflowId}'`));
		const toldList = gate.log.filter((e) => e.token === `told:${f.id}` && e.ref === f.ref);
		check(ended === 'error' && toldList.length === 1 && !toldList[0].answeredAt && holdingRef === 0 && count === 1 && !workerLog(other).includes(`execution ${executionId} `),
			`worker ${n} killed (SIGKILL) in the trigger's execution ${executionId}, its HTTP Request under way: no worker runs it again (2.x retries no stalled job); ${endedAfter} s later the main marks it failed ("This execution failed to be processed too many times"), its data replaced by that error, the trigger's items gone; the trigger, its cursor committed when the execution was made, does not report ${f.ref} again: told once, cut; killed before its HTTP Request, never`,
			`status ${ended} after ${endedAfter} s; told ${toldList.map((t) => `${t.answeredAt ? 'answered' : 'cut'} ${at(t.at)}`).join(', ')}; executions ${count}, holding it ${holdingRef}; worker ${other} ran it: ${workerLog(other).includes(`execution ${executionId} `)}`);
		const since = Date.now();
		const retried = await r.call('POST', `/rest/executions/${executionId}/retry`, { loadWorkflow: false });
		await sleep(5000); // a retry that ran anything would have called the gate by now (the call above returns when it ended)
		const again = gate.log.filter((e) => e.token === `told:${f.id}` && e.at >= since);
		check(retried.status === 200 && retried.data?.status === 'error' && again.length === 0,
			`Executions > that failed execution > Retry cannot bring it back: the retry fails at once with the same error and runs nothing (the items are not in it)`,
			`${retried.status} ${retried.text.slice(0, 300)}; told since ${again.length}`);
	} catch (error) {
		check(false, 'the run went to its end', error.stack);
	} finally {
		await gate.close();
	}
}

/**
 * Issue 54's torn list, again and again (2.x, durable cursors): per pair a Beneficiary Added and a
 * Beneficiary Removed trigger of one customer. Each round tears every pair's list once while it is read
 * (a payee unbound on page 1, another bound at the end: the simulator's swapBeneficiary), then stops
 * n8n (SIGTERM) and starts it again, in turn after two more polls (the issue's run) and with the torn
 * reads held (the stop during the read); then two polls. Counts, per round and pair, the Removed and
 * Added told: exactly one of each is promised.
 */
export async function runTorn(app, { work, registry, tarball, results, rounds = 20, customers = ['CUST_LARGE', 'CUST_FIVE_20', 'CUST_FIVE_21'], drop = false }) {
	const dir = join(work, drop ? 'torn-drop' : 'torn');
	const user = join(dir, 'user');
	mkdirSync(join(user, '.n8n/nodes'), { recursive: true });
	const log = (name) => join(dir, `${name}.log`);
	const label = `${app.line}.x torn list${drop ? ', its Removed poll dropped by n8n' : ''}, durable cursors`;
	const tick = app.tick * 1000;
	const gap = tick / 4;
	const sim = await startSimulator(log('simulator'));
	const gate = await startGate(sim.url);
	const processEnv = n8nEnv(app, user, { ...registry.clientEnv, ...DURABLE, N8N_LOG_LEVEL: 'debug' });
	const database = join(user, '.n8n/database.sqlite');
	const pairs = customers.map((customerId, i) => ({
		customerId,
		add: { id: `PaiC${app.line}${drop ? 'DA' : 'TA'}${i}`, customerId, events: ['beneficiaryAdded'] },
		rem: { id: `PaiC${app.line}${drop ? 'DR' : 'TR'}${i}`, customerId, events: ['beneficiaryRemoved'] },
	}));
	const flows = pairs.flatMap((p) => [p.add, p.rem]);
	const tells = (f, event, since) => gate.log.filter((e) => e.op === 'told' && e.token === `told:${f.id}` && e.event === event && e.at >= since);
	let n8n;
	const start = async (what) => {
		const asked = Date.now();
		n8n = await startAgain(app, processEnv, log('n8n'), label);
		say(`${label}: n8n ${what} (${Math.round((Date.now() - asked) / 1000)} s)`);
		return asked;
	};
	const waitPolls = (f, n, since, what) => pollsSince(gate, f, n, since, what, tick, gap);
	const stop = async () => {
		n8n.proc.kill('SIGTERM');
		const timer = setTimeout(() => n8n.proc.kill('SIGKILL'), 60_000);
		await n8n.proc.done;
		clearTimeout(timer);
	};
	const counts = [];
	try {
		const creds = await Promise.all(flows.map(async (f) => ({ ...credentialOf(f.id), url: await gate.front(f.id) })));
		await cliMust(app, processEnv, ['import:credentials', `--input=${credentials(join(dir, 'credentials.json'), creds)}`], log('import-credentials'));
		await installTarball(app, user, tarball, processEnv);
		mkdirSync(join(dir, 'workflows'), { recursive: true });
		for (const f of flows) writeFileSync(join(dir, 'workflows', `${f.id}.json`), JSON.stringify(crashWorkflow(f, '0 * * * * *', gate.url)));
		await cliMust(app, processEnv, ['import:workflow', '--separate', `--input=${join(dir, 'workflows')}`], log('import-workflows'));
		for (const f of flows) await cliMust(app, processEnv, ['publish:workflow', `--id=${f.id}`], log(`publish-${f.id}`));
		let since = await start('started');
		await Promise.all(flows.map((f) => waitPolls(f, 2, since, 'a baseline and a poll after it')));
		for (let round = 1; round <= rounds; round++) {
			const midRead = !drop && round % 2 === 0;
			const began = Date.now();
			if (midRead) flows.forEach((f) => gate.hold(f.id));
			if (drop) pairs.forEach((p) => gate.hold(p.rem.id));
			for (const p of pairs) await sim.admin('add-fault', { fault: 'swapBeneficiary', operation: 'list', customerId: p.customerId, pageNumber: 1, position: 10, times: 1 });
			if (drop) {
				// The Removed trigger's torn poll loses its lease while it reads (its scheduler task marked
				// failed, as n8n's reaper marks a poll past its lease): n8n commits neither its cursor nor its
				// execution ("Poll cursor commit skipped"), and means the next poll to read the same window again.
				if (!(await until(async () => pairs.every((p) => gate.heldNow(p.rem.id) > 0), 2 * tick + 60_000, 200))) die(`round ${round}: the torn reads did not come`);
				let failed = 0;
				for (const p of pairs) failed += await sqliteWrite(app, database, `update scheduled_task set status = 'failed', finishedAt = strftime('%Y-%m-%d %H:%M:%f', 'now'), errorMessage = 'Lease expired (crash.mjs, as n8n''s reaper)' where status = 'running' and payload like ?`, [`%"workflowId":"${p.rem.id}"%`]);
				gate.releaseAll();
				say(`${label}: round ${round}: ${failed} task(s) marked failed while their torn read was held`);
			}
			if (midRead) {
				// Every torn read under way (its first request held), then the stop; the reads let go as n8n stops.
				if (!(await until(async () => flows.every((f) => gate.heldNow(f.id) > 0), 2 * tick + 60_000, 200))) die(`round ${round}: the torn reads did not come`);
				n8n.proc.kill('SIGTERM');
				gate.releaseAll();
				const timer = setTimeout(() => n8n.proc.kill('SIGKILL'), 60_000);
				await n8n.proc.done;
				clearTimeout(timer);
			} else {
				await Promise.all(flows.map((f) => waitPolls(f, 2, began, 'the torn poll and one after it')));
				await stop();
			}
			since = await start(`started again (round ${round})`);
			await Promise.all(flows.map((f) => waitPolls(f, 2, since, 'two polls after the start')));
			await sleep(5000); // the last polls' executions reach their HTTP Request
			const row = pairs.map((p) => ({ customerId: p.customerId, removed: tells(p.rem, 'beneficiaryRemoved', began).length, added: tells(p.add, 'beneficiaryAdded', began).length }));
			counts.push({ round, how: drop ? 'the Removed poll dropped, two polls, then SIGTERM' : midRead ? 'SIGTERM during the torn read' : 'two polls, then SIGTERM', row });
			say(`${label}: round ${round} (${counts.at(-1).how}): ${row.map((r) => `${r.customerId} Removed ${r.removed} Added ${r.added}`).join('; ')}`);
		}
	} catch (error) {
		results.add(false, `${label}: the rounds went to their end (${counts.length} of ${rounds}): ${error.stack}`);
	} finally {
		if (n8n && n8n.proc.exitCode === null && n8n.proc.signalCode === null) await n8n.stop();
		await sim.proc.stop();
		await gate.close();
	}
	const all = counts.flatMap((c) => c.row);
	const exact = all.filter((r) => r.removed === 1 && r.added === 1).length;
	results.add(all.length > 0 && exact === all.length,
		`${label}: a list torn once while read, then a stop (SIGTERM) and a start: exactly one Removed and one Added in ${exact} of ${all.length} (${counts.length} rounds of ${pairs.length} customers)`,
	);
	for (const c of counts) if (c.row.some((r) => r.removed !== 1 || r.added !== 1)) say(`${label}: round ${c.round} (${c.how}) told ${JSON.stringify(c.row)}`);
	return counts;
}

// Standalone: node scripts/n8n-app/crash.mjs [lines: 1, 2 or 1,2 (default)] [jobs: K,KD,torn by default; torndrop]
// (CRASH_TORN_ROUNDS: the torn list's rounds, 20 by default, 2 for torndrop; CRASH_TARBALL: a packed
// tarball to install instead of packing the tree). Builds the simulator, packs the package, a local registry.
if (import.meta.url === `file://${process.argv[1]}`) {
	const { results: makeResults, setPrefix, workDir, LINES } = await import('./harness.mjs');
	const { buildDev, ensureApp, pack, startRegistry } = await import('./install.mjs');
	const { rmSync } = await import('node:fs');
	setPrefix('crash');
	const [lineArg, jobsArg] = process.argv.slice(2);
	const lines = (lineArg ?? '1,2').split(',').map((l) => l.trim().replace(/\.x$/, ''));
	const jobs = (jobsArg ?? 'K,KD,torn').split(',');
	const work = workDir('crash');
	const results = makeResults();
	try {
		say('building the simulator (npm run build:dev) and the package');
		await buildDev();
		const registry = await startRegistry(work);
		const tarball = process.env.CRASH_TARBALL ?? (await pack(join(work, 'pack')));
		await Promise.all(lines.map(async (line, i) => {
			await sleep(i * 60_000);
			const app = await ensureApp(line);
			const shared = { work: join(work, `line-${line}`), registry, tarball, results };
			const runs = [
				...crashSetups(line).filter((spec) => jobs.includes(spec.key)).map((spec) => () => runCrash(app, spec, shared)),
				...(line === '2' && jobs.includes('torn') ? [() => runTorn(app, { ...shared, rounds: Number(process.env.CRASH_TORN_ROUNDS ?? 20) })] : []),
				...(line === '2' && jobs.includes('torndrop') ? [() => runTorn(app, { ...shared, rounds: Number(process.env.CRASH_TORN_ROUNDS ?? 2), customers: ['CUST_FIVE_30', 'CUST_FIVE_31'], drop: true })] : []),
			];
			// Side by side, 40 s apart.
			await Promise.all(runs.map(async (job, k) => (await sleep(k * 40_000), job())));
			say(`n8n ${LINES[line].version} done`);
		}));
	} catch (error) {
		results.add(false, `crash.mjs could not run: ${error.stack}`);
	}
	for (const f of startFailures) say(`n8n exited at a start after a kill, started once more: ${f}`);
	const failed = results.failed();
	if (failed) say(`logs, user folders and databases are kept in ${work}`);
	else rmSync(work, { recursive: true, force: true });
	console.log(`${results.lines.length - failed} passed, ${failed} failed`);
	process.exit(failed ? 1 : 0);
}
