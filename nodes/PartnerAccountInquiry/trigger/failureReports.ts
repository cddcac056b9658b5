/** The failed executions that report failure episodes (failures.ts) and refuse an activation. */
import { UNKNOWN_RETRY_SCHEDULE_MINUTES } from '../shared/core/api/resultCodes';
import { aboutAccount, PartnerError, WatchedSetError } from '../shared/core/errors';
import { MAX_READS } from '../shared/core/flow/paging';
import { ERRORS_DOC } from '../shared/core/links';
import {
	isUnknown,
	reasonOf,
	stageOf,
	UNKNOWN_REPEATS,
	UNKNOWN_RETRY_MINUTES,
	type EndedFailure,
	type Failure,
} from './failures';

/** Entries one report names at most (the rest are counted). */
const SHOWN = 20;

/** An entry with something to report (`error`: this poll's, of a going episode). */
export type Pending = { label: string; where: string; failure?: Failure; ended?: EndedFailure; error?: unknown };

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const nameOf = (entry: { label: string; where: string }) =>
	entry.where ? `${entry.label} (${entry.where})` : entry.label;

/**
 * One error counting the entries of `lines` in its message and naming each ("<entry>: <why>") in
 * its detail, at most SHOWN, the others counted.
 */
function listed(
	lines: string[],
	watched: number,
	before: string,
	after: string,
	hint: string,
	note: string,
): WatchedSetError {
	const more = lines.length > SHOWN ? `; and ${lines.length - SHOWN} more` : '';
	const message = `${before}${lines.length} of ${watched} watched ${watched === 1 ? 'entry' : 'entries'} ${after}`;
	return new WatchedSetError(
		lines.length,
		watched,
		message,
		hint,
		`${lines.slice(0, SHOWN).join('; ')}${more}. ${note}`,
	);
}

/** One entry's going episode is its own error, hinting what comes next; anything else one error naming each entry. */
export function reportError(pending: Pending[], watched: number, nowMs: number): unknown {
	const [only] = pending;
	if (watched === 1 && only.failure && !only.ended) {
		const detail = nextDetail(only.failure, nowMs);
		const hint = nextHint(only.failure);
		if (!(only.error instanceof PartnerError)) {
			// Reported by a later poll than the one that failed (after n8n's start, say): what it failed with.
			const goesOn = 'The trigger goes on polling; its first successful read reports what changed meanwhile, once.';
			return aboutAccount(
				new WatchedSetError(
					1,
					1,
					only.failure.reason,
					hint ?? `Fix what it names, if anything: ${CATCH_UP}.`,
					detail ?? goesOn,
				),
				only.label,
			);
		}
		if (detail !== undefined) only.error.detail = detail;
		if (hint !== undefined) only.error.hint = hint;
		return aboutAccount(only.error, only.label);
	}
	const lines = pending.map((entry) => {
		const { ended, failure } = entry;
		const times = ended && ended.episodes > 1 ? ` ${ended.episodes} times` : '';
		const recovered = ended ? `failed${times} and recovered by ${isoSeconds(ended.endedAt)}: ${ended.reason}` : '';
		const going = failure ? `${failure.reason}${episodeNote(failure)}` : '';
		return `${nameOf(entry)}: ${[recovered, going].filter(Boolean).join('; then ')}`;
	});
	return listed(
		lines,
		watched,
		'',
		'failed',
		`Fix what each entry's reason names, if anything: ${CATCH_UP}.`,
		'Every other entry was read and its events were emitted as usual. Each failure is reported once; a failing entry keeps its saved state, so its first successful read reports what changed meanwhile.',
	);
}

/** What a failing entry's line adds to its reason: how long it went on, when it is asked again, support. */
function episodeNote(failure: Failure): string {
	const unsettled = failure.unsettled !== undefined ? ` (at each of the last ${failure.unsettled} polls)` : '';
	const when = failure.backoff ? `; asked again at the first poll from ${isoSeconds(failure.backoff.nextPollAt)}` : '';
	const support = `; every one of its ${UNKNOWN_REPEATS} repeats was answered U: contact technical support`;
	return `${unsettled}${when}${stageOf(failure) === 'support' ? support : ''}`;
}

/** What a report says of the polls to come. */
const CATCH_UP = 'the trigger goes on polling and catches up at its first successful read';

/** What one entry's report says the trigger does next: its detail, when a status U or a changing list says more. */
function nextDetail(failure: Failure, nowMs: number): string | undefined {
	const backoff = failure.backoff;
	if (backoff) {
		const askAgain = isoSeconds(backoff.nextPollAt);
		const waitMinutes = Math.round((backoff.nextPollAt - nowMs) / 60_000);
		if (stageOf(failure) === 'support')
			return `The gateway answered U (outcome unknown) to this question and to each of its ${UNKNOWN_REPEATS} repeats, as far apart as the API asks. The trigger goes on asking every ${waitMinutes} minutes (next at ${askAgain}) without reporting this again.`;
		const times = backoff.unknowns > 1 ? ` ${backoff.unknowns} times in a row` : '';
		return `The gateway answered U (outcome unknown)${times}. As the API asks, the trigger stops asking this question until ${askAgain} (${waitMinutes} minutes), then asks again at most ${UNKNOWN_REPEATS} times, ${UNKNOWN_RETRY_MINUTES} to ${UNKNOWN_RETRY_SCHEDULE_MINUTES[UNKNOWN_REPEATS - 1]} minutes apart; meanwhile it emits and reports nothing.`;
	}
	if (failure.unsettled !== undefined)
		return `The list changed while each of the last ${failure.unsettled} polls read it (each up to ${MAX_READS} times), so these polls emitted nothing and the saved state did not change. The first poll that reads it whole reports what changed, once.`;
	return undefined;
}

/** What to do about one entry's report, when a status U or a changing list asks for something else than its error's hint. */
function nextHint(failure: Failure): string | undefined {
	if (failure.backoff) {
		if (stageOf(failure) === 'support') return 'Contact technical support quoting this message.';
		return `Nothing to do: the first answer that is not U reports what changed meanwhile (schedule: ${ERRORS_DOC}).`;
	}
	if (failure.unsettled !== undefined)
		return "If it keeps changing, ask the gateway's operator whether an automated process binds and unbinds beneficiaries.";
	return undefined;
}

/** Refuses an activation that missed an entry: a later baseline is not saved by every n8n setup, so could be lost. */
export function activationError(
	missing: Array<Pending & { error?: unknown }>,
	watched: number,
	budgetMs: number,
): unknown {
	const [only] = missing;
	if (watched === 1 && only.error instanceof PartnerError) {
		if (isUnknown(only.error)) {
			only.error.detail =
				'The gateway answered U (outcome unknown) to the poll of the activation, so the trigger has no baseline to compare later polls with, and the workflow was not activated.';
			only.error.hint = `Activate it again in ${UNKNOWN_RETRY_MINUTES} minutes or later, the wait the API asks for after U.`;
		}
		return aboutAccount(only.error, only.label);
	}
	const late = `not read within the activation's ${Math.round(budgetMs / 1000)} s`;
	const why = (error: unknown) => (error === undefined ? late : reasonOf(error));
	return listed(
		missing.map((entry) => `${nameOf(entry)}: ${why(entry.error)}`),
		watched,
		'Not activated: ',
		'could not be read',
		`Activate again once they can be read (${UNKNOWN_RETRY_MINUTES} minutes later after a status U).`,
		'Every entry needs the baseline the activation poll takes, or a change made before a restart could go unreported.',
	);
}
