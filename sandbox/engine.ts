/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only: runs workflows through n8n's real engine */
/**
 * Runs a workflow "Start -> Partner Account Inquiry" through n8n's real execution engine
 * (n8n-core's WorkflowExecute), and (triggerActivation.ts) polls the trigger through n8n-core's
 * PollContext, with this package's node and credential types and an in-memory credentials store
 * (n8nHost.ts). Used by the workflow tests, `npm run demo` and the bench; nothing here is mocked
 * but the credential store and the start node. How n8n saves a trigger's polls, played around
 * activateTrigger, is test support: test/support/n8nApp.ts.
 */
import { WorkflowExecute } from 'n8n-core';
import {
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type IRun,
	type IWorkflowBase,
} from 'n8n-workflow';

import { PartnerAccountInquiryApi } from '../credentials/PartnerAccountInquiryApi.credentials';
import { PartnerAccountInquiry } from '../nodes/PartnerAccountInquiry/PartnerAccountInquiry.node';
import { CREDENTIAL_TYPE, makeAdditionalData, nodeTypesOf } from './n8nHost';

export { sandboxCredentials } from './n8nHost';
export {
	activateTrigger,
	newN8nProcess,
	newWorkflowId,
	TRIGGER_TYPE,
	type N8nProcess,
	type PollerOptions,
	type PollResult,
} from './triggerActivation';

export const NODE_TYPE = 'n8n-nodes-partner-account-inquiry.partnerAccountInquiry';

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
	/** The node's version in the workflow (the node's own when omitted). */
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
	const nodeTypes = nodeTypesOf(registry);
	const nodes: INode[] = [
		{ id: 'start', name: 'Start', type: 'test.start', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'node',
			name: 'Partner Account Inquiry',
			type: typeName,
			typeVersion: options.typeVersion ?? (registry[typeName].description.version as number),
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
