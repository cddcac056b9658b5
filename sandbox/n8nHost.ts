/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only: runs workflows through n8n's real engine */
/**
 * What n8n gives an execution of this package's nodes besides the workflow: an in-memory
 * credentials store holding the simulator's credential, and the additional data (URLs, hooks).
 * Shared by the node runner (engine.ts) and the trigger's activation (triggerActivation.ts).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ExecutionLifecycleHooks } from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IHttpRequestOptions,
	type INodeProperties,
	type INodeType,
	type INodeTypes,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { simulatorCredentialData } from './credentialFile';

// n8n-core keeps its instance settings under N8N_USER_FOLDER: a throw-away folder, not ~/.n8n.
process.env.N8N_USER_FOLDER ??= join(tmpdir(), 'pai-n8n-engine');
mkdirSync(process.env.N8N_USER_FOLDER, { recursive: true });
process.env.N8N_LOG_LEVEL ??= 'silent';

export const CREDENTIAL_TYPE = 'partnerAccountInquiryApi';

/** The credential fields that talk to a simulator at `baseUrl`. */
export function sandboxCredentials(baseUrl: string): ICredentialDataDecryptedObject {
	return { ...simulatorCredentialData(baseUrl) };
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

/** n8n's registry of node types, over `registry` (type name -> node type). */
export function nodeTypesOf(registry: Record<string, INodeType>): INodeTypes {
	return {
		getByName: (type) => registry[type],
		getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(registry[type], version),
		getKnownTypes: () => ({}),
	};
}

export function makeAdditionalData(
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
