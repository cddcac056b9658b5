// npm run test:queue: the package in n8n 2.x queue mode, as docker/compose.queue.yml runs it: a main
// (webhooks, trigger polls), two `n8n worker`s (the Bull queue in Redis), PostgreSQL; all on
// loopback, the package installed by n8n itself from N8N_COMMUNITY_PACKAGES through the local
// registry. QUEUE_REQUESTS (48) concurrent webhook executions, the polling trigger live, the
// unverified-packages switch of n8n 3.0. Prints ok/FAIL lines and "N passed, N failed".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CACHE, PACKAGE, ROOT, VERSION, bg, die, freePort, must, results as makeResults, run, say, setPrefix, sleep, until, workDir } from './harness.mjs';
import { buildDev, ensureApp, pack, startRegistry } from './install.mjs';
import { SMOKE_CREDENTIAL, cliMust, credentials, n8nEnv, startN8n, startSimulator } from './n8n.mjs';

setPrefix('test:queue');
const REQUESTS = Number(process.env.QUEUE_REQUESTS ?? 48);
const work = workDir('n8n-queue');
chmodSync(work, 0o711); // PostgreSQL, run as its own user, keeps its data below
const results = makeResults();
const root = process.getuid?.() === 0;
const asPostgres = (cmd, args) => (root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
let pg;
try {
	await buildDev();
	const { SCENARIOS, frontCredentials } = await import('./scenarios.mjs');
	const { pollWatch } = await import('./session.mjs');
	const { QUEUE } = await import('./workflows.mjs');
	// 1. Redis and PostgreSQL (Debian's), on free loopback ports, their data in the work folder.
	const pgBin = () => (existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : []).sort().map((v) => `/usr/lib/postgresql/${v}/bin`).reverse().find((d) => existsSync(`${d}/initdb`));
	const missing = [['redis-server', 'redis-server'], ['psql', 'postgresql-client']].filter(([c]) => (execFileSync('bash', ['-c', `command -v ${c} || true`]).toString() === '')).map(([, p]) => p);
	if (!pgBin()) missing.push('postgresql');
	if (missing.length) {
		if (!root) die(`needs ${missing.join(' ')}: apt-get install -y ${missing.join(' ')} as root`);
		say(`installing Debian's ${missing.join(' ')}`);
		await must('bash', ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing.join(' ')}`], { timeout: 900_000 });
	}
	const redisPort = await freePort();
	mkdirSync(join(work, 'redis'));
	bg('redis-server', ['--port', redisPort, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', join(work, 'redis')], { log: join(work, 'redis.log') });
	const data = join(work, 'postgres');
	const pgPort = await freePort();
	mkdirSync(data);
	if (root) execFileSync('chown', ['postgres', data]);
	await must(...asPostgres(`${pgBin()}/initdb`, ['-D', data, '-U', 'n8n', '--auth=trust', '-E', 'UTF8', '--no-locale']));
	pg = async () => run(...asPostgres(`${pgBin()}/pg_ctl`, ['-D', data, '-m', 'fast', '-w', 'stop']));
	await must(...asPostgres(`${pgBin()}/pg_ctl`, ['-D', data, '-w', '-t', '60', '-l', join(data, 'server.log'), '-o', `-p ${pgPort} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${data} -c fsync=off -c max_connections=200`, 'start']));
	await must(`${pgBin()}/createdb`, ['-h', '127.0.0.1', '-p', pgPort, '-U', 'n8n', 'n8n']);
	if (!(await until(async () => (await run('redis-cli', ['-p', redisPort, 'ping'])).out.includes('PONG'), 10_000))) die('Redis did not start');
	const sql = async (query) => (await must('psql', ['-h', '127.0.0.1', '-p', pgPort, '-U', 'n8n', '-d', 'n8n', '-tAq', '-c', query])).trim();

	// 2. The app, the package in the local registry, three empty user folders.
	const app = await ensureApp('2');
	const registry = await startRegistry(work);
	const tarball = await pack(join(work, 'pack'));
	await registry.publish(tarball, 'latest');
	// 3. The settings of docker/compose.queue.yml (all but hosts and secrets) for every process.
	const block = /^ {2}environment: &n8n-env\n((?: {4}.*\n)+)/m.exec(readFileSync(join(ROOT, 'docker/compose.queue.yml'), 'utf8'))?.[1] ?? die('docker/compose.queue.yml has no "environment: &n8n-env" block');
	const compose = Object.fromEntries(block.split('\n').map((l) => /^ {4}([A-Z0-9_]+): (.*)$/.exec(l)).filter(Boolean).map(([, k, v]) => [k, v.trim().replace(/^(["'])(.*)\1$/, '$2')]).filter(([k]) => !/^(DB_|QUEUE_BULL_REDIS_HOST$|N8N_ENCRYPTION_KEY$)/.test(k)));
	const listed = JSON.parse(compose.N8N_COMMUNITY_PACKAGES);
	if (listed.length !== 1 || listed[0].name !== PACKAGE || listed[0].version !== VERSION) die(`docker/compose.queue.yml must install ${PACKAGE} at ${VERSION} (package.json's version)`);
	say(`settings of docker/compose.queue.yml: ${Object.entries(compose).map(([k, v]) => `${k}=${v}`).join(' ')}`);
	const sim = await startSimulator(join(work, 'simulator.log'));
	const envOf = (who, extra) => n8nEnv(app, join(work, who), {
		...registry.clientEnv, ...compose, DB_TYPE: 'postgresdb', DB_POSTGRESDB_HOST: '127.0.0.1', DB_POSTGRESDB_PORT: String(pgPort), DB_POSTGRESDB_DATABASE: 'n8n', DB_POSTGRESDB_USER: 'n8n', DB_POSTGRESDB_PASSWORD: '',
		EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_HOST: '127.0.0.1', QUEUE_BULL_REDIS_PORT: String(redisPort), QUEUE_HEALTH_CHECK_ACTIVE: 'false', EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all', EXECUTIONS_DATA_SAVE_ON_ERROR: 'all', ...extra,
	});
	for (const who of ['main', 'worker1', 'worker2']) mkdirSync(join(work, who, '.n8n'), { recursive: true });
	const main = envOf('main');
	// The credential, two webhook workflows and the polling trigger, imported and published by the CLI (the first command migrates).
	const ctx = {
		line: '2', tick: 60, cron: '0 * * * * *', sim, id: () => 'PaiLiveTrigger01', since: () => ctx.launchedAt, ...pollWatch(sim, 60),
		check: (ok, what, seen) => results.add(ok, `${what}${ok ? '' : ` (saw ${seen})`}`),
		exec: async ([id]) => ({ [id]: JSON.parse((await sql(`select coalesce(json_agg(json_build_object('id', e.id, 'status', e.status, 'data', d.data) order by e.id), '[]') from execution_entity e left join execution_data d on d."executionId" = e.id where e."workflowId" = '${id}'`)) || '[]') }),
	};
	mkdirSync(join(work, 'workflows'));
	for (const w of QUEUE) writeFileSync(join(work, 'workflows', `${w.id}.json`), JSON.stringify(w));
	const trigger = SCENARIOS.liveTrigger.workflows(ctx)[0].workflow;
	writeFileSync(join(work, 'workflows', 'trigger.json'), JSON.stringify(trigger));
	// The webhooks' credential, and the trigger's own (its Base URL its own front into the simulator: its polls are told apart by it).
	await cliMust(app, main, ['import:credentials', `--input=${credentials(join(work, 'credentials.json'), [{ ...SMOKE_CREDENTIAL, url: sim.url }, ...(await frontCredentials(sim, [trigger]))])}`]);
	await cliMust(app, main, ['import:workflow', '--separate', `--input=${join(work, 'workflows')}`]);
	for (const id of ['PaiQueueList0001', 'PaiQueueQuota001', 'PaiLiveTrigger01']) await cliMust(app, main, ['publish:workflow', `--id=${id}`]);

	// n8n 3.0 turns unverified packages off: a main told to install this package must refuse to start and say why.
	const refusedLog = join(work, 'main-unverified-off.log');
	const refused = await run(app.bin, ['start'], { env: { ...main, N8N_UNVERIFIED_PACKAGES_ENABLED: 'false', N8N_PORT: String(await freePort()), N8N_RUNNERS_BROKER_PORT: String(await freePort()) }, timeout: 120_000 });
	writeFileSync(refusedLog, refused.out);
	const refusal = `no checksum available for '${PACKAGE}@${VERSION}' and unverified packages are disabled`;
	results.add(refused.code !== 0 && refused.code !== 124 && refused.out.includes(refusal), `with unverified packages off (N8N_UNVERIFIED_PACKAGES_ENABLED=false, n8n 3.0's default), the main refuses to start: "N8N_COMMUNITY_PACKAGES: ${refusal}"${refused.out.includes(refusal) ? '' : ` (exit ${refused.code})`}`);
	// The other way n8n 3.0 allows: the tarball's checksum pinned; n8n checks the download against it.
	const checksum = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
	const pinnedLog = join(work, 'main-checksum.log');
	try {
		const pinned = await startN8n(app, { ...main, N8N_UNVERIFIED_PACKAGES_ENABLED: 'false', N8N_COMMUNITY_PACKAGES: JSON.stringify([{ name: PACKAGE, version: VERSION, checksum }]) }, pinnedLog);
		await pinned.stop();
	} catch {}
	results.add(readFileSync(pinnedLog, 'utf8').includes(`Installed community package '${PACKAGE}@${VERSION}' from env`), 'with unverified packages off and the tarball\'s checksum pinned in N8N_COMMUNITY_PACKAGES, the main installs the package');
	rmSync(join(work, 'main/.n8n/nodes'), { recursive: true, force: true });
	await sql(`delete from installed_packages where "packageName" = '${PACKAGE}'`);

	// 4. The main, then two workers.
	const mainLog = join(work, 'main.log');
	ctx.launchedAt = Date.now();
	const n8n = await startN8n(app, main, mainLog);
	const workers = [];
	for (const n of [1, 2]) {
		workers.push(bg(app.bin, ['worker', `--concurrency=${process.env.QUEUE_WORKER_CONCURRENCY ?? 10}`], { env: { ...envOf(`worker${n}`), N8N_RUNNERS_BROKER_PORT: String(await freePort()) }, log: join(work, `worker${n}.log`) }));
	}
	const workerLog = (n) => (existsSync(join(work, `worker${n}.log`)) ? readFileSync(join(work, `worker${n}.log`), 'utf8') : '');
	if (!(await until(async () => [1, 2].every((n) => workerLog(n).includes('n8n worker is now ready')), 180_000))) die('the workers did not become ready');
	say('main and both workers ready');
	const installed = ['main', 'worker1', 'worker2'].map((who) => `${who}:${existsSync(join(work, who, '.n8n/nodes/node_modules', PACKAGE, 'package.json')) ? JSON.parse(readFileSync(join(work, who, '.n8n/nodes/node_modules', PACKAGE, 'package.json'), 'utf8')).version : 'none'}`).join(' ');
	results.add(installed === `main:${VERSION} worker1:${VERSION} worker2:${VERSION}` && readFileSync(mainLog, 'utf8').includes(`Installed community package '${PACKAGE}@${VERSION}' from env`),
		`the main installed ${PACKAGE}@${VERSION} from N8N_COMMUNITY_PACKAGES and each worker from the main's record (N8N_REINSTALL_MISSING_PACKAGES), all from the registry: ${installed}`);
	results.add((await sql(`select count(*) from webhook_entity where "webhookPath" in ('pai-queue-list', 'pai-queue-quota')`)) === '2', 'the main registered both production webhooks (pai-queue-list, pai-queue-quota)');

	// 5. The load: REQUESTS webhook calls at once, listings and quotas, each answer one worker's execution.
	const customers = (await import(join(ROOT, '.dev-dist/sandbox/data.js'))).createCustomers();
	const tokens = (c) => customers.get(c).beneficiaries.map((b) => b.beneficiaryToken);
	const kinds = [
		['pai-queue-list', { customerId: 'CUST_TWICE' }, tokens('CUST_TWICE')], ['pai-queue-quota', { method: 'USER_ID', id: 'U-1001', currency: 'USD' }, 12500],
		['pai-queue-list', { customerId: 'CUST_SMALL' }, tokens('CUST_SMALL')], ['pai-queue-quota', { method: 'RECEIVING_ACCOUNT', id: 'RA-JPY', currency: 'JPY' }, 5000000],
		['pai-queue-list', { customerId: 'CUST_LARGE' }, tokens('CUST_LARGE')], ['pai-queue-quota', { method: 'USER_ID', id: 'U-1001', currency: 'USD' }, 12500],
	];
	const t0 = Date.now();
	const answers = await Promise.all(Array.from({ length: REQUESTS }, async (_, i) => {
		const [path, body, want] = kinds[i % kinds.length];
		try {
			const res = await fetch(`${n8n.url}/webhook/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, request: i }), signal: AbortSignal.timeout(180_000) });
			const json = await res.json();
			const got = Array.isArray(want) ? JSON.stringify(json.map?.((b) => b.beneficiaryToken)) : `${json.quotaAccumulationId} ${json.availableQuota?.currency} ${json.availableQuotaAmount}`;
			const expected = Array.isArray(want) ? JSON.stringify(want) : `${body.id} ${body.currency} ${want}`;
			return res.status === 200 && got === expected ? undefined : `request ${i} (${path} ${JSON.stringify(body)}): HTTP ${res.status}, ${got.slice(0, 120)}`;
		} catch (error) {
			return `request ${i}: ${error.message}`;
		}
	}));
	const wrong = answers.filter(Boolean);
	results.add(wrong.length === 0, `${REQUESTS} concurrent webhook executions (listings of CUST_TWICE, CUST_SMALL, CUST_LARGE, quotas of U-1001 and RA-JPY), every answer complete and correct, ${((Date.now() - t0) / 1000).toFixed(1)} s${wrong.length ? `: ${wrong.slice(0, 5).join('; ')}` : ''}`);
	await sleep(1000);
	const [total, success] = [await sql('select count(*) from execution_entity'), await sql(`select count(*) from execution_entity where status = 'success' and finished and "stoppedAt" is not null`)].map(Number);
	results.add(total === REQUESTS && success === REQUESTS, `PostgreSQL holds ${total} executions, ${success} finished with success (expected ${REQUESTS})`);
	const ran = [1, 2].map((n) => (workerLog(n).match(/Worker finished execution/g) ?? []).length);
	results.add(ran[0] > 0 && ran[1] > 0, `both workers took work from the queue: worker 1 ran ${ran[0]} executions, worker 2 ran ${ran[1]}`);
	results.add(ran[0] + ran[1] === REQUESTS && total === REQUESTS, `the workers ran all ${REQUESTS} executions the database holds, so the main ran none (they went through the Bull queue)`);

	// 6. The polling trigger: polled by the main, its execution run by a worker.
	await SCENARIOS.liveTrigger.running(ctx);
	const [execution] = (await ctx.exec(['PaiLiveTrigger01'])).PaiLiveTrigger01;
	results.add(!!execution && [1, 2].some((n) => workerLog(n).includes(`Worker finished execution ${execution.id} `)), `the trigger's execution (id ${execution?.id}) was run by a worker, its polls by the main`);
	const logs = [mainLog, ...[1, 2].map((n) => join(work, `worker${n}.log`))].flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter((l) => /error|fail|warn/i.test(l) && /partner/i.test(l.replaceAll(CACHE, '')));
	results.add(logs.length === 0, `neither the main nor a worker logged an error or warning about the package${logs.length ? `: ${logs.slice(0, 3).join(' | ')}` : ''}`);
	// 7. A worker killed during a trigger's execution (crash.mjs).
	await (await import('./crash.mjs')).crashQueue({ url: n8n.url, sim, workers, workerLog, sql, results });
	await Promise.all([...workers.map((w) => w.stop()), n8n.stop(), sim.proc.stop()]);
} catch (error) {
	results.add(false, `test:queue could not run to its end: ${error.stack}`);
}
await pg?.();
if (results.failed() || process.env.N8N_SMOKE_KEEP === '1') say(`logs, user folders and the database are kept in ${work}`);
else rmSync(work, { recursive: true, force: true });
console.log(`${results.lines.length - results.failed()} passed, ${results.failed()} failed`);
process.exit(results.failed() ? 1 : 0);
