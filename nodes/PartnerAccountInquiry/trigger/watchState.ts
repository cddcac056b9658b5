/**
 * The trigger's saved state (framework-free): one record per watched entry, whether the trigger
 * watches one subject or a thousand, and what the set carries from poll to poll.
 *
 * - An entry is keyed by the digest of the question a trigger watching it alone asks (event(s),
 *   subject or customer and filters, threshold, access token, client ID, gateway: poll.ts), so
 *   that what changes the answer starts that entry anew and nothing else does: an entry whose key
 *   is no longer watched is dropped, a new one takes its baseline, the others carry on.
 * - Its record: its own state as quotaState.ts or beneficiaryState.ts keep it, the poll (`turn`)
 *   it was last read at, how large its list was and whether its last read held (the plan's
 *   estimate), and its failure episode (failures.ts).
 * - The set: events found but held back by the cap on a poll's items (emitted as found, first, at
 *   the next polls), failure episodes that ended before they were reported, what the last poll
 *   did (reports and emissions take turns), and how fast requests went (pollPlan.ts).
 *
 * States saved by 0.2.0 (a watched set: version 1) and by 0.1.0 and 0.2.0 for one subject (the
 * entry's state at the top, with its back-off and list-changing count beside it) are carried on.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Failure } from './failures';
import type { Family } from './events';
import type { Pace } from './pollPlan';
import { isRecord } from './savedState';

export const WATCH_STATE_VERSION = 2;
/** Events held back by the cap, at most (beyond: an entry's events stay in its list, found again later). */
export const MAX_HELD_EVENTS = 2000;

export interface EntryRecord {
	state?: unknown;
	/** The turn it was last read at (0: never). */
	readAt: number;
	failure?: Failure;
	/** A list's pages at its last read. */
	pages?: number;
	/** Whether its last read was what it had saved (one read of a list; none to confirm). */
	held?: boolean;
}

/** A failure episode that ended before it was reported: reported still, once. */
export interface EndedFailure {
	reason: string;
	/** Episodes of the entry ended unreported since its last report. */
	episodes: number;
	/** When the last one ended (epoch ms). */
	endedAt: number;
}

/** An event found and held back by the cap: its entry and its item, as it will be emitted. */
export interface HeldEvent {
	key: string;
	json: IDataObject;
}

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

/** What the node's static data held for one subject before (0.1.0, 0.2.0): beside `state`. */
export interface LegacyBeside {
	unknownBackoff?: unknown;
	listUnsettled?: unknown;
}

const whole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

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
 * damaged (a warning, then a fresh one). `oneKey`: the key of the one entry of a trigger watching
 * one subject, under which a state saved for one subject by 0.1.0 or 0.2.0 is carried on (its own
 * reader checks it is of that question).
 */
export function readWatchState(
	saved: unknown,
	family: Family,
	beside: LegacyBeside,
	oneKey: string | undefined,
): { state: WatchState; problem?: string } {
	const fresh = emptyState(family);
	if (saved === undefined || saved === null) return { state: fresh };
	if (!isRecord(saved)) return { state: fresh, problem: `it is ${Array.isArray(saved) ? 'a list' : typeof saved}` };
	if (saved.kind === 'quota' || saved.kind === 'beneficiaries') {
		// One subject's state, as 0.1.0 and 0.2.0 kept it.
		if (oneKey === undefined || saved.kind !== family) return { state: fresh };
		const failure = legacyFailure(beside, oneKey);
		return { state: { ...fresh, entries: { [oneKey]: { state: saved, readAt: 0, ...(failure ? { failure } : {}) } } } };
	}
	if (saved.kind === 'quotaSet' || saved.kind === 'beneficiarySet') {
		// A watched set of 0.2.0: its entries are this version's, keyed alike.
		if (saved.kind !== (family === 'quota' ? 'quotaSet' : 'beneficiarySet')) return { state: fresh };
		if (saved.version !== 1)
			return { state: fresh, problem: `its watched set has an unknown version (${JSON.stringify(saved.version)})` };
		const problem = entriesProblem(saved.entries) ?? (whole(saved.turn) ? undefined : 'its turn is no count');
		return problem
			? { state: fresh, problem }
			: { state: { ...fresh, turn: saved.turn as number, entries: saved.entries as Record<string, EntryRecord> } };
	}
	if (saved.kind !== 'watch') return { state: fresh, problem: 'it is of no known kind' };
	if (saved.version !== WATCH_STATE_VERSION)
		return { state: fresh, problem: `it has an unknown version (${JSON.stringify(saved.version)})` };
	if (saved.family !== family) return { state: fresh };
	const problem =
		entriesProblem(saved.entries) ??
		(whole(saved.turn) ? undefined : 'its turn is no count') ??
		heldProblem(saved.held) ??
		endedProblem(saved.ended) ??
		(['quiet', 'emitted', 'reported'].includes(saved.last as string) ? undefined : 'it says no last poll') ??
		paceProblem(saved.pace);
	return problem ? { state: fresh, problem } : { state: saved as unknown as WatchState };
}

