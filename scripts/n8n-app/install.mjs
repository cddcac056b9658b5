// The one way anything is installed: Node 24, the n8n apps and verdaccio into the cache; the local
// registry; the package built and packed; the documented manual install of its tarball.
//   node scripts/n8n-app/install.mjs prefetch          installs everything the tests need, once
//   node scripts/n8n-app/install.mjs node24 <cmd...>   runs a command on Node 24 (npm run test:node24)
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { CACHE, HERE, LINES, PACKAGE, ROOT, bg, die, freePort, getJson, must, run, say, selectedLines, setPrefix, sleep, until } from './harness.mjs';

const env = process.env;
const NODE24 = env.N8N_NODE24_VERSION ?? '24.21.0';
const INSTALL_TIMEOUT = Number(env.N8N_APP_INSTALL_TIMEOUT ?? 1500) * 1000;

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
	// node-gyp fetching Node's headers from nodejs.org, which only the npm registry's mirror of them replaces: npm's `nodedir` unset.
	if (/gyp http GET https:\/\/nodejs\.org\/.*headers/.test(out) && /gyp ERR/.test(out)) return "node-gyp could not download Node's headers from nodejs.org: set npm's nodedir to a Node with its headers (nodedir=/usr on this machine's ~/.npmrc), a setting of the machine, not of the package";
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

const npmInstall = (dir, extra = [], runEnv = env) =>
	run('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', '--fetch-timeout=120000', '--fetch-retries=5', ...extra], {
		cwd: dir, timeout: INSTALL_TIMEOUT, env: { ...runEnv, SCARF_ANALYTICS: 'false', DO_NOT_TRACK: '1' },
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
			return npmInstall(dir, [], runEnv);
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
	if (!(await until(async () => (await fetch(`${url}-/ping`)).ok, 180_000))) die(`verdaccio did not start (${dir}/verdaccio.log)`);
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

/** Builds and packs the package into `out`; returns the tarball. Built here, packed without its prepack: one build is enough. */
export async function pack(out) {
	mkdirSync(out, { recursive: true });
	const name = await inCheckout(ROOT, async () => (await must('npm', ['run', 'build', '--silent'], { cwd: ROOT }), (await must('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', out], { cwd: ROOT })).trim().split('\n').pop()));
	return join(out, name);
}

/**
 * The documented manual install (README): the tarball copied into ~/.n8n/nodes, then `npm install
 * ./<tarball>` there (then n8n started), so that what npm records does not point into a clone or a
 * download folder. With `check`, records that npm installed this package and nothing else, from there.
 */
export async function installTarball(app, user, tarball, processEnv, check) {
	const nodes = join(user, '.n8n/nodes');
	mkdirSync(nodes, { recursive: true });
	const file = tarball.split('/').pop();
	copyFileSync(tarball, join(nodes, file));
	const out = await must('npm', ['install', `./${file}`, '--no-audit', '--no-fund'], { cwd: nodes, env: processEnv });
	const recorded = JSON.parse(readFileSync(join(nodes, 'package.json'), 'utf8')).dependencies?.[PACKAGE];
	const modules = readdirSync(join(nodes, 'node_modules')).filter((n) => !n.startsWith('.')).flatMap((n) => (n.startsWith('@') ? readdirSync(join(nodes, 'node_modules', n)).map((m) => `${n}/${m}`) : [n]));
	const versions = async (cmd) => (await must(cmd, ['-v'], { env: processEnv })).trim();
	check?.(JSON.stringify(modules) === JSON.stringify([PACKAGE]) && /added 1 package/.test(out) && recorded === `file:${file}`,
		`cd ~/.n8n/nodes && npm install ./${file} (npm ${await versions('npm')}, Node ${await versions('node')}): npm installed this package and nothing else`,
		`${modules.length} packages: ${modules.slice(0, 8).join(', ')}; recorded ${recorded}; ${out.trim().slice(-200)}`);
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
		console.error('usage: install.mjs prefetch | node24 <command> [args...]');
		process.exit(2);
	}
}
