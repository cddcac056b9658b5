/**
 * The one boundary between a poll and what n8n saves of it: a poll opens it once (its state and how
 * far to trust it: pollRecord.ts, pollMemory.ts) and commits once. Nothing else touches the node's static data.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';

import { UnsavedWorkflowError } from '../shared/core/errors';

import { NODE_DATA_KEYS, type Carried, type PollMemory } from './pollMemory';
import {
	activationRun,
	markWrite,
	nextRecord,
	readPollRecord,
	recordActivation,
	savedMark as mark,
} from './pollRecord';
import { entryProblem, STARTS_ANEW } from './pollPhases';
import { N8N_DEFAULT_POLL_BUDGET_MS } from './pollPlan';
import type { Watch } from './watch';
import { readWatchState, type WatchState } from './watchState';

/**
 * What a poll starts from and how far to trust it: whether the state holds every earlier poll's
 * finding; `activating`: a user's activation (it takes the baselines; a failure fails it); `mayReport`:
 * not a new context's poll (n8n counts its failure as failing to activate); every poll known saved.
 */
export type Loaded = {
	state: WatchState;
	wholeHistory: boolean;
	activating: boolean;
	mayReport: boolean;
	everyPollSaved: boolean;
};

/**
 * The longest workflow ID whose static data n8n saves (`isWorkflowIdValid`): 16 characters up to 2.6,
 * 21 from 2.7, the first whose n8n-workflow exports MCP_CLIENT_NODE_TYPE (the only sign a node can read).
 */
const savedIdLength = () => ('MCP_CLIENT_NODE_TYPE' in n8nWorkflow ? 21 : 16);

/** The trigger node, across polls and activations: its workflow and node IDs. */
export const nodeName = (fn: IPollFunctions) => `${fn.getWorkflow().id ?? ''}\n${fn.getNode().id}`;

export function warn(fn: IPollFunctions, problem: string, outcome: string): void {
	fn.logger.warn(
		`Partner Account Inquiry Trigger "${fn.getNode().name}": the saved state cannot be used (${problem}); ${outcome}.`,
	);
}

/**
 * Opens the store for one poll of `watch`: what it starts from, and its one commit. A user's
 * activation starts anew; any other poll carries on from the newest data (pollMemory.ts).
 */
export function openStore(
	fn: IPollFunctions,
	memory: PollMemory,
	watch: Watch,
): { loaded: Loaded; commit: (state: WatchState) => void } {
	const staticData = fn.getWorkflowStaticData('node');
	const node = nodeName(fn);
	const { first, reused } = memory.firstPollOf(fn, node);
	// n8n counts a failure of a new context's poll (activation, start, lead, a saved edit) as failing to
	// activate, so none reports; 2.x's scheduler makes one per poll, with its own budget.
	const budget = (fn as Partial<{ getPollBudgetMs: () => number }>).getPollBudgetMs?.();
	const scheduled = budget !== undefined && budget !== N8N_DEFAULT_POLL_BUDGET_MS && !reused;
	const mode = fn.getActivationMode();
	const activating = first && mode === 'activate';
	const startup = first && (mode === 'init' || mode === 'leadershipChange' || (mode === 'update' && !scheduled));
	// A trigger n8n would never save is refused, never silently forgetful.
	const workflowId = String(fn.getWorkflow().id ?? '');
	if ((activating || startup) && workflowId.length > savedIdLength()) {
		throw new UnsavedWorkflowError(workflowId, savedIdLength());
	}
	const global = fn.getWorkflowStaticData('global');
	const { id } = fn.getNode();
	if (activating) {
		// Also in the global static data: n8n saves it after this poll on every setup.
		recordActivation(global, id, memory.startRun(node, staticData, activationRun(global, id)));
		for (const key of NODE_DATA_KEYS) delete staticData[key];
	}
	const reading = readPollRecord(staticData.pollRecord);
	const damage = reading.problem ? memory.damagedRecord(node, staticData.pollRecord) : undefined;
	if (damage?.news) warn(fn, reading.problem as string, 'it is started anew');
	if (damage) delete staticData.pollRecord;
	// A damaged record names no run; the last activation's count still decides, so an older state never gets through.
	const carried: Carried = memory.carryOn(node, reading.state, staticData, activationRun(global, id), mark(global, id));
	if (carried.fresh) {
		for (const key of NODE_DATA_KEYS) delete staticData[key];
	} else if (carried.adopt) {
		for (const key of NODE_DATA_KEYS) {
			const value = carried.adopt[key];
			if (value === undefined) delete staticData[key];
			else staticData[key] = value as IDataObject;
		}
	}
	// What this poll starts from: where the next one carries on if n8n drops this one's items (pollMemory.ts).
	const from = { state: staticData.state, pollRecord: staticData.pollRecord };
	const saved = readWatchState(staticData.state, watch.family);
	if (saved.problem) warn(fn, saved.problem, 'every entry records a fresh baseline and reports no change');
	// Damage stays where it is: an entry whose record cannot be used starts anew, the others carry on.
	for (const entry of watch.entries) {
		const problem = saved.damaged.get(entry.key);
		if (problem) warn(fn, entryProblem(watch, entry, problem), STARTS_ANEW);
	}
	const { wholeHistory, everyPollSaved } = carried;
	return {
		loaded: { state: saved.state, wholeHistory, everyPollSaved, activating, mayReport: !activating && !startup },
		commit: (state) => {
			staticData.state = state as unknown as IDataObject;
			const outcome = state.last;
			const record = nextRecord(carried, outcome === 'quiet', memory.writer);
			staticData.pollRecord = record as unknown as IDataObject;
			markWrite(global, id, record);
			const given = damage ? undefined : reading.state;
			const written = { threw: outcome === 'reported', followed: carried.record, given, dropped: damage?.digest, from };
			memory.rememberWritten(node, staticData, { state: staticData.state, pollRecord: record }, written);
		},
	};
}
