import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { NUMBER_OPTIONS } from '../shared/core/api/fields';
import { readWholeNumber } from '../shared/core/api/validation';
import { ValidationError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import { listBeneficiaries, listingQuestion, OWNER_FIELD, withOwner } from '../shared/endpoints/beneficiaries';
import {
	accessTokenOption,
	concurrencyOption,
	confirmWholeListOption,
	customerIdOption,
	includeProofOption,
	filtersCollection,
	maskBankDetailsOption,
	numberProperty,
	optionsCollection,
	readBoolean,
	readConcurrency as readConcurrencyOf,
	refuseEmptyAccountExpressions,
	timeoutOption,
} from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';

const show = { show: { operation: ['listBeneficiaries'] } };

export const includeOwnerOption: INodeProperties = {
	displayName: 'Include Owner',
	name: 'includeOwner',
	type: 'boolean',
	default: true,
	description: `Whether to add ${OWNER_FIELD} to each beneficiary, saying whose list it came from ({ customerId } as sent, or { ownAccount: true }), so that a merge or an export can check it`,
};

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
		includeOwnerOption,
		includeProofOption,
		maskBankDetailsOption,
		{
			...concurrencyOption,
			// The name the option had when it covered the pages of one listing: saved workflows keep it.
			name: 'pageConcurrency',
		},
		numberProperty('pageSize', 'Page Size', 'Beneficiaries per request (1 to 50). Larger pages mean fewer requests.'),
		timeoutOption,
	]),
];

/**
 * Mask Bank Details as set. With Include Proof it is refused before anything is sent: a proof is
 * the exact bytes the service signed, full bank details included, and cannot be masked and still verify.
 */
function readMask(options: IDataObject, withProof: boolean): boolean {
	const mask = readBoolean(maskBankDetailsOption, options);
	if (mask && withProof) {
		throw new ValidationError(
			maskBankDetailsOption.name,
			'not with Include Proof',
			'Mask Bank Details and Include Proof cannot both be on: a proof keeps the exact bytes the service signed, full bank details included',
			'Turn one of them off: a run for an auditor keeps the proof, a run for a chat channel masks. Nothing was sent.',
		);
	}
	return mask;
}

export const readConcurrency = (fn: IExecuteFunctions): number => readConcurrencyOf(fn, 'pageConcurrency');

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	// A Customer ID or Access Token expression that gave nothing is refused, not answered for your own account.
	refuseEmptyAccountExpressions(node, itemIndex, 'options', options);
	const limit = returnAll
		? undefined
		: readWholeNumber('limit', this.getNodeParameter('limit', itemIndex, NUMBER_OPTIONS.limit.default), 'Limit');
	const question = listingQuestion(filters, options, limit);
	const includeOwner = readBoolean(includeOwnerOption, options);
	const mask = readMask(options, question.withProof);
	const items = await listBeneficiaries(session, question, { signal });
	return withOwner(items, question.request, includeOwner).map((json) => ({
		json: mask ? maskBankDetails(json) : json,
		pairedItem: { item: itemIndex },
	}));
}
