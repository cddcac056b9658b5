/**
 * An entry's failure episodes and how they are reported (framework-free): from its first failed
 * read to its next successful one. Each episode is reported once, as a failed execution, whether
 * it is still going on or already ended; a list that changed while it was read only at the 3rd
 * poll in a row (such a list usually settles by the next poll, which reports its change once).
 * Status U backs off as the API asks (docs/api.md, Result codes: at most 7 repeats, 5 to 320
 * minutes apart): the polls between send nothing; the episode is reported at its start and, if the
 * 7th repeat is answered U too, once more that support must be contacted; then the trigger asks
 * at the schedule's last step without reporting again, until an answer that is not U. What a
 * report says: failureReports.ts.
 */
import { UNKNOWN_RETRY_SCHEDULE_MINUTES } from '../shared/core/api/resultCodes';
import { ApiResultError, ListingChangedError } from '../shared/core/errors';
import { optional, shaped, text, wholeNumber } from './savedState';

/** Polls in a row that find a list changing while they read it before that is reported. */
export const UNSETTLED_POLLS_REPORTED = 3;

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
}

const isStages = (value: unknown) => Array.isArray(value) && value.every((stage) => STAGES.includes(stage as Stage));

/** A saved episode's shape (its back-off is checked where it is used: backoffProblem). */
export const isFailure = shaped({
	reason: text,
	kind: (v) => ['unknown', 'unsettled', 'failed'].includes(v as string),
	told: isStages,
	unsettled: optional(wholeNumber),
});

/** A failure episode that ended before it was reported (the entry's last `episodes` of them): reported still, once. */
export type EndedFailure = { reason: string; episodes: number; endedAt: number };
export const isEndedFailure = shaped({ reason: text, episodes: (v) => wholeNumber(v) && v >= 1, endedAt: wholeNumber });

/** The API's back-off after status U. */
export interface UnknownBackoff {
	/** Answers U in a row. */
	unknowns: number;
	/** Epoch ms before which a poll sends nothing. */
	nextPollAt: number;
}

export const UNKNOWN_REPEATS = UNKNOWN_RETRY_SCHEDULE_MINUTES.length;
/** The wait after a first answer U. */
export const UNKNOWN_RETRY_MINUTES = UNKNOWN_RETRY_SCHEDULE_MINUTES[0];
const stepMinutes = (unknowns: number) => UNKNOWN_RETRY_SCHEDULE_MINUTES[Math.min(unknowns, UNKNOWN_REPEATS) - 1];

const isBackoff = shaped({ unknowns: (n) => wholeNumber(n) && n >= 1, nextPollAt: wholeNumber });

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

export const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
export const isUnknown = (error: unknown) => error instanceof ApiResultError && error.explanation.status === 'U';

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

/** The episode after one more failed read. */
export function failureAfter(previous: Failure | undefined, error: unknown, nowMs: number): Failure {
	const episode = { reason: reasonOf(error), told: previous?.told ?? [] };
	if (isUnknown(error)) {
		// The API's back-off: one more answer U, and the wait its step asks for.
		const unknowns = (previous?.backoff?.unknowns ?? 0) + 1;
		const backoff = { unknowns, nextPollAt: nowMs + stepMinutes(unknowns) * 60_000 };
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
