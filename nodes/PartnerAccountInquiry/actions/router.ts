import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CoreError } from '../core/errors';
import { ListingChangedError } from '../core/paging';
import { ApiResultError, RequestError, TransientError } from '../transport/errors';
import { ApiSession } from '../transport/request';
import * as getAvailableQuota from './getAvailableQuota.operation';
import * as listBeneficiaries from './listBeneficiaries.operation';

const operations = { listBeneficiaries, getAvailableQuota } as const;
type Operation = keyof typeof operations;

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const operation = this.getNodeParameter('operation', 0) as Operation;
	const handler = operations[operation];
	if (!handler) throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported`);

	let session: ApiSession;
	try {
		session = await ApiSession.open(this);
	} catch (error) {
		throw toNodeError(this, error, 0);
	}

	// As an AI agent's tool (type "...Tool"), a failure is returned as the tool's answer: the agent
	// hands a thrown error to the model as an empty string, so the model could not tell the user why.
	const failureAsItem = this.continueOnFail() || this.getNode().type.endsWith('Tool');
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			output.push(...(await handler.execute.call(this, itemIndex, session)));
		} catch (error) {
			const nodeError = toNodeError(this, error, itemIndex);
			if (!failureAsItem) throw nodeError;
			output.push({ json: errorItem(error, nodeError), pairedItem: { item: itemIndex } });
		}
	}
	return [output];
}

/** Every failure becomes an n8n error that says what happened and what to do; none carries a secret. */
export function toNodeError(
	fn: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	const node = redacted(fn.getNode());
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof ApiResultError) {
		const { code, status, message, description } = error.explanation;
		return new NodeApiError(node, { resultStatus: status, resultCode: code, resultMessage: message } as JsonObject, {
			message: `The API answered ${code}${message ? `: ${message}` : ''}`,
			description,
			itemIndex,
		});
	}
	if (error instanceof CoreError) {
		return new NodeOperationError(node, error.message, { description: error.hint, itemIndex });
	}
	if (error instanceof ListingChangedError) {
		return new NodeOperationError(node, error.message, {
			description:
				'The list was read a second time and still did not add up, so nothing was returned rather than an incomplete or duplicated list. Run the node again once the beneficiaries stop changing.',
			itemIndex,
		});
	}
	if (error instanceof TransientError) {
		// Not `code`/`detail`: NodeApiError would replace our message with its generic one for known codes.
		return new NodeApiError(node, { summary: error.message, detail: error.detail } as JsonObject, {
			message: error.message,
			description: `The request was tried 4 times (3 retries with growing pauses), each freshly signed${error.httpCode ? '' : ` (network code ${error.detail})`}. Check the gateway address and your network or proxy, then run the node again.`,
			httpCode: error.httpCode === undefined ? undefined : String(error.httpCode),
			itemIndex,
		});
	}
	if (error instanceof RequestError) {
		return new NodeApiError(node, { message: error.message } as JsonObject, {
			message: error.message,
			description: error.hint,
			httpCode: error.httpCode === undefined ? undefined : String(error.httpCode),
			itemIndex,
		});
	}
	return new NodeOperationError(node, error instanceof Error ? error : String(error), { itemIndex });
}

/** Parameters never shown in an error (n8n serialises the node, parameters included, into it). */
const SECRET_PARAMETERS = new Set(['accessToken', 'beneficiaryToken']);

function redactParameters(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(redactParameters);
	if (!value || typeof value !== 'object') return value;
	const copy: IDataObject = {};
	for (const [key, inner] of Object.entries(value)) {
		copy[key] =
			SECRET_PARAMETERS.has(key) && inner !== '' && inner !== undefined
				? '[hidden]'
				: (redactParameters(inner) as IDataObject);
	}
	return copy;
}

function redacted(node: INode): INode {
	return { ...node, parameters: redactParameters(node.parameters) as INode['parameters'] };
}

function errorItem(error: unknown, nodeError: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: nodeError.message };
	if (nodeError.description) json.description = nodeError.description;
	if (error instanceof ApiResultError) {
		json.resultStatus = error.explanation.status;
		json.resultCode = error.explanation.code;
		json.resultMessage = error.explanation.message;
	}
	if (error instanceof CoreError && 'field' in error) json.field = (error as { field: string }).field;
	return json;
}
