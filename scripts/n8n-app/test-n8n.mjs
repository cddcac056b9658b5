// npm run test:n8n: the packed package in the whole n8n app, on both release lines, one line at a
// time or side by side (N8N_APP_LINES=1, 2 or 1,2; side by side unless N8N_APP_SERIAL=1). Each line runs its sessions side by side (scenarios.mjs: the
// trigger live, installed from the tarball or through the editor's REST calls), the trigger
// examples as shipped (shipped.mjs) and its smoke run (smoke.mjs). Prints one ok/FAIL line per check, a subtotal
// per line, and a closing plain "N passed, N failed" line (.ci/run adds it to its total).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, LINES, results as makeResults, say, selectedLines, sleep, workDir } from './harness.mjs';
import { buildDev, ensureApp, pack, startRegistry } from './install.mjs';

const work = workDir('n8n-app');
let status = 0;
let passed = 0;
let failed = 0;
try {
	say('building the simulator (npm run build:dev) and the package');
	await buildDev();
	const { runSession, sessions } = await import('./session.mjs');
	const { runSmoke } = await import('./smoke.mjs');
	const { runShipped } = await import('./shipped.mjs');
	const { runCrash, crashSetups, runTorn } = await import('./crash.mjs');
	const registry = await startRegistry(work);
	const tarball = await pack(join(work, 'pack'));
	await registry.publish(tarball, 'latest');
	// The lines side by side (their sessions mostly wait for n8n's polls), the second a little later
	// so that the apps do not all boot at once; N8N_APP_SERIAL=1 runs them one after the other.
	const runLine = async (line) => {
		const started = Date.now();
		const results = makeResults();
		const logs = [];
		try {
			const app = await ensureApp(line);
			const lineWork = join(work, `line-${line}`);
			const shared = { work: lineWork, registry, tarball, results, logs };
			// Side by side, 40 s apart; the smoke run's CLI commands last, while the sessions wait for their polls.
			// N8N_APP_JOBS picks some (session keys, smoke, shipped: `N8N_APP_JOBS=shipped`), for a maintainer's quick run.
			const picked = (name) => !process.env.N8N_APP_JOBS || process.env.N8N_APP_JOBS.split(',').includes(name);
			const jobs = [
				...sessions(line).filter((spec) => picked(spec.key)).map((spec) => [`session ${spec.key}`, () => runSession(app, spec, shared)]),
				...(picked('shipped') ? [['the shipped examples', () => runShipped(app, shared)]] : []),
				...(picked('smoke') ? [['the smoke run', () => runSmoke(app, shared)]] : []),
				...(picked('crash') ? crashSetups(line).map((spec) => [`crash ${spec.key}`, () => runCrash(app, spec, shared)]) : []),
				// On request only (N8N_APP_JOBS=torn; heavy beside jest): 2.x durable cursors, a list torn while
				// read, then a stop and a start; and the same with n8n dropping the poll (engine: triggerDroppedPoll).
				...(process.env.N8N_APP_JOBS?.split(',').includes('torn') && line === '2'
					? [
							['torn list', () => runTorn(app, { ...shared, rounds: 2 })],
							['torn list, poll dropped', () => runTorn(app, { ...shared, rounds: 1, customers: ['CUST_FIVE_30', 'CUST_FIVE_31'], drop: true })],
						]
					: []),
			];
			// A job that throws (its setup: a CLI import out of time on a loaded machine) is one failed
			// check naming it; the other jobs run to their end and their checks count.
			const ended = await Promise.allSettled(jobs.map(async ([, job], i) => (await sleep(i * 40_000), job())));
			ended.forEach(({ status, reason }, i) => status === 'rejected' && results.add(false, `${line}.x: ${jobs[i][0]} ended early: ${reason?.stack ?? reason}`));
			const problems = logs.flatMap((log) => readFileSync(log, 'utf8').split('\n')).filter((l) => /error|fail|warn/i.test(l) && /partner/i.test(l.replaceAll(CACHE, ''))); // the cache's path names the package too
			results.add(problems.length === 0, `${line}.x: n8n logged no error or warning about the package${problems.length ? ` (saw: ${problems.slice(0, 5).join(' | ')})` : ''}`);
		} catch (error) {
			results.add(false, `${line}.x: the line could not run: ${error.message}`);
		}
		return [line, results, Math.round((Date.now() - started) / 1000)];
	};
	const lines = selectedLines();
	const done = process.env.N8N_APP_SERIAL === '1'
		? await lines.reduce(async (all, line) => [...(await all), await runLine(line)], [])
		: await Promise.all(lines.map(async (line, i) => (await sleep(i * 60_000), runLine(line))));
	for (const [line, results, seconds] of done) {
		const ok = results.lines.length - results.failed();
		console.log(`n8n ${LINES[line].version}: ${ok} passed, ${results.failed()} failed (${seconds} s)`);
		passed += ok;
		failed += results.failed();
	}
} catch (error) {
	console.log(`FAIL test:n8n could not run: ${error.stack}`);
	failed++;
}
if (failed || process.env.N8N_SMOKE_KEEP === '1') say(`logs, user folders and databases are kept in ${work}`);
else rmSync(work, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : status);
