/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only: runs workflows through n8n's real engine */
/**
 * Runs a workflow "Start -> Partner Account Inquiry" through n8n's real execution engine
 * (n8n-core's WorkflowExecute), and polls the trigger through n8n-core's PollContext, with this
 * package's node and credential types and an in-memory credentials store. Used by the workflow
 * tests, `npm run demo` and the bench; nothing here is mocked but the credential store and the
 * start node.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ExecutionLifecycleHooks, PollContext, WorkflowExecute } from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { PartnerAccountInquiryApi } from '../credentials/PartnerAccountInquiryApi.credentials';
import { PartnerAccountInquiry } from '../nodes/PartnerAccountInquiry/PartnerAccountInquiry.node';
import { PartnerAccountInquiryTrigger } from '../nodes/PartnerAccountInquiry/PartnerAccountInquiryTrigger.node';
import { readSandboxKey, SANDBOX_CLIENT_ID, SANDBOX_KEY_VERSION } from './server';

// n8n-core keeps its instance settings under N8N_USER_FOLDER: a throw-away folder, not ~/.n8n.
process.env.N8N_USER_FOLDER ??= join(tmpdir(), 'pai-n8n-engine');
mkdirSync(process.env.N8N_USER_FOLDER, { recursive: true });
process.env.N8N_LOG_LEVEL ??= 'silent';

export const NODE_TYPE = 'n8n-nodes-partner-account-inquiry.partnerAccountInquiry';
const CREDENTIAL_TYPE = 'partnerAccountInquiryApi';

/** The credential fields that talk to a simulator at `baseUrl`. */
export function sandboxCredentials(baseUrl: string): ICredentialDataDecryptedObject {
	return {
		environment: 'custom',
		baseUrl,
		clientId: SANDBOX_CLIENT_ID,
		privateKey: readSandboxKey('demo-partner-private.pem'),
		servicePublicKey: readSandboxKey('gateway-public.pem'),
		keyVersion: SANDBOX_KEY_VERSION,
	};
}

class InMemoryCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly data: ICredentialDataDecryptedObject,
		private readonly type: ICredentialType,
	) {
		super();
	}
	getParentTypes(): string[] {
		return [];
	}
	isCredentialUsableByNode(): boolean {
		return true;
	}
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		options: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.type;
		if (typeName !== this.type.name || typeof authenticate !== 'function') return options;
		return await authenticate(credentials, options);
	}
	async preAuthentication() {
		return undefined;
	}
	async runPreAuthentication() {
		return undefined;
	}
	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by the engine for this node');
	}
	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.data };
	}
	async updateCredentials() {}
	async updateCredentialsOauthTokenData() {}
	getCredentialsProperties(): INodeProperties[] {
		return this.type.properties;
	}
}

