/**
 * A poll's book: which poll of an activation this is, what it carries on from (its static data, or
 * what this process wrote that n8n did not save: pollMemory.ts), and the write that records it.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import {
	activationRun,
	nextRecord,
	NODE_DATA_KEYS,
	readPollRecord,
	recordActivation,
	type Carried,
	type PollMemory,
} from './pollMemory';

/**
 * `whole`: the state carried on from holds every earlier poll's finding. `activating`: the poll n8n
 * runs at a user's activation (it takes the baselines; a failure fails the activation). `mayReport`:
 * not that poll nor the first after n8n started, which n8n would count as failing to activate.
 * `write`: the poll wrote its data, emitting nothing (`quiet`) or something; recorded here and in this process.
 */
export type Book = { whole: boolean; activating: boolean; mayReport: boolean; write: (quiet: boolean) => void };

/** The trigger node, across polls and activations: its workflow and node IDs. */
const nodeName = (fn: IPollFunctions) => `${fn.getWorkflow().id ?? ''}\n${fn.getNode().id}`;

export function warn(fn: IPollFunctions, problem: string, outcome: string): void {
	fn.logger.warn(
		`Partner Account Inquiry Trigger "${fn.getNode().name}": the saved state cannot be used (${problem}); ${outcome}.`,
	);
}

/**
 * Opens a poll's book. A user's activation starts from a fresh baseline, and so does what this
 * process remembers of the node; a start of n8n ('init') carries on. Then: the poll record is read
 * (damage: a warning, and it is dropped); when this process wrote newer data than the static data
 * the poll was given (a poll n8n did not save), the poll carries on from that data; when the node's
 * last activation (in the workflow's global static data) is newer than that data, its poll was not
 * saved: a fresh baseline, as it took.
 */
export function openBook(fn: IPollFunctions, memory: PollMemory, staticData: IDataObject): Book {
	const node = nodeName(fn);
	const first = memory.firstPollOf(fn);
	// n8n's default poller makes one context per activation; 2.x's poll scheduler one per poll, always
	// in activation mode 'update', so none of its polls counts as a user's activation: the poll it
	// runs at a user's activation does, but is saved only if it emits (this process carries it on).
	const activating = first && fn.getActivationMode() === 'activate';
	const startup = first && fn.getActivationMode() === 'init';
	const global = fn.getWorkflowStaticData('global');
	const { id } = fn.getNode();
	if (activating) {
		// The run goes to the global static data too: n8n's activator saves it after this poll on
		// every setup, even where it does not save this poll's node data (durable cursors).
		recordActivation(global, id, memory.startRun(node, staticData.pollRecord, activationRun(global, id)));
		for (const key of NODE_DATA_KEYS) delete staticData[key];
	}
	const reading = readPollRecord(staticData.pollRecord);
	// Damage is dropped with one warning (where quiet polls are not saved, it comes back at each).
	const damage = reading.problem ? memory.damagedRecord(node, staticData.pollRecord) : undefined;
	if (damage?.news) warn(fn, reading.problem as string, 'it is started anew');
	if (damage) delete staticData.pollRecord;
	// A damaged record names no run: carried on from, as one of the last activation.
	const activated = damage ? undefined : activationRun(global, id);
	const carried: Carried = memory.carryOn(node, reading.state, staticData, activated);
	if (carried.fresh) {
		for (const key of NODE_DATA_KEYS) delete staticData[key];
	} else if (carried.adopt) {
		for (const key of NODE_DATA_KEYS) {
			if (key === 'state' && carried.keepState) continue;
			const value = carried.adopt[key];
			if (value === undefined) delete staticData[key];
			else staticData[key] = value as IDataObject;
		}
	}
	return {
		whole: carried.whole,
		activating,
		mayReport: !activating && !startup,
		write: (quiet) => {
			const record = nextRecord(carried, quiet, Date.now(), activating || startup);
			staticData.pollRecord = record as unknown as IDataObject;
			const { state } = staticData;
			memory.rememberWritten(node, staticData, carried, { state, pollRecord: record }, damage?.digest);
		},
	};
}
