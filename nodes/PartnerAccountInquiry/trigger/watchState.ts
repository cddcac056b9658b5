/**
 * The trigger's saved state (framework-free), for one subject or a thousand: per entry, keyed by
 * the digest of the question a trigger watching it alone asks (watch.ts: what changes the answer
 * starts that entry anew, nothing else does), its own state (quotaState.ts, beneficiaryState.ts),
 * the poll it was last read at, its list's size and its failure episode (failures.ts); for the
 * set, events held back by the cap (emitted as found at the next polls), failure episodes that
 * ended unreported, what the last poll did, how fast requests went (pollPlan.ts). States of 0.2.0
 * (a set: version 1) and of 0.1.0 and 0.2.0 for one subject (the state at the top, its back-off
 * and list-changing count beside it) are carried on.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	currentFailure,
	isEndedFailure,
	isSavedFailure,
	UNKNOWN_REPEATS,
	type EndedFailure,
	type Failure,
	type SavedFailure,
} from './failures';
import type { Family } from './events';
import type { LegacyKey } from './legacyKeys';
import type { Pace } from './pollPlan';
import { every, finite, flag, isRecord, optional, shaped, text, wholeNumber, type Check } from './savedState';

/** Each watched entry's keys in states of 0.3.0 and before (legacyKeys.ts), and its key now. */
export type LegacyKeys = ReadonlyMap<string, LegacyKey>;

export const WATCH_STATE_VERSION = 3;
/** 2: 0.3.0's, keyed by the question with its events and threshold (legacyKey); 3: keyed by the request. */
const MIGRATED_VERSIONS = [2, WATCH_STATE_VERSION];
/** Events held back by the cap, at most (beyond: an entry's events stay in its list, found again later). */
export const MAX_HELD_EVENTS = 2000;

/**
 * An entry's record: `readAt` the turn it was last read at (0: never); `unchanged`: its last read
 * found the saved state as it was (0.3.0 named it `held`); `doubt`: its state may lack a finding
 * n8n did not save (quotaState.ts: a quota below alerts).
 */
export interface EntryRecord {
	state?: unknown;
	readAt: number;
	failure?: Failure;
	pages?: number;
	unchanged?: boolean;
	doubt?: boolean;
}
/** An event found and held back by the cap: its entry and its item, as it will be emitted. */
export type HeldEvent = { key: string; json: IDataObject };

export interface WatchState {
	version: typeof WATCH_STATE_VERSION;
	kind: 'watch';
	family: Family;
	/** Polls that read the set so far: what `readAt` counts in. */
	turn: number;
	entries: Record<string, EntryRecord>;
	held: HeldEvent[];
	ended: Record<string, EndedFailure>;
	/** What the last poll did: a poll with events after one that emitted reports a pending failure first. */
	last: 'quiet' | 'emitted' | 'reported';
	pace?: Pace;
}

/** What the node's static data held for one subject before (0.1.0, 0.2.0), beside `state`: in the state now. */
export const LEGACY_BESIDE_KEYS = ['unknownBackoff', 'listUnsettled'] as const;
export type LegacyBeside = Partial<Record<(typeof LEGACY_BESIDE_KEYS)[number], unknown>>;

export function emptyState(family: Family): WatchState {
	return {
		version: WATCH_STATE_VERSION,
		kind: 'watch',
		family,
		turn: 0,
		entries: {},
		held: [],
		ended: {},
		last: 'quiet',
	};
}

/**
 * The saved state as this version keeps it: `state` (none: a fresh one), or a problem when it is
 * damaged (a warning, then a fresh one). `legacy` maps each watched entry's key in the states of
 * 0.1.0 to 0.3.0 (legacyKey: the events, threshold and raw filters in it) to its key now (the
 * request alone): such a state is migrated, its entries, held events and failures re-keyed.
 */
export function readWatchState(
	saved: unknown,
	family: Family,
	beside: LegacyBeside,
	legacyKeys: () => LegacyKeys,
): { state: WatchState; problem?: string; unmatched?: number } {
	const fresh = emptyState(family);
	if (saved === undefined || saved === null) return { state: fresh };
	if (!isRecord(saved)) return { state: fresh, problem: `it is ${Array.isArray(saved) ? 'a list' : typeof saved}` };
	if (saved.kind === 'quota' || saved.kind === 'beneficiaries') {
		// One subject's state, as 0.1.0 and 0.2.0 kept it, under its question (a legacy key); a trigger
		// watching one entry hands it to that entry, whose own reader tells damage from another question.
		if (saved.kind !== family) return { state: fresh };
		const legacy = legacyKeys();
		const [only] = new Set([...legacy.values()].map(({ key }) => key)).size === 1 ? legacy.keys() : [];
		const old = legacy.has(saved.question as string) ? (saved.question as string) : only;
		if (old === undefined) return { state: fresh, unmatched: 1 };
		const failure = legacyFailure(beside, old);
		const record = { state: saved, readAt: 0, ...(failure ? { failure: failure as Failure } : {}) };
		const entries = { [old]: record };
		return { state: withCurrentFailures(rekeyed({ ...fresh, entries }, legacy)) };
	}
	// A watched set of 0.2.0 (version 1), or a state of 0.3.0 (version 2): keyed by legacy keys.
	const v1 = saved.kind === (family === 'quota' ? 'quotaSet' : 'beneficiarySet') && saved.version === 1;
	const watch = saved.kind === 'watch' && MIGRATED_VERSIONS.includes(saved.version as number);
	if (!v1 && !watch) {
		const known = ['watch', 'quotaSet', 'beneficiarySet'].includes(saved.kind as string);
		return {
			state: fresh,
			problem: known ? `it has an unknown version (${JSON.stringify(saved.version)})` : 'it is of no known kind',
		};
	}
	if (watch && saved.family !== family) return { state: fresh };
	const parts = Object.entries(PARTS).filter(([part]) => watch || part === 'entries' || part === 'turn');
	const bad = parts.find(([part, ok]) => !ok(saved[part]))?.[0];
	if (bad) return { state: fresh, problem: `its ${bad} ${bad === 'turn' ? 'is' : 'are'} not of the expected shape` };
	const state = watch
		? (saved as unknown as WatchState)
		: { ...fresh, turn: saved.turn as number, entries: saved.entries as Record<string, EntryRecord> };
	if (saved.version === WATCH_STATE_VERSION && watch) return { state: withCurrentFailures(state) };
	const legacy = legacyKeys();
	const unmatched = Object.keys(state.entries).filter((old) => !legacy.has(old)).length;
	return { state: withCurrentFailures(rekeyed(state, legacy)), ...(unmatched > 0 ? { unmatched } : {}) };
}

