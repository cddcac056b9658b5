/**
 * The trigger's store: the one boundary between a poll and what n8n saves of it or this process
 * carries on. A poll opens it once: it gets its state (watchState.ts) and how far that can be
 * trusted (which poll of an activation this is, whether it holds every earlier poll's finding:
 * pollRecord.ts, pollMemory.ts); and commits once, which writes the state and the poll's record
 * here and in this process's memory. Nothing else reads or writes the node's static data.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';

import { UnsavedWorkflowError } from '../shared/core/errors';

import { NODE_DATA_KEYS, type Carried, type PollMemory } from './pollMemory';
import { activationRun, markWrite, nextRecord, readPollRecord, recordActivation, savedMark } from './pollRecord';
import { N8N_DEFAULT_POLL_BUDGET_MS } from './pollPlan';
import type { Watch } from './watch';
import { readWatchState, type WatchState } from './watchState';

/** What a poll did: emitted nothing, something, or threw a report. */
export type Outcome = WatchState['last'];

/** What a poll starts from, and how far to trust it. */
export type Loaded = {
	/** The saved state (a fresh one when none, another family's or damaged). */
	state: WatchState;
	/** The state carried on from holds every earlier poll's finding. */
	wholeHistory: boolean;
	/** The poll n8n runs at a user's activation: it takes the baselines; a failure fails the activation. */
	activating: boolean;
	/** Not that poll, nor the first after n8n starts, another main takes the lead or an edit is saved (n8n: failing to activate). */
	mayReport: boolean;
	/** Every poll's write is known to be saved here (durable cursors). */
	everyPollSaved: boolean;
};

/**
 * Opens the store for one poll of `watch`: what it starts from, and the one commit of its state and
 * outcome (here and in this process's memory).
 */
export function openStore(
	fn: IPollFunctions,
	memory: PollMemory,
	watch: Watch,
): { loaded: Loaded; commit: (state: WatchState) => void } {
	const staticData = fn.getWorkflowStaticData('node');
	const { write, ...trust } = openBook(fn, memory, staticData);
	const reading = readWatchState(staticData.state, watch.family);
	if (reading.problem) warn(fn, reading.problem, 'every entry records a fresh baseline and reports no change');
	return {
		loaded: { ...trust, state: reading.state },
		commit: (state) => {
			staticData.state = state as unknown as IDataObject;
			write(state.last);
		},
	};
}

/**
 * The longest workflow ID whose static data the running n8n saves (its `isWorkflowIdValid`): 16
 * characters in n8n 1.x and 2.0 to 2.6, 21 from 2.7. The node gets the host's n8n-workflow, and
 * the first release of the 21 rule (2.7) is the first whose n8n-workflow exports
 * MCP_CLIENT_NODE_TYPE: an indirect sign, the only one a node can read.
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
 * Opens a poll's book: a user's activation starts anew (here and in this process's memory); any other
 * poll carries on from the newest data, its own or what this process wrote that n8n did not save,
 * or starts anew if the last activation is newer than both (its poll was not saved).
 */
function openBook(
	fn: IPollFunctions,
	memory: PollMemory,
	staticData: IDataObject,
): Omit<Loaded, 'state'> & { write: (outcome: Outcome) => void } {
	const node = nodeName(fn);
	const { first, reused } = memory.firstPollOf(fn, node);
	// n8n's default poller makes one context per activation and reuses it; 2.x's poll scheduler one
	// per poll, always in mode 'update'. So a new context is a user's activation ('activate'), n8n
	// starting ('init') or another main taking the lead ('leadershipChange', which n8n treats as
	// 'init'), or, where contexts are reused, a saved edit of the active workflow ('update'): n8n
	// counts a failure of such a poll as the workflow failing to activate, so none reports.
	// 2.x's scheduler gives its polls a budget (45 s less a margin, by default), its activation polls
	// and n8n's default poller n8n-core's default of 5 minutes (1.x none).
	const budget = (fn as Partial<{ getPollBudgetMs: () => number }>).getPollBudgetMs?.();
	const scheduled = budget !== undefined && budget !== N8N_DEFAULT_POLL_BUDGET_MS && !reused;
	const mode = fn.getActivationMode();
	const activating = first && mode === 'activate';
	const startup = first && (mode === 'init' || mode === 'leadershipChange' || (mode === 'update' && !scheduled));
	// A trigger that n8n would never save runs nowhere: refused at every activation, never silently forgetful.
	const workflowId = String(fn.getWorkflow().id ?? '');
	if ((activating || startup) && workflowId.length > savedIdLength()) {
		throw new UnsavedWorkflowError(workflowId, savedIdLength());
	}
	const global = fn.getWorkflowStaticData('global');
	const { id } = fn.getNode();
	if (activating) {
		// The run goes to the global static data too: n8n's activator saves it after this poll on
		// every setup, even where it does not save this poll's node data (durable cursors).
		recordActivation(global, id, memory.startRun(node, staticData, activationRun(global, id)));
		for (const key of NODE_DATA_KEYS) delete staticData[key];
	}
	const reading = readPollRecord(staticData.pollRecord);
	// Damage is dropped with one warning (where quiet polls are not saved, it comes back at each).
	const damage = reading.problem ? memory.damagedRecord(node, staticData.pollRecord) : undefined;
	if (damage?.news) warn(fn, reading.problem as string, 'it is started anew');
	if (damage) delete staticData.pollRecord;
	// A damaged record names no run: carried on from, as one of the last activation.
	const activated = damage ? undefined : activationRun(global, id);
	const carried: Carried = memory.carryOn(node, reading.state, staticData, activated, savedMark(global, id));
	if (carried.fresh) {
		for (const key of NODE_DATA_KEYS) delete staticData[key];
	} else if (carried.adopt) {
		for (const key of NODE_DATA_KEYS) {
			const value = carried.adopt[key];
			if (value === undefined) delete staticData[key];
			else staticData[key] = value as IDataObject;
		}
	}
	return {
		wholeHistory: carried.wholeHistory,
		everyPollSaved: carried.everyPollSaved,
		activating,
		mayReport: !activating && !startup,
		write: (outcome) => {
			const record = nextRecord(carried, outcome === 'quiet', Date.now(), memory.writer);
			staticData.pollRecord = record as unknown as IDataObject;
			markWrite(global, id, record);
			const given = damage ? undefined : reading.state;
			const written = { threw: outcome === 'reported', followed: carried.record, given, dropped: damage?.digest };
			memory.rememberWritten(node, staticData, { state: staticData.state, pollRecord: record }, written);
		},
	};
}
