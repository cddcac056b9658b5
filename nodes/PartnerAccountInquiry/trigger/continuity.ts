/**
 * What a poll knows of the polls before it, beyond the static data it was given. Framework-free.
 *
 * n8n does not save every poll's static data, and which ones it saves depends on the setup:
 * n8n's default poller saves it when a poll emits and at activation (a quiet poll's writes live in
 * memory until then); 2.x's poll scheduler without durable cursors gives each poll a fresh copy of
 * what was saved, and saves only a poll that emits; with durable cursors every poll is saved but
 * the one that runs at activation (unless it emits) and one that throws. The node does not ask n8n
 * which; it looks at what comes back:
 *
 * - Every poll that writes leaves a poll record next to its state: which run of states it belongs
 *   to (`born`), how many polls wrote it (`polls`), when, whether the poll emitted nothing.
 * - This process remembers the last node data it wrote per trigger node. A poll given older data
 *   than that (a poll this process ran was not saved) carries on from the remembered data instead,
 *   and its own write saves it where n8n saves this poll. Only an n8n restart (or another main
 *   process) loses it.
 * - A poll given a fresh copy of the static data that holds the write of a poll that emitted
 *   nothing, itself given such a copy, has seen two quiet polls in a row saved: polls are saved
 *   here (one alone proves nothing: n8n saves the poll it runs at an activation on every setup).
 *   The record says so (`everyPollSaved`) until a write is seen lost, and after a restart the
 *   saved state is then known to hold every poll's finding (trigger/quotaState.ts needs that to
 *   alert exactly once).
 */
import { randomBytes } from 'node:crypto';

import { isRecord, type StateReading } from './savedState';

export const POLL_RECORD_VERSION = 1;

export interface PollRecord {
	version: typeof POLL_RECORD_VERSION;
	/** Random, made when a node's data starts anew (an activation): names this run of writes. */
	born: string;
	/** The polls that wrote this run so far. */
	polls: number;
	/** When the last of them wrote (epoch ms). */
	at: number;
	/** Whether it emitted nothing. */
	quiet: boolean;
	/** Whether a poll that emitted nothing was seen saved, by the poll after it, with no write lost since. */
	everyPollSaved: boolean;
}

/** The node's static data this module carries: the state, the back-off after status U, the record. */
export const NODE_DATA_KEYS = ['state', 'unknownBackoff', 'pollRecord'] as const;
export type NodeData = Partial<Record<(typeof NODE_DATA_KEYS)[number], unknown>>;

const whole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** The saved poll record; none is what a release before it saved (carried on, as not known to be whole). */
export function readPollRecord(saved: unknown): StateReading<PollRecord> {
	if (saved === undefined || saved === null) return {};
	if (
		!isRecord(saved) ||
		saved.version !== POLL_RECORD_VERSION ||
		typeof saved.born !== 'string' ||
		!whole(saved.polls) ||
		saved.polls < 1 ||
		!whole(saved.at) ||
		typeof saved.quiet !== 'boolean' ||
		typeof saved.everyPollSaved !== 'boolean'
	) {
		return { problem: 'its poll record is not of the expected shape' };
	}
	return { state: saved as unknown as PollRecord };
}

interface Written {
	record: PollRecord;
	data: NodeData;
	/** Whether the poll that wrote it saw the quiet poll before it saved. */
	quietSeenSaved: boolean;
}

/** Trigger node -> the data this process last wrote for it. Bounded: the oldest names go first. */
const written = new Map<string, Written>();
const MAX_REMEMBERED = 1_000;
/** The static data objects this process wrote into: a poll given one of them was not given a fresh copy. */
let writtenInto = new WeakSet<object>();

export interface Carried {
	/** The data to carry on from instead of what the poll was given (which is older), or undefined. */
	adopt?: NodeData;
	/** The record this poll follows (undefined: none, start a new run). */
	record?: PollRecord;
	/** Whether the state carried on from holds every earlier poll's finding. */
	whole: boolean;
	/** What this poll's record says of it. */
	everyPollSaved: boolean;
	/** This poll was given, in a copy of its own, the write of a quiet poll before it. */
	quietSeenSaved: boolean;
}

/**
 * How a poll of `node` carries on, given the record in its static data (`staticData`, the object
 * n8n gave it). `node` names the trigger node (workflow and node IDs).
 */
export function carryOn(node: string, saved: PollRecord | undefined, staticData: object): Carried {
	const mine = written.get(node);
	if (!mine) {
		return { record: saved, whole: saved?.everyPollSaved === true, everyPollSaved: false, quietSeenSaved: false };
	}
	const last = mine.record;
	if (saved && saved.born === last.born && saved.polls === last.polls) {
		// The last write of this process came back, in a copy of its own (not the object it wrote
		// into): it was saved. Two quiet polls in a row seen saved so are the evidence that every
		// poll is saved here (one is not: n8n saves the poll it runs at an activation on every setup).
		const fresh = !writtenInto.has(staticData);
		const quietSeenSaved = fresh && last.quiet;
		const everyPollSaved = quietSeenSaved ? mine.quietSeenSaved : fresh && saved.everyPollSaved;
		return { record: saved, whole: true, everyPollSaved, quietSeenSaved };
	}
	const mineIsNewer = !saved || (saved.born === last.born ? saved.polls < last.polls : saved.at < last.at);
	// A write of this process was not saved: carry on from it; polls are not all saved here.
	if (mineIsNewer) return { adopt: mine.data, record: last, whole: true, everyPollSaved: false, quietSeenSaved: false };
	// Written since by another process (another main): carry on from it, as it says of itself.
	return { record: saved, whole: saved.everyPollSaved, everyPollSaved: false, quietSeenSaved: false };
}

/** The record of a poll that writes after `carried`, and whether it emitted nothing. */
export function nextRecord(carried: Carried, quiet: boolean, nowMs: number): PollRecord {
	const previous = carried.record;
	return {
		version: POLL_RECORD_VERSION,
		born: previous?.born ?? randomBytes(9).toString('base64url'),
		polls: (previous?.polls ?? 0) + 1,
		at: nowMs,
		quiet,
		everyPollSaved: carried.everyPollSaved,
	};
}

/** This process wrote `data` (its record included) into `staticData` for `node`, carrying on as `carried`. */
export function rememberWritten(
	node: string,
	staticData: object,
	carried: Carried,
	data: NodeData & { pollRecord: PollRecord },
): void {
	written.delete(node);
	written.set(node, { record: data.pollRecord, data: { ...data }, quietSeenSaved: carried.quietSeenSaved });
	writtenInto.add(staticData);
	if (written.size > MAX_REMEMBERED) written.delete(written.keys().next().value as string);
}

/** A new activation of `node`: what this process wrote before is no state to carry on from. */
export function forgetNode(node: string): void {
	written.delete(node);
}

/** What an n8n restart does to this process's memory (for tests that play one). */
export function forgetWrittenStates(): void {
	written.clear();
	writtenInto = new WeakSet<object>();
}
