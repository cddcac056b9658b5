import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import {
	accessTokenOption,
	concurrencyOption,
	connectedAccountIdOption,
	includeProofOption,
	optionsCollection,
	quotaFields,
	readConcurrency as readConcurrencyOf,
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
	const request = buildQuotaRequest((name, fallback) => this.getNodeParameter(name, itemIndex, fallback));
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const json = await getQuota(session, quotaQuestion(request, options), signal);
	return [{ json, pairedItem: { item: itemIndex } }];
}
