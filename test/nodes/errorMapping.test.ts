import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { toNodeError } from '../../nodes/PartnerAccountInquiry/shared/errorMapping';
import { ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';

const PLANTED = 'planted-access-token-5f1c';
const node: INode = {
	id: 'n1',
	name: 'Partner Account Inquiry',
	type: 'n8n-nodes-partner-account-inquiry.partnerAccountInquiry',
	typeVersion: 1,
	position: [0, 0],
	parameters: { operation: 'getAvailableQuota', customerId: 'C1', options: { accessToken: PLANTED } },
};

describe('toNodeError hides secret parameters in the node n8n attaches to an error', () => {
	it.each([
		['a PartnerError', new ValidationError('threshold', 'min', 'Threshold must be at least 0')],
		['an n8n NodeOperationError made with the node as it was given', new NodeOperationError(node, 'expression failed')],
		['an n8n NodeApiError made with the node as it was given', new NodeApiError(node, { message: 'upstream' })],
		['a plain Error', new Error('unexpected')],
	])('%s', (_, error) => {
		const mapped = toNodeError(node, error, 0);
		expect(JSON.stringify(mapped.node)).not.toContain(PLANTED);
		expect(mapped.node.parameters).toMatchObject({ customerId: 'C1', options: { accessToken: '[hidden]' } });
	});
});
