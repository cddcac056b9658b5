// What every real-app script shares: the release lines, the one way an app (n8n, Node 24,
// verdaccio) is installed into the cache, processes and free ports, the local registry, the
// package packed, n8n started and driven (CLI, REST, its database), the simulator, results.
//   node scripts/n8n-app/harness.mjs prefetch          installs everything the tests need, once
//   node scripts/n8n-app/harness.mjs node24 <cmd...>   runs a command on Node 24 (npm run test:node24)
import { spawn, execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { constants, homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const HERE = join(ROOT, 'scripts/n8n-app');
export const CACHE = env.N8N_APP_CACHE_ROOT ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-partner-account-inquiry');
export const PACKAGE = 'n8n-nodes-partner-account-inquiry';
export const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
export const PREVIOUS = JSON.parse(readFileSync(join(HERE, 'previous-release.json'), 'utf8'));
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const NODE24 = env.N8N_NODE24_VERSION ?? '24.21.0';
const DENY_2X = (env.N8N_APP_DENY_SCRIPTS_2X ?? '@confluentinc/kafka-javascript agent-browser @scarf/scarf').split(/\s+/);
const INSTALL_TIMEOUT = Number(env.N8N_APP_INSTALL_TIMEOUT ?? 1500) * 1000;

/** The release lines: n8n version, Node, poll tick (1.x polls every 10 s at most, 2.x every minute), install settings (texts as the markers hold them). */
export const LINES = {
	1: {
		version: env.N8N_APP_VERSION_1X ?? '1.123.81', tick: 10, node24: false,
		overrides: '{ "xlsx": "0.18.5" }', allowScripts: '{ "isolated-vm": false }',
		vars: { N8N_EXPRESSION_ENGINE: 'legacy' }, // isolated-vm does not build on Node 20
	},
	2: {
		version: env.N8N_APP_VERSION_2X ?? '2.41.1', tick: 60, node24: true, overrides: '{}',
		allowScripts: JSON.stringify({ sqlite3: true, 'isolated-vm': true, ...Object.fromEntries(DENY_2X.map((n) => [n, false])) }),
		vars: { N8N_VERIFIED_PACKAGES_ENABLED: 'false', N8N_DISABLED_MODULES: 'mcp-registry' }, // no public services at start
	},
};
export const selectedLines = () => (env.N8N_APP_LINES ?? '1,2').split(',').map((l) => l.trim().replace(/\.x$/, '')).filter((l) => LINES[l] || die(`N8N_APP_LINES: use 1, 2 or 1,2`));

let prefix = 'test:n8n';
const started = Date.now();
export const setPrefix = (p) => (prefix = p);
export const say = (text) => console.log(`[${prefix} ${String(Math.round((Date.now() - started) / 1000)).padStart(4)}s] ${text}`);
export function die(text) {
	throw new Error(text);
}

// Processes: every one started here is stopped on exit.
const children = new Set();
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** Starts a command in the background, its output appended to `log`. */
export function bg(cmd, args, { log, ...options } = {}) {
	const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
	children.add(child);
	const write = (chunk) => log && appendFileSync(log, chunk);
	child.stdout?.on('data', write);
	child.stderr?.on('data', write);
	child.done = new Promise((r) => child.on('close', (code, signal) => (children.delete(child), r(code ?? 128 + (constants.signals[signal] ?? 0)))));
	child.stop = async (ms = 30_000) => {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
		const timer = setTimeout(() => child.kill('SIGKILL'), ms);
		await child.done;
		clearTimeout(timer);
	};
	return child;
}

/** Runs a command to its end; resolves { code, out } (code 124 when it ran out of time). */
export async function run(cmd, args, { timeout = 600_000, ...options } = {}) {
	let out = '';
	const child = bg(cmd, args, options);
	child.stdout?.on('data', (c) => (out += c));
	child.stderr?.on('data', (c) => (out += c));
	let late = false;
	const timer = setTimeout(() => ((late = true), child.stop(10_000)), timeout);
	const code = await child.done;
	clearTimeout(timer);
	return { code: late ? 124 : code, out };
}

export async function must(cmd, args, options, what = `${cmd} ${args.join(' ')}`) {
	const { code, out } = await run(cmd, args, options);
	if (code !== 0) die(`${what} failed (${code === 124 ? 'out of time' : `exit ${code}`}): ${out.slice(-1500)}`);
	return out;
}

/** A free port on 127.0.0.1, below the ephemeral range, so that no port-0 listener takes it meanwhile. */
export async function freePort() {
	for (;;) {
		const port = 20000 + Math.floor(Math.random() * 12000);
		const free = await new Promise((r) => {
			const server = createServer().once('error', () => r(false));
			server.listen(port, '127.0.0.1', () => server.close(() => r(true)));
		});
		if (free) return port;
	}
}

/** Waits until `probe()` is truthy (returns it) or `ms` pass (undefined). */
export async function until(probe, ms, every = 500) {
	const end = Date.now() + ms;
	for (;;) {
		const value = await probe().catch(() => undefined);
		if (value || Date.now() > end) return value;
		await sleep(every);
	}
}

/**
 * A JSON request on loopback, on a connection of its own: fetch's pooled connections can be reused
 * just as the server closes them ("fetch failed"), which a loaded machine makes likely.
 */
export function getJson(url, { method = 'GET', headers = {}, body, timeout = 60_000 } = {}) {
	return new Promise((done, fail) => {
		const req = httpRequest(url, { method, agent: false, timeout, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
			let text = '';
			res.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => {
				let json;
				try {
					json = JSON.parse(text);
				} catch {}
				done({ status: res.statusCode, json });
			});
		});
		req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeout / 1000} s`))).on('error', fail).end(body);
	});
}

// The one way things are installed into the cache: a folder per thing, a lock while installing, a
// marker that says it is complete (its fingerprint: a change installs again), a time limit, one retry.
async function lock(name) {
	const dir = join(CACHE, `.lock-${name}`);
	mkdirSync(CACHE, { recursive: true });
	for (let waited = 0; ; waited += 2) {
		try {
			mkdirSync(dir);
			writeFileSync(join(dir, 'pid'), String(process.pid));
			return () => rmSync(dir, { recursive: true, force: true });
		} catch {
			let alive = false;
			try {
				const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
				alive = pid > 0 && process.kill(pid, 0);
			} catch {}
			if (!alive && waited > 4) rmSync(dir, { recursive: true, force: true });
			if (waited > 3600) die(`another process held the lock ${name} for an hour`);
			await sleep(2000);
		}
	}
}

function npmFailure(out) {
	if (/E404|ETARGET|No matching version/.test(out)) return 'the registry lacks a package or version the app needs (E404/ETARGET)';
	if (/ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|socket hang up|E5\d\d|E429|EINTEGRITY/.test(out)) return 'the npm registry misbehaved (timeouts, resets, 5xx/429, corrupt downloads)';
	if (/ENOSPC/.test(out)) return 'the disk is full';
	if (/gyp ERR/.test(out)) return 'a native module failed to build (node-gyp)';
	return 'npm failed';
}

async function ensureInstalled({ name, dir, fingerprint, install, works }) {
	const marker = join(dir, '.install-complete');
	const done = () => existsSync(marker) && readFileSync(marker, 'utf8').trim() === fingerprint;
	if (done()) return;
	const release = await lock(name);
	try {
		if (done()) return;
		for (let attempt = 1; ; attempt++) {
			say(`${name}: installing into ${dir} (once; later runs reuse it), attempt ${attempt} of 2`);
			const t = Date.now();
			mkdirSync(dir, { recursive: true });
			const { code, out } = await install();
			writeFileSync(join(dir, `install.${attempt}.log`), out);
			if (code === 0 && (await works())) {
				writeFileSync(marker, `${fingerprint}\n`);
				return say(`${name}: installed in ${Math.round((Date.now() - t) / 1000)} s`);
			}
			const why = code === 124 ? `no end within ${INSTALL_TIMEOUT / 1000} s (a slow or stalled registry)` : code === 0 ? 'installed but does not work' : npmFailure(out);
			if (attempt === 2) die(`could not install ${name}: ${why}; not a failure of the package under test (logs: ${dir}/install.*.log)`);
			say(`${name}: ${why}; once more (npm's cache keeps what was downloaded)`);
		}
	} finally {
		release();
	}
}

const npmInstall = (dir, extra = []) =>
	run('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', '--fetch-timeout=120000', '--fetch-retries=5', ...extra], {
		cwd: dir, timeout: INSTALL_TIMEOUT, env: { ...env, SCARF_ANALYTICS: 'false', DO_NOT_TRACK: '1' },
	});

