/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only benchmark */
/**
 * `npm run bench`: figures measured side by side in one run (not a timed test).
 * 1. Return All over 200 pages (10,000 beneficiaries) at 50 ms gateway latency, through n8n's
 *    engine, against the simulator in a separate process: one read at concurrency 1 and at the
 *    default, the default (confirmed by a second read) and the default with Include Proof, against
 *    the ideal bounds L * (1 + ceil((P - 1) / c)) of one read and twice that of two. Every run must
 *    return every beneficiary exactly once.
 * 2. Per-request CPU of our path (serialise, sign, verify, parse a 50-item page) against one raw
 *    RSA-2048 sign by OpenSSL (node:crypto), against the floor (a bare sign, verify, decode and
 *    JSON.parse: the least any implementation does), and against the same path with node-forge.
 * 3. Peak memory of the 10,000-item run.
 * 4. The trigger watching many entries (Watch Many): one poll of 500 quota subjects against the
 *    same 500 subjects as single-subject triggers polled one after another and the ideal bound
 *    L * ceil(N / c); one poll of 50 customers of 5 pages (the baseline, every list confirmed by a
 *    second read, and a quiet poll, one read) against their ideal bounds; each poll's memory.
 * `npm run bench -- --cpu-only` runs part 2 alone (a few seconds); `-- --sets-only` part 4 alone;
 * `-- --rate-limited-only` the rate-limited quota run alone (it passes or fails by chance: run it often).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createPrivateKey, sign, verify } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

import forge from 'node-forge';

import { createCustomers } from '../../sandbox/data';
import { activateTrigger, runNode, sandboxCredentials } from '../../sandbox/engine';
import { POLL_WIDTH } from '../../nodes/PartnerAccountInquiry/trigger/poll';
import { readSandboxKey } from '../../sandbox/server';
import {
	formatSignatureHeader,
	parseSignatureHeader,
} from '../../nodes/PartnerAccountInquiry/shared/core/signing/signatureHeader';
import { parseResponseBody } from '../../nodes/PartnerAccountInquiry/shared/core/api/responseBody';
import { signRequest } from '../../nodes/PartnerAccountInquiry/shared/core/signing/signRequest';
import { joinUrl } from '../../nodes/PartnerAccountInquiry/shared/core/api/gateway';
import { buildStringToSign } from '../../nodes/PartnerAccountInquiry/shared/core/signing/stringToSign';
import { verifyResponse } from '../../nodes/PartnerAccountInquiry/shared/core/signing/verifyResponse';
import { checkBeneficiaries } from '../../nodes/PartnerAccountInquiry/shared/core/api/answers';
import { NUMBER_OPTIONS } from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { privateKeyFrom, publicKeyFrom } from '../../nodes/PartnerAccountInquiry/shared/core/signing/keys';

const LATENCY_MS = 50;
const DEFAULT_CONCURRENCY = NUMBER_OPTIONS.concurrency.default;
const QUOTA_ITEMS = 500;
const LISTING_ITEMS = 50;
const FIVE_PAGES = 250;
const PAGES = 200;
const PAGE_SIZE = 50;
const ROUNDS = 2;
const out = (text = '') => process.stdout.write(`${text}\n`);

async function startSimulatorProcess(
	latency: number,
	extraArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
	const args = ['--port', '0', '--latency', String(latency), ...extraArgs];
	const child = fork(join(__dirname, '..', '..', 'sandbox', 'cli.js'), args, {
		stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
	});
	const url = await new Promise<string>((resolve, reject) => {
		let text = '';
		child.stdout?.on('data', (chunk: Buffer) => {
			text += chunk.toString();
			const m = /listening on (http:\/\/\S+)/.exec(text);
			if (m) resolve(m[1]);
		});
		child.on('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
	});
	return { url, child };
}

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
	/** Undefined: the default (8). */
	pageConcurrency?: number;
	/** Confirm Whole List (default on: a second read). */
	confirm?: boolean;
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
			options: {
				customerId: 'CUST_BENCH',
				...(setup.pageConcurrency ? { pageConcurrency: setup.pageConcurrency } : {}),
				...(setup.confirm === false ? { confirmWholeList: false } : {}),
				...(setup.includeProof ? { includeProof: true } : {}),
			},
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

