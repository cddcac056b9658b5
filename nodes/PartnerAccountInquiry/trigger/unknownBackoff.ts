/**
 * A trigger that gets status U (outcome unknown) backs off as the API asks (docs/api.md, Result
 * codes: at most 7 repeats, 5, 10, 20, 40, 80, 160 and 320 minutes apart). Framework-free.
 *
 * The first answer U is reported once (what happened, when the trigger asks again); the polls in
 * between send nothing, emit nothing and record no error. When the seventh repeat is answered U as
 * well, the trigger reports once that support must be contacted; it then goes on asking every 320
 * minutes without reporting again, and the first answer that is not U ends the back-off. A saved back-off the API could not have asked for is damage (readBackoff).
 */
import { UNKNOWN_RETRY_SCHEDULE_MINUTES } from '../shared/core/api/resultCodes';
import { isRecord, type StateReading } from './savedState';

export interface UnknownBackoff {
	/** The question it is about: another question asks at once. */
	question: string;
	/** Answers U in a row. */
	unknowns: number;
	/** Epoch ms before which a poll sends nothing. */
	nextPollAt: number;
	/**
	 * What was reported: 0 nothing yet, 1 its start, 2 that support must be contacted too. Absent in
	 * a back-off saved by release 0.1.0, which reported no start: read as all it would have reported by then.
	 */
	reported?: 0 | 1 | 2;
}

const MINUTE_MS = 60_000;
export const UNKNOWN_REPEATS = UNKNOWN_RETRY_SCHEDULE_MINUTES.length;
/** The wait after a first answer U. */
export const UNKNOWN_RETRY_MINUTES = UNKNOWN_RETRY_SCHEDULE_MINUTES[0];
export { UNKNOWN_RETRY_SCHEDULE_MINUTES };
/** The whole back-off, first answer to last repeat, in hours (10.6). */
export const UNKNOWN_BACKOFF_HOURS = (UNKNOWN_RETRY_SCHEDULE_MINUTES.reduce((a, b) => a + b, 0) / 60).toFixed(1);

/**
 * The saved back-off of this question: none (nothing saved, or another question's), or a problem
 * when it is not one the API can ask for: not of this shape, or ending later from now than its
 * step allows (edited static data, or a clock stepped back since it was written). A damaged
 * back-off is dropped with a warning (trigger/poll.ts): the next request goes out at once.
 */
export function readBackoff(saved: unknown, question: string, nowMs: number): StateReading<UnknownBackoff> {
	if (saved === undefined || saved === null) return {};
	const backoff = saved as UnknownBackoff;
	const whole = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
	if (
		!isRecord(saved) ||
		typeof backoff.question !== 'string' ||
		!whole(backoff.unknowns) ||
		backoff.unknowns < 1 ||
		!whole(backoff.nextPollAt) ||
		![undefined, 0, 1, 2].includes(backoff.reported)
	) {
		return { problem: 'its back-off after status U is not of the expected shape' };
	}
	if (backoff.reported === 2 && backoff.unknowns <= UNKNOWN_REPEATS) {
		// Only an 8th answer U is reported as "contact support": a record saying so earlier would silence that report.
		return {
			problem: `its back-off after status U says support was told after ${backoff.unknowns} answers U, fewer than the API's ${UNKNOWN_REPEATS + 1}`,
		};
	}
	if (backoff.question !== question) return {};
	const stepMinutes = UNKNOWN_RETRY_SCHEDULE_MINUTES[Math.min(backoff.unknowns, UNKNOWN_REPEATS) - 1];
	const leftMinutes = (backoff.nextPollAt - nowMs) / MINUTE_MS;
	if (leftMinutes > stepMinutes) {
		return {
			problem: `its back-off after status U ends ${Math.round(leftMinutes)} minutes from now, longer than the API ever asks after ${backoff.unknowns} answer${backoff.unknowns === 1 ? '' : 's'} U (${stepMinutes} minutes)`,
		};
	}
	return { state: backoff };
}

/**
 * The back-off after one more answer U at `nowMs`, and whether this poll reports: the start (the
 * first answer U, or the first poll that `mayReport` after it; a back-off saved by release 0.1.0
 * counts as reported), and the 7th repeat answered U too (contact support), each once.
 */
export function afterUnknown(
	backoff: UnknownBackoff | undefined,
	question: string,
	nowMs: number,
	mayReport = true,
): { next: UnknownBackoff; reportNow: boolean } {
	const unknowns = (backoff?.unknowns ?? 0) + 1;
	const waitMinutes = UNKNOWN_RETRY_SCHEDULE_MINUTES[Math.min(unknowns, UNKNOWN_REPEATS) - 1];
	const reported = backoff === undefined ? 0 : (backoff.reported ?? (backoff.unknowns > UNKNOWN_REPEATS ? 2 : 1));
	// The stage this answer reaches: 1 a back-off, 2 every repeat answered U.
	const stage = unknowns > UNKNOWN_REPEATS ? 2 : 1;
	const reportNow = mayReport && reported < stage;
	return {
		next: { question, unknowns, nextPollAt: nowMs + waitMinutes * MINUTE_MS, reported: reportNow ? stage : reported },
		reportNow,
	};
}
