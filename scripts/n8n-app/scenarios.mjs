// The trigger live in a real n8n app: the scenarios a session (session.mjs) runs side by side. A
// scenario is a row: its workflows, what it does to the simulator before n8n's first start, while
// n8n runs, while it is down, and what it checks after the restart. Every check reads n8n's saved
// executions; every wait proves the workflow polled (each trigger has a credential of its own whose
// Base URL is a port of its own into the simulator, so the simulator's request log names it) and
// says what it expected.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE, ROOT, sleep, until } from './harness.mjs';
import { SMOKE_CREDENTIAL, nodeItems } from './n8n.mjs';
import { floorSubjects, workingCopy } from './smoke.mjs';

const { createCustomers } = createRequire(import.meta.url)(join(ROOT, '.dev-dist/sandbox/data.js'));
export const TRIGGER = `${PACKAGE}.partnerAccountInquiryTrigger`;
export const DURABLE = { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true', N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' };
const payees = (customer) => createCustomers().get(customer).beneficiaries;
/** Every whole bank value of these payees (account number, IBAN, token): none may appear in an execution. */
const bankValues = (list) => list.flatMap((b) => [b.bankAccountNo, b.bankAccountIBAN, b.beneficiaryToken]).filter((v) => v && v.length > 4);
const show = (list) => JSON.stringify(list.map((x) => ({ id: x.id, status: x.status, refs: [...new Set(x.data.match(/REF-[A-Z0-9-]+/g) ?? [])].slice(0, 6) })));

/**
 * Each trigger's credential, its own: the simulator's, its Base URL a port of its own into the
 * simulator (a TCP pass-through, simulator.mjs `front`), so that every request it sends is logged
 * with `via` its workflow's ID: which workflow polled, and when. (The Access Token, a credential
 * field now, is a customer's authorisation and refused with `own`: it cannot name a workflow.)
 */
export const credentialOf = (workflowId) => ({ id: `Cred${workflowId}`, name: `Partner Account Inquiry account (${workflowId})` });
/** The credentials of `workflows`' triggers (credentialOf), each with its front's URL: for `credentials()` of n8n.mjs. */
export async function frontCredentials(sim, workflows) {
	const own = workflows.filter((w) => w.nodes.some((n) => n.type === TRIGGER && n.credentials?.partnerAccountInquiryApi?.id === credentialOf(w.id).id));
	return Promise.all(own.map(async (w) => ({ ...credentialOf(w.id), url: (await sim.front(w.id)).url })));
}

/** A trigger workflow (node version 1, the only one): `parameters` as the editor saves them, polling every tick, through its own credential. */
function trigger(ctx, id, parameters) {
	return {
		id, name: `[live] ${id}`, active: false, settings: { executionOrder: 'v1' }, connections: {}, pinData: {},
		nodes: [{
			id: randomUUID(), name: 'Trigger', type: TRIGGER, typeVersion: 1, position: [0, 0], credentials: { partnerAccountInquiryApi: credentialOf(id) },
			parameters: { pollTimes: { item: [{ mode: 'custom', cronExpression: ctx.cron }] }, ...parameters },
		}],
	};
}
/** Beneficiaries: one event, the accounts of `customerIds` (one a line; `own`: your own account). */
const payees1 = (event, customerIds) => ({ events: [event], customerIds, filters: {}, options: {} });
/** A row of Quotas: a USER_ID quota in USD of `connectedAccountId`'s account, with its threshold. */
const quotaRow = (id, threshold = 10000, connectedAccountId = 'own') => ({ connectedAccountId, quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: id, currency: 'USD', threshold });
/** Quota Below Threshold on the quotas of `rows` (and `options`, e.g. Quotas as Text). */
const belowThreshold = (rows, options = {}) => ({ events: ['quotaBelowThreshold'], quotas: rows.length ? { quota: rows } : {}, options });
/** Quota Below Threshold (10000), one quota of your own account. */
const quota1 = (id) => belowThreshold([quotaRow(id)]);

/**
 * An example with a trigger, live: a working copy (smoke.mjs), polling every tick, through its own
 * credential (and watching `customerIds`, if given, instead of its own: the session's other
 * scenarios change your own account); after its baseline `act` changes the simulator; the messages
 * its stand-ins received must be one per `want` text, each holding it, each at the stand-in
 * `routed` accepts (if given).
 */
