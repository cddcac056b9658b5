/**
 * What a poll's write leaves for the next (framework-free): its record beside the state in the
 * node's static data, and in the workflow's global static data the node's last activation and the
 * mark of its last write. How a poll reads them: pollMemory.ts.
 */
import { randomBytes } from 'node:crypto';

import { flag, isRecord, shaped, text, wholeNumber, type StateReading } from './savedState';

export const POLL_RECORD_VERSION = 1;

export interface PollRecord {
	version: typeof POLL_RECORD_VERSION;
	/** Random, made when a node's data starts anew (an activation): names this run of writes. */
	born: string;
	/** Which activation of the node this run is. */
	run: number;
	/** The polls that wrote this run so far. */
	polls: number;
	/** When the last of them wrote (epoch ms; informational: no decision reads the clock). */
	at: number;
	/** Whether it emitted nothing. */
	quiet: boolean;
	/** Whether a quiet poll's write was seen saved, with no write lost since. */
	everyPollSaved: boolean;
	/** The process that wrote it (PollMemory's `writer`): two mains may each write a run's n-th poll. */
	by: string;
}

/** More polls than a run can count (one a second for 34,000 years): a record claiming more is damage. */
const MAX_POLLS = 2 ** 40;
const count = (least: number) => (n: unknown) => wholeNumber(n, MAX_POLLS) && n >= least;
const isRecordShape = shaped({
	version: (v) => v === POLL_RECORD_VERSION,
	born: text,
	polls: count(1),
	run: count(0),
	at: wholeNumber,
	quiet: flag,
	everyPollSaved: flag,
	by: text,
});

/** The saved poll record (none: a node never polled, or started anew). */
export function readPollRecord(saved: unknown): StateReading<PollRecord> {
	if (saved === undefined || saved === null) return {};
	if (!isRecordShape(saved)) return { problem: 'its poll record is not of the expected shape' };
	return { state: saved as PollRecord };
}

/** The key of the workflow's global static data that holds, per trigger node ID, its last activation's run. */
export const ACTIVATION_RUNS_KEY = 'partnerAccountInquiryRuns';

/** The run of the node's last activation, as the workflow's global static data holds it (none: undefined). */
export function activationRun(global: Record<string, unknown>, nodeId: string): number | undefined {
	const runs = global[ACTIVATION_RUNS_KEY];
	const run = isRecord(runs) ? runs[nodeId] : undefined;
	// Below the bound, so that the next activation's run (one more) is still one a record may hold.
	return wholeNumber(run, MAX_POLLS - 1) ? run : undefined;
}

/** The key of the global static data holding, per trigger node ID, the mark of its last write (`born:polls`). */
const WRITES_KEY = 'partnerAccountInquiryWrites';
export const markOf = (record: PollRecord) => `${record.born}:${record.polls}`;
/** Which write a record is: its mark and its writer. */
export const writeOf = (record: PollRecord) => `${markOf(record)}:${record.by}`;

/** The mark of the node's last write that n8n saved with the workflow's static data (none: undefined). */
export function savedMark(global: Record<string, unknown>, nodeId: string): unknown {
	const marks = global[WRITES_KEY];
	return isRecord(marks) ? marks[nodeId] : undefined;
}

/** Marks a write in the global static data (one assignment of the key, which n8n sees). */
export function markWrite(global: Record<string, unknown>, nodeId: string, record: PollRecord): void {
	const marks = global[WRITES_KEY];
	global[WRITES_KEY] = { ...(isRecord(marks) ? marks : {}), [nodeId]: markOf(record) };
}

/** Writes an activation's run for the node (one assignment of the key: n8n sees a write inside it only so). */
export function recordActivation(global: Record<string, unknown>, nodeId: string, run: number): void {
	const runs = global[ACTIVATION_RUNS_KEY];
	global[ACTIVATION_RUNS_KEY] = { ...(isRecord(runs) ? runs : {}), [nodeId]: run };
}

/** The record of a poll that `by` writes after `carried`, and whether it emitted nothing. */
export function nextRecord(
	carried: { record?: PollRecord; run?: number; everyPollSaved: boolean },
	quiet: boolean,
	nowMs: number,
	by: string,
): PollRecord {
	const previous = carried.record;
	const run = previous ? previous.run + (previous.polls >= MAX_POLLS ? 1 : 0) : (carried.run ?? 1);
	const carries = previous !== undefined && run === previous.run;
	return {
		version: POLL_RECORD_VERSION,
		born: carries ? previous.born : randomBytes(9).toString('base64url'),
		run,
		polls: carries ? previous.polls + 1 : 1,
		at: nowMs,
		quiet,
		everyPollSaved: carries && carried.everyPollSaved,
		by,
	};
}
