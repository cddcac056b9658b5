/**
 * Whether a saved quota state holds every earlier poll's finding. Framework-free.
 *
 * n8n's default poller saves a workflow's static data only when a poll emits (and at activation);
 * what a poll that emits nothing writes lives in memory until then, and an n8n restart, another
 * main taking over, or n8n 2.x's poll scheduler without durable cursors (which starts each poll
 * from the saved copy) drops it. A quota alert re-armed by such a poll (the quota recovered) would
 * be forgotten and the next fall missed. So this process remembers the serial of the last state
 * it wrote for each trigger node: a state is whole when it is that one. The first poll of a node
 * in this process, or a state older than the one written, cannot tell, and the alert errs towards
 * firing (changes.ts quotaEvent).
 */
import type { QuotaState } from './quotaState';

/** Trigger node and state -> the serial last written here. Bounded: the oldest names go first. */
const written = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

const nameOf = (node: string, state: QuotaState) => `${node}\n${state.born}`;

/** `node` names the trigger node (workflow and node IDs). */
export function isWholeHistory(node: string, state: QuotaState): boolean {
	return written.get(nameOf(node, state)) === state.serial;
}

export function rememberWritten(node: string, state: QuotaState): void {
	const name = nameOf(node, state);
	written.delete(name);
	written.set(name, state.serial);
	if (written.size > MAX_REMEMBERED) written.delete(written.keys().next().value as string);
}

/** What an n8n restart does to this process's memory (for tests that play one). */
export function forgetWrittenStates(): void {
	written.clear();
}
