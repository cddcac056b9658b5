/**
 * One activation of the polling trigger in n8n-core's own PollContext, as n8n makes it, and the n8n
 * process that polls (the one trigger node type object whose memory outlives polls). Used by the
 * tests and the bench, through engine.ts.
 */
import { PollContext } from 'n8n-core';
import {
	NodeHelpers,
	Workflow,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type IWorkflowBase,
} from 'n8n-workflow';

import { PartnerAccountInquiryApi } from '../credentials/PartnerAccountInquiryApi.credentials';
import { PartnerAccountInquiryTrigger } from '../nodes/PartnerAccountInquiry/PartnerAccountInquiryTrigger.node';
import { CREDENTIAL_TYPE, makeAdditionalData, nodeTypesOf } from './n8nHost';

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
	/** 'activate' (the user activated the workflow), 'init' (n8n started), 'update', 'leadershipChange' (another main leads). */
	activation?: 'activate' | 'init' | 'update' | 'leadershipChange' | 'manual';
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
	const nodeTypes = nodeTypesOf({ [TRIGGER_TYPE]: nodeType });
	const typeVersion = options.typeVersion ?? (nodeType.description.version as number);
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
