import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID } from '../shared/core/api/fields';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import {
	ACCUMULATION_ID,
	accessTokenOption,
	connectedAccountIdProperty,
	includeProofOption,
	optionsCollection,
	quotaFields,
	refuseEmptyAccessToken,
	readWhose,
	timeoutOption,
} from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';

const show = { show: { operation: ['getAvailableQuota'] } };

export const description: INodeProperties[] = [
	{ ...connectedAccountIdProperty, displayOptions: show },
	...quotaFields(show.show),
	optionsCollection(show, [accessTokenOption, includeProofOption, timeoutOption]),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	// An expression that gave nothing is refused, not answered for your own account (or no subject).
	const read = (name: string) => this.getNodeParameter(name, itemIndex, '');
	const [connectedAccountId, id] = [CONNECTED_ACCOUNT_ID, ACCUMULATION_ID].map((rule) =>
		readWhose(node, itemIndex, rule, read),
	);
	refuseEmptyAccessToken(node, itemIndex, options);
	const request = buildQuotaRequest((name, fallback) =>
		name === ACCUMULATION_ID.name ? id : this.getNodeParameter(name, itemIndex, fallback),
	);
	const json = await getQuota(session, quotaQuestion(request, connectedAccountId, options), { signal });
	return [{ json, pairedItem: { item: itemIndex } }];
}
