/** The quota events' saved state and the rule that decides an alert. */
import type { QuotaEvent } from './events';
import { finite, flag, headerProblem, shaped, type StateReading } from './savedState';

/** The quota state's format; another is damage (a fresh baseline and a warning). */
export const QUOTA_STATE_VERSION = 3;

export interface QuotaState {
	version: typeof QUOTA_STATE_VERSION;
	kind: 'quota';
	question: string;
	/** The last poll's, in major units. */
	amount: number;
	below: boolean;
	/** The one `below` was judged by: another is newly watched. */
	threshold: number;
}

/** Without `wholeHistory` a re-arming may have been lost, so a quota still below fires again: never missed. */
export function quotaEvents(
	wanted: ReadonlySet<string>,
	state: QuotaState | undefined,
	question: string,
	amount: number,
	threshold: number,
	wholeHistory: boolean,
): { fired: QuotaEvent[]; previousAmount?: number; next: QuotaState } {
	const below = amount < threshold;
	const fired: QuotaEvent[] = [];
	const alerted = state !== undefined && state.threshold === threshold && state.below && wholeHistory;
	if (wanted.has('quotaBelowThreshold') && below && !alerted) fired.push('quotaBelowThreshold');
	const next: QuotaState = { version: QUOTA_STATE_VERSION, kind: 'quota', question, amount, below, threshold };
	if (!state) return { fired, next };
	if (wanted.has('quotaChanged') && amount !== state.amount) fired.push('quotaChanged');
	return { fired, previousAmount: state.amount, next };
}

const isQuotaShape = shaped({ amount: finite, below: flag, threshold: finite });

/** The saved quota state, if it is one of this question. */
export function readQuotaState(saved: unknown, question: string): StateReading<QuotaState> {
	const problem = headerProblem(saved, 'quota', QUOTA_STATE_VERSION, question);
	if (problem !== undefined) return problem ? { problem } : {};
	if (!isQuotaShape(saved)) return { problem: 'its quota fields are not of the expected shape' };
	return { state: saved as QuotaState };
}
