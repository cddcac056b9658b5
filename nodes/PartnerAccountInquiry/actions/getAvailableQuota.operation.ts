import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { readWholeNumber } from '../shared/core/api/validation';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import {
	accessTokenOption,
	concurrencyOption,
	connectedAccountIdOption,
	includeProofOption,
	optionsCollection,
	quotaFields,
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

/** The execution's request width, from the first item (it is one stream for all items). */
export function readConcurrency(fn: IExecuteFunctions): number {
	const options = fn.getNodeParameter('options', 0, {}) as IDataObject;
	return readWholeNumber('concurrency', options.concurrency, 'Concurrency');
}

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
