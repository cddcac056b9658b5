/**
 * A trigger that gets status U (outcome unknown) backs off as the API asks (docs/api.md, Result
 * codes: at most 7 repeats, 5, 10, 20, 40, 80, 160 and 320 minutes apart). Framework-free.
 *
 * The polls in between send nothing, emit nothing and record no error. When the seventh repeat is
 * answered U as well, the trigger reports once that support must be contacted; it then goes on
 * asking every 320 minutes without reporting again, and the first answer that is not U ends the
 * back-off.
 */
import { UNKNOWN_RETRY_SCHEDULE_MINUTES } from '../shared/core/api/resultCodes';

export interface UnknownBackoff {
	/** The question it is about: another question asks at once. */
	question: string;
	/** Answers U in a row. */
	unknowns: number;
	/** Epoch ms before which a poll sends nothing. */
	nextPollAt: number;
}

const MINUTE_MS = 60_000;
export const UNKNOWN_REPEATS = UNKNOWN_RETRY_SCHEDULE_MINUTES.length;

/** The saved back-off of this question, or undefined (none, another question, or not of this shape). */
export function readBackoff(saved: unknown, question: string): UnknownBackoff | undefined {
	if (typeof saved !== 'object' || saved === null) return undefined;
	const backoff = saved as UnknownBackoff;
	const whole = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
	return backoff.question === question && whole(backoff.unknowns) && whole(backoff.nextPollAt) ? backoff : undefined;
}

/** The back-off after one more answer U at `nowMs`, and whether this is the one to report. */
export function afterUnknown(
	backoff: UnknownBackoff | undefined,
	question: string,
	nowMs: number,
): { next: UnknownBackoff; reportNow: boolean } {
	const unknowns = (backoff?.unknowns ?? 0) + 1;
	const waitMinutes = UNKNOWN_RETRY_SCHEDULE_MINUTES[Math.min(unknowns, UNKNOWN_REPEATS) - 1];
	return {
		next: { question, unknowns, nextPollAt: nowMs + waitMinutes * MINUTE_MS },
		// The first answer and its 7 repeats were all U.
		reportNow: unknowns === UNKNOWN_REPEATS + 1,
	};
}