function liveExample(file, short, { customerIds, act, want, whole, routed }) {
	const read = (ctx) => {
		const example = JSON.parse(readFileSync(join(ROOT, 'examples', `${file}.json`), 'utf8'));
		const copy = workingCopy(example, { id: ctx.id(short), name: `[live] ${example.name}`, cron: ctx.cron });
		const node = copy.nodes.find((n) => n.type === TRIGGER);
		node.credentials = { partnerAccountInquiryApi: credentialOf(copy.id) };
		if (customerIds) node.parameters.customerIds = customerIds;
		return { copy, node, stand: example.nodes.filter((n) => n.type === 'n8n-nodes-base.slack').map((n) => n.name) };
	};
	return {
		workflows: (ctx) => [{ start: 'R', workflow: read(ctx).copy }],
		async running(ctx) {
			const { copy, node, stand } = read(ctx);
			await ctx.waitPolls(copy.id, 2, ctx.since(copy.id), 'a baseline');
			const acted = await act?.(ctx);
			const texts = want(ctx, acted, node);
			const posted = async () => (await ctx.exec([copy.id]))[copy.id].flatMap((x) => stand.flatMap((name) => nodeItems(x.run, name).map((j) => [name, String(j.message)])));
			await until(async () => (await posted()).length >= texts.length, 2 * ctx.tick * 1000 + 60_000);
			await ctx.waitPolls(copy.id, 1, Date.now(), 'one poll more');
			const e = (await ctx.exec([copy.id]))[copy.id];
			const pairs = await posted();
			const got = pairs.map(([, m]) => m);
			const misrouted = pairs.filter(([name, m]) => routed && !routed(name, m));
			const leaked = bankValues(whole(acted)).filter((v) => e.some((x) => x.data.includes(v)));
			ctx.check(e.every((x) => x.status === 'success') && got.length === texts.length && texts.every((t) => got.some((m) => m.includes(t))) && misrouted.length === 0 && leaked.length === 0,
				`examples/${file}.json live (${stand.length > 1 ? `${stand.length} Slack nodes` : 'its Slack node'} a stand-in${customerIds ? `, watching ${customerIds}` : ''}): ${texts.length} message${texts.length === 1 ? '' : 's'} naming ${texts.map((t) => `"${t}"`).join(', ')}${routed ? ', each at its own stand-in' : ''}; no whole bank value in its ${e.length} executions`,
				`${show(e)} ${JSON.stringify(pairs)} leaked ${leaked.length}`);
		},
	};
}

