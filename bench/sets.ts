/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only benchmark */
/**
 * The trigger watching many entries (a list of many): one poll of 500 quota subjects against the same
 * 500 subjects as single-subject triggers polled one after another and the ideal bound
 * L * ceil(N / c); one poll of 50 customers of 5 pages (the baseline, every list confirmed by a
 * second read, and a quiet poll, one read) against their ideal bounds; each poll's memory. And a set
 * that does not fit in one poll, against the README's formula for the polls its baselines take.
 */
import { activateTrigger, sandboxCredentials } from '../sandbox/engine';
import { POLL_WIDTH } from '../nodes/PartnerAccountInquiry/trigger/pollPlan';
import {
	FIVE_PAGES,
	fastest,
	type Goals,
	LATENCY_MS,
	out,
	PAGE_SIZE,
	simulatorStats,
	startSimulatorProcess,
} from './common';

interface PollRun {
	ms: number;
	/** Requests the simulator answered during the poll. */
	requests: number;
	/** Events emitted. */
	events: number;
	/** The heap's peak during the poll above what it was before, in MiB. */
	heapMb: number;
	/** Processor time of this process (the trigger's; the simulator runs in its own) during the poll. */
	cpuMs: number;
}

/** Runs one poll, sampling the heap, and counts the simulator's requests. */
async function timedPoll(url: string, poll: () => Promise<number>): Promise<PollRun> {
	const requestsSoFar = async () => (await simulatorStats(url)).requests;
	const before = await requestsSoFar();
	global.gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	let peak = heapBefore;
	const sampler = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().heapUsed);
	}, 5);
	const started = performance.now();
	const cpuBefore = process.cpuUsage();
	const events = await poll();
	const ms = performance.now() - started;
	const cpu = process.cpuUsage(cpuBefore);
	clearInterval(sampler);
	peak = Math.max(peak, process.memoryUsage().heapUsed);
	return {
		ms,
		requests: (await requestsSoFar()) - before,
		events,
		heapMb: (peak - heapBefore) / 2 ** 20,
		cpuMs: (cpu.user + cpu.system) / 1000,
	};
}

/** Runs of each set poll but the 500 single triggers (27 s): the fastest is shown. */
const SET_RUNS = 3;

const SET_SUBJECTS = 500;
const SET_CUSTOMERS = 50;

