// What every real-app script shares: the release lines, logging, processes and free ports, JSON
// over loopback, results. Installing (install.mjs) and driving n8n (n8n.mjs) build on it.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { constants, homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const HERE = join(ROOT, 'scripts/n8n-app');
export const CACHE = env.N8N_APP_CACHE_ROOT ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-partner-account-inquiry');
export const PACKAGE = 'n8n-nodes-partner-account-inquiry';
export const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const DENY_2X = (env.N8N_APP_DENY_SCRIPTS_2X ?? '@confluentinc/kafka-javascript agent-browser @scarf/scarf').split(/\s+/);

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
