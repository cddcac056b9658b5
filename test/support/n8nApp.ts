/**
 * How n8n keeps a polling trigger's static data, played around the node's real poll
 * (sandbox/engine.ts activateTrigger, n8n-core's PollContext): test support, not a tool.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { PartnerAccountInquiryTrigger } from '../../nodes/PartnerAccountInquiry/PartnerAccountInquiryTrigger.node';
import {
	activateTrigger,
	newWorkflowId,
	type N8nProcess,
	type PollerOptions,
	type PollResult,
} from '../../sandbox/engine';

/**
 * n8n's ways of keeping a polling trigger's static data, as n8n 2.41.1 (and 1.123) really do, around
 * the node's real poll in n8n-core's PollContext. What each saves, and when:
 *
 * - 'emit', n8n's default poller (1.x; 2.x without its scheduler; n8n-core's ActiveWorkflowTriggers
 *   with a ScheduledTaskManager cron): one context and one live static data object per activation,
 *   reused by every poll. The activation poll (`executePollTrigger(true)`) runs at every activation
 *   and at every start of n8n ('init'); what it leaves is saved by the activator
 *   (`saveStaticData(workflow)` at the end of activating), and an error fails the activation. Later
 *   polls: saved when one emits (`__emit` -> `saveStaticData`); a quiet or failing poll's writes live
 *   in memory only, until the next emit.
 * - 'scheduler', 2.x's durable poll scheduler without durable cursors (`PollTriggerTaskHandler`):
 *   the activation poll runs when the scheduler job is inserted: a user's activation ('activate'),
 *   or n8n's first start with a workflow published before it (the publication reconciler activates
 *   it in mode 'init', `PollJobManager.register` inserts the job), and is saved as above. A restart
 *   finds the job registered and runs no poll. Every scheduled poll has a fresh context (mode
 *   'update') over a fresh copy of the saved static data; saved only when it emits.
 * - 'durable', the same with durable cursors (`PollCursorService`, the `poller_state` row): the row
 *   is made from the workflow's static data before the first poll of any kind and outlives a
 *   deactivation. The activation poll is a testing poll: n8n-core's PollTriggerExecutor commits
 *   nothing for it (`commitStagedCursor` only when `!testingTrigger`), so only an activation poll
 *   that emits is saved (with its execution). Every scheduled poll: a fresh copy of the row,
 *   committed when it emits (with the execution) and when it emits nothing (`commitCursorOnly`); a
 *   poll that throws is not committed.
 *
 * The workflow's static data (the node's, but under durable cursors, and the global,
 * getWorkflowStaticData('global')) is saved with the workflow (`saveStaticData`): by the activator
 * after the activation poll (also when durable cursors commit nothing of that poll; not when the
 * activation fails), and when a poll emits (`__emit`); only for a workflow ID n8n deems valid
 * (`isWorkflowIdValid`: at most 16 characters in 1.x, 21 in 2.x), never for a longer one. The
 * default poller's polls share the activation's live copy; each scheduler poll reads it fresh from
 * the database (`findPublishedWorkflowData(..., { bypassCache: true })` selects `staticData`).
 *
 * `start()` plays n8n's first start with the workflow published before it; `restart()` an n8n stop
 * and start: what was not saved is gone, and so is the process's memory (a new node type object, as
 * a new n8n process makes). (Read from n8n 2.41.1 and 1.123.81 and seen in the real apps.)
 */
export type N8nSaving = 'emit' | 'scheduler' | 'durable';

export interface N8nPoll {
	/** The items the poll emitted (null: none), or undefined when it failed. */
	items: IDataObject[] | null | undefined;
	error?: Error & { description?: string };
	/** Whether n8n saved what the poll left in static data. */
	saved: boolean;
}

