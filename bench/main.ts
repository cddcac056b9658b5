/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only benchmark */
/**
 * `npm run bench`: figures measured side by side in one run, each against its goal (not a timed
 * test; docs/benchmark.md). The parts, each in its own file: per-request CPU (cpu.ts), Return All
 * over 200 pages (listing.ts), many input items and a rate-limited gateway (items.ts), a list of many
 * polls (sets.ts). `-- --cpu-only` runs the CPU part alone (a few seconds), `-- --sets-only` the
 * many-entries part, `-- --rate-limited-only` the rate-limited quota run.
 */
import { cpus, totalmem } from 'node:os';

import { type Goals, out } from './common';
import { perRequest, requestCpu } from './cpu';
import { manyItems, rateLimitedItems } from './items';
import { returnAll } from './listing';
import { setBeyondOnePoll, watchedSets } from './sets';

async function main(): Promise<void> {
	out(
		`# Benchmark: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
	);
	out();
	const only = (flag: string) => process.argv.includes(`--${flag}-only`);
	// CPU first, in a fresh heap (cpu.ts says why).
	const cpu = only('sets') || only('rate-limited') ? undefined : requestCpu();
	const goals: Goals = [];
	if (only('sets')) goals.push(...(await watchedSets()), ...(await setBeyondOnePoll()));
	else if (only('rate-limited')) goals.push(...(await rateLimitedItems()));
	else if (!only('cpu')) {
		goals.push(...(await returnAll()), ...(await manyItems()), ...(await rateLimitedItems()));
		goals.push(...(await watchedSets()), ...(await setBeyondOnePoll()));
	}
	if (cpu) goals.push(...perRequest(cpu));
	out('## Goals');
	out();
	for (const [text, met] of goals) out(`- ${met ? 'met' : 'MISSED'}: ${text}`);
	process.exitCode = goals.every(([, met]) => met) ? 0 : 1;
}

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
