import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { CUSTOMER_ID, NUMBER_OPTIONS } from '../shared/core/api/fields';
import { readWholeNumber } from '../shared/core/api/validation';
import { ValidationError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import { listBeneficiaries, listingQuestion, withOwner } from '../shared/endpoints/beneficiaries';
import {
	accessTokenOption,
	customerIdProperty,
	filtersCollection,
	includeProofOption,
	maskBankDetailsOption,
	numberProperty,
	optionsCollection,
	readBoolean,
	refuseEmptyAccessToken,
	readWhose,
	timeoutOption,
} from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';

const show = { show: { operation: ['listBeneficiaries'] } };

export const description: INodeProperties[] = [
	{ ...customerIdProperty, displayOptions: show },
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
	{ ...maskBankDetailsOption, displayOptions: show },
	filtersCollection(show),
	optionsCollection(show, [accessTokenOption, includeProofOption, timeoutOption]),
];

/**
 * Mask Bank Details as set. The editor does not offer Include Proof with it; expressions can still
 * give both, refused before anything is sent: a proof is the exact bytes the service signed, full
 * bank details included, and cannot be masked and still verify.
 */
function readMask(value: unknown, withProof: boolean): boolean {
	const mask = readBoolean(maskBankDetailsOption, { [maskBankDetailsOption.name]: value as IDataObject[string] });
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
	const customerId = readWhose(node, itemIndex, CUSTOMER_ID, (name) => this.getNodeParameter(name, itemIndex, ''));
	refuseEmptyAccessToken(node, itemIndex, options);
	const limit = returnAll
		? undefined
		: readWholeNumber('limit', this.getNodeParameter('limit', itemIndex, NUMBER_OPTIONS.limit.default), 'Limit');
	const question = listingQuestion(customerId, filters, options, limit);
	const mask = readMask(this.getNodeParameter(maskBankDetailsOption.name, itemIndex, false), question.withProof);
	const items = await listBeneficiaries(session, question, { signal });
	return withOwner(items, question.request).map((json) => ({
		json: mask ? maskBankDetails(json) : json,
		pairedItem: { item: itemIndex },
	}));
}
