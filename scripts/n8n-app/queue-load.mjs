// Sends N concurrent requests to the production webhooks of the queue-mode workflows
// (scripts/n8n-app/queue/*.json) and checks every answer, each of which is the output of one
// execution that a worker ran: listings (Return All of the own account, CUST_SMALL and
// CUST_LARGE) and quotas (U-1001 in USD, RA-JPY in JPY), interleaved.
//
//   node scripts/n8n-app/queue-load.mjs <n8n base URL> <count>
//
// The expected beneficiaries come from the simulator's data set (.dev-dist/sandbox/data.js).
// Prints "ok ..."/"FAIL ..." lines and exits 1 on any failure.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const [base, countText] = process.argv.slice(2);
const count = Number(countText);
const require = createRequire(import.meta.url);
const { createCustomers } = require(resolve('.dev-dist/sandbox/data.js'));
const customers = createCustomers();
const tokens = (customerId) => customers.get(customerId).beneficiaries.map((b) => b.beneficiaryToken);

const kinds = [
	// (Not the own account: a Customer ID expression that gives nothing is refused, by design.)
	{ name: 'list CUST_TWICE', path: 'pai-queue-list', body: { customerId: 'CUST_TWICE' }, expect: tokens('CUST_TWICE') },
	{ name: 'quota U-1001 USD', path: 'pai-queue-quota', body: { method: 'USER_ID', id: 'U-1001', currency: 'USD' }, expect: { id: 'U-1001', currency: 'USD', amount: 12500 } },
	{ name: 'list CUST_SMALL', path: 'pai-queue-list', body: { customerId: 'CUST_SMALL' }, expect: tokens('CUST_SMALL') },
	{ name: 'quota RA-JPY JPY', path: 'pai-queue-quota', body: { method: 'RECEIVING_ACCOUNT', id: 'RA-JPY', currency: 'JPY' }, expect: { id: 'RA-JPY', currency: 'JPY', amount: 5000000 } },
	{ name: 'list CUST_LARGE', path: 'pai-queue-list', body: { customerId: 'CUST_LARGE' }, expect: tokens('CUST_LARGE') },
	{ name: 'quota U-1001 USD', path: 'pai-queue-quota', body: { method: 'USER_ID', id: 'U-1001', currency: 'USD' }, expect: { id: 'U-1001', currency: 'USD', amount: 12500 } },
];

function problem(kind, status, json) {
	if (status !== 200) return `HTTP ${status}: ${JSON.stringify(json).slice(0, 200)}`;
	if (kind.path === 'pai-queue-list') {
		if (!Array.isArray(json)) return `not a list: ${JSON.stringify(json).slice(0, 200)}`;
		const got = json.map((b) => b.beneficiaryToken);
		if (got.length !== kind.expect.length) return `${got.length} beneficiaries, expected ${kind.expect.length}`;
		const at = got.findIndex((t, i) => t !== kind.expect[i]);
		return at < 0 ? undefined : `item ${at} is ${got[at]}, expected ${kind.expect[at]}`;
	}
	const { id, currency, amount } = kind.expect;
	if (json?.quotaAccumulationId !== id || json?.availableQuota?.currency !== currency || json?.availableQuotaAmount !== amount) {
		return `answered ${JSON.stringify(json).slice(0, 200)}, expected ${id} ${amount} ${currency}`;
	}
	return undefined;
}

const started = Date.now();
const results = await Promise.all(
	Array.from({ length: count }, async (_, i) => {
		const kind = kinds[i % kinds.length];
		const t0 = Date.now();
		try {
			const res = await fetch(`${base}/webhook/${kind.path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ ...kind.body, request: i }),
				signal: AbortSignal.timeout(180_000),
			});
			const text = await res.text();
			let json;
			try {
				json = JSON.parse(text);
			} catch {
				json = text;
			}
			return { i, kind, ms: Date.now() - t0, problem: problem(kind, res.status, json) };
		} catch (error) {
			return { i, kind, ms: Date.now() - t0, problem: `request failed: ${error.message}` };
		}
	}),
);
const wall = Date.now() - started;
const failures = results.filter((r) => r.problem);
const times = results.map((r) => r.ms).sort((a, b) => a - b);
const byKind = new Map();
for (const r of results) byKind.set(r.kind.name, (byKind.get(r.kind.name) ?? 0) + 1);
const mix = [...byKind].map(([name, n]) => `${n} ${name}`).join(', ');
if (failures.length) {
	for (const f of failures.slice(0, 10)) console.log(`FAIL webhook request ${f.i} (${f.kind.name}): ${f.problem}`);
	console.log(`FAIL ${failures.length} of ${count} concurrent webhook executions answered wrong or not at all`);
	process.exit(1);
}
console.log(
	`ok   ${count} concurrent webhook executions, every answer complete and correct (${mix}); ` +
		`${(wall / 1000).toFixed(1)} s for all, per request median ${(times[times.length >> 1] / 1000).toFixed(1)} s, max ${(times.at(-1) / 1000).toFixed(1)} s`,
);
