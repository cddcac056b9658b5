import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { NUMBER_OPTIONS } from '../shared/core/api/fields';
import { readWholeNumber } from '../shared/core/api/validation';
import { listBeneficiaries, listingQuestion } from '../shared/endpoints/beneficiaries';
import {
	accessTokenOption,
	concurrencyOption,
	confirmWholeListOption,
	customerIdOption,
	includeProofOption,
	filtersCollection,
	numberProperty,
	optionsCollection,
	readConcurrency as readConcurrencyOf,
	timeoutOption,
} from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';

const show = { show: { operation: ['listBeneficiaries'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		displayOptions: show,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		...numberProperty('limit', 'Limit', 'Max number of results to return'),
		displayOptions: { show: { operation: ['listBeneficiaries'], returnAll: [false] } },
	},
	filtersCollection(show),
	optionsCollection(show, [
		accessTokenOption('the accessToken body field'),
		customerIdOption,
		confirmWholeListOption,
		includeProofOption,
		{
			...concurrencyOption,
			// The name the option had when it covered the pages of one listing: saved workflows keep it.
			name: 'pageConcurrency',
		},
		numberProperty('pageSize', 'Page Size', 'Beneficiaries per request (1 to 50). Larger pages mean fewer requests.'),
		timeoutOption,
	]),
];

export const readConcurrency = (fn: IExecuteFunctions): number => readConcurrencyOf(fn, 'pageConcurrency');

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const limit = returnAll
		? undefined
		: readWholeNumber('limit', this.getNodeParameter('limit', itemIndex, NUMBER_OPTIONS.limit.default), 'Limit');
	const items = await listBeneficiaries(session, listingQuestion(filters, options, limit), signal);
	return items.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}
