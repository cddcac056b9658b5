/** A poll's phases over plain data, run by poll.ts: plan, read (pollPlan.ts), settle, the state after. */
import type { IDataObject } from 'n8n-workflow';

import { backoffProblem, dueStage, endedUnreported, failureAfter, told, type EndedFailure } from './failures';
import type { Pending } from './failureReports';
import type { PollReads } from './pollPlan';
import type { Watch } from './watch';
import type { Compared, WatchedEntry } from './watchedEntry';
import { emptyState, type EntryRecord, type WatchState } from './watchState';

/** What a poll works on: each watched entry's record and saved state, episodes ended untold. */
export interface PollData {
	turn: number;
	entries: Record<string, EntryRecord>;
	ended: Record<string, EndedFailure>;
	saved: Map<string, unknown>;
}

/** What a warning says of an entry whose saved data cannot be used: `entry` named in a set. */
export const entryProblem = (watch: Watch, entry: WatchedEntry, problem: string) =>
	watch.many ? `${entry.label}: ${problem}` : problem;
export const STARTS_ANEW = 'its entry records a fresh baseline and reports no change';

/**
 * Plan: entries no longer watched are dropped, new ones start without a state; `warn` names what
 * cannot be used, once an entry: a damaged state is dropped (a fresh baseline at its next read), a
 * damaged back-off with its episode. Damage stays where it is: the other entries carry on.
 */
export function plan(
	before: WatchState,
	wholeHistory: boolean,
	watch: Watch,
	now: number,
	warn: (problem: string, outcome: string) => void,
): PollData {
	const data: PollData = { turn: before.turn + 1, entries: {}, ended: {}, saved: new Map() };
	for (const entry of watch.entries) {
		const record: EntryRecord = { ...(before.entries[entry.key] ?? { readAt: 0 }) };
		// A state that may lack a finding a lost write held (a re-armed alert) stays in doubt until read.
		if (!wholeHistory) record.doubt = true;
		data.entries[entry.key] = record;
		if (before.ended[entry.key]) data.ended[entry.key] = before.ended[entry.key];
		const problems: string[] = [];
		const outcomes: string[] = [];
		const own = record.state === undefined ? {} : entry.readState(record.state);
		if (own.problem) {
			problems.push(own.problem);
			outcomes.push(STARTS_ANEW);
			// Not written back: a read that fails leaves no damage for the next poll to warn of again.
			delete record.state;
			delete record.unchanged;
		}
		data.saved.set(entry.key, own.state);
		// A back-off the API could not have asked for (edited, a clock stepped back): dropped with its episode, asked at once.
		const damage = record.failure && backoffProblem(record.failure, now);
		if (damage) {
			problems.push(damage);
			outcomes.push('the back-off is started anew and this poll asks at once');
			delete record.failure;
		}
		if (problems.length > 0) warn(entryProblem(watch, entry, problems.join('; ')), outcomes.join(', and '));
	}
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
 * Settle: a success ends an entry's episode (what nobody heard of it is left to report) and moves its
 * state past its events; a failure goes on with it. Returns the events in the set's order, the
 * comparisons and this poll's errors; `endedAt`: when an entry's read ended (a U's wait runs from it).
 */
export function settle(
	data: PollData,
	watch: Watch,
	reads: PollReads<Compared>,
	tooLarge: (key: string) => Error,
	pages: (key: string) => number | undefined,
	endedAt: (key: string) => number,
) {
	const live = new Map<string, unknown>();
	const found: Compared[] = [];
	const events: IDataObject[] = [];
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
			const compared = outcome.value;
			if (compared.next === undefined) delete record.state;
			else record.state = compared.next;
			record.unchanged = compared.unchanged;
			found.push(compared);
			events.push(...compared.events);
		} else {
			record.failure = failureAfter(record.failure, outcome.error, endedAt(entry.key));
			live.set(entry.key, outcome.error);
		}
	}
	return { found, events, live };
}

/** The state after a poll; a report marks every episode's due stage told. */
export function stateAfter(
	data: PollData,
	watch: Watch,
	{ emitted, reported, pace }: { emitted: number; reported: boolean; pace?: WatchState['pace'] },
): WatchState {
	for (const record of reported ? Object.values(data.entries) : []) {
		if (record.failure) record.failure = told(record.failure);
	}
	const last = reported ? 'reported' : emitted > 0 ? 'emitted' : 'quiet';
	const { turn, entries } = data;
	return {
		...emptyState(watch.family),
		turn,
		entries,
		ended: reported ? {} : data.ended,
		last,
		...(pace ? { pace } : {}),
	};
}
