/**
 * A poll's phases over plain data (poll.ts runs them in order): plan (each watched entry's record
 * and saved state, the held events as the events picked now have them), read (pollPlan.ts, each
 * entry compared as it arrives), settle (each record after its read: a failure episode goes on or
 * ends), cap (events in the order found, at most the cap now, the rest held) and the state after.
 */
import { MAX_EVENTS_PER_POLL, pairedRemoval } from './beneficiaryDiff';
import { changeEvent, type TriggerEvent } from './events';
import { backoffProblem, dueStage, endedUnreported, failureAfter, told, type EndedFailure } from './failures';
import type { Pending } from './failureReports';
import type { PollReads } from './pollPlan';
import type { Loaded } from './store';
import type { Watch } from './watch';
import type { Compared, WatchedEntry } from './watchedEntry';
import { MAX_HELD_EVENTS, emptyState, type EntryRecord, type HeldEvent, type WatchState } from './watchState';

const ANOTHER_QUESTION =
	"it was saved by release 0.2.0 or before for another question: another subject or customer, or a threshold edited (or hidden by unpicking Quota Below Threshold) before this release's first poll was saved";

/** What a poll works on: each watched entry's record and saved state, episodes ended untold, the events held back. */
export interface PollData {
	turn: number;
	entries: Record<string, EntryRecord>;
	ended: Record<string, EndedFailure>;
	saved: Map<string, unknown>;
	held: HeldEvent[];
	/** How many of `held`, first, an activation set aside (the rest: held by this run's polls). */
	setAside: number;
}

/** An entry read to its end: what it returned, whether its state was trusted whole, and its comparison. */
export type Read = { value: unknown; sure: boolean; compared: Compared };

/**
 * Plan: entries no longer watched are dropped with what they held; new ones start without a state
 * (their baseline). `warn` names a saved state or back-off that cannot be used (dropped).
 */
export function plan(loaded: Loaded, watch: Watch, now: number, warn: (problem: string, outcome: string) => void) {
	const before = loaded.state;
	const data: PollData = { turn: before.turn + 1, entries: {}, ended: {}, saved: new Map(), held: [], setAside: 0 };
	for (const entry of watch.entries) {
		const record: EntryRecord = { ...(before.entries[entry.key] ?? { readAt: 0 }) };
		// A state that may lack a finding a lost write held (a re-armed alert) stays in doubt until read.
		if (!loaded.wholeHistory) record.doubt = true;
		data.entries[entry.key] = record;
		if (before.ended[entry.key]) data.ended[entry.key] = before.ended[entry.key];
		const own = record.state === undefined ? {} : entry.readState(record.state);
		const named = (problem: string) => (watch.many ? `${entry.label}: ${problem}` : problem);
		if (own.problem) warn(named(own.problem), 'its entry records a fresh baseline and reports no change');
		// Only a one-subject state of 0.1.0 or 0.2.0 asks another question here (legacyKeys.ts): an
		// edit made before this release's first poll was saved.
		else if (record.state !== undefined && own.state === undefined)
			warn(named(ANOTHER_QUESTION), 'its entry records a fresh baseline');
		data.saved.set(entry.key, own.state);
		// A back-off the API could not have asked for (edited, a clock stepped back): dropped with its episode, asked at once.
		const damage = record.failure && backoffProblem(record.failure, now);
		if (damage) warn(named(damage), 'the back-off is started anew and this poll asks at once');
		if (damage) delete record.failure;
	}
	// Events held back before a deactivation were found while active: they follow (for entries still
	// watched), as the events picked now have them: one no longer picked is not emitted (the state
	// moved past it); a change held as Bank Details Changed is a Beneficiary Changed without it.
	const watched = new Set(watch.entries.map(({ key }) => key));
	const follows = ({ key, json }: HeldEvent): HeldEvent[] => {
		const changed = json.changes ? Object.keys(json.changes) : undefined;
		const event = changed ? changeEvent(changed, watch.events) : (json.event as TriggerEvent);
		return watched.has(key) && event && watch.events.has(event) ? [{ key, json: { ...json, event } }] : [];
	};
	const setAside = loaded.setAside.flatMap(follows);
	data.held = [...setAside, ...before.held.flatMap(follows)];
	data.setAside = setAside.length;
	return data;
}

/** The entries with a stage of an episode to report or an episode ended untold (`live`: this poll's errors). */
export function pending(data: PollData, watch: Watch, live?: Map<string, unknown>): Pending[] {
	return watch.entries.flatMap(({ key, label, where }) => {
		const failure = data.entries[key].failure;
		const going = dueStage(failure) ? failure : undefined;
		const ended = data.ended[key];
		return going || ended ? [{ label, where, failure: going, ended, error: live?.get(key) }] : [];
	});
}

/**
 * Settle: each entry read to its end (or cut short as too large) moves its record: a success ends
 * its episode (what nobody heard of it is left to report), a failure goes on with it. Returns the
 * entries read with what they found, and this poll's errors by entry; `endedAt`: when an entry's read ended.
 */
