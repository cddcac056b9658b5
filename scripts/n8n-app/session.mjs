// A session of the trigger live in a real n8n app: one user folder and database, one simulator, one
// poller setup; the session's scenarios (scenarios.mjs) installed, n8n started, each scenario's
// phases run side by side, n8n restarted once, stopped. Every wait proves the workflow polled.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PACKAGE, ROOT, VERSION, die, freePort, say, sleep } from './harness.mjs';
import { installTarball } from './install.mjs';
import { hostileCredentialTestChecks } from './credentialTestHostile.mjs';
import { SMOKE_CREDENTIAL, cliMust, credentials, n8nEnv, rest, settledExecutions, startN8n, startSimulator } from './n8n.mjs';
import { DURABLE, SCENARIOS, TRIGGER, frontCredentials } from './scenarios.mjs';

/**
 * The polls of each workflow, from the simulator's request log: a poll is a burst of requests that
 * came through the workflow's own front (its credential's Base URL: scenarios.mjs `credentialOf`),
 * logged `via` its ID. `waitPolls` waits for `n` of them after `since` and says what it expected
 * when they do not come.
 */
export function pollWatch(sim, tick) {
	const gap = Math.min(5000, (tick * 1000) / 3);
	let requests = [];
	const polls = (id, since) => {
		const out = [];
		for (const r of requests.filter((q) => q.via === id)) {
			if (out.length && r.at - out.at(-1).end <= gap) out.at(-1).end = r.at;
			else out.push({ start: r.at, end: r.at });
		}
		return out.filter((b) => b.start >= since);
	};
	return {
		pollCount: (id) => polls(id, 0).length,
		async waitPolls(id, n, since, what) {
			const deadline = Date.now() + (n + 2) * tick * 1000 + 90_000;
			for (;;) {
				requests = await sim.requests();
				const b = polls(id, since);
				if (b.length > n || (b.length === n && Date.now() - b[n - 1].end > gap)) return sleep(2000);
				if (Date.now() > deadline) die(`${id} polled ${b.length} times since ${new Date(since).toISOString().slice(11, 19)}, expected ${n} (${what})`);
				await sleep(1000);
			}
		},
	};
}

/** The sessions of a line: which scenarios each runs, on which poller, installed how. */
export function sessions(line) {
	const fresh = ['quotaSet', 'customerQuotas', 'multiEvent', 'watchMany', 'bankAlert', 'newPayeeAlert', 'quotaFloors', 'activation'];
	const list = [
		{ key: 'U', label: 'default poller, installed through the editor', install: 'editor', scenarios: ['liveTrigger', 'issue20'] },
		{ key: 'F', label: 'default poller, fresh database', install: 'tarball', scenarios: fresh },
	];
	if (line === '2') list.push({ key: 'D', label: 'durable scheduler and cursors, fresh database', install: 'tarball', durable: true, scenarios: [...fresh, 'issue20'] });
	return list;
}

