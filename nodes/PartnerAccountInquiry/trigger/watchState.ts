/** The trigger's saved state (framework-free): per entry, keyed by the request it sends, its record; for the set, what the last poll did. */
import { isEndedFailure, isFailure, type EndedFailure, type Failure } from './failures';
import type { Family } from './events';
import type { Pace } from './pollPlan';
import { every, finite, flag, isRecord, optional, shaped, unknownVersion, wholeNumber, type Check } from './savedState';

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
/** The saved state's parts and what each must be. */
const PARTS: Record<string, Check> = {
	entries: every(
		shaped({
			readAt: wholeNumber,
			pages: optional(wholeNumber),
			unchanged: optional(flag),
			doubt: optional(flag),
			failure: optional(isFailure),
		}),
	),
	turn: wholeNumber,
	ended: every(isEndedFailure),
	last: (v) => ['quiet', 'emitted', 'reported'].includes(v as string),
	pace: optional(shaped({ roundTripMs: positive, msPerRequest: positive })),
};

/** The saved state: fresh when there is none or it is the other family's (Trigger On switched), or a `problem` (a warning, then fresh). */
export function readWatchState(saved: unknown, family: Family): { state: WatchState; problem?: string } {
	const fresh = emptyState(family);
	if (saved === undefined || saved === null) return { state: fresh };
	if (!isRecord(saved)) return { state: fresh, problem: `it is ${Array.isArray(saved) ? 'a list' : typeof saved}` };
	if (saved.kind !== 'watch') return { state: fresh, problem: 'it is of no known kind' };
	if (saved.version !== WATCH_STATE_VERSION) {
		return { state: fresh, problem: unknownVersion(saved.version) };
	}
	if (saved.family !== family) return { state: fresh };
	const bad = Object.keys(PARTS).find((part) => !PARTS[part](saved[part]));
	if (bad) return { state: fresh, problem: `its ${bad} ${bad === 'turn' ? 'is' : 'are'} not of the expected shape` };
	const { turn, entries, ended, last, pace } = saved as unknown as WatchState;
	return { state: { ...fresh, turn, entries, ended, last, ...(pace ? { pace } : {}) } };
}
