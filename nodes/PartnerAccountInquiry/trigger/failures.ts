/**
 * An entry's failure episodes and how they are reported (framework-free): from its first failed
 * read to its next successful one. Each episode is reported once, as a failed execution, whether
 * it is still going on or already ended; a list that changed while it was read only at the 3rd
 * poll in a row (such a list usually settles by the next poll, which reports its change once).
 * Status U backs off as the API asks (docs/api.md, Result codes: at most 7 repeats, 5 to 320
 * minutes apart): the polls between send nothing; the episode is reported at its start and, if the
 * 7th repeat is answered U too, once more that support must be contacted; then the trigger asks
 * at the schedule's last step without reporting again, until an answer that is not U.
 */
import { UNKNOWN_RETRY_SCHEDULE_MINUTES } from '../shared/core/api/resultCodes';
import { ApiResultError, ListingChangedError, PartnerError, WatchedSetError } from '../shared/core/errors';
import { MAX_READS } from '../shared/core/flow/paging';
import { shaped, text, wholeNumber } from './savedState';
import type { EndedFailure } from './watchState';

/** Polls in a row that find a list changing while they read it before that is reported. */
export const UNSETTLED_POLLS_REPORTED = 3;
/** Entries one report names at most (the rest are counted). */
const SHOWN = 20;

/** What an episode reports, each once: a failure, a back-off after U, that support must be contacted, a list that keeps changing. */
export type Stage = 'failed' | 'unknown' | 'support' | 'unsettled';
const STAGES: readonly Stage[] = ['failed', 'unknown', 'support', 'unsettled'];

export interface Failure {
	/** What failed, as a message may show it (the session's errors are redacted). */
	reason: string;
	/** What the last failed read was: an answer U, a list changing while read, or any other failure. */
	kind: 'unknown' | 'unsettled' | 'failed';
	/** The stages of this episode reported so far. */
	told: Stage[];
	backoff?: UnknownBackoff;
	/** Polls in a row that found its list changing while they read it. */
	unsettled?: number;
	/** When the episode began (epoch ms; absent in episodes saved by 0.2.0). */
	since?: number;
}

/** An episode as 0.3.0 and before saved it: `reported` 0 nothing, 1 its start, 2 support told too. */
export type SavedFailure = Omit<Failure, 'kind' | 'told'> &
	Partial<Pick<Failure, 'kind' | 'told'>> & { reported?: 0 | 1 | 2 };

/** A saved episode in this version's form: what 0.3.0 and before counted in `reported`, as the stages told. */
export function currentFailure({ reported, ...saved }: SavedFailure): Failure {
	const kind = saved.kind ?? (saved.backoff ? 'unknown' : saved.unsettled !== undefined ? 'unsettled' : 'failed');
	const told = saved.told ?? (reported === 2 ? ['unknown', 'support'] : reported === 1 ? [kind] : []);
	return { ...saved, kind, told };
}

export const isStages = (value: unknown) =>
	Array.isArray(value) && value.every((stage) => STAGES.includes(stage as Stage));

/** The API's back-off after status U, for the entry `question` (its key). */
export interface UnknownBackoff {
	question: string;
	/** Answers U in a row. */
	unknowns: number;
	/** Epoch ms before which a poll sends nothing. */
	nextPollAt: number;
}

export const UNKNOWN_REPEATS = UNKNOWN_RETRY_SCHEDULE_MINUTES.length;
/** The wait after a first answer U. */
export const UNKNOWN_RETRY_MINUTES = UNKNOWN_RETRY_SCHEDULE_MINUTES[0];
/** The whole back-off, first answer to last repeat, in hours (10.6). */
const UNKNOWN_BACKOFF_HOURS = (UNKNOWN_RETRY_SCHEDULE_MINUTES.reduce((a, b) => a + b, 0) / 60).toFixed(1);
const stepMinutes = (unknowns: number) => UNKNOWN_RETRY_SCHEDULE_MINUTES[Math.min(unknowns, UNKNOWN_REPEATS) - 1];

