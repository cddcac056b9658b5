// The credential's Test against hostile answers, in a real n8n app (POST /rest/credentials/test, as
// the editor runs it): an answer of 1 GiB (signed-looking, then unsigned) and one that drips a byte
// every 200 ms for ever. Each is a check that Test ends with the right message, that n8n read at
// most the cap (the bytes its process read, /proc/<pid>/io rchar), that its resident memory stayed
// flat (VmRSS sampled every 100 ms, and VmHWM), and that the connection to the gateway was closed
// (no established connection to the simulator's port is left).
//   session.mjs runs them in session U after its REST checks (`hostileCredentialTestChecks`).
//   node scripts/n8n-app/credentialTestHostile.mjs [1|2] [tarball]   one line, alone: build, pack
//   (or the tarball given), install it by hand, start n8n and the simulator, print the checks.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, results as makeResults, say, setPrefix, sleep, workDir } from './harness.mjs';
import { buildDev, ensureApp, installTarball, pack } from './install.mjs';
import { SMOKE_CREDENTIAL, cliMust, credentials, n8nEnv, rest, startN8n, startSimulator } from './n8n.mjs';

const MiB = 1024 * 1024;

/** One process's resident memory now and at its peak, and the bytes it has read (kB, kB, bytes). */
function memory(pid) {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
	const rchar = Number(/^rchar: (\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
	return { rss: kb('VmRSS'), hwm: kb('VmHWM'), rchar };
}

/** Established TCP connections to `port` on loopback (from /proc/net/tcp and tcp6): the client ends. */
function connectionsTo(port) {
	const hex = port.toString(16).toUpperCase().padStart(4, '0');
	return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) => readFileSync(file, 'utf8').split('\n').slice(1))
		.map((line) => line.trim().split(/\s+/))
		.filter((f) => f.length > 3 && f[2].endsWith(`:${hex}`) && f[3] === '01').length;
}

const mib = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;

/**
 * The checks, on n8n at `url` (process `pid`), each recorded by `check(ok, what, seen)`, against a
 * simulator of their own (its log `log`): no trigger of the session polls it and draws its faults,
 * and every connection to its port is the Test's. Returns the measurements, for a report.
 */
export async function hostileCredentialTestChecks({ url, pid, check, log, label = '' }) {
	const sim = await startSimulator(log);
	try {
		return await checksAgainst(sim, { url, pid, check, label });
	} finally {
		await sim.proc.stop();
	}
}