/** Every entry record in this version's form: 0.3.0 and before counted what a failure reported, and named `unchanged` `held`. */
function withCurrentFailures(state: WatchState): WatchState {
	const entries: Record<string, EntryRecord> = {};
	for (const [key, { held, ...record }] of Object.entries(
		state.entries as Record<string, EntryRecord & { held?: boolean }>,
	)) {
		entries[key] = { ...record, ...(held === undefined ? {} : { unchanged: held }) };
		if (record.failure) entries[key].failure = currentFailure(record.failure);
	}
	return { ...state, entries };
}

/**
 * A state keyed as 0.1.0 to 0.3.0 kept it, keyed by the request: each entry, held event, ended
 * failure and the question its own state and back-off name; what no watched entry's legacy key
 * names is dropped (`unmatched`, a warning: an entry edited after that release's last poll).
 */
function rekeyed(state: WatchState, legacy: LegacyKeys): WatchState {
	const entries: Record<string, EntryRecord> = {};
	const keyOf = (old: string) => legacy.get(old)?.key;
	for (const [old, record] of Object.entries(state.entries)) {
		const now = legacy.get(old);
		if (now === undefined) continue;
		// Its own state names the question too (its reader tells another question, or damage, from
		// it); a quota's records the threshold its alert was judged by, which the old key held.
		const judged = now.threshold === undefined ? {} : { threshold: now.threshold };
		const own: unknown =
			isRecord(record.state) && record.state.question === old
				? { ...judged, ...record.state, question: now.key }
				: record.state;
		const failure = record.failure?.backoff
			? { ...record.failure, backoff: { ...record.failure.backoff, question: now.key } }
			: record.failure;
		entries[now.key] = { ...record, state: own, ...(failure ? { failure } : {}) };
	}
	const held = state.held.flatMap((event) => {
		const key = keyOf(event.key);
		return key === undefined ? [] : [{ ...event, key }];
	});
	const ended = Object.fromEntries(
		Object.entries(state.ended).flatMap(([old, episode]) => {
			const key = keyOf(old);
			return key === undefined ? [] : [[key, episode]];
		}),
	);
	return { ...state, version: WATCH_STATE_VERSION, entries, held, ended };
}

const positive: Check = (value) => finite(value) && (value as number) > 0;
/** The saved state's parts and what each must be. */
const PARTS: Record<string, Check> = {
	entries: every(
		shaped({
			readAt: wholeNumber,
			pages: optional(wholeNumber),
			unchanged: optional(flag),
			held: optional(flag),
			doubt: optional(flag),
			failure: optional(isSavedFailure),
		}),
	),
	turn: wholeNumber,
	held: (v) => Array.isArray(v) && v.length <= MAX_HELD_EVENTS && v.every(shaped({ key: text, json: isRecord })),
	ended: every(isEndedFailure),
	last: (v) => ['quiet', 'emitted', 'reported'].includes(v as string),
	pace: optional(shaped({ roundTripMs: positive, msPerRequest: positive })),
};

/**
 * One subject's back-off after status U and its count of polls that found the list changing, as
 * 0.1.0 and 0.2.0 kept them beside the state, as the failure episode this version keeps per entry.
 */
function legacyFailure(
	{ unknownBackoff: backoff, listUnsettled: unsettled }: LegacyBeside,
	key: string,
): SavedFailure | undefined {
	if (
		isRecord(backoff) &&
		backoff.question === key &&
		wholeNumber(backoff.unknowns) &&
		wholeNumber(backoff.nextPollAt)
	) {
		// A back-off of 0.1.0 (no `reported`) counts as reported, as that release reported it.
		const saved = backoff.reported as 0 | 1 | 2;
		const reported = [0, 1, 2].includes(saved) ? saved : backoff.unknowns > UNKNOWN_REPEATS ? 2 : 1;
		const next = { question: key, unknowns: backoff.unknowns, nextPollAt: backoff.nextPollAt };
		return { reason: 'The API answered U (outcome unknown)', reported, backoff: next };
	}
	if (isRecord(unsettled) && unsettled.question === key && wholeNumber(unsettled.polls) && unsettled.polls > 0) {
		const reason = 'The beneficiary list changed while it was being read';
		return { reason, reported: unsettled.told === true ? 1 : 0, unsettled: unsettled.polls };
	}
	return undefined;
}
