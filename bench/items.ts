/**
 * Many input items through one node: 500 quota items and 50 listing items of 5 pages each, at the
 * execution's width (8), against the ideal bound L * ceil(N / c) (and, for scale, L * N: one request
 * after another, computed: the width is no longer an option); and 500 quota items against a gateway
 * that refuses every 7th request for traffic. Every run must put each item's answers in its place,
 * exactly once.
 */
import { runNode, sandboxCredentials } from '../sandbox/engine';
import {
	DEFAULT_CONCURRENCY,
	FIVE_PAGES,
	fastest,
	type Goals,
	LATENCY_MS,
	out,
	PAGE_SIZE,
	QUOTA_ITEMS,
	ROUNDS,
	simulatorStats,
	startSimulatorProcess,
} from './common';

const LISTING_ITEMS = 50;

interface ItemsRun {
	ms: number;
	/** Every input item's answers present, in its place, exactly once. */
	exact: boolean;
}

/** 500 quota items, U-B0..U-B499, each answered n * 100 + 1 cents. */
async function quotaItems(url: string): Promise<ItemsRun> {
	const items = Array.from({ length: QUOTA_ITEMS }, (_, i) => ({ id: `U-B${i}` }));
	const started = performance.now();
	const run = await runNode({
		parameters: {
			operation: 'getAvailableQuota',
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: '={{ $json.id }}',
			currency: 'USD',
		},
		credentials: sandboxCredentials(url),
		items,
	});
	const ms = performance.now() - started;
	if (run.status !== 'success') throw new Error(`quota items failed: ${run.error?.message}`);
	const exact =
		run.items.length === QUOTA_ITEMS &&
		run.items.every(
			(item, i) =>
				item.json.quotaAccumulationId === `U-B${i}` &&
				item.json.availableQuotaAmount === Number(`${i}.01`) &&
				(item.pairedItem as { item: number }).item === i,
		);
	return { ms, exact };
}

/** 50 listing items, each every beneficiary of CUST_FIVE (5 pages). */
async function listingItems(url: string): Promise<ItemsRun> {
	const items = Array.from({ length: LISTING_ITEMS }, () => ({ customerId: 'CUST_FIVE' }));
	const started = performance.now();
	const run = await runNode({
		parameters: {
			operation: 'listBeneficiaries',
			returnAll: true,
			customerId: '={{ $json.customerId }}',
			// The whole answer: the request path is measured, not the shaping of items.
			simplify: false,
			options: { maskBankDetails: false },
		},
		credentials: sandboxCredentials(url),
		items,
	});
	const ms = performance.now() - started;
	if (run.status !== 'success') throw new Error(`listing items failed: ${run.error?.message}`);
	const exact =
		run.items.length === LISTING_ITEMS * FIVE_PAGES &&
		run.items.every((item, i) => (item.pairedItem as { item: number }).item === Math.floor(i / FIVE_PAGES)) &&
		Array.from(
			{ length: LISTING_ITEMS },
			(_, n) =>
				new Set(run.items.slice(n * FIVE_PAGES, (n + 1) * FIVE_PAGES).map((item) => item.json.beneficiaryToken)),
		).every((tokens) => tokens.size === FIVE_PAGES);
	return { ms, exact };
}

async function measured(title: string, requests: number, run: (url: string) => Promise<ItemsRun>): Promise<Goals> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const runs: ItemsRun[] = [];
	try {
		await run(url); // warm-up
		for (let round = 0; round < ROUNDS; round++) runs.push(await run(url));
	} finally {
		child.kill();
	}
	const best = fastest(runs);
	const ideal = LATENCY_MS * Math.ceil(requests / DEFAULT_CONCURRENCY);
	out(`## ${title} (${LATENCY_MS} ms gateway latency, ${requests} requests)`);
	out();
	out(`Best of ${ROUNDS} runs; every run is checked: each item's answers in its place, exactly once.`);
	out();
	out('| run | wall time |');
	out('|---|---|');
	out(`| ${DEFAULT_CONCURRENCY} requests at once | ${best.ms.toFixed(0)} ms |`);
	out(`| ideal bound L*ceil(N/c) | ${ideal} ms |`);
	out(`| one request after another, L*N (computed) | ${LATENCY_MS * requests} ms |`);
	out();
	const toIdeal = best.ms / ideal;
	return [
		[`${title}: wall time / ideal bound = ${toIdeal.toFixed(3)} (goal <= 1.15)`, toIdeal <= 1.15],
		[`${title}: every run had every answer in place, exactly once`, runs.every((r) => r.exact)],
	];
}

export async function manyItems(): Promise<Goals> {
	return [
		...(await measured(`${QUOTA_ITEMS} quota items`, QUOTA_ITEMS, quotaItems)),
		...(await measured(
			`${LISTING_ITEMS} listing items of 5 pages each, each confirmed by a second read`,
			2 * LISTING_ITEMS * (FIVE_PAGES / PAGE_SIZE),
			listingItems,
		)),
	];
}

/** 500 quota items against a gateway that refuses every 7th request with REQUEST_TRAFFIC_EXCEED_LIMIT. */
export async function rateLimitedItems(): Promise<Goals> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS, ['--rate-limit-every', '7']);
	let result: ItemsRun;
	let stats: { requests: number; faults: Record<string, number> };
	try {
		result = await quotaItems(url);
		stats = await simulatorStats(url);
	} finally {
		child.kill();
	}
	const refused = stats.faults.rateLimit ?? 0;
	out(`## ${QUOTA_ITEMS} quota items, every 7th request refused with REQUEST_TRAFFIC_EXCEED_LIMIT`);
	out();
	out('| run | wall time | requests | refused and retried |');
	out('|---|---|---|---|');
	out(`| ${DEFAULT_CONCURRENCY} requests at once | ${result.ms.toFixed(0)} ms | ${stats.requests} | ${refused} |`);
	out();
	return [
		[
			`rate-limited run: every one of ${QUOTA_ITEMS} answers in place, exactly once (${refused} refusals retried)`,
			result.exact && stats.requests === QUOTA_ITEMS + refused,
		],
	];
}