// The scenarios. Each: workflows(ctx) -> [{ workflow, start: 'P' (published by the CLI before n8n's
// first start, as Docker and GitOps do) | 'R' (activated through the REST API once n8n runs, as the
// editor does) | 'off' }], setup (before the start),
// running (n8n up; returns what `after` needs), down (n8n stopped), after (restarted: checks).
export const SCENARIOS = {
	/** One trigger, live: a payee bound after a scheduled poll is one execution, the next poll none (also test:queue's). */
	liveTrigger: {
		workflows: (ctx) => [{ start: 'R', workflow: trigger(ctx, ctx.id('Live'), payees1('beneficiaryAdded', 'CUST_SMALL')) }],
		async running(ctx) {
			const id = ctx.id('Live');
			const reference = `REF-LIVE-TRIGGER-${ctx.line}`;
			await ctx.waitPolls(id, 2, ctx.since(id), 'its activation poll and a scheduled one');
			await ctx.sim.admin('add-beneficiary', { customerId: 'CUST_SMALL', referenceBeneficiaryId: reference });
			const bound = Date.now();
			await ctx.waitPolls(id, 2, bound, `the poll that sees ${reference} and the one after`);
			const e = (await ctx.exec([id]))[id];
			ctx.check(e.length === 1 && e[0].status === 'success' && e[0].data.includes(reference),
				`one trigger (Beneficiary Added, CUST_SMALL): ${reference}, bound after a scheduled poll, is one execution; the poll after it starts none`, show(e));
		},
	},

	/** Issue 20's scenarios (one event, one account or subject each): a bank change, a list changed while read, quotas that fall, a scheduled action workflow; across the restart. */
	issue20: {
		workflows(ctx) {
			const p = ctx.prefix;
			const list = { OwnChg: ['beneficiaryChanged', 'own'], OwnAdd: ['beneficiaryAdded', 'own'], OwnRem: ['beneficiaryRemoved', 'own'], LrgAdd: ['beneficiaryAdded', 'CUST_LARGE'], LrgRem: ['beneficiaryRemoved', 'CUST_LARGE'] };
			const flows = Object.entries(list).map(([name, [event, customerIds]]) => trigger(ctx, ctx.id(name), payees1(event, customerIds)));
			flows.push(trigger(ctx, ctx.id('QFalls'), quota1(`${p}1`)), trigger(ctx, ctx.id('QStart'), quota1(`${p}2`)));
			const scheduled = {
				id: ctx.id('Sched'), name: `[live] ${ctx.id('Sched')} scheduled quota check`, active: false, settings: { executionOrder: 'v1' }, pinData: {},
				nodes: [
					{ id: randomUUID(), name: 'Every tick', type: 'n8n-nodes-base.scheduleTrigger', typeVersion: 1.2, position: [0, 0], parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: ctx.tick }] } } },
					{ id: randomUUID(), name: 'Get Available Quota', type: `${PACKAGE}.partnerAccountInquiry`, typeVersion: 1, position: [240, 0], credentials: { partnerAccountInquiryApi: SMOKE_CREDENTIAL },
						parameters: { operation: 'getAvailableQuota', connectedAccountId: 'own', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD', options: {} } },
				],
				connections: { 'Every tick': { main: [[{ node: 'Get Available Quota', type: 'main', index: 0 }]] } },
			};
			return [...flows, scheduled].map((workflow) => ({ start: 'R', workflow }));
		},
		setup: (ctx) => Promise.all([ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}1`, '1250000'), ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}2`, '0')]),
		async running(ctx) {
			const ids = ['OwnChg', 'OwnAdd', 'OwnRem', 'LrgAdd', 'LrgRem', 'QFalls', 'QStart'].map(ctx.id);
			await Promise.all(ids.map((id) => ctx.waitPolls(id, 2, ctx.since(id), 'a baseline')));
			const bank = await ctx.sim.admin('change-bank-details', { customerId: '', referenceBeneficiaryId: 'REF-OWN-00001' });
			await ctx.sim.admin('add-fault', { fault: 'swapBeneficiary', operation: 'list', customerId: 'CUST_LARGE', pageNumber: 1, position: 10, times: 1 });
			await ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}1`, '900000');
			await ctx.waitExec(['OwnChg', 'LrgAdd', 'LrgRem', 'QFalls'].map(ctx.id), (e) => e.length >= 1, 3, 'the change, the swap and the fall reported');
			await ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}1`, '1250000');
			await ctx.waitPolls(ctx.id('QFalls'), 2, Date.now(), 'the recovery seen');
			const e = await ctx.exec([ctx.id('QStart'), ctx.id('Sched')]);
			return { bank, belowAtStart: e[ctx.id('QStart')].length, scheduled: e[ctx.id('Sched')].length };
		},
		down: (ctx) => ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}1`, '800000'),
		async after(ctx, before) {
			const id = ctx.id;
			await ctx.waitExec([id('QFalls')], (x) => x.length >= 2, 3, 'the second fall reported');
			const e = await ctx.exec(['OwnChg', 'OwnAdd', 'OwnRem', 'LrgAdd', 'LrgRem', 'QFalls', 'QStart', 'Sched'].map(id));
			// Not counted: an execution the test's own stop of n8n cut short (crashed, begun before the restart):
			// a scheduled poll can be running as n8n stops.
			const w = (name) => e[id(name)].filter((x) => !(x.status === 'crashed' && x.at < ctx.launchedAt));
			const only = (name, references) => w(name).length === 1 && w(name)[0].status === 'success' && JSON.stringify([...new Set(w(name)[0].data.match(/REF-[A-Z0-9-]+/g))].sort()) === JSON.stringify(references);
			const changed = w('OwnChg')[0]?.data ?? '';
			ctx.check(only('OwnChg', [before.bank.referenceBeneficiaryId]) && changed.includes('bankAccountNo'),
				`a bank change (${before.bank.referenceBeneficiaryId}: new account number and token) is one Beneficiary Changed naming bankAccountNo`, show(w('OwnChg')));
			ctx.check(w('OwnAdd').length === 0 && w('OwnRem').length === 0,
				`the bank change started no Beneficiary Added and no Beneficiary Removed, polled ${ctx.pollCount(id('OwnAdd'))} and ${ctx.pollCount(id('OwnRem'))} times`,
				`${show(w('OwnAdd'))} ${show(w('OwnRem'))}`);
			const swapped = w('LrgAdd')[0]?.data.match(/REF-SWAPPED-IN-\d+/g) ?? [];
			ctx.check(w('LrgAdd').length === 1 && new Set(swapped).size === 1 && only('LrgAdd', [swapped[0]]),
				'a list changed while a poll read its pages: the payee bound meanwhile is one Beneficiary Added, no false event', show(w('LrgAdd')));
			const unbound = payees('CUST_LARGE')[10].referenceBeneficiaryId;
			ctx.check(only('LrgRem', [unbound]), `the payee unbound meanwhile (${unbound}, position 11 of page 1) is one Beneficiary Removed, no other`, show(w('LrgRem')));
			ctx.check(w('QFalls').length === 2 && w('QFalls').every((x) => x.status === 'success'), 'a quota that falls, recovers, and falls again while n8n is down: two alerts', show(w('QFalls')));
			// Before or after the restart by when it started (n8n was down in between).
			const q = w('QStart');
			const afterRestart = q.filter((x) => x.at >= ctx.launchedAt);
			ctx.check(before.belowAtStart === 1 && q.length === 1 + afterRestart.length && afterRestart.length <= (ctx.exact ? 0 : 1) && q.every((x) => x.status === 'success'),
				ctx.exact ? 'a quota below from activation, still below across the restart: exactly one alert'
					: `a quota below from activation: one alert, ${afterRestart.length} repeat after the restart (at most one, as documented)`,
				`${before.belowAtStart} before the restart; ${show(q)}`);
			const runs = w('Sched');
			ctx.check(before.scheduled >= 1 && runs.length > before.scheduled && runs.every((x) => x.status === 'success' && x.data.includes('availableQuota')),
				`a scheduled Get Available Quota workflow ran before the restart (${before.scheduled} runs) and after it (${runs.length - before.scheduled}), each a success`, show(runs));
		},
	},

	/** Many entries as text: two quotas falling in one poll while a third fails; two customers binding; a line added to the active workflow. */
	watchMany: {
		workflows: (ctx) => [
			trigger(ctx, ctx.id('WmQuota'), belowThreshold([], { quotasText: [1, 2, 3].map((n) => `own, USER_ID, ${ctx.prefix}W${n}, USD, 10000`).join('\n') })),
			trigger(ctx, ctx.id('WmCust'), payees1('beneficiaryAdded', 'CUST_EMPTY\n10005678')),
		].map((workflow) => ({ start: 'R', workflow })),
		setup: (ctx) => Promise.all([1, 2, 3, 4].map((n) => ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}W${n}`, n === 4 ? '0' : '1250000'))),
		async running(ctx) {
			const [q, c] = [ctx.id('WmQuota'), ctx.id('WmCust')];
			await Promise.all([q, c].map((id) => ctx.waitPolls(id, 2, ctx.since(id), 'a baseline')));
			const seen = await ctx.exec([q, c]);
			await ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}W1`, '900000');
			await ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}W2`, '500000');
			await ctx.sim.admin('add-fault', { fault: 'answer', operation: 'quota', accumulationId: `${ctx.prefix}W3`, answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' } });
			await ctx.sim.admin('add-beneficiary', { customerId: 'CUST_EMPTY', referenceBeneficiaryId: `REF-WM-${ctx.key}-1` });
			await ctx.sim.admin('add-beneficiary', { customerId: '10005678', referenceBeneficiaryId: `REF-WM-${ctx.key}-2` });
			const changed = Date.now();
			await ctx.waitPolls(q, 3, changed, 'the poll that sees the fall, the one that reports the failure, one more');
			const e = await ctx.exec([q, c]);
			const quota = e[q].slice(seen[q].length);
			const subjects = (x) => nodeItems(x.run, 'Trigger').map((j) => j.subject).sort();
			const failed = quota.filter((x) => x.status !== 'success');
			ctx.check(quota.length === 2 && JSON.stringify(subjects(quota[0])) === JSON.stringify([`own USER_ID ${ctx.prefix}W1 USD`, `own USER_ID ${ctx.prefix}W2 USD`]) && failed.length === 1 && failed[0] === quota[1] && failed[0].data.includes(`own USER_ID ${ctx.prefix}W3 USD`) && failed[0].data.includes('SYSTEM_ERROR'),
				`Quotas as Text: two quotas below in one poll are one execution with both while a third fails (SYSTEM_ERROR): then one failed execution naming own USER_ID ${ctx.prefix}W3 USD, once`, show(quota));
			const cust = e[c].slice(seen[c].length);
			const listed = cust.map((x) => nodeItems(x.run, 'Trigger').map((j) => `${j.whoseAccount}:${j.referenceBeneficiaryId}`).sort());
			ctx.check(cust.length === 1 && JSON.stringify(listed[0]) === JSON.stringify([`10005678:REF-WM-${ctx.key}-2`, `CUST_EMPTY:REF-WM-${ctx.key}-1`]),
				`Customer IDs (two lines): two customers each bound a payee: one execution, its items REF-WM-${ctx.key}-1 for CUST_EMPTY and REF-WM-${ctx.key}-2 for 10005678 (whoseAccount)`, `${show(cust)} ${JSON.stringify(listed)}`);
			const count = e[q].length;
			await ctx.rest.editNode(q, 'Trigger', (p) => ({ ...p, options: { ...p.options, quotasText: `${p.options.quotasText}\nown, USER_ID, ${ctx.prefix}W4, USD, 10000` } }));
			await ctx.waitPolls(q, 2, Date.now(), 'two polls after the edit');
			const added = (await ctx.exec([q]))[q].slice(count);
			ctx.check(added.length === 1 && JSON.stringify(subjects(added[0])) === JSON.stringify([`own USER_ID ${ctx.prefix}W4 USD`]),
				`Quotas as Text: a line added to the active workflow (${ctx.prefix}W4, below from the start): one alert for it alone; W1 and W2 (still below) and W3 (still failing) not again`, show(added));
		},
	},

	/** A set of quotas as rows: one below from the start, one falling later, one failing; across the restart. */
	quotaSet: {
		workflows: (ctx) => ['P', 'R'].map((v) => ({
			start: v,
			workflow: trigger(ctx, ctx.id(`QSet${v}`), belowThreshold([['A', 10000], ['B', 20000], ['C', 10000]].map(([s, threshold]) => quotaRow(`${ctx.prefix}${v}${s}`, threshold)))),
		})),
		setup: (ctx) => Promise.all(['P', 'R'].flatMap((v) => [['A', '0'], ['B', '2500000'], ['C', '1250000']].map(([s, value]) => ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}${v}${s}`, value)))),
		async running(ctx) {
			await Promise.all(['P', 'R'].map(async (v) => {
				const id = ctx.id(`QSet${v}`);
				await ctx.waitPolls(id, 2, ctx.since(id), 'its activation poll and a scheduled one');
				await ctx.sim.call('setQuota', 'USER_ID', `${ctx.prefix}${v}B`, '1500000');
				await ctx.sim.admin('add-fault', { fault: 'answer', operation: 'quota', accumulationId: `${ctx.prefix}${v}C`, answer: { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' } });
				await ctx.waitExec([id], (e) => e.some((x) => x.data.includes(`${ctx.prefix}${v}B`)) && e.some((x) => x.status !== 'success'), 4, `the alert for ${ctx.prefix}${v}B and the failure of ${ctx.prefix}${v}C`);
			}));
		},
		async after(ctx) {
			for (const v of ['P', 'R']) {
				const id = ctx.id(`QSet${v}`);
				const e = (await ctx.exec([id]))[id];
				const s = (x) => `own USER_ID ${ctx.prefix}${v}${x} USD`;
				// Before or after the restart by when it ran (n8n was down in between), not by a count read while polls went on.
				const alerts = e.filter((x) => x.status === 'success').flatMap((x) => nodeItems(x.run, 'Trigger').map((j) => ({ ...j, afterRestart: x.at >= ctx.launchedAt })));
				const of = (x) => alerts.filter((j) => j.subject === s(x));
				const failures = e.filter((x) => x.status !== 'success');
				const once = (list) => (ctx.exact ? list.length === 1 : list.length >= 1 && list.filter((j) => !j.afterRestart).length === 1 && list.length <= 2);
				const how = v === 'P' ? 'published before n8n first started on a fresh database' : 'activated in the running app';
				ctx.check(once(of('A')) && once(of('B')) && alerts.every((j) => [s('A'), s('B')].includes(j.subject) && j.event === 'quotaBelowThreshold') && of('B')[0]?.threshold === 20000,
					`a quota set (rows, ${how}): ${s('A')} below from the start and ${s('B')} falling below its own threshold (20000) alert ${ctx.exact ? 'exactly once each across the restart' : 'once each, at most one repeat after the restart as documented'}; no other alert`,
					JSON.stringify(alerts.map((j) => `${j.subject}${j.afterRestart ? ' (after the restart)' : ''}`)));
				ctx.check(failures.length >= 1 && failures.every((x) => x.data.includes(s('C')) && x.data.includes('PROCESS_FAIL')) && (ctx.exact ? failures.length === 1 : failures.length <= 2 && failures[0].at < ctx.launchedAt) && !alerts.some((j) => j.subject === s('C')),
					`the same set: ${s('C')} failing (PROCESS_FAIL) is ${ctx.exact ? 'one failed execution naming it, across the restart' : 'one failed execution naming it before the restart (at most one repeat after it)'}; the others' alerts not held back`, show(failures));
			}
		},
	},

	/** One trigger, Many Quotas: the same subject of two customers' connected accounts, each its own quota (issue 48). */
	customerQuotas: {
		workflows: (ctx) => [{
			start: 'R',
			workflow: trigger(ctx, ctx.id('QAcc'), belowThreshold(['ACC_A', 'ACC_B'].map((account) => quotaRow(`${ctx.prefix}CQ`, 10000, account)))),
		}],
		// ACC_A's is below from the start (0), ACC_B's above (USD 20,000.00) until the test lowers it.
		setup: (ctx) => Promise.all([['ACC_A', '0'], ['ACC_B', '2000000']].map(([connectedAccountId, value]) => ctx.sim.admin('set-quota', { connectedAccountId, method: 'USER_ID', id: `${ctx.prefix}CQ`, value, currency: 'USD' }))),
		async running(ctx) {
			const id = ctx.id('QAcc');
			await ctx.waitPolls(id, 2, ctx.since(id), 'its activation poll and a scheduled one');
			await ctx.sim.admin('set-quota', { connectedAccountId: 'ACC_B', method: 'USER_ID', id: `${ctx.prefix}CQ`, value: '500000' });
			await ctx.waitExec([id], (e) => e.filter((x) => x.status === 'success').length >= 2, 4, 'the alerts for ACC_A and ACC_B');
			await ctx.waitPolls(id, 1, Date.now(), 'one poll more');
		},
		async after(ctx) {
			const id = ctx.id('QAcc');
			const e = (await ctx.exec([id]))[id];
			// Before or after the restart by when it ran (n8n was down in between).
			const alerts = e.filter((x) => x.status === 'success').flatMap((x) => nodeItems(x.run, 'Trigger').map((j) => ({ ...j, afterRestart: x.at >= ctx.launchedAt })));
			const of = (account) => alerts.filter((j) => j.whoseAccount === account);
			// The default poller may repeat an alert still standing once after a restart (README); durable cursors never.
			const once = (list) => (ctx.exact ? list.length === 1 : list.filter((j) => !j.afterRestart).length === 1 && list.length <= 2);
			const sent = (await ctx.sim.requests()).filter((r) => r.op === 'quota' && r.via === id);
			const subject = (account) => `${account} USER_ID ${ctx.prefix}CQ USD`;
			ctx.check(once(of('ACC_A')) && of('ACC_A').every((j) => j.availableQuotaAmount === 0 && j.subject === subject('ACC_A')) && once(of('ACC_B')) && of('ACC_B').every((j) => j.availableQuotaAmount === 5000 && j.subject === subject('ACC_B')) && alerts.every((j) => ['ACC_A', 'ACC_B'].includes(j.whoseAccount)) && e.every((x) => x.status === 'success'),
				`one trigger watches the same quota of two customers' connected accounts (rows): ACC_A below from the start and ACC_B falling later alert ${ctx.exact ? 'exactly once each across the restart' : 'once each (at most one repeat after the restart, as documented)'}, each item naming its whoseAccount and subject and its own amount (0, then 5000)`,
				JSON.stringify(alerts.map((j) => [j.whoseAccount, j.subject, j.availableQuotaAmount, j.afterRestart ? 'after the restart' : 'before'])));
			ctx.check(sent.length >= 4 && ['ACC_A', 'ACC_B'].every((account) => sent.some((r) => r.account === account)),
				'each of its requests carries its own line\'s Connected-AccountId', JSON.stringify(sent.slice(0, 4).map((r) => r.account)));
		},
	},

	/** Many customers, three events: a bank change both ways (with and without a reference ID), masked. */
	multiEvent: {
		customers: (v) => (v === 'P' ? ['CUST_FIVE_0', 'CUST_FIVE_1'] : ['CUST_FIVE_2', 'CUST_FIVE_3']),
		// Simplify off: the items keep their (masked) tokens, by which a payee without reference ID is known.
		workflows(ctx) {
			return ['P', 'R'].map((v) => ({
				start: v,
				workflow: trigger(ctx, ctx.id(`Bank${v}`), {
					events: ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryBankDetailsChanged'], customerIds: this.customers(v).join('\n'), filters: {}, options: { simplify: false },
				}),
			}));
		},
		// The second customer's second payee has no reference ID (the gateway may bind one without).
		setup(ctx) {
			return Promise.all(['P', 'R'].map((v) => ctx.sim.call('setReference', this.customers(v)[1], 1, undefined)));
		},
		async running(ctx) {
			const changed = {};
			await Promise.all(['P', 'R'].map(async (v) => {
				const id = ctx.id(`Bank${v}`);
				const [x, y] = this.customers(v);
				await ctx.waitPolls(id, 2, ctx.since(id), 'its activation poll and a scheduled one');
				const withRef = await ctx.sim.admin('change-bank-details', { customerId: x, referenceBeneficiaryId: payees(x)[0].referenceBeneficiaryId });
				const withoutRef = await ctx.sim.call('changeBankDetailsAt', y, 1);
				changed[id] = [withRef, withoutRef];
				await ctx.waitExec([id], (e) => e.flatMap((r) => nodeItems(r.run, 'Trigger')).length >= 3, 3, 'the three items');
			}));
			return changed;
		},
		async after(ctx, changed) {
			for (const v of ['P', 'R']) {
				const id = ctx.id(`Bank${v}`);
				const [x, y] = this.customers(v);
				const e = (await ctx.exec([id]))[id];
				const items = e.flatMap((r) => nodeItems(r.run, 'Trigger'));
				const [withRef, withoutRef] = changed[id];
				const was = payees(y)[1];
				const got = items.map((j) => `${j.event} ${j.whoseAccount} ${j.referenceBeneficiaryId ?? '(no reference ID)'} ${j.beneficiaryToken ?? ''}`).sort();
				const want = [
					`beneficiaryAdded ${y} (no reference ID) ****${withoutRef.beneficiaryToken.slice(-4)}`,
					`beneficiaryBankDetailsChanged ${x} ${withRef.referenceBeneficiaryId} ****${withRef.beneficiaryToken.slice(-4)}`,
					`beneficiaryRemoved ${y} (no reference ID) ****${was.beneficiaryToken.slice(-4)}`,
				];
				const bank = items.find((j) => j.event === 'beneficiaryBankDetailsChanged');
				const how = v === 'P' ? 'published before n8n first started' : 'activated in the running app';
				ctx.check(e.every((r) => r.status === 'success') && JSON.stringify(got) === JSON.stringify(want) && bank?.changes?.bankAccountNo?.after === `****${withRef.bankAccountNo.slice(-4)}`,
					`a trigger on two customers (Added, Removed, Bank Details Changed; ${how}): new bank details of ${withRef.referenceBeneficiaryId} are one Bank Details Changed, of a payee without reference ID one Removed plus one Added, across the restart nothing again`,
					JSON.stringify(got));
				const whole = bankValues([...payees(x), ...payees(y), withRef, withoutRef]);
				const leaked = [...new Set(whole.filter((value) => e.some((r) => r.data.includes(value))))];
				ctx.check(leaked.length === 0 && items.length > 0, `the same trigger's ${e.length} executions hold no whole account number, IBAN or token (Mask Bank Details on)`, leaked.map((l) => `****${l.slice(-4)}`).join(', '));
			}
		},
	},

	/** The examples with a trigger, each a working copy live (its Slack nodes stand-ins): their messages, and no whole bank value in any execution. */
	// The beneficiary examples watch your own account and CUST_SMALL as shipped (shipped.mjs runs them so); here each its
	// own customer, as issue20 changes your own account's payees in session D.
	bankAlert: liveExample('bank-detail-change-alert', 'ExBank', {
		customerIds: 'CUST_SMALL',
		act: (ctx) => ctx.sim.admin('change-bank-details', { customerId: 'CUST_SMALL', referenceBeneficiaryId: 'REF-SML-00001' }),
		want: (ctx, changed) => {
			const was = payees('CUST_SMALL')[0];
			return [`CUST_SMALL: payee ${was.beneficiaryNick} (REF-SML-00001): bank account ending ${was.bankAccountNo.slice(-4)} → ending ${changed.bankAccountNo.slice(-4)}`];
		},
		whole: (changed) => [...payees('CUST_SMALL'), changed],
	}),
	newPayeeAlert: liveExample('new-beneficiary-alert', 'ExNew', {
		customerIds: 'CUST_FIVE_5',
		act: (ctx) => ctx.sim.admin('add-beneficiary', { customerId: 'CUST_FIVE_5', referenceBeneficiaryId: `REF-NEW-${ctx.key}` }),
		want: (ctx, added) => [`CUST_FIVE_5: new payee bound, ${added.beneficiaryNick} (REF-NEW-${ctx.key}) in ${added.currency}, bank account ending ${(added.bankAccountIBAN ?? added.bankAccountNo).slice(-4)}`],
		whole: (added) => [...payees('CUST_FIVE_5'), added],
	}),
	quotaFloors: liveExample('quota-floors-watch-many', 'ExFloors', {
		// The quotas below their thresholds from the start (your own and the customers'): each alerts once, at the activation poll.
		want: (ctx, _, trigger) => floorSubjects(trigger).filter((s) => s.below).map((s) => `Quota below its threshold: ${s.label} has `),
		whole: () => [],
		// Route by whose account: your own account's alerts to #treasury-desk, the customers' to #customer-accounts.
		routed: (stand, message) => (stand === 'Post to #treasury-desk') === message.startsWith('Quota below its threshold: own '),
	}),

	/** Activated through the REST API: a change right after the activation poll reported once; deactivated, changed, activated again: only the later change. */
	activation: {
		workflows: (ctx) => [{ start: 'off', workflow: trigger(ctx, ctx.id('Act'), payees1('beneficiaryChanged', 'CUST_FIVE_4')) }],
		async running(ctx) {
			const id = ctx.id('Act');
			const change = (n) => ctx.sim.admin('change-bank-details', { customerId: 'CUST_FIVE_4', referenceBeneficiaryId: `REF-F4-0000${n}` });
			/** Activates just after a tick and changes a payee once the activation poll reached the simulator; returns what the check needs. */
			const activateThenChange = async (n) => {
				const tick = ctx.tick * 1000;
				while (Date.now() % tick < tick * 0.1 || Date.now() % tick > tick * 0.4) await sleep(200);
				const at = Date.now();
				await ctx.rest.activate(id);
				await ctx.waitPolls(id, 1, at, 'the activation poll');
				await change(n);
				const changedAt = Date.now();
				const next = Math.ceil(changedAt / tick) * tick;
				await ctx.waitExec([id], (e) => e.some((x) => x.data.includes(`REF-F4-0000${n}`)), 2, `the change of REF-F4-0000${n}`);
				await ctx.waitPolls(id, 1, Date.now(), 'one poll more');
				return `changed ${((next - changedAt) / 1000).toFixed(1)} s before the next scheduled poll`;
			};
			const first = await activateThenChange(2);
			const e1 = (await ctx.exec([id]))[id];
			ctx.check(e1.length === 1 && e1[0].status === 'success' && show(e1).includes('"refs":["REF-F4-00002"]'),
				`activated through the REST API, a change made right after the activation poll (${first}) is one Beneficiary Changed`, show(e1));
			await ctx.rest.deactivate(id);
			await change(3);
			const second = await activateThenChange(4);
			const e2 = (await ctx.exec([id]))[id].slice(e1.length);
			ctx.check(e2.length === 1 && e2[0].status === 'success' && show(e2).includes('"refs":["REF-F4-00004"]'),
				`deactivated, changed meanwhile (REF-F4-00003), activated again: a fresh baseline; the change after the activation (${second}) once, the one made while inactive never`, show(e2));
		},
	},
};