/** Node 24 (the registry's node-linux-<arch> package, binary and headers) in the cache; the environment that puts it first. */
export async function node24Env() {
	const arch = { x64: 'x64', arm64: 'arm64' }[process.arch] ?? die(`no Node 24 package for ${process.arch}`);
	const pkg = `node-linux-${arch}@${NODE24}`;
	const dir = join(CACHE, `node-${NODE24}`);
	await ensureInstalled({
		name: `Node ${NODE24}`, dir, fingerprint: pkg,
		install: async () => {
			const tmp = mkdtempSync(join(CACHE, '.node24-'));
			const packed = await run('npm', ['pack', pkg, '--fetch-timeout=120000', '--fetch-retries=5'], { cwd: tmp, timeout: INSTALL_TIMEOUT });
			if (packed.code === 0) execFileSync('tar', ['-xzf', join(tmp, readdirSync(tmp).find((f) => f.endsWith('.tgz'))), '-C', dir, '--strip-components=1']);
			rmSync(tmp, { recursive: true, force: true });
			return packed;
		},
		works: async () => existsSync(join(dir, 'include/node/node.h')) && (await run(join(dir, 'bin/node'), ['-v'])).out.trim() === `v${NODE24}`,
	});
	return { PATH: `${dir}/bin:${env.PATH}`, npm_config_nodedir: dir };
}