/** A list of many, one poll of each kind, against the simulator at LATENCY_MS. */
export async function watchedSets(): Promise<Goals> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const credentials = sandboxCredentials(url);
	const quotasText = Array.from({ length: SET_SUBJECTS }, (_, i) => `own, USER_ID, U-B${i}, USD`).join('\n');
	const poller = (parameters: Record<string, unknown>, staticData: Record<string, unknown>) =>
		activateTrigger({
			parameters: parameters as never,
			credentials,
			staticData: staticData as never,
			activation: 'update',
		});
	const events = async (p: ReturnType<typeof activateTrigger>) => {
		const result = await p.poll();
		if (!result.ok) throw result.error;
		return result.items?.length ?? 0;
	};
	/** The fastest of SET_RUNS baselines (from no state each time), then of SET_RUNS quiet polls over the last. */
	const baselineAndQuiet = async (parameters: Record<string, unknown>): Promise<[PollRun, PollRun]> => {
		await events(poller(parameters, {})); // warm-up: JIT, connections, the simulator makes the lists
		let state = {};
		const baselines: PollRun[] = [];
		for (let i = 0; i < SET_RUNS; i++) {
			state = {};
			baselines.push(await timedPoll(url, async () => await events(poller(parameters, state))));
		}
		const quiet: PollRun[] = [];
		for (let i = 0; i < SET_RUNS; i++)
			quiet.push(await timedPoll(url, async () => await events(poller(parameters, state))));
		return [fastest(baselines), fastest(quiet)];
	};
	const runs: Record<string, PollRun> = {};
	try {
		const quotaSet = { events: ['quotaChanged'], options: { quotasText } };
		[runs.quotaBaseline, runs.quotaQuiet] = await baselineAndQuiet(quotaSet);
		// The same subjects as 500 single-subject triggers, polled one after another.
		const singles = Array.from({ length: SET_SUBJECTS }, (_, i) => ({
			parameters: {
				events: ['quotaChanged'],
				quotas: {
					quota: [
						{
							connectedAccountId: 'own',
							quotaAccumulationMethod: 'USER_ID',
							quotaAccumulationId: `U-B${i}`,
							currency: 'USD',
						},
					],
				},
			},
			state: {},
		}));
		runs.quotaSingles = await timedPoll(url, async () => {
			let n = 0;
			for (const single of singles) n += await events(poller(single.parameters, single.state));
			return n;
		});
		const customerSet = {
			events: ['beneficiaryChanged'],
			customerIds: Array.from({ length: SET_CUSTOMERS }, (_, n) => `CUST_FIVE_${n}`).join('\n'),
		};
		[runs.customersBaseline, runs.customersQuiet] = await baselineAndQuiet(customerSet);
	} finally {
		child.kill();
	}
	const c = POLL_WIDTH;
	const ideal = (requests: number) => LATENCY_MS * Math.ceil(requests / c);
	const pages = SET_CUSTOMERS * (FIVE_PAGES / PAGE_SIZE);
	const row = (name: string, run: PollRun, bound?: number) =>
		out(
			`| ${name} | ${run.ms.toFixed(0)} ms | ${run.requests} | ${bound === undefined ? '' : `${bound} ms`} | ${run.cpuMs.toFixed(0)} ms | ${run.heapMb.toFixed(1)} MiB |`,
		);
	out(`## Many entries: one trigger poll over a list (${LATENCY_MS} ms gateway latency, ${c} requests at once)`);
	out();
	out(`Best of ${SET_RUNS} runs each (a baseline from no state each time), but the 500 single triggers: one run.`);
	out();
	out('| poll | wall time | requests | ideal bound L*ceil(requests/c) | processor time | heap peak above before |');
	out('|---|---|---|---|---|---|');
	row(`${SET_SUBJECTS} quota subjects, the baseline`, runs.quotaBaseline, ideal(SET_SUBJECTS));
	row(`${SET_SUBJECTS} quota subjects, a quiet poll`, runs.quotaQuiet, ideal(SET_SUBJECTS));
	row(`the same as ${SET_SUBJECTS} single-subject triggers, one after another`, runs.quotaSingles);
	row(
		`${SET_CUSTOMERS} customers of 5 pages, the baseline (confirmed: two reads)`,
		runs.customersBaseline,
		ideal(2 * pages),
	);
	row(`${SET_CUSTOMERS} customers of 5 pages, a quiet poll (one read)`, runs.customersQuiet, ideal(pages));
	out();
	const quotaToIdeal = runs.quotaQuiet.ms / ideal(SET_SUBJECTS);
	const quotaToSingles = runs.quotaQuiet.ms / runs.quotaSingles.ms;
	const confirmedToIdeal = runs.customersBaseline.ms / ideal(2 * pages);
	const quietToIdeal = runs.customersQuiet.ms / ideal(pages);
	return [
		[
			`${SET_SUBJECTS} quota subjects, one poll / ideal bound = ${quotaToIdeal.toFixed(3)} (goal <= 1.2)`,
			quotaToIdeal <= 1.2,
		],
		[
			`${SET_SUBJECTS} quota subjects, one poll / one after another = ${quotaToSingles.toFixed(3)} (goal <= 0.15)`,
			quotaToSingles <= 0.15,
		],
		[
			`${SET_CUSTOMERS} customers of 5 pages, confirmed lists / ideal bound = ${confirmedToIdeal.toFixed(3)} (goal <= 1.2)`,
			confirmedToIdeal <= 1.2,
		],
		[
			`a quiet poll of ${SET_CUSTOMERS} customers costs one read: ${runs.customersQuiet.requests} requests for ${pages} pages, ${quietToIdeal.toFixed(3)} of its ideal bound (goal: one request a page, <= 1.2)`,
			runs.customersQuiet.requests === pages && quietToIdeal <= 1.2,
		],
		[
			`every set poll read every entry: ${runs.quotaBaseline.requests} and ${runs.quotaQuiet.requests} quota requests, no events when nothing changed`,
			runs.quotaBaseline.requests === SET_SUBJECTS &&
				runs.quotaQuiet.requests === SET_SUBJECTS &&
				runs.quotaQuiet.events === 0 &&
				runs.customersQuiet.events === 0,
		],
	];
}

