/** The trigger's saved state (framework-free): per entry, keyed by the request it sends, its record; for the set, what the last poll did. */
import { isEndedFailure, isFailure, type EndedFailure, type Failure } from './failures';
import type { Family } from './events';
import type { Pace } from './pollPlan';
import { finite, isRecord, shaped, unknownVersion, wholeNumber, type Check } from './savedState';

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
/** The most pages a list can report: the API writes `totalPageNumber` in at most 8 characters. */
const MOST_PAGES = 99_999_999;

/**
 * An entry's record as a poll can use it, or undefined when it cannot be (not a record, or a failure
 * not of its shape: the entry starts anew). Its hints are repaired without loss, each to the side
 * that can only cost a request or a repeat, never an event: a read time not a whole number reads it
 * first; a page count the API cannot give is measured again; "unchanged" not true confirms the
 * next read; "doubt" not false keeps the doubt (a quota below alerts again, at least once).
 */
function entryRecord(value: unknown): EntryRecord | undefined {
	if (!isRecord(value) || (value.failure !== undefined && !isFailure(value.failure))) return undefined;
	const { state, readAt, pages, unchanged, doubt, failure } = value;
	return {
		...(state !== undefined ? { state } : {}),
		readAt: wholeNumber(readAt) ? readAt : 0,
		...(wholeNumber(pages, MOST_PAGES) ? { pages } : {}),
		...(unchanged === true ? { unchanged } : {}),
		...(doubt !== undefined && doubt !== false ? { doubt: true } : {}),
		...(failure !== undefined ? { failure: failure as Failure } : {}),
	};
}
const isPace = shaped({ roundTripMs: positive, msPerRequest: positive });
const LAST = ['quiet', 'emitted', 'reported'];

/**
 * The saved state read back: fresh when there is none or it is the other family's (the Events
 * switched), or a `problem` (a warning, then fresh) when it is no set's state at all. Damage stays
 * where it is: an entry whose record (entryRecord) or ended episode cannot be used is left out (it
 * starts anew), named in `damaged` by its key.
 * The set's own parts are recovered without loss: its poll count from its entries, its last
 * outcome as quiet (at worst a due report waits a poll), its pace measured again (an estimate).
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
	const bad = ['entries', 'ended'].find((part) => !isRecord(saved[part]));
	if (bad) return { ...fresh, problem: `its ${bad} are not of the expected shape` };
	const records = Object.entries(saved.entries as Record<string, unknown>);
	const episodes = Object.entries(saved.ended as Record<string, unknown>);
	const damaged = new Map<string, string>();
	const usable = new Map<string, EntryRecord>();
	for (const [key, value] of records) {
		const record = entryRecord(value);
		if (record) usable.set(key, record);
		else damaged.set(key, 'its record is not of the expected shape');
	}
	const turn = wholeNumber(saved.turn) ? saved.turn : Math.max(0, ...[...usable.values()].map((r) => r.readAt));
	for (const [key, episode] of episodes) {
		if (!isEndedFailure(episode) && !damaged.has(key))
			damaged.set(key, 'its failure episode that ended unreported is not of the expected shape');
	}
	// fromEntries: a key is a digest, but one edited into "__proto__" stays a key.
	// A record read at a later poll than the set has made (edited) would wait behind every other
	// entry for ever: it counts as read at the last poll, so it is read again in its turn.
	const entries = Object.fromEntries(
		[...usable].filter(([key]) => !damaged.has(key)).map(([key, record]) => [key, { ...record, readAt: Math.min(record.readAt, turn) }]),
	) as Record<string, EntryRecord>;
	const ended = Object.fromEntries(episodes.filter(([key]) => !damaged.has(key))) as Record<string, EndedFailure>;
	const last = LAST.includes(saved.last as string) ? (saved.last as WatchState['last']) : 'quiet';
	const pace = isPace(saved.pace) ? (saved.pace as Pace) : undefined;
	return { state: { ...fresh.state, turn, entries, ended, last, ...(pace ? { pace } : {}) }, damaged };
}