/**
 * CPU microseconds per call, measured in pairs: every batch runs each function a few times in a
 * row, so that a shared machine's drift (it is large here) hits all of them alike, and each ratio
 * is taken within a batch and then the median over the batches. No forced GC between batches: a
 * full collection shrinks the young generation, after which an allocating path pays for
 * scavenges that a long-running n8n process does not.
 */
function pairedCpu<K extends string>(fns: Record<K, [fn: () => void, iterations: number]>, batches: number) {
	const names = Object.keys(fns) as K[];
	for (const name of names) for (let i = 0; i < Math.min(50, fns[name][1] * 5); i++) fns[name][0]();
	const perCall = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
	for (let b = 0; b < batches; b++) {
		for (const name of names) {
			const [fn, iterations] = fns[name];
			const start = process.cpuUsage();
			for (let i = 0; i < iterations; i++) fn();
			const used = process.cpuUsage(start);
			perCall[name].push((used.user + used.system) / iterations);
		}
	}
	const median = (list: number[]) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
	return {
		/** Median CPU microseconds per call. */
		cpu: (name: K) => median(perCall[name]),
		/** Median over the batches of (a per call) / (b per call). */
		ratio: (a: K, b: K) => median(perCall[a].map((x, i) => x / perCall[b][i])),
	};
}

interface RequestCpu {
	raw: number;
	ours: number;
	floor: number;
	forge: number;
	verify: number;
	parse: number;
	checks: number;
	oursToFloor: number;
	oursToRaw: number;
	floorToRaw: number;
	forgeToOurs: number;
	pageBytes: number;
}

