/** The failed executions that report failure episodes (failures.ts) and refuse an activation. */
import { UNKNOWN_RETRY_SCHEDULE_MINUTES } from '../shared/core/api/resultCodes';
import { PartnerError, WatchedSetError } from '../shared/core/errors';
import { MAX_READS } from '../shared/core/flow/paging';
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
const UNKNOWN_BACKOFF_HOURS = (UNKNOWN_RETRY_SCHEDULE_MINUTES.reduce((a, b) => a + b, 0) / 60).toFixed(1);

/** An entry with something to report (`error`: this poll's, of a going episode). */
export type Pending = { label: string; where: string; failure?: Failure; ended?: EndedFailure; error?: unknown };

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const nameOf = (entry: { label: string; where: string }) =>
	entry.where ? `${entry.label} (${entry.where})` : entry.label;

/** One error naming each entry of `lines` ("<entry>: <why>"), at most SHOWN, the others counted. */
function listed(lines: string[], watched: number, before: string, after: string, hint: string): WatchedSetError {
	const more = lines.length > SHOWN ? `; and ${lines.length - SHOWN} more` : '';
	const message = `${before}${lines.length} of the ${watched} watched ${watched === 1 ? 'entry' : 'entries'} ${after}: ${lines.slice(0, SHOWN).join('; ')}${more}`;
	return new WatchedSetError(lines.length, watched, message, hint);
}

/** One entry's going episode is its own error, hinting what comes next; anything else one error naming each entry. */
export function reportError(pending: Pending[], watched: number, nowMs: number): unknown {
	const [only] = pending;
	if (watched === 1 && only.failure && !only.ended) {
		const hint = hintFor(only.failure, nowMs);
		if (!(only.error instanceof PartnerError)) {
			// Reported by a later poll than the one that failed (after n8n's start, say): what it failed with.
			const next = 'The trigger goes on polling; its first successful read reports what changed meanwhile, once.';
			return new WatchedSetError(1, 1, `${only.failure.reason}${detail(only.failure)}`, hint ?? next);
		}
		only.error.hint = hint ?? only.error.hint;
		return only.error;
	}
	const lines = pending.map((entry) => {
		const { ended, failure } = entry;
		const times = ended && ended.episodes > 1 ? ` ${ended.episodes} times` : '';
		const recovered = ended ? `failed${times} and recovered by ${isoSeconds(ended.endedAt)}: ${ended.reason}` : '';
		const going = failure ? `${failure.reason}${detail(failure)}` : '';
		return `${nameOf(entry)}: ${[recovered, going].filter(Boolean).join('; then ')}`;
	});
	return listed(
		lines,
		watched,
		'',
		'failed',
		'Every other entry was read and its events were emitted as usual. Each failure named here is reported once (a status U back-off at its start and after its 7th repeat); a failing entry keeps its saved state, so its first successful read reports what changed meanwhile, once.',
	);
}

function detail(failure: Failure): string {
	const unsettled = failure.unsettled !== undefined ? ` (at each of the last ${failure.unsettled} polls)` : '';
	const when = failure.backoff ? `; asked again at the first poll from ${isoSeconds(failure.backoff.nextPollAt)}` : '';
	const support = `; every one of its ${UNKNOWN_REPEATS} repeats was answered U: contact technical support`;
	return `${unsettled}${when}${stageOf(failure) === 'support' ? support : ''}`;
}

/** What one entry's report says the trigger does next. */
function hintFor(failure: Failure, nowMs: number): string | undefined {
	const backoff = failure.backoff;
	if (backoff) {
		const askAgain = isoSeconds(backoff.nextPollAt);
		const waitMinutes = Math.round((backoff.nextPollAt - nowMs) / 60_000);
		if (stageOf(failure) === 'support')
			return `The gateway answered U (outcome unknown) to this question and to each of its ${UNKNOWN_REPEATS} repeats, as far apart as the API asks; contact technical support quoting this message. The trigger goes on asking every ${waitMinutes} minutes (next at ${askAgain}) without reporting this again, and carries on as usual at the first successful answer.`;
		const times = backoff.unknowns > 1 ? ` ${backoff.unknowns} times in a row` : '';
		return `The gateway answered U (outcome unknown)${times}. As the API asks, the trigger stops asking this question until ${askAgain} (${waitMinutes} minutes), and asks again at most ${UNKNOWN_REPEATS} times in all, ${UNKNOWN_RETRY_MINUTES} to ${UNKNOWN_RETRY_SCHEDULE_MINUTES[UNKNOWN_REPEATS - 1]} minutes apart (${UNKNOWN_BACKOFF_HOURS} hours). Meanwhile it emits nothing and reports nothing; the first answer that is not U ends the wait, and that poll reports what changed meanwhile, once. It reports again only if every repeat is answered U.`;
	}
	if (failure.unsettled !== undefined)
		return `The list changed while each of the last ${failure.unsettled} polls read it (each read it up to ${MAX_READS} times), so the trigger could not tell what really changed: these polls emitted nothing and the saved state did not change. It goes on polling without reporting this again, and the first poll that reads the list whole reports what changed, once. A list that keeps changing this long may be bound and unbound by an automated process: check with the gateway's operator.`;
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
		if (isUnknown(only.error))
			only.error.hint = `The gateway answered U (outcome unknown) to the poll n8n runs when the workflow is activated, so the trigger has no baseline to compare later polls with, and the workflow was not activated. Activate it again in ${UNKNOWN_RETRY_MINUTES} minutes or later, the wait the API asks for after U.`;
		return only.error;
	}
	const late = `not read within the activation's ${Math.round(budgetMs / 1000)} s`;
	const why = (error: unknown) => (error === undefined ? late : reasonOf(error));
	return listed(
		missing.map((entry) => `${nameOf(entry)}: ${why(entry.error)}`),
		watched,
		'The workflow was not activated: ',
		'could not be read at activation',
		`Every entry needs the baseline the activation poll takes, or a change made before a restart could go unreported. Activate again once they can be read (${UNKNOWN_RETRY_MINUTES} minutes later after a status U), or remove them from the set; split a set too large to read within one poll.`,
	);
}