/** The environment a line's processes run in (Node 24 first on PATH for 2.x). */
export const lineEnv = async (line) => ({ ...env, ...(LINES[line].node24 ? await node24Env() : {}) });

/** The line's n8n app in the cache; returns { dir, bin, env }. */
export async function ensureApp(line) {
	const { version, overrides, allowScripts } = LINES[line];
	const dir = join(CACHE, `n8n-${version}`);
	const runEnv = await lineEnv(line);
	const major = (await run('node', ['-p', 'process.versions.node.split(".")[0]'], { env: runEnv })).out.trim();
	const works = async () => {
		const probe = `require("sqlite3"); ${line === '2' ? 'new (require("isolated-vm").Isolate)();' : ''}`;
		return (await run('node', ['-e', probe], { cwd: dir, env: runEnv })).code === 0 && existsSync(join(dir, 'node_modules/.bin/n8n'));
	};
	await ensureInstalled({
		name: `n8n ${version}`, dir, fingerprint: `n8n=${version} node=${major} overrides=${overrides} allowScripts=${allowScripts}`, works,
		install: () => {
			writeFileSync(join(dir, 'package.json'), `{ "name": "n8n-app-for-tests", "private": true, "dependencies": { "n8n": "${version}" }, "overrides": ${overrides}, "allowScripts": ${allowScripts} }\n`);
			return run('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', '--fetch-timeout=120000', '--fetch-retries=5'], {
				cwd: dir, timeout: INSTALL_TIMEOUT, env: { ...runEnv, SCARF_ANALYTICS: 'false', DO_NOT_TRACK: '1' },
			});
		},
	});
	return { ...LINES[line], dir, bin: join(dir, 'node_modules/.bin/n8n'), env: runEnv, line };
}

