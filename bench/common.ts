/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only benchmark */
/** What every part of the benchmark shares: the gateway's latency, the simulator in its own process, goals. */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { REQUEST_WIDTH } from '../nodes/PartnerAccountInquiry/shared/core/flow/scheduler';

/** What a part measured against its goals: the line printed, and whether the goal was met. */
export type Goals = Array<[text: string, met: boolean]>;

export const LATENCY_MS = 50;
export const DEFAULT_CONCURRENCY = REQUEST_WIDTH;
export const QUOTA_ITEMS = 500;
export const FIVE_PAGES = 250;
export const PAGE_SIZE = 50;
/** Alternating runs of each setup; the fastest is shown: a shared 2-core machine's noise only ever adds time. */
export const ROUNDS = 2;
export const out = (text = '') => process.stdout.write(`${text}\n`);
export const fastest = <T extends { ms: number }>(runs: T[]): T => runs.reduce((a, b) => (b.ms < a.ms ? b : a));

/** The simulator in a process of its own, so that its signing does not share the measured process. */
export async function startSimulatorProcess(
	latency: number,
	extraArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
	const args = ['--port', '0', '--latency', String(latency), ...extraArgs];
	const child = fork(join(__dirname, '..', 'sandbox', 'cli.js'), args, {
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

/** The simulator's count of requests answered and faults struck. */
export async function simulatorStats(url: string): Promise<{ requests: number; faults: Record<string, number> }> {
	return (await (await fetch(`${url}/__stats`)).json()) as { requests: number; faults: Record<string, number> };
}
