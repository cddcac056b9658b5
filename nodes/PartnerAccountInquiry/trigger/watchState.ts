/** The trigger's saved state (framework-free): per entry, keyed by the request it sends, its record; for the set, what the last poll did. */
import { isEndedFailure, isFailure, type EndedFailure, type Failure } from './failures';
import type { Family } from './events';
import type { Pace } from './pollPlan';
import { finite, flag, isRecord, optional, shaped, unknownVersion, wholeNumber, type Check } from './savedState';

export const WATCH_STATE_VERSION = 3;

/**
 * An entry's record: `readAt` the turn it was last read at (0: never); `unchanged`: its last read
 * found the saved state as it was; `doubt`: its state may lack a finding n8n did not save (a quota
 * below alerts again: quotaState.ts).
 */
export type EntryRecord = {
	state?: unknown;
	readAt: number;
	failure?: Failure;
	pages?: number;
	unchanged?: boolean;
	doubt?: boolean;
};

export interface WatchState {
	version: typeof WATCH_STATE_VERSION;
	kind: 'watch';
	family: Family;
	/** Polls so far: what `readAt` counts in. */
	turn: number;
	entries: Record<string, EntryRecord>;
	ended: Record<string, EndedFailure>;
	last: 'quiet' | 'emitted' | 'reported';
	pace?: Pace;
}

export function emptyState(family: Family): WatchState {
	return { version: WATCH_STATE_VERSION, kind: 'watch', family, turn: 0, entries: {}, ended: {}, last: 'quiet' };
}

const positive: Check = (value) => finite(value) && (value as number) > 0;
/** An entry's record: its state is checked by the entry itself (watchedEntry.ts readState), its back-off with the time (pollPhases.ts). */
const isEntryRecord = shaped({
	readAt: wholeNumber,
	pages: optional(wholeNumber),
	unchanged: optional(flag),
	doubt: optional(flag),
	failure: optional(isFailure),
});
/** The saved state's set-wide parts and what each must be; each entry's record and ended episode are checked on their own. */
const PARTS: Record<string, Check> = {
	entries: isRecord,
	turn: wholeNumber,
	ended: isRecord,
	last: (v) => ['quiet', 'emitted', 'reported'].includes(v as string),
	pace: optional(shaped({ roundTripMs: positive, msPerRequest: positive })),
};

/**
 * The saved state read back: fresh when there is none or it is the other family's (the Events
 * switched), or a `problem` (a warning, then fresh). Damage stays where it is: an entry whose record
 * or ended episode is not of its shape is left out (it starts anew), named in `damaged` by its key.
 */
export function readWatchState(
	saved: unknown,
	family: Family,
): { state: WatchState; problem?: string; damaged: Map<string, string> } {
	const fresh = { state: emptyState(family), damaged: new Map<string, string>() };
	if (saved === undefined || saved === null) return fresh;
	if (!isRecord(saved)) return { ...fresh, problem: `it is ${Array.isArray(saved) ? 'a list' : typeof saved}` };
	if (saved.kind !== 'watch') return { ...fresh, problem: 'it is of no known kind' };
	if (saved.version !== WATCH_STATE_VERSION) return { ...fresh, problem: unknownVersion(saved.version) };
	if (saved.family !== family) return fresh;
	const bad = Object.keys(PARTS).find((part) => !PARTS[part](saved[part]));
	if (bad) return { ...fresh, problem: `its ${bad} ${bad === 'turn' ? 'is' : 'are'} not of the expected shape` };
	const { turn, last, pace } = saved as unknown as WatchState;
	const records = Object.entries(saved.entries as Record<string, unknown>);
	const episodes = Object.entries(saved.ended as Record<string, unknown>);
	const damaged = new Map<string, string>();
	for (const [key, record] of records) {
		if (!isEntryRecord(record)) damaged.set(key, 'its record is not of the expected shape');
	}
	for (const [key, episode] of episodes) {
		if (!isEndedFailure(episode) && !damaged.has(key))
			damaged.set(key, 'its failure episode that ended unreported is not of the expected shape');
	}
	// fromEntries: a key is a digest, but one edited into "__proto__" stays a key.
	const entries = Object.fromEntries(records.filter(([key]) => !damaged.has(key))) as Record<string, EntryRecord>;
	const ended = Object.fromEntries(episodes.filter(([key]) => !damaged.has(key))) as Record<string, EndedFailure>;
	return { state: { ...fresh.state, turn, entries, ended, last, ...(pace ? { pace } : {}) }, damaged };
}