/** Runs one session of `app` (its line), recording into `results`. */
export async function runSession(app, spec, { work, registry, tarball, results, logs }) {
	const dir = join(work, spec.key);
	const user = join(dir, 'user');
	mkdirSync(join(user, '.n8n/nodes'), { recursive: true });
	const log = (name) => join(dir, `${name}.log`);
	const label = `${app.line}.x ${spec.label}`;
	const check = (ok, what, seen) => results.add(ok, `${label}: ${what}${ok ? '' : ` (saw ${String(seen).slice(0, 1500)})`}`);
	const sim = await startSimulator(log('simulator'));
	const processEnv = n8nEnv(app, user, { ...registry.clientEnv, ...(spec.durable ? DURABLE : {}) });
	const ctx = {
		line: app.line, tick: app.tick, key: spec.key, exact: !!spec.durable, sim, check, activatedAt: {},
		/** Since when workflow `id` is active: its activation in the running app, or n8n's start. */
		since: (id) => ctx.activatedAt[id] ?? ctx.launchedAt,
		cron: app.tick === 10 ? '0,10,20,30,40,50 * * * * *' : '0 * * * * *', prefix: `U-${app.line}${spec.key}`,
		id(name) {
			const id = `Pai${app.line}${spec.key}${name}`;
			return id.length <= 16 ? id : die(`workflow ID ${id} is longer than n8n 1.x saves static data for (16)`);
		},
		/** The executions of `ids`, read once none of them is still running (for at most a minute). */
		exec: (ids) => settledExecutions(app, join(user, '.n8n/database.sqlite'), ids),
		...pollWatch(sim, app.tick),
		/** Waits until the executions of `ids` each satisfy `done`, for at most `ticks` ticks and a minute. */
		async waitExec(ids, done, ticks, what) {
			const deadline = Date.now() + ticks * app.tick * 1000 + 60_000;
			while (Date.now() < deadline) {
				const e = await ctx.exec(ids);
				if (ids.every((id) => done(e[id]))) return;
				await sleep(2000);
			}
			die(`${ids.join(', ')}: no ${what} within ${ticks} ticks`);
		},
	};
	const rows = spec.scenarios.map((name) => [name, SCENARIOS[name]]);
	// Before n8n's first start: the credentials (each trigger's its own), the package, the simulator's state, the workflows.
	const flows = rows.flatMap(([name, s]) => s.workflows(ctx).map((f) => ({ ...f, scenario: name })));
	const own = await frontCredentials(sim, flows.map((f) => f.workflow));
	await cliMust(app, processEnv, ['import:credentials', `--input=${credentials(join(dir, 'credentials.json'), [{ ...SMOKE_CREDENTIAL, url: sim.url }, ...own])}`], log('import-credentials'));
	if (spec.install === 'tarball') await installTarball(app, user, tarball, processEnv, check);
	else await installInEditor(app, processEnv, log('n8n'), check);
	mkdirSync(join(dir, 'workflows'), { recursive: true });
	for (const f of flows) writeFileSync(join(dir, 'workflows', `${f.workflow.id}.json`), JSON.stringify(f.workflow));
	await cliMust(app, processEnv, ['import:workflow', '--separate', `--input=${join(dir, 'workflows')}`], log('import-workflows'));
	for (const f of flows.filter((x) => x.start === 'P')) {
		await cliMust(app, processEnv, app.line === '1' ? ['update:workflow', `--id=${f.workflow.id}`, '--active=true'] : ['publish:workflow', `--id=${f.workflow.id}`], log(`publish-${f.workflow.id}`));
	}
	for (const [, s] of rows) await s.setup?.(ctx);
	const triggers = flows.filter((f) => f.workflow.nodes.some((n) => n.type === TRIGGER)).map((f) => f.workflow.id);
	/** Runs a phase of every scenario side by side; a scenario that throws is one failed check naming its phase. */
	const phase = async (name, args = {}) => {
		const out = {};
		await Promise.all(rows.map(async ([scenario, s]) => {
			try {
				out[scenario] = await s[name]?.call(s, ctx, args[scenario]);
			} catch (error) {
				check(false, `${scenario} (${name === 'after' ? 'after the restart' : name})`, error.message);
			}
		}));
		return out;
	};
	/** Before a restart every trigger has had two polls after its last execution (and after the start). */
	const settle = async (since) => {
		const e = await ctx.exec(triggers);
		await Promise.all(triggers.map(async (id) => {
			const last = Math.max(since, ...e[id].map((x) => x.at));
			await ctx.waitPolls(id, 2, last, 'two polls after its last execution').catch((error) => check(false, `${id} polled`, error.message));
		}));
	};
	let n8n;
	const start = async (what) => {
		ctx.launchedAt = Date.now();
		n8n = await startN8n(app, processEnv, log('n8n'));
		ctx.rest = rest(n8n.url);
		await ctx.rest.signIn();
		say(`${label}: n8n ${what} on ${n8n.url}`);
	};
	try {
		await start('started');
		if (spec.install === 'tarball') {
			const types = (await ctx.rest.nodeTypes()).map((t) => t.name);
			const want = ['partnerAccountInquiry', 'partnerAccountInquiryTool', 'partnerAccountInquiryTrigger'].map((t) => `${PACKAGE}.${t}`);
			check(want.every((t) => types.includes(t)), `installed from the tarball by hand, n8n loads the package at its start: the editor is served ${want.map((t) => t.split('.')[1]).join(', ')}`, types.filter((t) => t.startsWith(PACKAGE)).join(', '));
		}
		for (const f of flows.filter((x) => x.start === 'R')) {
			ctx.activatedAt[f.workflow.id] = Date.now();
			await ctx.rest.activate(f.workflow.id);
		}
		const before = await phase('running');
		await settle(ctx.launchedAt);
		await n8n.stop();
		await phase('down');
		await start('started again');
		await Promise.all(triggers.map((id) => ctx.waitPolls(id, 2, ctx.launchedAt, 'two polls after the restart').catch((error) => check(false, `${id} polled after the restart`, error.message))));
		await phase('after', before);
		if (spec.install === 'editor') {
			await appChecks(n8n.url, sim.url, check);
			// The credential's Test against a 1 GiB answer and a dripping one: n8n's memory, bytes read, connection (credentialTestHostile.mjs).
			await hostileCredentialTestChecks({ url: n8n.url, pid: n8n.proc.pid, check, log: log('simulator-hostile') }).catch((error) => check(false, 'credential Test against hostile answers ran', error.stack));
		}
	} catch (error) {
		check(false, 'the session ran to its end', error.stack);
	} finally {
		await n8n?.stop();
		await sim.proc.stop();
		logs.push(log('n8n'));
	}
}

/**
 * Settings > Community nodes > Install, through the REST call the editor makes, on a fresh instance:
 * the package's name as a person types it (no version), so the registry's latest, this package.
 */
async function installInEditor(app, processEnv, log, check) {
	const n8n = await startN8n(app, processEnv, log);
	try {
		const r = rest(n8n.url);
		await r.signIn();
		const res = await r.call('POST', '/rest/community-packages', { name: PACKAGE });
		check(res.status === 200 && described(res.data), `Settings > Community nodes > Install (POST /rest/community-packages) of ${PACKAGE} fetched ${VERSION} from the registry and loaded its nodes, no restart`, res.text.slice(0, 400));
	} finally {
		await n8n.stop();
	}
}
const described = (pkg) => pkg?.packageName === PACKAGE && pkg.installedVersion === VERSION && !pkg.failedLoading &&
	['partnerAccountInquiry', 'partnerAccountInquiryTrigger'].every((t) => (pkg.installedNodes ?? []).some((n) => n.type === `${PACKAGE}.${t}`));