/** A set that does not fit in one poll: CUSTOMERS_BEYOND customers of 5 pages under a poll budget of BUDGET_BEYOND_MS. */
const CUSTOMERS_BEYOND = 40;
const BUDGET_BEYOND_MS = 1500;

/**
 * Polls until every customer has its baseline, against the README's formula: one poll reads
 * n = floor(8 * (0.8 * B - (s + 1) * L) / (r * L)) entries of r requests, s of them in turn (a new
 * list of 5 pages: r = 10, s = 4), so K = ceil(N / n) polls, one more to learn the lists' size.
 */
export async function setBeyondOnePoll(): Promise<Goals> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const parameters = {
		events: ['beneficiaryChanged'],
		customerIds: Array.from({ length: CUSTOMERS_BEYOND }, (_, n) => `CUST_FIVE_${n}`).join('\n'),
	};
	const staticData: {
		state?: { entries?: Record<string, { state?: unknown }>; pace?: { roundTripMs: number } };
	} = {};
	const withBaseline = () => Object.values(staticData.state?.entries ?? {}).filter((entry) => entry.state).length;
	const perPoll: Array<{ ms: number; read: number }> = [];
	try {
		while (withBaseline() < CUSTOMERS_BEYOND && perPoll.length < 30) {
			const before = withBaseline();
			const poller = activateTrigger({
				parameters: parameters as never,
				credentials: sandboxCredentials(url),
				staticData: staticData as never,
				activation: 'update',
				pollBudgetMs: BUDGET_BEYOND_MS,
			});
			const started = performance.now();
			const result = await poller.poll();
			if (!result.ok) throw result.error;
			perPoll.push({ ms: performance.now() - started, read: withBaseline() - before });
		}
	} finally {
		child.kill();
	}
	// L, a request's time, as the trigger measured it (the simulator's latency plus signing,
	// verifying and the loopback): the README's formula with r = 10 (5 pages read twice) and s = 4.
	const roundTripMs = staticData.state?.pace?.roundTripMs ?? LATENCY_MS;
	const n = Math.floor((8 * (0.8 * BUDGET_BEYOND_MS - 5 * roundTripMs)) / (10 * roundTripMs));
	const formula = Math.ceil(CUSTOMERS_BEYOND / n) + 1;
	const longest = Math.max(...perPoll.map((p) => p.ms));
	out(
		`## Many entries beyond one poll: ${CUSTOMERS_BEYOND} customers of 5 pages, ${BUDGET_BEYOND_MS} ms poll budget, ${LATENCY_MS} ms latency (${roundTripMs.toFixed(0)} ms a request, measured)`,
	);
	out();
	out(`| poll | wall time | baselines taken |`);
	out('|---|---|---|');
	perPoll.forEach((p, i) => out(`| ${i + 1} | ${p.ms.toFixed(0)} ms | ${p.read} |`));
	out();
	return [
		[
			`a set beyond one poll: every baseline in ${perPoll.length} polls, the formula says at most ${formula} (n = ${n} a poll, plus one to learn the lists' size)`,
			perPoll.length <= formula,
		],
		[
			`a set beyond one poll: no poll over its budget (longest ${longest.toFixed(0)} ms of ${BUDGET_BEYOND_MS} ms)`,
			longest <= BUDGET_BEYOND_MS * 1.1,
		],
	];
}