// The local registry: verdaccio (no uplinks) behind registry-front.mjs, which answers as
// https://registry.npmjs.org with a throwaway CA's certificate and refuses every other host. n8n
// honours N8N_COMMUNITY_PACKAGES_REGISTRY only with an Enterprise licence, so this is how its own
// installer (npm pack, its GET of the manifest) reaches a local registry. 6.8.0: the newest
// verdaccio that still runs on Node 20.
export async function ensureVerdaccio() {
	const dir = join(CACHE, 'verdaccio-6.8.0');
	const bin = join(dir, 'node_modules/verdaccio/bin/verdaccio');
	await ensureInstalled({
		name: 'verdaccio 6.8.0', dir, fingerprint: 'verdaccio=6.8.0 node-fetch=2.7.0',
		// verdaccio-audit asks for node-fetch by its dist-tag "cjs", which mirrors that copy only "latest" cannot resolve.
		install: () => (writeFileSync(join(dir, 'package.json'), '{ "private": true, "dependencies": { "verdaccio": "6.8.0" }, "overrides": { "node-fetch": "2.7.0" } }\n'), npmInstall(dir, ['--omit=dev', '--ignore-scripts'])),
		works: async () => (await run('node', [bin, '--version'])).out.trim() === 'v6.8.0',
	});
	return bin;
}

export async function startRegistry(work) {
	const bin = await ensureVerdaccio();
	const dir = join(work, 'registry');
	mkdirSync(join(dir, 'storage'), { recursive: true });
	const port = await freePort();
	writeFileSync(join(dir, 'config.yaml'), `storage: ${dir}/storage\nlisten: 127.0.0.1:${port}\nauth: { htpasswd: { file: ${dir}/htpasswd, max_users: 10 } }\nuplinks: {}\npackages: { '**': { access: $all, publish: $authenticated } }\nweb: { enable: false }\nmax_body_size: 50mb\nlog: { type: stdout, format: pretty, level: http }\n`);
	const { HTTPS_PROXY, https_proxy, HTTP_PROXY, http_proxy, ...clean } = env;
	bg('node', [bin, '--config', join(dir, 'config.yaml')], { env: { ...clean, VERDACCIO_PUBLIC_URL: 'https://registry.npmjs.org' }, log: join(dir, 'verdaccio.log') });
	const url = `http://127.0.0.1:${port}/`;
	if (!(await until(async () => (await fetch(`${url}-/ping`)).ok, 60_000))) die(`verdaccio did not start (${dir}/verdaccio.log)`);
	const user = { name: 'publisher', password: Math.random().toString(36).slice(2) + Date.now() };
	const added = await getJson(`${url}-/user/org.couchdb.user:publisher`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...user, _id: 'org.couchdb.user:publisher', type: 'user', roles: [] }) });
	if (added.status !== 201) die(`verdaccio adduser answered ${added.status}`);
	writeFileSync(join(dir, 'publish.npmrc'), `//127.0.0.1:${port}/:_authToken=${added.json.token}\n`, { mode: 0o600 });
	// The front's certificate for registry.npmjs.org, signed by a throwaway CA.
	const ssl = (args) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
	ssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '7', '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=throwaway test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
	ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-keyout', 'front.key', '-out', 'front.csr', '-subj', '/CN=registry.npmjs.org']);
	writeFileSync(join(dir, 'front.ext'), 'subjectAltName=DNS:registry.npmjs.org\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
	ssl(['x509', '-req', '-sha256', '-days', '7', '-in', 'front.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-extfile', 'front.ext', '-out', 'front.pem']);
	const frontPort = await freePort();
	bg('node', [join(HERE, 'registry-front.mjs'), frontPort, port, join(dir, 'front.pem'), join(dir, 'front.key'), join(dir, 'refused.log')], { log: join(dir, 'front.log') });
	const front = `http://127.0.0.1:${frontPort}`;
	if (!(await until(async () => (await fetch(front)).status === 400, 20_000))) die('registry-front.mjs did not start');
	say(`local registry: verdaccio on ${url}, answering as https://registry.npmjs.org through ${front}; every other host refused`);
	return {
		dir,
		/** For every process that installs packages: the front as proxy, the test CA trusted, a fresh npm cache. */
		clientEnv: {
			HTTPS_PROXY: front, https_proxy: front, HTTP_PROXY: front, http_proxy: front, NO_PROXY: '127.0.0.1,localhost,::1', no_proxy: '127.0.0.1,localhost,::1',
			npm_config_https_proxy: front, npm_config_proxy: front, npm_config_noproxy: '127.0.0.1,localhost,::1',
			NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), npm_config_cafile: join(dir, 'ca.pem'), npm_config_cache: join(work, 'npm-cache'),
		},
		publish: async (tarball, tag) => {
			await must('npm', ['publish', tarball, `--userconfig=${join(dir, 'publish.npmrc')}`, `--registry=${url}`, `--tag=${tag}`, '--access=public', '--provenance=false', '--ignore-scripts'], { cwd: dir, env: clean });
			say(`published ${tarball.split('/').pop()} to the local registry (dist-tag ${tag})`);
		},
	};
}

