/** An entry's failure episodes, each stage reported once (what a report says: failureReports.ts). */
import { UNKNOWN_RETRY_SCHEDULE_MINUTES } from '../shared/core/api/resultCodes';
import { ApiResultError, ListingChangedError } from '../shared/core/errors';
import { optional, shaped, text, wholeNumber } from './savedState';

/** Polls in a row that find a list changing while read before it is reported: such a list usually settles. */
export const UNSETTLED_POLLS_REPORTED = 3;

/** What an episode reports, each once. */
export type Stage = 'failed' | 'unknown' | 'support' | 'unsettled';
const STAGES: readonly Stage[] = ['failed', 'unknown', 'support', 'unsettled'];

export interface Failure {
	/** What failed, as a message may show it (the session's errors are redacted). */
	reason: string;
	kind: 'unknown' | 'unsettled' | 'failed';
	told: Stage[];
	backoff?: UnknownBackoff;
	/** Polls in a row that found its list changing while read. */
	unsettled?: number;
}

/** A saved episode's shape; its back-off is checked by backoffProblem, which needs the time. */
export const isFailure = shaped({
	reason: text,
	kind: (v) => ['unknown', 'unsettled', 'failed'].includes(v as string),
	told: (value) => Array.isArray(value) && value.every((stage) => STAGES.includes(stage as Stage)),
	unsettled: optional(wholeNumber),
});

/** A failure episode that ended before it was reported (the entry's last `episodes` of them): reported still, once. */
export type EndedFailure = { reason: string; episodes: number; endedAt: number };
export const isEndedFailure = shaped({ reason: text, episodes: (v) => wholeNumber(v) && v >= 1, endedAt: wholeNumber });

/** Answers U in a row, and the epoch ms before which a poll sends nothing. */
export type UnknownBackoff = { unknowns: number; nextPollAt: number };

export const UNKNOWN_REPEATS = UNKNOWN_RETRY_SCHEDULE_MINUTES.length;
export const UNKNOWN_RETRY_MINUTES = UNKNOWN_RETRY_SCHEDULE_MINUTES[0];
const stepMinutes = (unknowns: number) => UNKNOWN_RETRY_SCHEDULE_MINUTES[Math.min(unknowns, UNKNOWN_REPEATS) - 1];

const isBackoff = shaped({ unknowns: (n) => wholeNumber(n) && n >= 1, nextPollAt: wholeNumber });

/** Why a saved back-off is one the API cannot have asked for (static data edited, a clock stepped back), if it is. */
export function backoffProblem(failure: Failure, nowMs: number): string | undefined {
	const backoff = failure.backoff;
	if (backoff === undefined) return undefined;
	if (!isBackoff(backoff)) return 'its back-off after status U is not of the expected shape';
	if (failure.told.includes('support') && backoff.unknowns <= UNKNOWN_REPEATS)
		return `its back-off after status U says support was told after ${backoff.unknowns} answers U, fewer than the API's ${UNKNOWN_REPEATS + 1}`;
	const left = (backoff.nextPollAt - nowMs) / 60_000;
	const step = stepMinutes(backoff.unknowns);
	if (left <= step) return undefined;
	const answers = `${backoff.unknowns} answer${backoff.unknowns === 1 ? '' : 's'} U`;
	return `its back-off after status U ends ${Math.round(left)} minutes from now, longer than the API ever asks after ${answers} (${step} minutes)`;
}

export const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
export const isUnknown = (error: unknown) => error instanceof ApiResultError && error.explanation.status === 'U';

/** The stage an episode is at (none: a list changing, before the 3rd poll). */
export function stageOf(failure: Failure): Stage | undefined {
	if (failure.kind === 'unknown') return (failure.backoff?.unknowns ?? 0) > UNKNOWN_REPEATS ? 'support' : 'unknown';
	if (failure.kind === 'unsettled')
		return (failure.unsettled ?? 0) >= UNSETTLED_POLLS_REPORTED ? 'unsettled' : undefined;
	return 'failed';
}

/** The stage of the episode still to report, if any. */
export function dueStage(failure: Failure | undefined): Stage | undefined {
	const stage = failure && stageOf(failure);
	return stage && !failure.told.includes(stage) ? stage : undefined;
}

/** The episode once its due stage was reported. */
export function told(failure: Failure): Failure {
	const stage = dueStage(failure);
	return stage ? { ...failure, told: [...failure.told, stage] } : failure;
}

export const waitsOut = (failure: Failure | undefined, nowMs: number): boolean =>
	failure?.backoff !== undefined && nowMs < failure.backoff.nextPollAt;

export function failureAfter(previous: Failure | undefined, error: unknown, nowMs: number): Failure {
	const episode = { reason: reasonOf(error), told: previous?.told ?? [] };
	if (isUnknown(error)) {
		const unknowns = (previous?.backoff?.unknowns ?? 0) + 1;
		return { ...episode, kind: 'unknown', backoff: { unknowns, nextPollAt: nowMs + stepMinutes(unknowns) * 60_000 } };
	}
	if (error instanceof ListingChangedError)
		return { ...episode, kind: 'unsettled', unsettled: (previous?.unsettled ?? 0) + 1 };
	// A back-off stays (only an answer that is not a failure ends it); a row of unsettled polls is broken.
	return { ...episode, kind: 'failed', ...(previous?.backoff ? { backoff: previous.backoff } : {}) };
}

/** An episode that ends now: what is left to report of it, if anything. */
export function endedUnreported(
	failure: Failure | undefined,
	before: EndedFailure | undefined,
	nowMs: number,
): EndedFailure | undefined {
	if (!failure || !dueStage(failure)) return before;
	return { reason: failure.reason, episodes: (before?.episodes ?? 0) + 1, endedAt: nowMs };
}