const isBackoff = shaped({ question: text, unknowns: (n) => wholeNumber(n) && n >= 1, nextPollAt: wholeNumber });

/**
 * Why a saved episode's back-off is one the API cannot have asked for, if it is: not of its shape,
 * saying support was told before the 8th answer U (which would silence that report), or ending
 * later from now than its step allows (static data edited, a clock stepped back). Such a back-off
 * is dropped with its episode, with a warning, and the entry is asked at once.
 */
export function backoffProblem(failure: Failure, nowMs: number): string | undefined {
	const backoff = failure.backoff;
	if (backoff === undefined) return undefined;
	if (!isBackoff(backoff)) return 'its back-off after status U is not of the expected shape';
	if (failure.told.includes('support') && backoff.unknowns <= UNKNOWN_REPEATS) {
		return `its back-off after status U says support was told after ${backoff.unknowns} answers U, fewer than the API's ${UNKNOWN_REPEATS + 1}`;
	}
	const left = (backoff.nextPollAt - nowMs) / 60_000;
	const step = stepMinutes(backoff.unknowns);
	if (left <= step) return undefined;
	const answers = `${backoff.unknowns} answer${backoff.unknowns === 1 ? '' : 's'} U`;
	return `its back-off after status U ends ${Math.round(left)} minutes from now, longer than the API ever asks after ${answers} (${step} minutes)`;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const isUnknown = (error: unknown) => error instanceof ApiResultError && error.explanation.status === 'U';

/** The stage an episode is at: what its last failed read reports (none: a list changing, before the 3rd poll). */
export function stageOf(failure: Failure): Stage | undefined {
	if (failure.kind === 'unknown') return (failure.backoff?.unknowns ?? 0) > UNKNOWN_REPEATS ? 'support' : 'unknown';
	if (failure.kind === 'unsettled')
		return (failure.unsettled ?? 0) >= UNSETTLED_POLLS_REPORTED ? 'unsettled' : undefined;
	return 'failed';
}

/** The stage of the episode still to report, if any: each stage once an episode. */
export function dueStage(failure: Failure | undefined): Stage | undefined {
	const stage = failure && stageOf(failure);
	return stage && !failure.told.includes(stage) ? stage : undefined;
}

/** The episode once its due stage was reported. */
export function told(failure: Failure): Failure {
	const stage = dueStage(failure);
	return stage ? { ...failure, told: [...failure.told, stage] } : failure;
}

/** Whether the entry waits out a status U back-off now. */
export const waitsOut = (failure: Failure | undefined, nowMs: number): boolean =>
	failure?.backoff !== undefined && nowMs < failure.backoff.nextPollAt;

/** The episode after one more failed read of the entry `key`. */
export function failureAfter(previous: Failure | undefined, error: unknown, key: string, nowMs: number): Failure {
	const episode = { reason: reasonOf(error), told: previous?.told ?? [], since: previous?.since ?? nowMs };
	if (isUnknown(error)) {
		// The API's back-off: one more answer U, and the wait its step asks for.
		const unknowns = (previous?.backoff?.unknowns ?? 0) + 1;
		const backoff = { question: key, unknowns, nextPollAt: nowMs + stepMinutes(unknowns) * 60_000 };
		return { ...episode, kind: 'unknown', backoff };
	}
	if (error instanceof ListingChangedError)
		return { ...episode, kind: 'unsettled', unsettled: (previous?.unsettled ?? 0) + 1 };
	// Another kind of failure continues the episode: a back-off stays; a row of polls that found the list changing is broken.
	return { ...episode, kind: 'failed', ...(previous?.backoff ? { backoff: previous.backoff } : {}) };
}

/** An episode that ends now: what is left to report of it (the stage it reached and nobody heard of), if anything. */
export function endedUnreported(
	failure: Failure | undefined,
	before: EndedFailure | undefined,
	nowMs: number,
): EndedFailure | undefined {
	if (!failure || !dueStage(failure)) return before;
	return { reason: failure.reason, episodes: (before?.episodes ?? 0) + 1, endedAt: nowMs };
}

/** An entry with something to report: how a message names it, and what (`error`: this poll's, of a going episode). */
export type Pending = { label: string; where: string; failure?: Failure; ended?: EndedFailure; error?: unknown };

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const nameOf = (entry: { label: string; where: string }) =>
	entry.where ? `${entry.label} (${entry.where})` : entry.label;

/** One error naming each entry of `lines` ("<entry>: <why>"), at most SHOWN of them, the others counted. */
function listed(lines: string[], watched: number, before: string, after: string, hint: string): WatchedSetError {
	const more = lines.length > SHOWN ? `; and ${lines.length - SHOWN} more` : '';
	const message = `${before}${lines.length} of the ${watched} watched ${watched === 1 ? 'entry' : 'entries'} ${after}: ${lines.slice(0, SHOWN).join('; ')}${more}`;
	return new WatchedSetError(lines.length, watched, message, hint);
}

/**
 * The failed execution that reports `pending`: one entry's going episode is its own error, with a
 * hint that says what the trigger does next; anything else one error naming each entry.
 */
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
	const when = failure.backoff ? `; asked again at ${isoSeconds(failure.backoff.nextPollAt)}` : '';
	const support =
		stageOf(failure) === 'support'
			? `; every one of its ${UNKNOWN_REPEATS} repeats was answered U: contact technical support`
			: '';
	return `${unsettled}${when}${support}`;
}