function entriesProblem(entries: unknown): string | undefined {
	if (!isRecord(entries)) return 'its entries are not of the expected shape';
	for (const record of Object.values(entries)) {
		if (
			!isRecord(record) ||
			!whole(record.readAt) ||
			!(record.pages === undefined || whole(record.pages)) ||
			!(record.held === undefined || typeof record.held === 'boolean')
		) {
			return 'an entry is not of the expected shape';
		}
		const failure = record.failure;
		if (failure === undefined) continue;
		if (
			!isRecord(failure) ||
			typeof failure.reason !== 'string' ||
			![0, 1, 2].includes(failure.reported as number) ||
			!(failure.unsettled === undefined || whole(failure.unsettled)) ||
			!(failure.since === undefined || whole(failure.since))
		) {
			return 'a failure of an entry is not of the expected shape';
		}
	}
	return undefined;
}

function heldProblem(held: unknown): string | undefined {
	const ok =
		Array.isArray(held) &&
		held.length <= MAX_HELD_EVENTS &&
		held.every((event) => isRecord(event) && typeof event.key === 'string' && isRecord(event.json));
	return ok ? undefined : 'its held events are not of the expected shape';
}

function endedProblem(ended: unknown): string | undefined {
	const ok =
		isRecord(ended) &&
		Object.values(ended).every(
			(e) => isRecord(e) && typeof e.reason === 'string' && whole(e.episodes) && e.episodes >= 1 && whole(e.endedAt),
		);
	return ok ? undefined : 'its unreported failures are not of the expected shape';
}

function paceProblem(pace: unknown): string | undefined {
	if (pace === undefined) return undefined;
	const positive = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n > 0;
	return isRecord(pace) && positive(pace.roundTripMs) && positive(pace.msPerRequest)
		? undefined
		: 'its pace is not of the expected shape';
}

/**
 * One subject's back-off after status U and its count of polls that found the list changing, as
 * 0.1.0 and 0.2.0 kept them beside the state, as the failure episode this version keeps per entry.
 */
function legacyFailure({ unknownBackoff, listUnsettled }: LegacyBeside, key: string): Failure | undefined {
	if (
		isRecord(unknownBackoff) &&
		unknownBackoff.question === key &&
		whole(unknownBackoff.unknowns) &&
		whole(unknownBackoff.nextPollAt)
	) {
		const unknowns = unknownBackoff.unknowns;
		// A back-off of 0.1.0 (no `reported`) counts as reported, as that release reported it.
		const reported = [0, 1, 2].includes(unknownBackoff.reported as number)
			? (unknownBackoff.reported as 0 | 1 | 2)
			: unknowns > 7
				? 2
				: 1;
		return {
			reason: 'The API answered U (outcome unknown)',
			reported,
			backoff: { question: key, unknowns, nextPollAt: unknownBackoff.nextPollAt, reported },
		};
	}
	if (
		isRecord(listUnsettled) &&
		listUnsettled.question === key &&
		whole(listUnsettled.polls) &&
		listUnsettled.polls > 0
	) {
		return {
			reason: 'The beneficiary list changed while it was being read',
			reported: listUnsettled.told === true ? 1 : 0,
			unsettled: listUnsettled.polls,
		};
	}
	return undefined;
}