async function checksAgainst(sim, { url, pid, check, label }) {
	const r = rest(url);
	await r.signIn();
	const key = (path) => readFileSync(join(ROOT, path), 'utf8');
	const data = { environment: 'custom', baseUrl: sim.url, clientId: 'SANDBOX_CLIENT_0001', privateKey: key('sandbox/keys/demo-partner-private.pem'), servicePublicKey: key('sandbox/keys/gateway-public.pem'), keyVersion: '1' };
	const measured = [];
	for (const [title, fault, want, readAtMost, rssAtMost] of [
		['an answer of 1 GiB with a Signature header: Test reads at most 8 MiB', { fault: 'oneGiB' }, /larger than 8 MiB, the most this node reads/, 16 * MiB, 128 * MiB],
		['an unsigned answer of 1 GiB: Test reads at most 64 KiB', { fault: 'oneGiB', unsigned: true }, /larger than 8 MiB, the most this node reads/, 4 * MiB, 128 * MiB],
		['an answer that drips a byte every 200 ms for ever: Test ends at its 30 s deadline', { fault: 'dripForever' }, /^No answer from the gateway: the request timed out \(30000 ms\)/, 4 * MiB, 128 * MiB],
	]) {
		// A connection n8n keeps alive from an earlier request is closed by the simulator after 5 s idle.
		await sleep(6000);
		await sim.admin('clear-faults', {});
		await sim.admin('add-fault', fault);
		const before = memory(pid);
		let peak = before.rss;
		const sampler = setInterval(() => {
			try {
				peak = Math.max(peak, memory(pid).rss);
			} catch {}
		}, 100);
		const started = Date.now();
		let answer;
		try {
			answer = await r.ok('POST', '/rest/credentials/test', { credentials: { ...SMOKE_CREDENTIAL, type: 'partnerAccountInquiryApi', data } });
		} catch (error) {
			answer = { status: 'no answer', message: error.message };
		} finally {
			clearInterval(sampler);
		}
		const seconds = (Date.now() - started) / 1000;
		const after = memory(pid);
		peak = Math.max(peak, after.rss);
		// Closed by n8n at the cap or the deadline: nothing left open to the gateway a moment later.
		await sleep(2000);
		const open = connectionsTo(sim.port);
		const later = memory(pid);
		await sim.admin('clear-faults', {});
		const m = {
			case: title, status: answer.status, seconds: Number(seconds.toFixed(1)),
			rssBefore: mib(before.rss), rssPeak: mib(peak), rssGrowth: mib(peak - before.rss), hwmGrowth: mib(after.hwm - before.hwm),
			read: mib(after.rchar - before.rchar), readIn2sAfter: mib(later.rchar - after.rchar), openAfter2s: open,
		};
		measured.push(m);
		const seen = `${answer.status}: ${String(answer.message).slice(0, 200)}; ${JSON.stringify(m)}`;
		check(answer.status === 'Error' && want.test(String(answer.message)) && seconds < 45, `${label}credential Test, ${title}: the message says why`, seen);
		check(after.rchar - before.rchar <= readAtMost && later.rchar - after.rchar < MiB, `${label}credential Test, ${title}: n8n read ${m.read} (at most ${mib(readAtMost)}), ${m.readIn2sAfter} in the 2 s after`, seen);
		check(peak - before.rss <= rssAtMost, `${label}credential Test, ${title}: n8n's resident memory grew by ${m.rssGrowth} at most (peak ${m.rssPeak}; VmHWM +${m.hwmGrowth})`, seen);
		check(open === 0, `${label}credential Test, ${title}: the connection to the gateway was closed (none open 2 s after)`, seen);
	}
	return measured;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	setPrefix('credential-test-hostile');
	const [line = '2', given] = process.argv.slice(2);
	const work = workDir('credential-test-hostile');
	const results = makeResults();
	let n8n;
	try {
		await buildDev();
		const tarball = given ?? (await pack(join(work, 'pack')));
		const app = await ensureApp(line);
		const user = join(work, 'user');
		mkdirSync(join(user, '.n8n/nodes'), { recursive: true });
		const processEnv = n8nEnv(app, user);
		await installTarball(app, user, tarball, processEnv);
		// The saved credential the REST calls name (as session.mjs imports it); its Base URL is not used.
		await cliMust(app, processEnv, ['import:credentials', `--input=${credentials(join(work, 'credentials.json'), [{ ...SMOKE_CREDENTIAL, url: 'http://127.0.0.1:9' }])}`], join(work, 'import-credentials.log'));
		n8n = await startN8n(app, processEnv, join(work, 'n8n.log'));
		say(`n8n ${app.version} on ${n8n.url} (pid ${n8n.proc.pid}); ${tarball}`);
		const measured = await hostileCredentialTestChecks({ url: n8n.url, pid: n8n.proc.pid, log: join(work, 'simulator.log'), check: (ok, what, seen) => results.add(ok, `${line}.x ${what}${ok ? '' : ` (saw ${seen})`}`) });
		console.log(JSON.stringify(measured, null, 1));
	} catch (error) {
		results.add(false, `could not run: ${error.stack}`);
	} finally {
		await n8n?.stop();
	}
	say(`logs in ${work}`);
	console.log(`${results.lines.length - results.failed()} passed, ${results.failed()} failed`);
	process.exit(results.failed() ? 1 : 0);
}
