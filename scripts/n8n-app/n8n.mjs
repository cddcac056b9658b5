// n8n driven as a person or an operator would: its environment, its CLI, `n8n start` until ready,
// its REST API as the editor calls it, the credential file, its database's executions; and the
// gateway simulator in a process of its own.
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { HERE, LINES, ROOT, bg, die, freePort, getJson, must, run, sleep, until } from './harness.mjs';

const env = process.env;

/** What every n8n process gets: quiet and local (every address 127.0.0.1, nothing reaching the internet). */
export function n8nEnv(app, userFolder, extra = {}) {
	const quiet = Object.fromEntries(
		('N8N_DIAGNOSTICS_ENABLED N8N_VERSION_NOTIFICATIONS_ENABLED N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED N8N_TEMPLATES_ENABLED ' +
			'N8N_PERSONALIZATION_ENABLED N8N_HIRING_BANNER_ENABLED N8N_DYNAMIC_BANNERS_ENABLED N8N_LICENSE_AUTO_RENEW_ENABLED N8N_AI_ENABLED ' +
			'N8N_RUNNERS_ENABLED N8N_SECURE_COOKIE').split(' ').map((k) => [k, 'false']),
	);
	return {
		...app.env, ...quiet, ...LINES[app.line].vars,
		N8N_USER_FOLDER: userFolder, N8N_ENCRYPTION_KEY: 'partner-account-inquiry-smoke-test-key', DB_TYPE: 'sqlite',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true', N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true', N8N_LOG_LEVEL: 'info', N8N_LOG_OUTPUT: 'console',
		N8N_HOST: '127.0.0.1', N8N_LISTEN_ADDRESS: '127.0.0.1', N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1', GENERIC_TIMEZONE: 'UTC',
		EXTERNAL_FRONTEND_HOOKS_URLS: '', N8N_SENTRY_DSN: '', N8N_FRONTEND_SENTRY_DSN: '', NO_COLOR: '1', N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		NO_PROXY: '127.0.0.1,localhost,::1', no_proxy: '127.0.0.1,localhost,::1',
		...extra,
	};
}

/** One n8n CLI command (each its own task broker port: 2.x starts one in every process). */
// Its output goes to a file (written at once; through a pipe a crash on the way out can cut a long execution JSON).
let logs = 0;
export async function cli(app, processEnv, args, log, timeout = Number(env.N8N_COMMAND_TIMEOUT ?? 180) * 1000) {
	const file = log ?? join(tmpdir(), `n8n-cli-${process.pid}-${++logs}.log`);
	const fd = openSync(file, 'w');
	const { code } = await run(app.bin, args, { env: { ...processEnv, N8N_RUNNERS_BROKER_PORT: String(await freePort()) }, timeout, stdio: ['ignore', fd, fd] });
	closeSync(fd);
	const out = readFileSync(file, 'utf8');
	if (!log) rmSync(file);
	return { code, out };
}
export async function cliMust(app, processEnv, args, log) {
	const { code, out } = await cli(app, processEnv, args, log);
	if (code !== 0) die(`n8n ${args[0]} failed (${code === 124 ? 'out of time' : `exit ${code}`}): ${out.slice(-800)}`);
	return out;
}

/**
 * `n8n start`, ready: /rest/settings answers JSON from n8n itself (while it boots, every path
 * answers "starting up" HTML, then 404). A port someone took meanwhile: started again on another.
 */
