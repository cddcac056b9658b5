import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { CUSTOMER_ID, NUMBER_OPTIONS } from '../shared/core/api/fields';
import { readWholeNumber } from '../shared/core/api/validation';
import { readWhoseAccount } from '../shared/core/api/whoseAccount';
import { aboutAccount, beneficiariesSubject, ValidationError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import { simplifyBeneficiary } from '../shared/core/simplify';
import { listBeneficiaries, listingQuestion, withWhose } from '../shared/endpoints/beneficiaries';
import {
	customerIdProperty,
	filtersCollection,
	includeProofOption,
	maskBankDetailsOption,
	numberProperty,
	optionsCollection,
	readBoolean,
	readMask,
	simplifyProperty,
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
	{ ...simplifyProperty, displayOptions: show },
	filtersCollection(show),
	optionsCollection(show, [
		// A proof is of the whole answer: offered when the items are whole.
		{ ...includeProofOption, displayOptions: { show: { '/simplify': [false] } } },
		maskBankDetailsOption,
		timeoutOption,
	]),
];

/** Simplify as set; with Include Proof (by an expression: the editor offers it only with Simplify off) refused. */
function readSimplify(value: unknown, withProof: boolean): boolean {
	const simplify = readBoolean(simplifyProperty, { [simplifyProperty.name]: value as IDataObject[string] });
	if (simplify && withProof) {
		throw new ValidationError(
			simplifyProperty.name,
			'not with Include Proof',
			'Include Proof needs Simplify off',
			'Turn Simplify off to keep the proof of each whole answer, or turn Include Proof off. Nothing was sent.',
		);
	}
	return simplify;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const whose = readWhoseAccount(CUSTOMER_ID, this.getNodeParameter(CUSTOMER_ID.name, itemIndex, ''));
	try {
		const limit = returnAll
			? undefined
			: readWholeNumber('limit', this.getNodeParameter('limit', itemIndex, NUMBER_OPTIONS.limit.default), 'Limit');
		const question = listingQuestion(whose, filters, options, session.credentials.accessToken, limit);
		const mask = readMask(options, question.withProof);
		const simplify = readSimplify(this.getNodeParameter(simplifyProperty.name, itemIndex, true), question.withProof);
		const items = await listBeneficiaries(session, question, { signal });
		return withWhose(items, whose).map((item) => {
			const shown = mask ? maskBankDetails(item) : item;
			return { json: simplify ? simplifyBeneficiary(shown) : shown, pairedItem: { item: itemIndex } };
		});
	} catch (error) {
		throw aboutAccount(error, beneficiariesSubject(whose), whose);
	}
}
