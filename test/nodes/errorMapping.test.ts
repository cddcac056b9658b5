import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { RESULT_CODES } from '../../nodes/PartnerAccountInquiry/shared/core/api/resultCodes';
import { ApiResultError, ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { ERRORS_DOC } from '../../nodes/PartnerAccountInquiry/shared/core/links';
import { errorItem, toNodeError } from '../../nodes/PartnerAccountInquiry/shared/errorMapping';

const PLANTED = 'planted-access-token-5f1c';
const node: INode = {
	id: 'n1',
	name: 'Partner Account Inquiry',
	type: 'n8n-nodes-partner-account-inquiry.partnerAccountInquiry',
	typeVersion: 1,
	position: [0, 0],
	// The Beneficiary Token filter is the node's secret parameter (the access token is the credential's).
	parameters: {
		operation: 'listBeneficiaries',
		customerId: 'C1',
		filters: { beneficiaryToken: PLANTED, bankAccountNo: '6222021234567890' },
	},
};

describe('toNodeError hides secret parameters (and masks bank details) in the node n8n attaches to an error', () => {
	it.each([
		['a PartnerError', new ValidationError('threshold', 'min', 'Threshold must be at least 0')],
		['an n8n NodeOperationError made with the node as it was given', new NodeOperationError(node, 'expression failed')],
		['an n8n NodeApiError made with the node as it was given', new NodeApiError(node, { message: 'upstream' })],
		['a plain Error', new Error('unexpected')],
	])('%s', (_, error) => {
		const mapped = toNodeError(node, error, 0);
		expect(JSON.stringify(mapped.node)).not.toContain(PLANTED);
		expect(JSON.stringify(mapped.node)).not.toContain('6222021234567890');
		expect(mapped.node.parameters).toMatchObject({
			customerId: 'C1',
			filters: { beneficiaryToken: '[hidden]', bankAccountNo: '****7890' },
		});
	});
});

describe("n8n's description is the error's detail, then its hint; the error item says the same", () => {
	it('a finding of the node (NodeOperationError)', () => {
		const error = new ValidationError(
			'timeout',
			'range',
			'Timeout must be a whole number from 1000 to 300000',
			undefined,
			'It is 5',
		);
		const mapped = toNodeError(node, error, 0);
		expect(mapped).toBeInstanceOf(NodeOperationError);
		expect(mapped.message).toBe('Timeout must be a whole number from 1000 to 300000');
		expect(mapped.description).toBe('It is 5. Correct Timeout, then run again. Nothing was sent.');
		expect(errorItem(error, mapped)).toEqual({
			error: 'Timeout must be a whole number from 1000 to 300000',
			description: 'It is 5. Correct Timeout, then run again. Nothing was sent.',
			field: 'timeout',
		});
	});

	it('an answer of the API (NodeApiError): the code and its meaning once, the gateway’s words in resultMessage only', () => {
		const error = new ApiResultError({
			resultStatus: 'U',
			resultCode: 'UNKNOWN_EXCEPTION',
			resultMessage: 'Service busy',
		});
		const mapped = toNodeError(node, error, 0);
		expect(mapped).toBeInstanceOf(NodeApiError);
		expect(mapped.message).toBe('The API answered UNKNOWN_EXCEPTION: failure for unknown reasons');
		expect(mapped.description).toBe(`The outcome is unknown (status U). ${RESULT_CODES.UNKNOWN_EXCEPTION.action}`);
		expect(mapped.description).toContain(ERRORS_DOC);
		const item = errorItem(error, mapped);
		expect(item).toEqual({
			error: mapped.message,
			description: mapped.description,
			resultStatus: 'U',
			resultCode: 'UNKNOWN_EXCEPTION',
			resultMessage: 'Service busy',
		});
		expect(`${item.error} ${item.description}`).not.toContain('Service busy');
	});

	it('an error without a detail: the hint alone', () => {
		const error = new ValidationError('events', 'rule', 'Events is empty: pick at least one event');
		expect(toNodeError(node, error, 0).description).toBe('Correct Events, then run again. Nothing was sent.');
	});
});