export function settle(
	data: PollData,
	watch: Watch,
	reads: PollReads<Read>,
	tooLarge: (key: string) => Error,
	pages: (key: string) => number | undefined,
	endedAt: (key: string) => number,
) {
	const live = new Map<string, unknown>();
	const found: Array<Read & { entry: WatchedEntry }> = [];
	for (const entry of watch.entries) {
		const record = data.entries[entry.key];
		const size = pages(entry.key);
		if (size !== undefined) record.pages = size;
		const outcome =
			reads.tooLarge === entry.key ? { ok: false as const, error: tooLarge(entry.key) } : reads.outcomes.get(entry.key);
		if (!outcome) continue;
		record.readAt = data.turn;
		if (outcome.ok) {
			const left = endedUnreported(record.failure, data.ended[entry.key], endedAt(entry.key));
			if (left) data.ended[entry.key] = left;
			delete record.failure;
			delete record.doubt;
			found.push({ entry, ...outcome.value });
		} else {
			record.failure = failureAfter(record.failure, outcome.error, entry.key, endedAt(entry.key));
			live.set(entry.key, outcome.error);
		}
	}
	return { found, live };
}

/**
 * Cap: events in the order found (held ones first), each entry's state moving past its own; what
 * does not fit in the held queue either stays in its entry's list, found again later. Returns the
 * queue; `cut` says how much of it is emitted now.
 */
export function queueEvents(data: PollData, found: Array<Read & { entry: WatchedEntry }>): HeldEvent[] {
	// One place fewer than the queue holds: the cut may move back by one (a bank change never parted).
	let room = MAX_EVENTS_PER_POLL - 1 + MAX_HELD_EVENTS - data.held.length;
	const fresh: HeldEvent[] = [];
	const alertSetAside = new Set(
		data.held.slice(0, data.setAside).flatMap((held) => (isAlert(held.json) ? [held.key] : [])),
	);
	for (const { entry, value, sure, compared } of found) {
		const record = data.entries[entry.key];
		// Short of room, an alert set aside stands for its subject's own: the state moves past both
		// (else the subject would be alerted again at a later poll).
		const own =
			compared.events.length > room && alertSetAside.has(entry.key)
				? { ...compared, events: compared.events.filter((json) => !isAlert(json)) }
				: compared;
		const { events, next } =
			own.events.length <= room ? own : entry.compare(data.saved.get(entry.key), value, room, sure);
		room -= events.length;
		if (next === undefined) delete record.state;
		else record.state = next;
		record.unchanged = compared.unchanged;
		fresh.push(...events.map((json) => ({ key: entry.key, json })));
	}
	// An activation's baseline alerts each quota below now: an alert set aside for a subject whose
	// baseline alert found a place would come twice (one whose did not comes instead, once).
	const alerting = new Set(fresh.filter(({ json }) => isAlert(json)).map(({ key }) => key));
	data.held = data.held.filter((held, i) => i >= data.setAside || !isAlert(held.json) || !alerting.has(held.key));
	return [...data.held, ...fresh];
}

const isAlert = (json: { event?: unknown }) => json.event === 'quotaBelowThreshold';

/**
 * The queue cut at the cap, which never parts a bank change without a reference ID (an Added and
 * its Removed, side by side): what is emitted now, and what is held, as each entry keeps it (the
 * state never keeps a bank account whole: beneficiary events stay masked, a quota subject that is
 * an account is given back whole when emitted).
 */
export function cut(
	data: PollData,
	queue: HeldEvent[],
	entryOf: (key: string) => Pick<WatchedEntry, 'toHeld' | 'fromHeld'>,
): { emitted: HeldEvent[]; held: HeldEvent[] } {
	const [last, next] = [queue[MAX_EVENTS_PER_POLL - 1], queue[MAX_EVENTS_PER_POLL]];
	const at = MAX_EVENTS_PER_POLL - (next && pairedRemoval(last, next) ? 1 : 0);
	const wasHeld = (i: number) => i < data.held.length;
	const emitted = queue
		.slice(0, at)
		.map((event, i) => (wasHeld(i) ? { ...event, json: entryOf(event.key).fromHeld(event.json) } : event));
	const held = queue
		.slice(at)
		.map((event, i) => (wasHeld(i + at) ? event : { ...event, json: entryOf(event.key).toHeld(event.json) }));
	return { emitted, held };
}

/** The state after a poll that emitted `emitted` and holds `held`; a report marks every episode's due stage told. */
export function stateAfter(
	data: PollData,
	watch: Watch,
	{
		emitted,
		held,
		reported,
		pace,
	}: { emitted: HeldEvent[]; held: HeldEvent[]; reported: boolean; pace?: WatchState['pace'] },
): WatchState {
	for (const record of reported ? Object.values(data.entries) : []) {
		if (record.failure) record.failure = told(record.failure);
	}
	const last = reported ? 'reported' : emitted.length > 0 ? 'emitted' : 'quiet';
	const { turn, entries } = data;
	const state: WatchState = {
		...emptyState(watch.family),
		turn,
		entries,
		held,
		ended: reported ? {} : data.ended,
		last,
	};
	if (pace) state.pace = pace;
	return state;
}