/** After the restart, what a person sees through the REST API: the package listed, the editor's types and icons, the credential's Test. */
async function appChecks(url, simUrl, check) {
	const r = rest(url);
	const step = async (title, fn) => {
		try {
			check(true, `${title}: ${await fn()}`);
		} catch (error) {
			check(false, title, error.message);
		}
	};
	await step('owner signed in through the REST API', r.signIn);
	await step(`Settings > Community nodes lists ${PACKAGE}@${VERSION}, loaded, after the restart`, async () => {
		const listed = (await r.ok('GET', '/rest/community-packages')).find((p) => p.packageName === PACKAGE);
		return described(listed) ? 'yes' : die(JSON.stringify(listed).slice(0, 300));
	});
	await step('the editor is served the three node types and their icons', async () => {
		const types = await r.nodeTypes();
		for (const name of ['partnerAccountInquiry', 'partnerAccountInquiryTool', 'partnerAccountInquiryTrigger']) {
			const type = types.find((t) => t.name === `${PACKAGE}.${name}`) ?? die(`${name} is missing`);
			for (const icon of Object.values(type.iconUrl ?? die(`${name} has no icons`))) if (!(await r.call('GET', `/${icon}`)).text.includes('<svg')) die(`icon /${icon} is no SVG`);
		}
		return 'partnerAccountInquiry, partnerAccountInquiryTool, partnerAccountInquiryTrigger, light and dark icons';
	});
	await step('the editor is served the credential type and its icons', async () => {
		const type = (await r.call('GET', '/types/credentials.json')).json.find((t) => t.name === 'partnerAccountInquiryApi') ?? die('partnerAccountInquiryApi is missing');
		const fields = type.properties.map((p) => p.name).slice(0, 7).join(', ');
		if (fields !== 'environment, baseUrl, clientId, privateKey, servicePublicKey, keyVersion, responseTimeToleranceSeconds') die(`fields ${fields}`);
		for (const icon of Object.values(type.iconUrl ?? {})) if (!(await r.call('GET', `/${icon}`)).text.includes('<svg')) die(`icon /${icon}`);
		return `"${type.displayName}", fields ${fields}`;
	});
	await credentialTestChecks(r, simUrl, step);
}

/**
 * The credential's Test as the editor runs it (POST /rest/credentials/test, the values unsaved):
 * the right credential, then each field wrong in turn, each answered with a message naming the
 * field to fix. One signed request each (none for the own public key): seconds, on the app already
 * running. `step(title, fn)` records a check.
 */
export async function credentialTestChecks(r, simUrl, step) {
	const key = (path) => readFileSync(join(ROOT, path), 'utf8');
	const data0 = { environment: 'custom', baseUrl: simUrl, clientId: 'SANDBOX_CLIENT_0001', privateKey: key('sandbox/keys/demo-partner-private.pem'), servicePublicKey: key('sandbox/keys/gateway-public.pem'), keyVersion: '1' };
	for (const [title, data, want] of [
		['credential Test succeeds with the right values, the answer verified', {}, /^Connection successful: .* verified with the Service Public Key/],
		['credential Test explains an unknown Client ID', { clientId: 'NOT_A_CLIENT_0001' }, /^The API answered INVALID_CLIENT: .*Check the Client ID and the Gateway/],
		["credential Test explains a Private Key the gateway doesn't know", { privateKey: key('test/fixtures/keys/other-private.pkcs8.pem') }, /^The API answered INVALID_SIGNATURE: .*Private Key .* Key Version/],
		['credential Test explains a Key Version the gateway does not know', { keyVersion: '2' }, /^The API answered INVALID_SIGNATURE: .*Private Key .* Key Version/],
		['credential Test explains a wrong Service Public Key (the answer does not verify)', { servicePublicKey: key('test/fixtures/keys/service-public.spki.pem') }, /^The answer's signature does not match its body\. .*Service Public Key/],
		['credential Test explains your own public key pasted as Service Public Key', { servicePublicKey: key('sandbox/keys/demo-partner-public.pem') }, /^The credential's Service Public Key is your own public key, not the service's/],
		['credential Test explains a gateway that cannot be reached', { baseUrl: `http://127.0.0.1:${await freePort()}` }, /^No answer from the gateway: .*Check the Gateway .*Base URL/],
	]) {
		await step(title, async () => {
			const { status, message } = await r.ok('POST', '/rest/credentials/test', { credentials: { ...SMOKE_CREDENTIAL, type: 'partnerAccountInquiryApi', data: { ...data0, ...data } } });
			return status === (Object.keys(data).length ? 'Error' : 'OK') && want.test(String(message)) ? `${status}: ${message}` : die(`${status}: ${message}`);
		});
	}
}
