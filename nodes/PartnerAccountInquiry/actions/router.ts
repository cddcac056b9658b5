import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ApiSession } from '../transport/request';
import { errorItem, toNodeError } from './errorMapping';
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
		throw toNodeError(this.getNode(), error, 0);
	}

	// As an AI agent's tool (type "...Tool"), a failure is returned as the tool's answer: the agent
	// hands a thrown error to the model as an empty string, so the model could not tell the user why.
	const failureAsItem = this.continueOnFail() || this.getNode().type.endsWith('Tool');
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			output.push(...(await handler.execute.call(this, itemIndex, session)));
		} catch (error) {
			const nodeError = toNodeError(this.getNode(), error, itemIndex);
			if (!failureAsItem) throw nodeError;
			output.push({ json: errorItem(error, nodeError), pairedItem: { item: itemIndex } });
		}
	}
	return [output];
}
