/** What a poll's write leaves for the next (framework-free): its record, and in the global static data the last activation and write mark. */
import { randomBytes } from 'node:crypto';

import { flag, isRecord, shaped, text, wholeNumber, type StateReading } from './savedState';

export const POLL_RECORD_VERSION = 1;

/** `born` names a run of writes (an activation's `run`); `everyPollSaved`: a quiet poll's write was seen saved; `by`: its process. */
export type PollRecord = {
	version: 1;
	born: string;
	run: number;
	polls: number;
	quiet: boolean;
	everyPollSaved: boolean;
	by: string;
};

/** More polls than a run can count (one a second for 34,000 years): a record claiming more is damage. */
const MAX_POLLS = 2 ** 40;
const count = (least: number) => (n: unknown) => wholeNumber(n, MAX_POLLS) && n >= least;
const isRecordShape = shaped({
	version: (v) => v === POLL_RECORD_VERSION,
	born: text,
	polls: count(1),
	run: count(0),
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

/** Keys of the workflow's global static data holding, per trigger node ID, its last activation's run and the mark of its last write. */
const RUNS_KEY = 'partnerAccountInquiryRuns';
const WRITES_KEY = 'partnerAccountInquiryWrites';
type Global = Record<string, unknown>;
const valueOf = (global: Global, key: string, nodeId: string) =>
	isRecord(global[key]) ? global[key][nodeId] : undefined;
/** One assignment of the key: n8n sees a write inside it only so. */
const setValue = (global: Global, key: string, nodeId: string, value: unknown) => {
	global[key] = { ...(isRecord(global[key]) ? global[key] : {}), [nodeId]: value };
};

export const markOf = (record: PollRecord) => `${record.born}:${record.polls}`;
/** Which write a record is: its mark and its writer. */
export const writeOf = (record: PollRecord) => `${markOf(record)}:${record.by}`;

/** The run of the node's last activation (below the bound, so that the next one is still a run a record may hold). */
export function activationRun(global: Global, nodeId: string): number | undefined {
	const run = valueOf(global, RUNS_KEY, nodeId);
	return wholeNumber(run, MAX_POLLS - 1) ? run : undefined;
}
export const recordActivation = (global: Global, nodeId: string, run: number) =>
	setValue(global, RUNS_KEY, nodeId, run);
/** The mark of the node's last write that n8n saved with the workflow's static data. */
export const savedMark = (global: Global, nodeId: string) => valueOf(global, WRITES_KEY, nodeId);
export const markWrite = (global: Global, nodeId: string, record: PollRecord) =>
	setValue(global, WRITES_KEY, nodeId, markOf(record));

/** The record of a poll that `by` writes after `carried`, and whether it emitted nothing. */
export function nextRecord(
	carried: { record?: PollRecord; run?: number; everyPollSaved: boolean },
	quiet: boolean,
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
		quiet,
		everyPollSaved: carries && carried.everyPollSaved,
		by,
	};
}
