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
	nodeType?: INodeType;
	credentialType?: ICredentialType;
	/** The type name in the workflow; n8n names the AI-tool variant "<type>Tool". */
	nodeTypeName?: string;
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
			typeVersion: 1,
			position: [200, 0],
			parameters: options.parameters,
			credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Partner Account Inquiry account' } },
			...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
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
	const run = await new WorkflowExecute(additionalData, 'manual').run({
		workflow,
		startNode: workflow.getNode('Start') as INode,
		triggerToStartFrom: {
			name: 'Start',
			data: { startTime: 0, executionTime: 0, executionIndex: 0, source: [], data: { main: [inputItems] } },
		},
	});
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
	/** 'trigger' for scheduled polls, 'manual' for the editor's "Fetch Test Event". */
	mode?: 'trigger' | 'manual';
	/** 'activate' (the user activated the workflow), 'init' (n8n started), 'update'. */
	activation?: 'activate' | 'init' | 'update' | 'manual';
	/** What n8n 2.x's poll scheduler gives a poll (getPollBudgetMs); n8n-core's own default otherwise. */
	pollBudgetMs?: number;
}

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
	const nodeType = new PartnerAccountInquiryTrigger();
	const registry: Record<string, INodeType> = { [TRIGGER_TYPE]: nodeType };
	const nodeTypes: INodeTypes = {
		getByName: (type) => registry[type],
		getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(registry[type], version),
		getKnownTypes: () => ({}),
	};
	const parameters = NodeHelpers.getNodeParameters(
		nodeType.description.properties,
		options.parameters,
		true,
		false,
		null,
		null,
	) as INodeParameters;
	const node: INode = {
		id: 'trigger',
		name: 'Partner Account Inquiry Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Partner Account Inquiry account' } },
	};
	const workflow = new Workflow({
		id: 'wf-trigger',
		name: 'trigger test',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	const workflowData = {
		id: 'wf-trigger',
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
