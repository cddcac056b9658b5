/**
 * The quota events' saved state and the rule that decides an alert (framework-free). The state is
 * the last poll's amount and whether it was below the threshold; what a restart may have dropped
 * of it is pollMemory.ts.
 */
import { randomBytes } from 'node:crypto';

import type { QuotaEvent } from './events';
import { finite, flag, headerProblem, optional, shaped, text, wholeNumber, type StateReading } from './savedState';

/** The quota state's format (version 3 since release 0.1.0); another is damage (a fresh baseline and a warning). */
export const QUOTA_STATE_VERSION = 3;

export interface QuotaState {
	version: typeof QUOTA_STATE_VERSION;
	kind: 'quota';
	question: string;
	/** Made at the baseline, random (kept for the format). */
	born: string;
	/** Counts the writes that re-armed or fired the alert (kept for the format). */
	serial: number;
	/** The available quota at the last poll, in major units. */
	amount: number;
	/** Whether it was below the threshold at the last poll. */
	below: boolean;
	/** The threshold `below` was judged against (absent: saved by 0.3.0 or before, whose key held the threshold). */
	threshold?: number;
}

/**
 * The events of `wanted` this poll's quota is, and the state after it.
 *
 * Below threshold fires on the first poll that finds the quota below (a baseline already below
 * fires too), and again only after a poll found it at or above. `wholeHistory` says whether the
 * state is known to hold every earlier poll's finding (trigger/pollMemory.ts: it is the last this
 * process wrote, or, after an n8n restart, its poll record says every poll is saved); when it is
 * not, a re-arming may have been lost, so a quota below fires again: at least once, never missed.
 *
 * Changed fires when the amount differs from the last poll's (every such poll emits, so no
 * finding of it can be lost). With both wanted, one poll may be both.
 */
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
	// A threshold the last poll did not judge by (edited, or the event newly picked) is newly watched: as at an activation.
	const judged = state?.threshold === undefined || state.threshold === threshold;
	const alerted = state !== undefined && judged && state.below && wholeHistory;
	if (wanted.has('quotaBelowThreshold') && below && !alerted) fired.push('quotaBelowThreshold');
	if (!state) {
		const born = randomBytes(9).toString('base64url');
		const next: QuotaState = { version: QUOTA_STATE_VERSION, kind: 'quota', question, born, serial: 1, amount, below };
		return { fired, next: { ...next, threshold } };
	}
	if (wanted.has('quotaChanged') && amount !== state.amount) fired.push('quotaChanged');
	const serial = fired.length > 0 || below !== state.below ? state.serial + 1 : state.serial;
	return { fired, previousAmount: state.amount, next: { ...state, amount, below, threshold, serial } };
}

const isQuotaShape = shaped({
	born: text,
	serial: (n) => wholeNumber(n) && n >= 1,
	amount: finite,
	below: flag,
	threshold: optional(finite),
});

/** The saved quota state, if it is one of this question. */
export function readQuotaState(saved: unknown, question: string): StateReading<QuotaState> {
	const problem = headerProblem(saved, 'quota', [QUOTA_STATE_VERSION]);
	if (problem !== undefined) return problem ? { problem } : {};
	const state = saved as QuotaState;
	if (!isQuotaShape(state)) return { problem: 'its quota fields are not of the expected shape' };
	return state.question === question ? { state } : {};
}
