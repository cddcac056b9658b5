import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import {
	ACCUMULATION_ID,
	accessTokenOption,
	concurrencyOption,
	connectedAccountIdOption,
	includeProofOption,
	optionsCollection,
	quotaFields,
	readConcurrency as readConcurrencyOf,
	refuseEmptyAccountExpressions,
	refuseEmptyExpression,
	timeoutOption,
} from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';

const show = { show: { operation: ['getAvailableQuota'] } };

export const description: INodeProperties[] = [
	...quotaFields(show.show),
	optionsCollection(show, [
		accessTokenOption('the Access-Token header'),
		connectedAccountIdOption,
		concurrencyOption,
		includeProofOption,
		timeoutOption,
	]),
];

export const readConcurrency = (fn: IExecuteFunctions): number => readConcurrencyOf(fn, 'concurrency');

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	// An expression that gave nothing is refused, not answered for your own account (or no subject).
	const id = this.getNodeParameter(ACCUMULATION_ID.name, itemIndex, '');
	refuseEmptyExpression(node, itemIndex, [ACCUMULATION_ID.name], ACCUMULATION_ID, id);
	refuseEmptyAccountExpressions(node, itemIndex, 'options', options);
	const request = buildQuotaRequest((name, fallback) =>
		name === ACCUMULATION_ID.name ? id : this.getNodeParameter(name, itemIndex, fallback),
	);
	const json = await getQuota(session, quotaQuestion(request, options), { signal });
	return [{ json, pairedItem: { item: itemIndex } }];
}