function requestCpu(): RequestCpu {
	const privatePem = readSandboxKey('demo-partner-private.pem');
	const gatewayPem = readSandboxKey('gateway-private.pem');
	const gatewayPublicPem = readSandboxKey('gateway-public.pem');
	const rawKey = createPrivateKey(privatePem);
	const uri = '/amsin/api/v1/business/account/inquiryBeneficiaryList';
	const clientId = 'SANDBOX_CLIENT_0001';
	const time = '2026-11-22T10:00:00+08:00';
	// A page that answers the request below (USD and EUR beneficiaries), so the answer checks run in full.
	const page = (createCustomers().get('CUST_LARGE')?.beneficiaries ?? [])
		.filter((b) => ['USD', 'EUR'].includes(b.currency))
		.slice(0, 50);
	if (page.length !== 50) throw new Error(`the bench page has ${page.length} beneficiaries, not 50`);
	const responseBody = JSON.stringify({
		result: { resultStatus: 'S', resultCode: 'SUCCESS', resultMessage: 'success' },
		responseId: 'R1',
		beneficiaries: page,
		totalCount: 320,
		totalPageNumber: 7,
		currentPageNumber: 1,
	});
	const responseContent = buildStringToSign({ method: 'POST', uri, clientId, time, body: responseBody });
	const responseSignature = sign('sha256', responseContent, createPrivateKey(gatewayPem));
	const responseHeaders = {
		signature: formatSignatureHeader('1', responseSignature),
		'response-time': time,
		'client-id': clientId,
	};
	const responseBytes = Buffer.from(responseBody);
	const request = { pageSize: 50, pageNumber: 2, currencyList: ['USD', 'EUR'] };
	const baseUrl = 'https://open-sea.worldfirst.com';

	const rawSign = () => sign('sha256', Buffer.from('POST /x\nc.t.{}'), rawKey);
	// The session parses the service public key once per execution and keeps the KeyObject.
	const sessionPublicKey = publicKeyFrom(gatewayPublicPem);
	const answeredAt = Date.parse(time);
	// Signature and freshness: one call, as the transport makes it.
	const verifyOnly = () =>
		verifyResponse({
			method: 'POST',
			uri,
			clientId,
			headers: responseHeaders,
			body: responseBytes,
			publicKey: sessionPublicKey,
			nowMs: answeredAt,
			toleranceSeconds: 300,
		});
	const parseOnly = () => parseResponseBody(responseBytes);
	const parsedPage = parseResponseBody(responseBytes);
	if (!parsedPage.ok) throw new Error('parse failed');
	// The answer checks after verification: about the filters sent, of the documented shape.
	const checksOnly = () => {
		checkBeneficiaries(parsedPage.value.beneficiaries as unknown[], request, 2);
	};
	// Exactly the functions the transport runs for one request: serialise, sign (authenticate),
	// verify the raw bytes and their time, parse them, check the answer against the request.
	const ourPath = () => {
		const body = Buffer.from(JSON.stringify(request), 'utf8');
		signRequest({
			method: 'POST',
			url: joinUrl(baseUrl, uri),
			clientId,
			keyVersion: '1',
			privateKey: privateKeyFrom(privatePem),
			body,
		});
		verifyOnly();
		const parsed = parseOnly();
		if (!parsed.ok) throw new Error('parse failed');
		checkBeneficiaries(parsed.value.beneficiaries as unknown[], request, 2);
	};
	// The least any implementation must do per request: one sign, one verify over the page, one
	// UTF-8 decode and JSON.parse of it; no header parsing, no checks.
	const gatewayPublic = publicKeyFrom(gatewayPublicPem);
	const decoder = new TextDecoder('utf-8', { fatal: true });
	const floorPath = () => {
		sign('sha256', Buffer.from(JSON.stringify(request), 'utf8'), rawKey);
		if (!verify('sha256', responseContent, gatewayPublic, responseSignature)) throw new Error('floor verify failed');
		JSON.parse(decoder.decode(responseBytes));
	};

	const forgePrivate = forge.pki.privateKeyFromPem(privatePem);
	const forgePublic = forge.pki.publicKeyFromPem(gatewayPublicPem);
	const forgePath = () => {
		const body = Buffer.from(JSON.stringify(request), 'utf8');
		const content = buildStringToSign({ method: 'POST', uri, clientId, time, body });
		const md = forge.md.sha256.create();
		md.update(content.toString('binary'));
		formatSignatureHeader('1', Buffer.from(forgePrivate.sign(md), 'binary'));
		const parsed = parseSignatureHeader(responseHeaders.signature);
		const check = forge.md.sha256.create();
		check.update(responseContent.toString('binary'));
		if (!forgePublic.verify(check.digest().bytes(), parsed.signature.toString('binary')))
			throw new Error('forge verify failed');
		JSON.parse(responseBytes.toString('utf8'));
	};
	const m = pairedCpu(
		{
			raw: [rawSign, 20],
			ours: [ourPath, 20],
			floor: [floorPath, 20],
			verify: [verifyOnly, 20],
			parse: [parseOnly, 20],
			checks: [checksOnly, 20],
		},
		60,
	);
	// The two goal ratios each in a pairing of their own two paths: a batch pays for collecting
	// the garbage of the batch before it, so a third function beside them shifts the ratio (by
	// 3-5 % for the breakdown's functions, by far more for node-forge, whose every call leaves
	// megabytes behind).
	const head = pairedCpu({ ours: [ourPath, 20], floor: [floorPath, 20] }, 60);
	const f = pairedCpu({ ours: [ourPath, 20], forge: [forgePath, 1] }, 20);
	return {
		raw: m.cpu('raw'),
		ours: m.cpu('ours'),
		floor: m.cpu('floor'),
		forge: f.cpu('forge'),
		verify: m.cpu('verify'),
		parse: m.cpu('parse'),
		checks: m.cpu('checks'),
		oursToFloor: head.ratio('ours', 'floor'),
		oursToRaw: m.ratio('ours', 'raw'),
		floorToRaw: m.ratio('floor', 'raw'),
		forgeToOurs: f.ratio('forge', 'ours'),
		pageBytes: responseBytes.length,
	};
}