export function n8nApp(options: {
	parameters: INodeParameters;
	credentials: ICredentialDataDecryptedObject;
	saving: N8nSaving;
	pollBudgetMs?: number;
	/** The trigger node's version (1 by default, as activateTrigger's). */
	typeVersion?: number;
	/** What the database holds at first (the workflow's static data for the node). */
	staticData?: IDataObject;
	/** The workflow's ID (a short one by default); n8n saves no static data of one longer than it allows. */
	workflowId?: string;
}) {
	const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {})) as T;
	/** The workflow's static data for the node, as saved in the database. */
	let workflowStatic: IDataObject = copy(options.staticData ?? {});
	/** The workflow's global static data, as saved in the database. */
	let workflowGlobal: IDataObject = {};
	/** The durable cursor (the poller_state row), once made. */
	let row: IDataObject | undefined;
	/** The default poller's one context and live objects of this activation. */
	let live: { poller: ReturnType<typeof activateTrigger>; data: IDataObject; global: IDataObject } | undefined;
	let active = false;
	const warnings: string[] = [];
	const workflowId = options.workflowId ?? newWorkflowId();
	// n8n saves static data only for a workflow ID it deems valid (isWorkflowIdValid: at most 16
	// characters in 1.x, 21 in 2.x); the node's own data under durable cursors lives in the cursor row.
	const globalSaved = workflowId.length <= (options.saving === 'emit' ? 16 : 21);
	const saveGlobal = (global: IDataObject) => {
		if (globalSaved) workflowGlobal = copy(global);
	};
	/** n8n's saveStaticData: the workflow's static data, the node's and the global, together. */
	const saveStatic = (context: { data: IDataObject; global: IDataObject }) => {
		if (!globalSaved) return;
		workflowStatic = copy(context.data);
		workflowGlobal = copy(context.global);
	};
	/** The n8n process that polls: a restart makes a new one. */
	let process: N8nProcess = { nodeType: new PartnerAccountInquiryTrigger() };
	/** Multi-main: the other main, which leads after a failover (and keeps its memory meanwhile). */
	let otherMain: N8nProcess = { nodeType: new PartnerAccountInquiryTrigger() };
	/** A context over `data` (the node's) and a fresh copy of the saved global static data. */
	const open = (data: IDataObject, activation: PollerOptions['activation']) => {
		const global = copy(workflowGlobal);
		// 2.x's scheduler gives its scheduled polls a budget (45 s less a margin by default); its
		// activation polls, and the default poller, n8n-core's default of 5 minutes.
		const scheduled = options.saving !== 'emit' && activation === 'update';
		const poller = activateTrigger({
			workflowId,
			process,
			parameters: options.parameters,
			credentials: options.credentials,
			staticData: data,
			globalStaticData: global,
			activation,
			pollBudgetMs: scheduled ? (options.pollBudgetMs ?? 36_000) : undefined,
			typeVersion: options.typeVersion,
		});
		return {
			poller,
			data,
			global,
			run: async (): Promise<{ result: PollResult; items: IDataObject[] | null | undefined }> => {
				const result = await poller.poll();
				warnings.push(...poller.warnings.splice(0));
				return { result, items: result.ok ? (result.items?.map((item) => item.json) ?? null) : undefined };
			},
		};
	};
	const outcome = (result: PollResult, items: IDataObject[] | null | undefined, saved: boolean): N8nPoll =>
		result.ok ? { items, saved } : { items: undefined, error: result.error, saved };

	/** The poll n8n runs when it activates the workflow (a user's activation, n8n starting, a saved edit). */
	async function activationPoll(
		activation: 'activate' | 'init' | 'update' | 'leadershipChange',
		jobInserted = activation !== 'init',
	): Promise<N8nPoll | undefined> {
		if (options.saving === 'emit') {
			const context = open(copy(workflowStatic), activation);
			const { result, items } = await context.run();
			if (!result.ok) {
				active = false;
				live = undefined;
				return outcome(result, items, false);
			}
			live = { poller: context.poller, data: context.data, global: context.global };
			saveStatic(context);
			active = true;
			return outcome(result, items, true);
		}
		// The scheduler: a start of n8n finds its job registered and runs no activation poll (but inserts
		// the job, and runs it, for a workflow published before n8n's first start).
		if (!jobInserted) {
			active = true;
			return undefined;
		}
		if (options.saving === 'scheduler') {
			const context = open(copy(workflowStatic), activation);
			const { result, items } = await context.run();
			active = result.ok;
			if (result.ok) saveStatic(context);
			return outcome(result, items, result.ok);
		}
		row ??= copy(workflowStatic);
		const context = open(copy(row), activation);
		const { result, items } = await context.run();
		active = result.ok;
		// A testing poll: committed only with the execution it starts.
		const committed = result.ok && items !== null;
		if (committed) row = copy(context.data);
		// The activator saves the workflow's static data all the same: the global part is saved.
		if (result.ok) saveGlobal(context.global);
		return outcome(result, items, committed);
	}

	return {
		/** n8n's log: the node's warnings, in order. */
		warnings,
		/** The user activates (publishes) the workflow: n8n's activation poll. */
		activate: async () => (await activationPoll('activate')) as N8nPoll,
		/**
		 * n8n starts for the first time with the workflow already published (a Docker or GitOps
		 * deployment: imported and published by CLI before \`n8n start\`): the publication reconciler
		 * activates it in mode 'init', and the scheduler inserts its job and runs a testing poll.
		 */
		start: async () => (await activationPoll('init', true)) as N8nPoll,
		/**
		 * The user saves an edit of the workflow: if it is active, n8n activates it again in mode 'update'.
		 * The default poller runs its activation poll in that mode; the scheduler keeps its job and polls on.
		 */
		update: async (parameters: INodeParameters): Promise<N8nPoll | undefined> => {
			options.parameters = parameters;
			// An inactive workflow's edit is only saved: the next activation polls with it.
			if (!active) return undefined;
			live = undefined;
			return options.saving === 'emit' ? await activationPoll('update') : undefined;
		},
		/** The user deactivates it. The saved static data (and the durable cursor) stay. */
		deactivate: () => {
			active = false;
			live = undefined;
		},
		/** One scheduled poll. */
		poll: async (): Promise<N8nPoll> => {
			if (!active) throw new Error('the workflow is not active');
			if (options.saving === 'emit') {
				const context = live as NonNullable<typeof live>;
				const result = await context.poller.poll();
				warnings.push(...context.poller.warnings.splice(0));
				const items = result.ok ? (result.items?.map((item) => item.json) ?? null) : undefined;
				const saved = result.ok && items !== null;
				if (saved) saveStatic(context);
				return outcome(result, items, saved);
			}
			if (options.saving === 'scheduler') {
				const context = open(copy(workflowStatic), 'update');
				const { result, items } = await context.run();
				const saved = result.ok && items !== null;
				if (saved) saveStatic(context);
				return outcome(result, items, saved);
			}
			const context = open(copy(row ?? workflowStatic), 'update');
			const { result, items } = await context.run();
			if (result.ok) row = copy(context.data);
			// `__emit` saves the workflow's static data (the global part; the node's is the row).
			if (result.ok && items !== null) saveGlobal(context.global);
			return outcome(result, items, result.ok);
		},
		/**
		 * One scheduled poll that n8n drops (2.x's scheduler: past its timeout or its lease, or its
		 * execution failing to start): it runs, but neither its items nor its writes are kept.
		 */
		pollDropped: async (): Promise<void> => {
			if (!active || options.saving === 'emit') throw new Error("only 2.x's scheduler drops a poll");
			const context = open(copy(options.saving === 'durable' ? (row ?? workflowStatic) : workflowStatic), 'update');
			await context.run();
		},
		/** n8n stops and starts again: unsaved writes and the process's memory are gone. */
		restart: async (): Promise<N8nPoll | undefined> => {
			process = { nodeType: new PartnerAccountInquiryTrigger() };
			live = undefined;
			if (!active) return undefined;
			return await activationPoll('init');
		},
		/**
		 * Multi-main: the leader steps down (its live context, and what it did not save, gone) and the
		 * other main takes over: n8n activates the workflow there in mode 'leadershipChange' (the
		 * default poller's activation poll). Each main keeps its own memory: one that led before
		 * remembers what it wrote then. (2.x's scheduler: its jobs are in the database; no activation poll.)
		 */
		failover: async (): Promise<N8nPoll | undefined> => {
			[process, otherMain] = [otherMain, process];
			live = undefined;
			if (!active) return undefined;
			return await activationPoll('leadershipChange', false);
		},
		/** What n8n's database holds as the workflow's global static data now (a copy). */
		savedGlobal: (): IDataObject => copy(workflowGlobal),
		/** Edits the workflow's global static data in the database (an import, a hand edit, an older release's). */
		editSavedGlobal: (edit: (data: IDataObject) => void) => {
			const data = copy(workflowGlobal);
			edit(data);
			workflowGlobal = data;
		},
		/** What n8n's database holds for the node now (a copy). */
		saved: (): IDataObject => copy(options.saving === 'durable' && row ? row : workflowStatic),
		/** Edits what the database holds (an import, a hand edit); a running default poller keeps its live copy. */
		editSaved: (edit: (data: IDataObject) => void) => {
			const data = copy(options.saving === 'durable' && row ? row : workflowStatic);
			edit(data);
			if (options.saving === 'durable' && row) row = data;
			else workflowStatic = data;
		},
	};
}