const startNodeType: INodeType = {
	description: {
		displayName: 'Start',
		name: 'start',
		description: 'Emits the items the test gives it',
		group: ['input'],
		version: 1,
		defaults: { name: 'Start' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	},
	async execute(this: IExecuteFunctions) {
		return [this.getInputData()];
	},
};

export interface RunNodeOptions {
	parameters: INodeParameters;
	credentials: ICredentialDataDecryptedObject;
	/** Items entering the node; one empty item when omitted. */
	items?: IDataObject[];
	continueOnFail?: boolean;
	/** The node's On Error setting; `continueOnFail` is 'continueRegularOutput'. */
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	/** The node's version in the workflow (1 when omitted, as workflows saved before 1.1 have). */
	typeVersion?: number;
	nodeType?: INodeType;
	credentialType?: ICredentialType;
	/** The type name in the workflow; n8n names the AI-tool variant "<type>Tool". */
	nodeTypeName?: string;
	/** Cancels the execution this long after it starts, as the editor's Stop button or a timeout does. */
	cancelAfterMs?: number;
}

export interface NodeRun {
	status: IRun['status'];
	/** The JSON of every item the node emitted. */
	json: IDataObject[];
	items: INodeExecutionData[];
	/** The node's error as the engine recorded it (a serialised n8n error). */
	error?: IDataObject & { message?: string; description?: string; name?: string };
	run: IRun;
}

export async function runNode(options: RunNodeOptions): Promise<NodeRun> {
	const nodeType = options.nodeType ?? new PartnerAccountInquiry();
	const credentialType = options.credentialType ?? new PartnerAccountInquiryApi();
	const typeName = options.nodeTypeName ?? NODE_TYPE;
	const registry: Record<string, INodeType> = { 'test.start': startNodeType, [typeName]: nodeType };
	const nodeTypes: INodeTypes = {
		getByName: (type) => registry[type],
		getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(registry[type], version),
		getKnownTypes: () => ({}),
	};
	const nodes: INode[] = [
		{ id: 'start', name: 'Start', type: 'test.start', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'node',
			name: 'Partner Account Inquiry',
			type: typeName,
			typeVersion: options.typeVersion ?? 1,
			position: [200, 0],
			parameters: options.parameters,
			credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Partner Account Inquiry account' } },
			...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			...(options.onError ? { onError: options.onError } : {}),
		},
	];
	const connections = { Start: { main: [[{ node: 'Partner Account Inquiry', type: 'main' as const, index: 0 }]] } };
	const workflow = new Workflow({
		id: 'wf',
		name: 'test',
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	const workflowData = { id: 'wf', name: 'test', nodes, connections } as unknown as IWorkflowBase;
	const additionalData = makeAdditionalData(workflowData, options.credentials, credentialType);

	const inputItems = (options.items ?? [{}]).map((json) => ({ json }));
	const running = new WorkflowExecute(additionalData, 'manual').run({
		workflow,
		startNode: workflow.getNode('Start') as INode,
		triggerToStartFrom: {
			name: 'Start',
			data: { startTime: 0, executionTime: 0, executionIndex: 0, source: [], data: { main: [inputItems] } },
		},
	});
	const cancel =
		options.cancelAfterMs === undefined ? undefined : setTimeout(() => running.cancel(), options.cancelAfterMs);
	const run = await running.finally(() => clearTimeout(cancel));
	const task = run.data.resultData.runData['Partner Account Inquiry']?.[0];
	const items = (task?.data?.main?.[0] ?? []) as INodeExecutionData[];
	return {
		status: run.status,
		items,
		json: items.map((item) => item.json),
		error: (task?.error ?? run.data.resultData.error) as NodeRun['error'],
		run,
	};
}

function makeAdditionalData(
	workflowData: IWorkflowBase,
	credentials: ICredentialDataDecryptedObject,
	credentialType: ICredentialType,
): IWorkflowExecuteAdditionalData {
	const hooks = new ExecutionLifecycleHooks('manual', 'exec-1', workflowData);
	const base = 'http://localhost:5678';
	return {
		credentialsHelper: new InMemoryCredentialsHelper(credentials, credentialType),
		hooks,
		executionId: 'exec-1',
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: `${base}/`,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		executeWorkflow: async () => {
			throw new Error('not supported');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('not supported');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export const TRIGGER_TYPE = 'n8n-nodes-partner-account-inquiry.partnerAccountInquiryTrigger';

export interface PollerOptions {
	parameters: INodeParameters;
	credentials: ICredentialDataDecryptedObject;
	/** The workflow's static data for the node, kept by the test across pollers (n8n keeps it in its database). */
	staticData: IDataObject;
	/** The workflow's global static data (getWorkflowStaticData('global')); a fresh empty one by default. */
	globalStaticData?: IDataObject;
	/** 'trigger' for scheduled polls, 'manual' for the editor's "Fetch Test Event". */
	mode?: 'trigger' | 'manual';
	/** 'activate' (the user activated the workflow), 'init' (n8n started), 'update'. */
	activation?: 'activate' | 'init' | 'update' | 'manual';
	/** What n8n 2.x's poll scheduler gives a poll (getPollBudgetMs); n8n-core's own default otherwise. */
	pollBudgetMs?: number;
	/** The trigger node's version (1 by default: the tests' workflows were saved with it). */
	typeVersion?: number;
	/**
	 * The workflow's ID. The node remembers per workflow and node what it wrote: pollers of one
	 * workflow share it; by default every poller is a workflow of its own.
	 */
	workflowId?: string;
	/** The n8n process polling (its one trigger node type object, whose memory outlives polls); the current one by default. */
	process?: N8nProcess;
}

/** One n8n process: the one trigger node type object n8n makes per process, and what it remembers. */
export interface N8nProcess {
	nodeType: PartnerAccountInquiryTrigger;
}
let currentProcess: N8nProcess = { nodeType: new PartnerAccountInquiryTrigger() };
/** A new n8n process (a restart: what the last one remembered is gone); later pollers poll in it by default. */
export function newN8nProcess(): N8nProcess {
	currentProcess = { nodeType: new PartnerAccountInquiryTrigger() };
	return currentProcess;
}

let workflowSerial = 0;
/** A workflow ID no other poller of this process has. */
export const newWorkflowId = () => `wf-trigger-${++workflowSerial}`;

export type PollResult =
	| { ok: true; items: INodeExecutionData[] | null }
	| { ok: false; error: Error & { description?: string } };

/**
 * One activation of the polling trigger in n8n-core's own PollContext, as n8n makes it: one context
 * per activation, reused for every poll. `poll()` runs the node's poll once and returns what it
 * would emit (null: nothing) or the error n8n would report.
 */
/** Where the warnings n8n's (one, shared) logger gets go: the poller polling now. */
let warningsOfPoll: string[] | undefined;
const capturing = new WeakSet<object>();
function captureWarnings(logger: { warn: (message: string, metadata?: never) => void }): void {
	if (capturing.has(logger)) return;
	capturing.add(logger);
	const warn = logger.warn.bind(logger);
	logger.warn = (message: string, metadata?: never) => {
		if (warningsOfPoll) warningsOfPoll.push(message);
		else warn(message, metadata);
	};
}

export function activateTrigger(options: PollerOptions): {
	poll: () => Promise<PollResult>;
	/** What the node logged as warnings (n8n's log), in order. */
	warnings: string[];
} {
	const { nodeType } = options.process ?? currentProcess;
	const registry: Record<string, INodeType> = { [TRIGGER_TYPE]: nodeType };
	const nodeTypes: INodeTypes = {
		getByName: (type) => registry[type],
		getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(registry[type], version),
		getKnownTypes: () => ({}),
	};
	const typeVersion = options.typeVersion ?? 1;
	// The defaults of this version, as n8n fills them in when it loads a workflow.
	const parameters = NodeHelpers.getNodeParameters(
		nodeType.description.properties,
		options.parameters,
		true,
		false,
		{ typeVersion } as INode,
		null,
	) as INodeParameters;
	const node: INode = {
		id: 'trigger',
		name: 'Partner Account Inquiry Trigger',
		type: TRIGGER_TYPE,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Partner Account Inquiry account' } },
	};
	const workflowId = options.workflowId ?? newWorkflowId();
	const workflow = new Workflow({
		id: workflowId,
		name: 'trigger test',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		// The node's own data comes from resolveNodeStaticData below; the global, from the workflow.
		staticData: { global: options.globalStaticData ?? {} },
		settings: { executionOrder: 'v1' },
	});
	const workflowData = {
		id: workflowId,
		name: 'trigger test',
		nodes: [node],
		connections: {},
	} as unknown as IWorkflowBase;
	const additionalData = makeAdditionalData(workflowData, options.credentials, new PartnerAccountInquiryApi());
	const context = new PollContext(
		workflow,
		node,
		additionalData,
		options.mode ?? 'trigger',
		options.activation ?? 'activate',
		undefined,
		undefined,
		undefined,
		undefined,
		() => options.staticData,
		options.pollBudgetMs === undefined ? undefined : () => options.pollBudgetMs as number,
	);
	const warnings: string[] = [];
	captureWarnings(context.logger);
	return {
		warnings,
		poll: async () => {
			warningsOfPoll = warnings;
			try {
				const result = await nodeType.poll.call(context);
				return { ok: true, items: result ? result[0] : null };
			} catch (error) {
				return { ok: false, error: error as Error & { description?: string } };
			}
		},
	};
}

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
		activation: 'activate' | 'init' | 'update',
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
		 * The user saves an edit of the active workflow: n8n activates it again in mode 'update'. The
		 * default poller runs its activation poll in that mode; the scheduler keeps its job and polls on.
		 */
		update: async (parameters: INodeParameters): Promise<N8nPoll | undefined> => {
			options.parameters = parameters;
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
		/** n8n stops and starts again: unsaved writes and the process's memory are gone. */
		restart: async (): Promise<N8nPoll | undefined> => {
			process = { nodeType: new PartnerAccountInquiryTrigger() };
			live = undefined;
			if (!active) return undefined;
			return await activationPoll('init');
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