async function main(): Promise<void> {
	const cpuModel = cpus()[0]?.model ?? 'unknown CPU';
	out(
		`# Benchmark: ${cpuModel}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
	);
	out();
	const cpuOnly = process.argv.includes('--cpu-only');
	// CPU first, in a fresh heap: after five 10,000-item listings the heap is large, and the
	// allocating path would pay for that in its scavenges.
	const rateLimitedOnly = process.argv.includes('--rate-limited-only');
	const cpu = process.argv.includes('--sets-only') || rateLimitedOnly ? undefined : requestCpu();
	const goals: Array<[string, boolean]> = [];
	if (process.argv.includes('--sets-only')) goals.push(...(await watchedSets()), ...(await setBeyondOnePoll()));
	else if (rateLimitedOnly) goals.push(...(await rateLimitedItems()));
	else if (!cpuOnly) {
		goals.push(...(await returnAll()), ...(await manyItems()), ...(await rateLimitedItems()));
		goals.push(...(await watchedSets()), ...(await setBeyondOnePoll()));
	}
	if (cpu) goals.push(...perRequest(cpu));
	out('## Goals');
	out();
	for (const [text, ok] of goals) out(`- ${ok ? 'met' : 'MISSED'}: ${text}`);
	process.exitCode = goals.every(([, ok]) => ok) ? 0 : 1;
}

async function returnAll(): Promise<Array<[string, boolean]>> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const setups = {
		sequential: { pageConcurrency: 1, confirm: false },
		oneRead: { confirm: false },
		confirmed: {},
		proof: { includeProof: true },
	} satisfies Record<string, ListingSetup>;
	type Name = keyof typeof setups;
	const runs = Object.fromEntries(Object.keys(setups).map((name) => [name, [] as ListingRun[]])) as Record<
		Name,
		ListingRun[]
	>;
	try {
		await listAll(url, { pageConcurrency: 4 }); // warm-up: JIT, connections, the simulator's data set
		// Alternate the runs, twice, and keep each one's faster run: a shared 2-core machine is noisy.
		for (let round = 0; round < ROUNDS; round++) {
			for (const name of Object.keys(setups) as Name[]) runs[name].push(await listAll(url, setups[name]));
		}
	} finally {
		child.kill();
	}
	const best = (name: Name) => runs[name].reduce((a, b) => (b.ms < a.ms ? b : a));
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
		`Best of ${ROUNDS} alternating runs each; every one of the ${Object.values(runs).flat().length} runs is checked for exactly-once. The default confirms the list with a second read (Confirm Whole List); one read is the option turned off.`,
	);
	out();
	out('| run | wall time | items | distinct | peak RSS | peak heap | output |');
	out('|---|---|---|---|---|---|---|');
	for (const [label, name] of [
		['sequential, one read (concurrency 1)', 'sequential'],
		[`one read (concurrency ${c}, Confirm Whole List off)`, 'oneRead'],
		[`default: confirmed by a second read (concurrency ${c})`, 'confirmed'],
		['default with Include Proof', 'proof'],
	] as const) {
		const run = best(name);
		out(
			`| ${label} | ${run.ms.toFixed(0)} ms | ${run.items} | ${run.distinct} | ${run.peakRssMb.toFixed(0)} MiB | ${run.peakHeapMb.toFixed(0)} MiB | ${run.outputMb.toFixed(1)} MiB |`,
		);
	}
	out(`| ideal bound of one read L*(1+ceil((P-1)/c)) | ${oneReadIdeal} ms | | | | | |`);
	out(`| ideal bound of two reads, one after the other | ${2 * oneReadIdeal} ms | | | | | |`);
	out();
	const ratio = best('oneRead').ms / best('sequential').ms;
	const toIdeal = best('oneRead').ms / oneReadIdeal;
	const confirmedToIdeal = best('confirmed').ms / (2 * oneReadIdeal);
	const confirmCost = best('confirmed').ms / best('oneRead').ms;
	const proofTime = best('proof').ms / best('confirmed').ms;
	const proofSize = best('proof').outputMb / best('confirmed').outputMb;
	return [
		[`one read / sequential = ${ratio.toFixed(3)} (goal <= 0.30)`, ratio <= 0.3],
		[`one read / its ideal bound = ${toIdeal.toFixed(3)} (goal <= 1.15)`, toIdeal <= 1.15],
		// The confirming read is a whole second read, within the same margin of its bound as one read:
		// the goal is that it costs no more than the read itself (and 10 %), not that it is free.
		[
			`the second read costs: confirmed (default) / one read = ${confirmCost.toFixed(2)}, ${confirmedToIdeal.toFixed(3)} of the bound of two reads (goal: <= 2.2 of one read)`,
			confirmCost <= 2.2,
		],
		[
			`Include Proof: time x${proofTime.toFixed(2)}, output x${proofSize.toFixed(2)} (goal: time <= 1.5)`,
			proofTime <= 1.5,
		],
		[`every run returned all ${PAGES * PAGE_SIZE} beneficiaries exactly once`, exact],
	];
}

function perRequest(r: RequestCpu): Array<[string, boolean]> {
	const ms = (us: number) => `${(us / 1000).toFixed(3)} ms`;
	out(`## Per-request CPU (serialise, sign, verify, parse a 50-item page of ${(r.pageBytes / 1024).toFixed(1)} KiB)`);
	out();
	out('Medians of 60 batches; each ratio is taken within a batch (the functions run side by side). The two goal');
	out('ratios are each measured head to head, the two paths alone (a batch pays for collecting the garbage of the');
	out('batch before it, so a third function beside them shifts the ratio).');
	out();
	out('| path | CPU per request | / raw sign |');
	out('|---|---|---|');
	out(`| one raw RSA-2048 sign (node:crypto, OpenSSL ${process.versions.openssl}) | ${ms(r.raw)} | 1 |`);
	out(`| this package's path (node:crypto) | ${ms(r.ours)} | ${r.oursToRaw.toFixed(2)} |`);
	out(`| of which: verify the response (header, SHA-256 over the page, RSA verify, freshness) | ${ms(r.verify)} | |`);
	out(`| of which: strict UTF-8 decode and JSON.parse of the page | ${ms(r.parse)} | |`);
	out(`| of which: the answer checks (every beneficiary against the filters, shape) | ${ms(r.checks)} | |`);
	out(
		`| floor: bare sign + verify + decode + JSON.parse, nothing else | ${ms(r.floor)} | ${r.floorToRaw.toFixed(2)} |`,
	);
	out(`| the same path with node-forge | ${(r.forge / 1000).toFixed(2)} ms | |`);
	out();
	out(
		`Head to head: our path / floor = ${r.oursToFloor.toFixed(3)}; node-forge / our path = ${r.forgeToOurs.toFixed(0)}x.`,
	);
	out();
	return [
		[`our path / floor = ${r.oursToFloor.toFixed(3)} (goal <= 1.10)`, r.oursToFloor <= 1.1],
		[`node-forge / our path = ${r.forgeToOurs.toFixed(0)}x (goal >= 50x)`, r.forgeToOurs >= 50],
	];
}

interface ItemsRun {
	ms: number;
	/** Every input item's answers present, in its place, exactly once. */
	exact: boolean;
}

/** 500 quota items, U-B0..U-B499, each answered n * 100 + 1 cents. */
async function quotaItems(url: string, concurrency: number | undefined): Promise<ItemsRun> {
	const items = Array.from({ length: QUOTA_ITEMS }, (_, i) => ({ id: `U-B${i}` }));
	const started = performance.now();
	const run = await runNode({
		parameters: {
			operation: 'getAvailableQuota',
			quotaAccumulationMethod: 'USER_ID',
			quotaAccumulationId: '={{ $json.id }}',
			currency: 'USD',
			options: concurrency ? { concurrency } : {},
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
async function listingItems(url: string, concurrency: number | undefined): Promise<ItemsRun> {
	const items = Array.from({ length: LISTING_ITEMS }, () => ({ customerId: 'CUST_FIVE' }));
	const started = performance.now();
	const run = await runNode({
		parameters: {
			operation: 'listBeneficiaries',
			returnAll: true,
			options: { customerId: '={{ $json.customerId }}', ...(concurrency ? { pageConcurrency: concurrency } : {}) },
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

async function sideBySide(
	title: string,
	requests: number,
	run: (url: string, concurrency: number | undefined) => Promise<ItemsRun>,
): Promise<Array<[string, boolean]>> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const seq: ItemsRun[] = [];
	const par: ItemsRun[] = [];
	try {
		await run(url, undefined); // warm-up
		for (let round = 0; round < ROUNDS; round++) {
			seq.push(await run(url, 1));
			par.push(await run(url, undefined));
		}
	} finally {
		child.kill();
	}
	const best = (runs: ItemsRun[]) => runs.reduce((a, b) => (b.ms < a.ms ? b : a));
	const sequential = best(seq);
	const parallel = best(par);
	const ideal = LATENCY_MS * Math.ceil(requests / DEFAULT_CONCURRENCY);
	out(`## ${title} (${LATENCY_MS} ms gateway latency, ${requests} requests)`);
	out();
	out(`Best of ${ROUNDS} alternating runs each; every run is checked: each item's answers in its place, exactly once.`);
	out();
	out('| run | wall time |');
	out('|---|---|');
	out(`| sequential (concurrency 1) | ${sequential.ms.toFixed(0)} ms |`);
	out(`| default (concurrency ${DEFAULT_CONCURRENCY}) | ${parallel.ms.toFixed(0)} ms |`);
	out(`| ideal bound L*ceil(N/c) | ${ideal} ms |`);
	out();
	const ratio = parallel.ms / sequential.ms;
	const toIdeal = parallel.ms / ideal;
	return [
		[`${title}: default / sequential = ${ratio.toFixed(3)} (goal <= 0.15)`, ratio <= 0.15],
		[`${title}: default / ideal bound = ${toIdeal.toFixed(3)} (goal <= 1.15)`, toIdeal <= 1.15],
		[`${title}: every run had every answer in place, exactly once`, [...seq, ...par].every((r) => r.exact)],
	];
}

async function manyItems(): Promise<Array<[string, boolean]>> {
	return [
		...(await sideBySide(`${QUOTA_ITEMS} quota items`, QUOTA_ITEMS, quotaItems)),
		...(await sideBySide(
			`${LISTING_ITEMS} listing items of 5 pages each, each confirmed by a second read`,
			2 * LISTING_ITEMS * (FIVE_PAGES / PAGE_SIZE),
			listingItems,
		)),
	];
}

/** 500 quota items against a gateway that refuses every 7th request with REQUEST_TRAFFIC_EXCEED_LIMIT. */
async function rateLimitedItems(): Promise<Array<[string, boolean]>> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS, ['--rate-limit-every', '7']);
	let result: ItemsRun;
	let stats: { requests: number; faults: Record<string, number> };
	try {
		result = await quotaItems(url, undefined);
		stats = (await (await fetch(`${url}/__stats`)).json()) as typeof stats;
	} finally {
		child.kill();
	}
	const refused = stats.faults.rateLimit ?? 0;
	out(`## ${QUOTA_ITEMS} quota items, every 7th request refused with REQUEST_TRAFFIC_EXCEED_LIMIT`);
	out();
	out('| run | wall time | requests | refused and retried |');
	out('|---|---|---|---|');
	out(`| default (concurrency ${DEFAULT_CONCURRENCY}) | ${result.ms.toFixed(0)} ms | ${stats.requests} | ${refused} |`);
	out();
	return [
		[
			`rate-limited run: every one of ${QUOTA_ITEMS} answers in place, exactly once (${refused} refusals retried)`,
			result.exact && stats.requests === QUOTA_ITEMS + refused,
		],
	];
}

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
	const requestsSoFar = async () => ((await (await fetch(`${url}/__stats`)).json()) as { requests: number }).requests;
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

/** Runs of each set poll but the 500 single triggers (27 s): the fastest is shown, as for the runs above. */
const SET_RUNS = 3;

/** The fastest of `n` runs, one after another: the machine's own noise only ever adds time. */
async function bestOf(n: number, run: () => Promise<PollRun>): Promise<PollRun> {
	let best: PollRun | undefined;
	for (let i = 0; i < n; i++) {
		const result = await run();
		if (!best || result.ms < best.ms) best = result;
	}
	return best as PollRun;
}

const SET_SUBJECTS = 500;
const SET_CUSTOMERS = 50;

/** Watch Many, one poll of each kind, against the simulator at LATENCY_MS. */
async function watchedSets(): Promise<Array<[string, boolean]>> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const credentials = sandboxCredentials(url);
	const subjectsText = Array.from({ length: SET_SUBJECTS }, (_, i) => `USER_ID, U-B${i}, USD`).join('\n');
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
	const runs: Record<string, PollRun> = {};
	try {
		const quotaSet = { event: 'quotaChanged', watch: 'many', subjectsEntry: 'text', subjectsText };
		let quotaState = {};
		await events(poller(quotaSet, {})); // warm-up
		runs.quotaBaseline = await bestOf(SET_RUNS, async () => {
			quotaState = {};
			return await timedPoll(url, async () => await events(poller(quotaSet, quotaState)));
		});
		runs.quotaQuiet = await bestOf(
			SET_RUNS,
			async () => await timedPoll(url, async () => await events(poller(quotaSet, quotaState))),
		);
		// The same subjects as 500 single-subject triggers, polled one after another.
		const singles = Array.from({ length: SET_SUBJECTS }, (_, i) => ({
			parameters: {
				event: 'quotaChanged',
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: `U-B${i}`,
				currency: 'USD',
			},
			state: {},
		}));
		runs.quotaSingles = await timedPoll(url, async () => {
			let n = 0;
			for (const single of singles) n += await events(poller(single.parameters, single.state));
			return n;
		});
		const customerSet = {
			event: 'beneficiaryChanged',
			watch: 'many',
			customersEntry: 'text',
			customersText: Array.from({ length: SET_CUSTOMERS }, (_, n) => `CUST_FIVE_${n}`).join('\n'),
		};
		let customerState = {};
		await events(poller(customerSet, {})); // warm-up: the simulator makes the lists
		runs.customersBaseline = await bestOf(SET_RUNS, async () => {
			customerState = {};
			return await timedPoll(url, async () => await events(poller(customerSet, customerState)));
		});
		runs.customersQuiet = await bestOf(
			SET_RUNS,
			async () => await timedPoll(url, async () => await events(poller(customerSet, customerState))),
		);
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
	out(`## Watch Many: one trigger poll over many entries (${LATENCY_MS} ms gateway latency, ${c} requests at once)`);
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
async function setBeyondOnePoll(): Promise<Array<[string, boolean]>> {
	const { url, child } = await startSimulatorProcess(LATENCY_MS);
	const parameters = {
		event: 'beneficiaryChanged',
		watch: 'many',
		customersEntry: 'text',
		customersText: Array.from({ length: CUSTOMERS_BEYOND }, (_, n) => `CUST_FIVE_${n}`).join('\n'),
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
		`## Watch Many beyond one poll: ${CUSTOMERS_BEYOND} customers of 5 pages, ${BUDGET_BEYOND_MS} ms poll budget, ${LATENCY_MS} ms latency (${roundTripMs.toFixed(0)} ms a request, measured)`,
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

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
