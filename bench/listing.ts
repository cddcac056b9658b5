/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only benchmark */
/**
 * Return All over 200 pages (10,000 beneficiaries) through n8n's engine, as a user sets it: read at
 * the execution's width (8) and confirmed by a second read, with and without Include Proof, against
 * the ideal bound of two reads one after the other, 2 * L * (1 + ceil((P - 1) / c)); each run's peak
 * memory. Every run must return every beneficiary exactly once. (Before 1.0.0 the width and the
 * second read were options; a read at width 1, or a single read, is no longer a setting to measure.)
 */
import { runNode, sandboxCredentials } from '../sandbox/engine';
import {
	DEFAULT_CONCURRENCY,
	fastest,
	type Goals,
	LATENCY_MS,
	out,
	PAGE_SIZE,
	ROUNDS,
	startSimulatorProcess,
} from './common';

const PAGES = 200;

interface ListingRun {
	ms: number;
	items: number;
	distinct: number;
	peakRssMb: number;
	peakHeapMb: number;
	/** The output items' JSON. */
	outputMb: number;
}

interface ListingSetup {
	includeProof?: boolean;
}

async function listAll(url: string, setup: ListingSetup): Promise<ListingRun> {
	global.gc?.();
	let peakRss = process.memoryUsage().rss;
	let peakHeap = process.memoryUsage().heapUsed;
	const sampler = setInterval(() => {
		const m = process.memoryUsage();
		peakRss = Math.max(peakRss, m.rss);
		peakHeap = Math.max(peakHeap, m.heapUsed);
	}, 10);
	const started = performance.now();
	const run = await runNode({
		parameters: {
			operation: 'listBeneficiaries',
			returnAll: true,
			customerId: 'CUST_BENCH',
			// The whole answer: the request path is measured, not the shaping of items.
			simplify: false,
			options: setup.includeProof ? { includeProof: true } : { maskBankDetails: false },
		},
		credentials: sandboxCredentials(url),
	});
	const ms = performance.now() - started;
	clearInterval(sampler);
	if (run.status !== 'success') throw new Error(`listing failed: ${run.error?.message}`);
	return {
		ms,
		items: run.json.length,
		distinct: new Set(run.json.map((b) => b.beneficiaryToken)).size,
		peakRssMb: peakRss / 2 ** 20,
		peakHeapMb: peakHeap / 2 ** 20,
		outputMb: Buffer.byteLength(JSON.stringify(run.json)) / 2 ** 20,
	};
}

export async function returnAll(): Promise<Goals> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const setups = {
		confirmed: {},
		proof: { includeProof: true },
	} satisfies Record<string, ListingSetup>;
	type Name = keyof typeof setups;
	const runs = Object.fromEntries(Object.keys(setups).map((name) => [name, [] as ListingRun[]])) as Record<
		Name,
		ListingRun[]
	>;
	try {
		await listAll(url, {}); // warm-up: JIT, connections, the simulator's data set
		// Alternate the runs, twice, and keep each one's faster run: a shared 2-core machine is noisy.
		for (let round = 0; round < ROUNDS; round++) {
			for (const name of Object.keys(setups) as Name[]) runs[name].push(await listAll(url, setups[name]));
		}
	} finally {
		child.kill();
	}
	const best = (name: Name) => fastest(runs[name]);
	const c = DEFAULT_CONCURRENCY;
	const oneReadIdeal = LATENCY_MS * (1 + Math.ceil((PAGES - 1) / c));
	const exact = Object.values(runs)
		.flat()
		.every((r) => r.items === PAGES * PAGE_SIZE && r.distinct === PAGES * PAGE_SIZE);
	out(
		`## Return All: ${PAGES} pages, ${PAGES * PAGE_SIZE} beneficiaries, ${LATENCY_MS} ms gateway latency (n8n engine, simulator in its own process)`,
	);
	out();
	out(
		`Best of ${ROUNDS} alternating runs each; every one of the ${Object.values(runs).flat().length} runs is checked for exactly-once. A listing of several pages is always confirmed with a second read, at the width of ${c}.`,
	);
	out();
	out('| run | wall time | items | distinct | peak RSS | peak heap | output |');
	out('|---|---|---|---|---|---|---|');
	for (const [label, name] of [
		[`confirmed by a second read (${c} requests at once)`, 'confirmed'],
		['the same with Include Proof', 'proof'],
	] as const) {
		const run = best(name);
		out(
			`| ${label} | ${run.ms.toFixed(0)} ms | ${run.items} | ${run.distinct} | ${run.peakRssMb.toFixed(0)} MiB | ${run.peakHeapMb.toFixed(0)} MiB | ${run.outputMb.toFixed(1)} MiB |`,
		);
	}
	out(`| ideal bound of one read L*(1+ceil((P-1)/c)) | ${oneReadIdeal} ms | | | | | |`);
	out(`| ideal bound of two reads, one after the other | ${2 * oneReadIdeal} ms | | | | | |`);
	out(`| one request after another, two reads, 2*L*P (computed) | ${2 * LATENCY_MS * PAGES} ms | | | | | |`);
	out();
	const confirmedToIdeal = best('confirmed').ms / (2 * oneReadIdeal);
	const proofTime = best('proof').ms / best('confirmed').ms;
	const proofSize = best('proof').outputMb / best('confirmed').outputMb;
	// The goals before 1.0.0 measured one read (<= 1.15 of its bound) and the second read (<= 2.2 of
	// the first); together they allowed 1.15 * 2.2 / 2 of the bound of two reads, the goal here.
	const confirmedGoal = (1.15 * 2.2) / 2;
	return [
		[
			`confirmed (two reads) / ideal bound of two reads = ${confirmedToIdeal.toFixed(3)} (goal <= ${confirmedGoal.toFixed(3)})`,
			confirmedToIdeal <= confirmedGoal,
		],
		[
			`Include Proof: time x${proofTime.toFixed(2)}, output x${proofSize.toFixed(2)} (goal: time <= 1.5)`,
			proofTime <= 1.5,
		],
		[`every run returned all ${PAGES * PAGE_SIZE} beneficiaries exactly once`, exact],
	];
}
