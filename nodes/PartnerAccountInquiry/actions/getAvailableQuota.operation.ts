import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID } from '../shared/core/api/fields';
import type { QuotaRequest } from '../shared/core/api/validation';
import { aboutAccount } from '../shared/core/errors';
import { readWhoseAccount } from '../shared/core/api/whoseAccount';
import { buildQuotaRequest, getQuota, quotaLabel, quotaQuestion } from '../shared/endpoints/quota';
import {
	connectedAccountIdProperty,
	includeProofOption,
	optionsCollection,
	quotaFields,
	timeoutOption,
} from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';

const show = { show: { operation: ['getAvailableQuota'] } };

export const description: INodeProperties[] = [
	{ ...connectedAccountIdProperty, displayOptions: show },
	...quotaFields(show.show),
	optionsCollection(show, [includeProofOption, timeoutOption]),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const whose = readWhoseAccount(
		CONNECTED_ACCOUNT_ID,
		this.getNodeParameter(CONNECTED_ACCOUNT_ID.name, itemIndex, ''),
	);
	let request: QuotaRequest | undefined;
	try {
		request = buildQuotaRequest((name, fallback) => this.getNodeParameter(name, itemIndex, fallback));
		const question = quotaQuestion(request, whose, options, session.credentials.accessToken);
		const json = await getQuota(session, question, { signal });
		return [{ json, pairedItem: { item: itemIndex } }];
	} catch (error) {
		// Whose account is known before the quota is: a quota the node refused is still said to be its.
		throw aboutAccount(error, request ? quotaLabel(whose, request) : `${whose} quota`, whose);
	}
}