/** What one entry's report says the trigger does next. */
function hintFor(failure: Failure, nowMs: number): string | undefined {
	const backoff = failure.backoff;
	if (backoff) {
		const askAgain = isoSeconds(backoff.nextPollAt);
		const waitMinutes = Math.round((backoff.nextPollAt - nowMs) / 60_000);
		if (stageOf(failure) === 'support') {
			return `The gateway answered U (outcome unknown) to this question and to each of its ${UNKNOWN_REPEATS} repeats, as far apart as the API asks; contact technical support quoting this message. The trigger goes on asking every ${waitMinutes} minutes (next at ${askAgain}) without reporting this again, and carries on as usual at the first successful answer.`;
		}
		const times = backoff.unknowns > 1 ? ` ${backoff.unknowns} times in a row` : '';
		return `The gateway answered U (outcome unknown)${times}. As the API asks, the trigger stops asking this question until ${askAgain} (${waitMinutes} minutes), and asks again at most ${UNKNOWN_REPEATS} times in all, ${UNKNOWN_RETRY_MINUTES} to ${UNKNOWN_RETRY_SCHEDULE_MINUTES[UNKNOWN_REPEATS - 1]} minutes apart (${UNKNOWN_BACKOFF_HOURS} hours). Meanwhile it emits nothing and reports nothing; the first answer that is not U ends the wait, and that poll reports what changed meanwhile, once. It reports again only if every repeat is answered U.`;
	}
	if (failure.unsettled !== undefined) {
		return `The list changed while each of the last ${failure.unsettled} polls read it (each read it up to ${MAX_READS.confirmed} times), so the trigger could not tell what really changed: these polls emitted nothing and the saved state did not change. It goes on polling without reporting this again, and the first poll that reads the list whole reports what changed, once. A list that keeps changing this long may be bound and unbound by an automated process: check with the gateway's operator.`;
	}
	return undefined;
}

/**
 * The error that refuses an activation whose poll could not read every entry (one taken later
 * by a poll that emits nothing is not saved by every n8n setup, and a restart would lose it with
 * the changes made meanwhile): one entry's own error, or one naming each.
 */
export function activationError(
	missing: Array<Pending & { error?: unknown }>,
	watched: number,
	budgetMs: number,
): unknown {
	const [only] = missing;
	if (watched === 1 && only.error instanceof PartnerError) {
		if (isUnknown(only.error)) {
			only.error.hint = `The gateway answered U (outcome unknown) to the poll n8n runs when the workflow is activated, so the trigger has no baseline to compare later polls with, and the workflow was not activated. Activate it again in ${UNKNOWN_RETRY_MINUTES} minutes or later, the wait the API asks for after U.`;
		}
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