export async function startN8n(app, processEnv, log) {
	for (let attempt = 1; attempt <= 3; attempt++) {
		const port = await freePort();
		appendFileSync(log, `\n==== n8n start on port ${port} (${new Date().toISOString()})\n`);
		const proc = bg(app.bin, ['start'], {
			log, env: { ...processEnv, N8N_PORT: String(port), N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`, WEBHOOK_URL: `http://127.0.0.1:${port}/`, N8N_RUNNERS_BROKER_PORT: String(await freePort()) },
		});
		const url = `http://127.0.0.1:${port}`;
		const ready = await until(async () => {
			if (proc.exitCode !== null) return 'exited';
			const { status, json } = await getJson(`${url}/rest/settings`, { timeout: 3000 });
			return status === 200 && json?.data && typeof json.data === 'object' && /Editor is now accessible/.test(readFileSync(log, 'utf8').split('==== n8n start').at(-1)) && 'ready';
		}, 480_000); // a loaded machine (the lines side by side, jest beside them) boots n8n slowly
		if (ready === 'ready') return { url, port, proc, readyAt: Date.now(), stop: () => proc.stop() };
		await proc.stop();
		if (!/already in use/.test(readFileSync(log, 'utf8'))) die(`n8n start did not become ready (${ready ?? 'out of time'}; ${log})`);
	}
	die(`n8n start found its port taken three times (${log})`);
}

/** n8n's REST API as the editor calls it, as the owner (set up on a fresh instance). */
export function rest(base) {
	let cookie = '';
	async function call(method, path, body, attempt = 1) {
		let res;
		try {
			res = await fetch(`${base}${path}`, {
				method, headers: { 'content-type': 'application/json', ...(cookie && { cookie }) },
				body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(240_000),
			});
		} catch (error) {
			// A connection n8n dropped while busy (a loaded machine): asked again, twice at most.
			if (attempt > 2 || error.name === 'TimeoutError') throw new Error(`${method} ${path}: ${error.message} (${error.cause?.code ?? error.cause?.message ?? ''})`);
			await sleep(5000);
			return call(method, path, body, attempt + 1);
		}
		const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (auth) cookie = auth.split(';')[0];
		const text = await res.text();
		// n8n 2.x answers 503 "Database is not ready!" while its SQLite health check lags (a loaded machine): asked again, twice at most.
		if (res.status === 503 && text.includes('Database is not ready') && attempt <= 2) {
			await sleep(5000);
			return call(method, path, body, attempt + 1);
		}
		let json;
		try {
			json = JSON.parse(text);
		} catch {}
		return { status: res.status, type: res.headers.get('content-type') ?? '', text, json, data: json?.data ?? json };
	}
	const owner = { email: 'owner@example.com', password: 'Smoke-Test-Pass-1' };
	async function signIn() {
		const fresh = (await call('GET', '/rest/settings')).data?.userManagement?.showSetupOnFirstLoad;
		const res = fresh
			? await call('POST', '/rest/owner/setup', { ...owner, firstName: 'Smoke', lastName: 'Test' })
			: await call('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
		if (res.status !== 200 || !cookie) die(`${fresh ? 'owner setup' : 'login'} answered ${res.status}: ${res.text.slice(0, 200)}`);
		return fresh ? 'owner set up, signed in' : 'signed in';
	}
	const ok = async (method, path, body) => {
		const res = await call(method, path, body);
		if (res.status !== 200) die(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
		return res.data;
	};
	/** The node types the editor is served: a loaded machine's n8n may answer before it wrote them (not yet a list). */
	const nodeTypes = async () => {
		let seen;
		const types = await until(async () => ((seen = await call('GET', '/types/nodes.json')), Array.isArray(seen.json) && seen.json), 180_000, 2000);
		return types || die(`/types/nodes.json answered ${seen?.status}: ${String(seen?.text).slice(0, 200)}`);
	};
	return {
		call, signIn, ok, nodeTypes,
		/** Activates as the editor does: 2.x publishes the current version, 1.x sets active. */
		activate: async (id) => {
			const w = await ok('GET', `/rest/workflows/${id}`);
			if ('activeVersionId' in w) await ok('POST', `/rest/workflows/${id}/activate`, { versionId: w.versionId });
			else await ok('PATCH', `/rest/workflows/${id}`, { versionId: w.versionId, active: true });
		},
		deactivate: async (id) => {
			const w = await ok('GET', `/rest/workflows/${id}`);
			if ('activeVersionId' in w) await ok('POST', `/rest/workflows/${id}/deactivate`, {});
			else await ok('PATCH', `/rest/workflows/${id}`, { versionId: w.versionId, active: false });
		},
		/** Saves changed parameters of a node of an active workflow, as the editor does (2.x: and publishes them). */
		editNode: async (id, nodeName, change) => {
			const w = await ok('GET', `/rest/workflows/${id}`);
			const nodes = w.nodes.map((n) => (n.name === nodeName ? { ...n, parameters: change(n.parameters) } : n));
			const saved = await ok('PATCH', `/rest/workflows/${id}`, { name: w.name, nodes, connections: w.connections, settings: w.settings, versionId: w.versionId });
			if ('activeVersionId' in w) await ok('POST', `/rest/workflows/${id}/activate`, { versionId: saved.versionId });
		},
	};
}

/**
 * The credential file for `n8n import:credentials` (the simulator's demo keys, public on purpose):
 * each simulator credential as `npm run sandbox -- --write-credential` writes it (sandbox/credentialFile.ts).
 */
export function credentials(file, creds) {
	const { simulatorCredential } = createRequire(import.meta.url)(join(ROOT, '.dev-dist/sandbox/credentialFile.js'));
	// `accessToken`: the credential's Access Token (a customer's authorisation), sent with its every request.
	const pai = ({ id, name, url, accessToken }) => {
		const entry = simulatorCredential(url, { id, name });
		if (accessToken) entry.data.accessToken = accessToken;
		return entry;
	};
	const other = {
		openAiApi: (c) => ({ apiKey: 'sk-local-fake-key', url: c.url }),
		slackApi: () => ({ accessToken: 'xoxb-local-fake-token' }), // reaches no Slack: here nothing leaves the machine
	};
	writeFileSync(file, JSON.stringify(creds.map((c) => (other[c.type] ? { id: c.id, name: c.name, type: c.type, data: other[c.type](c) } : pai(c)))));
	return file;
}
// Named as the examples name theirs, so that `n8n import:workflow` of an example as it is resolves it.
export const SMOKE_CREDENTIAL = { id: 'PaiSmokeCred0001', name: 'Partner Account Inquiry account' };

/** The gateway simulator (built by npm run build:dev) in its own process: simulator.mjs. */
export async function startSimulator(log, port) {
	port ??= await freePort();
	const control = await freePort();
	const proc = bg('node', [join(HERE, 'simulator.mjs'), port, control], { log, cwd: ROOT });
	const url = `http://127.0.0.1:${port}`;
	const base = `http://127.0.0.1:${control}`;
	if (!(await until(async () => (await fetch(`${base}/requests`)).ok, 30_000))) die(`the simulator did not start (${log})`);
	const post = async (path, body) => {
		const { status, json } = await getJson(path, { method: 'POST', body: JSON.stringify(body) });
		if (status !== 200) die(`simulator ${path.split('/').pop()}: ${JSON.stringify(json)}`);
		return json;
	};
	const sim = {
		url, port, proc,
		/** The simulator's own admin routes (what a user or the bank does meanwhile). */
		admin: (action, body) => post(`${url}/__admin/${action}`, body),
		/** A method of the Simulator object (sandbox/types.ts), for what the admin routes do not offer. */
		call: (method, ...args) => post(`${base}/call/${method}`, args),
		/** A port of its own into the simulator (a TCP pass-through): requests through it are logged with `via: name`. */
		front: (name) => sim.call('front', name),
		/** Every API request so far: { at, op, customer, account, id, token, via, code }. */
		requests: async (attempt = 1) => {
			try {
				return (await getJson(`${base}/requests`)).json;
			} catch (error) {
				if (attempt === 3) throw new Error(`the simulator's request log: ${error.message}`);
				return sleep(2000).then(() => sim.requests(attempt + 1));
			}
		},
	};
	return sim;
}

/**
 * The executions of workflows: id, status, at (ms), data (flatted text), run (parsed), read from the
 * app's SQLite database by the app's own sqlite3 on the line's Node (its native build is that Node's).
 */
export async function executions(app, database, ids) {
	const query = `select e.id, e.workflowId as workflowId, e.status, coalesce(e.startedAt, e.createdAt) as at, d.data from execution_entity e
		left join execution_data d on d.executionId = e.id where e.workflowId in (${ids.map(() => '?').join(',')}) order by e.id`;
	const rows = await sqliteRows(app, database, query, ids);
	const { parse } = createRequire(join(app.dir, 'package.json'))('flatted');
	const out = Object.fromEntries(ids.map((id) => [id, []]));
	for (const row of rows) {
		const data = String(row.data ?? '');
		let run;
		try {
			run = parse(data);
		} catch {}
		out[row.workflowId].push({ id: row.id, status: row.status, at: when(row.at), data, run });
	}
	return out;
}

/** Rows of a query of the app's SQLite database, by the app's own sqlite3 on the line's Node (its native build is that Node's). */
async function sqliteRows(app, database, query, params) {
	const read = `const s = require('sqlite3'); const db = new s.Database(process.argv[1], s.OPEN_READONLY);
		db.all(process.argv[2], JSON.parse(process.argv[3]), (e, rows) => { if (e) throw e; process.stdout.write(JSON.stringify(rows)); db.close(); });`;
	return JSON.parse(await must('node', ['-e', read, database, query, JSON.stringify(params)], { cwd: app.dir, env: app.env }));
}

/**
 * 2.x: the error of each trigger of `workflowId` that failed to activate when it was published, as the
 * editor shows it (n8n's publication service records it; a publish with such a trigger is "partial").
 */
export async function triggerActivationErrors(app, database, workflowId) {
	const rows = await sqliteRows(app, database, 'select errorMessage from workflow_publication_trigger_status where workflowId = ? and errorMessage is not null', [workflowId]);
	return rows.map((row) => row.errorMessage);
}

/** The executions of `ids` (as `executions`), read once none of them is still running (for at most a minute). */
export async function settledExecutions(app, database, ids) {
	for (let tries = 0; ; tries++) {
		const e = await executions(app, database, ids);
		if (tries === 30 || !Object.values(e).flat().some((x) => ['new', 'running'].includes(x.status))) return e;
		await sleep(2000);
	}
}

/** A saved date as ms: SQLite gives epoch ms (a number or its digits) or UTC text without a zone. */
function when(at) {
	if (at == null) return 0;
	if (typeof at === 'number' || /^\d+$/.test(String(at))) return Number(at);
	const ms = Date.parse(/[Z+]/.test(at) ? at : `${String(at).replace(' ', 'T')}Z`);
	return Number.isNaN(ms) ? die(`an execution's date ${JSON.stringify(at)} does not parse`) : ms;
}

/** The items node `name` gave in an execution's run. */
export const nodeItems = (run, name) => (run?.resultData?.runData?.[name]?.[0]?.data?.main?.[0] ?? []).map((i) => i.json);