/** Builds and packs the package (or, with a commit, that commit of this repository's history) into `out`; returns the tarball. */
/** `job` alone in checkout `cwd`: test:n8n and test:queue side by side (.ci/run) build the same dist/ and .dev-dist/. */
export async function inCheckout(cwd, job) {
	const release = cwd === ROOT ? await lock(`build-${ROOT.replace(/\W/g, '_')}`) : () => {};
	try {
		return await job();
	} finally {
		release();
	}
}
export const buildDev = () => inCheckout(ROOT, () => must('npm', ['run', 'build:dev', '--silent'], {}));

export async function pack(out, commit) {
	mkdirSync(out, { recursive: true });
	let cwd = ROOT;
	if (commit) {
		cwd = join(out, 'tree');
		if ((await run('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT })).code !== 0) die(`commit ${commit} (previous-release.json) is not in this clone: clone with full history`);
		mkdirSync(cwd, { recursive: true });
		execFileSync('bash', ['-c', `git -C "${ROOT}" archive ${commit} | tar -x -C "${cwd}"`]);
		const lock = (file) => {
			const l = JSON.parse(readFileSync(file, 'utf8'));
			delete l.version;
			delete l.packages[''].version;
			delete l.packages[''].peerDependenciesMeta;
			return JSON.stringify(l);
		};
		if (lock(join(ROOT, 'package-lock.json')) === lock(join(cwd, 'package-lock.json'))) symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
		else await must('npm', ['ci', '--no-audit', '--no-fund'], { cwd, timeout: INSTALL_TIMEOUT });
	}
	const name = await inCheckout(cwd, async () => (await must('npm', ['run', 'build', '--silent'], { cwd }), (await must('npm', ['pack', '--silent', '--pack-destination', out], { cwd })).trim().split('\n').pop()));
	if (commit) rmSync(cwd, { recursive: true, force: true });
	return join(out, name);
}

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
	return {
		call, signIn, ok,
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

/** The credential file for `n8n import:credentials` (the simulator's demo keys, public on purpose). */
export function credentials(file, creds) {
	const key = (name) => readFileSync(join(ROOT, 'sandbox/keys', name), 'utf8');
	const pai = ({ id, name, url }) => ({
		id, name, type: 'partnerAccountInquiryApi',
		data: { environment: 'custom', baseUrl: url, clientId: 'SANDBOX_CLIENT_0001', privateKey: key('demo-partner-private.pem'), servicePublicKey: key('gateway-public.pem'), keyVersion: '1' },
	});
	writeFileSync(file, JSON.stringify(creds.map((c) => (c.type === 'openAiApi' ? { ...c, data: { apiKey: 'sk-local-fake-key', url: c.url } } : pai(c)))));
	return file;
}
export const SMOKE_CREDENTIAL = { id: 'PaiSmokeCred0001', name: 'Partner Account Inquiry API account' };

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
		/** Every API request so far: { at, op, customer, id, token, code }. */
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
 * The documented manual install, `cd ~/.n8n/nodes && npm install <tarball>` (then n8n started):
 * with `check`, records that npm installed this package and nothing else.
 */
export async function installTarball(app, user, tarball, processEnv, check) {
	const nodes = join(user, '.n8n/nodes');
	mkdirSync(nodes, { recursive: true });
	const out = await must('npm', ['install', tarball, '--no-audit', '--no-fund'], { cwd: nodes, env: processEnv });
	const modules = readdirSync(join(nodes, 'node_modules')).filter((n) => !n.startsWith('.')).flatMap((n) => (n.startsWith('@') ? readdirSync(join(nodes, 'node_modules', n)).map((m) => `${n}/${m}`) : [n]));
	const versions = async (cmd) => (await must(cmd, ['-v'], { env: processEnv })).trim();
	check?.(JSON.stringify(modules) === JSON.stringify([PACKAGE]) && /added 1 package/.test(out),
		`cd ~/.n8n/nodes && npm install ${tarball.split('/').pop()} (npm ${await versions('npm')}, Node ${await versions('node')}): npm installed this package and nothing else`,
		`${modules.length} packages: ${modules.slice(0, 8).join(', ')}; ${out.trim().slice(-200)}`);
}

/**
 * The executions of workflows: id, status, at (ms), data (flatted text), run (parsed), read from the
 * app's SQLite database by the app's own sqlite3 on the line's Node (its native build is that Node's).
 */
export async function executions(app, database, ids) {
	const query = `select e.id, e.workflowId as workflowId, e.status, coalesce(e.startedAt, e.createdAt) as at, d.data from execution_entity e
		left join execution_data d on d.executionId = e.id where e.workflowId in (${ids.map(() => '?').join(',')}) order by e.id`;
	const read = `const s = require('sqlite3'); const db = new s.Database(process.argv[1], s.OPEN_READONLY);
		db.all(process.argv[2], JSON.parse(process.argv[3]), (e, rows) => { if (e) throw e; process.stdout.write(JSON.stringify(rows)); db.close(); });`;
	const rows = JSON.parse(await must('node', ['-e', read, database, query, JSON.stringify(ids)], { cwd: app.dir, env: app.env }));
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

/** A saved date as ms: SQLite gives epoch ms (a number or its digits) or UTC text without a zone. */
function when(at) {
	if (at == null) return 0;
	if (typeof at === 'number' || /^\d+$/.test(String(at))) return Number(at);
	const ms = Date.parse(/[Z+]/.test(at) ? at : `${String(at).replace(' ', 'T')}Z`);
	return Number.isNaN(ms) ? die(`an execution's date ${JSON.stringify(at)} does not parse`) : ms;
}

/** The items node `name` gave in an execution's run. */
export const nodeItems = (run, name) => (run?.resultData?.runData?.[name]?.[0]?.data?.main?.[0] ?? []).map((i) => i.json);

/** Results: one "ok"/"FAIL" line per check, printed as it comes. */
export function results() {
	const lines = [];
	const add = (ok, text) => {
		const line = `${ok ? 'ok  ' : 'FAIL'} ${text}`;
		lines.push(line);
		console.log(line);
		return ok;
	};
	return { lines, add, failed: () => lines.filter((l) => l.startsWith('FAIL')).length };
}

export function workDir(name) {
	return mkdtempSync(join(env.TMPDIR ?? tmpdir(), `${name}.`));
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const [command, ...rest] = process.argv.slice(2);
	setPrefix(command);
	if (command === 'prefetch') {
		// Best effort, side by side: what failed here is installed again (and reported) by the tests.
		const jobs = [node24Env(), ensureVerdaccio(), ...selectedLines().map((l) => ensureApp(l))];
		const settled = await Promise.allSettled(jobs);
		settled.filter((s) => s.status === 'rejected').forEach((s) => say(`FAILED: ${s.reason.message}`));
		say('done');
	} else if (command === 'node24' && rest.length) {
		const child = spawn(rest[0], rest.slice(1), { stdio: 'inherit', cwd: ROOT, env: { ...env, ...(await node24Env()) } });
		child.on('close', (code) => process.exit(code ?? 1));
	} else {
		console.error('usage: harness.mjs prefetch | node24 <command> [args...]');
		process.exit(2);
	}
}
