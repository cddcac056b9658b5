/**
 * An expression meant to give a field that decides whose data comes back, and that gives nothing,
 * is refused: the field's own expression, or a collection (Options) given as one expression. n8n
 * 2.41 drops a collection given as one expression before the node runs (test/workflows/
 * itemAnswers.test.ts); this is the check for any run that hands it to the node as written.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import {
	ACCUMULATION_ID,
	refuseEmptyAccountExpressions,
	refuseEmptyExpression,
} from '../../nodes/PartnerAccountInquiry/shared/properties';
import { thrown } from '../fixtures/thrown';

const nodeWith = (parameters: INodeParameters): INode => ({
	id: 'n1',
	name: 'Partner Account Inquiry',
	type: 'n8n-nodes-partner-account-inquiry.partnerAccountInquiry',
	typeVersion: 1,
	position: [0, 0],
	parameters,
});
/** What refuseEmptyAccountExpressions throws for item 1, or undefined when it lets the item through. */
function refused(node: INode, resolved: IDataObject): unknown {
	try {
		refuseEmptyAccountExpressions(node, 1, 'options', resolved);
		return undefined;
	} catch (error) {
		return error;
	}
}

describe('whose expression: the field or an enclosing collection', () => {
	it("the field's own expression, the collection that is one expression, or neither (typed: never refused)", () => {
		const empty = { customerId: '' };
		const own = refused(nodeWith({ options: { customerId: '={{ $json.c }}' } }), empty) as Error;
		expect(own.message).toMatch(/^Customer ID is an expression that gave "" for item 1/);
		const whole = refused(nodeWith({ options: '={{ $json.options }}' }), empty) as Error;
		expect(whole.message).toMatch(/^Options is an expression that gave Customer ID "" for item 1/);
		expect(refused(nodeWith({ options: { customerId: 'C1' } }), empty)).toBeUndefined();
		expect(refused(nodeWith({ options: 'C1' }), empty)).toBeUndefined();
		expect(refused(nodeWith({}), empty)).toBeUndefined();
	});
});

describe('Options given as one expression', () => {
	const node = nodeWith({ options: '={{ { customerId: $json.customerId, connectedAccountId: $json.account } }}' });

	it.each([
		[
			'an empty Customer ID',
			{ customerId: '' },
			'customerId',
			'Options is an expression that gave Customer ID "" for item 1',
		],
		[
			'a blank one',
			{ customerId: '  ' },
			'customerId',
			'Options is an expression that gave Customer ID "  " for item 1',
		],
		['null', { customerId: null }, 'customerId', 'Options is an expression that gave Customer ID nothing for item 1'],
		[
			'an empty Connected Account ID',
			{ customerId: 'C1', connectedAccountId: '' },
			'connectedAccountId',
			'Options is an expression that gave Connected Account ID "" for item 1',
		],
	])('%s is refused, naming the field and the item', (_name, resolved, field, message) => {
		const error = refused(node, resolved as IDataObject);
		expect(error).toBeInstanceOf(ValidationError);
		expect((error as ValidationError).field).toBe(field);
		expect((error as Error).message.startsWith(message)).toBe(true);
		expect((error as ValidationError).hint).toMatch(/leave .* out of what the Options expression gives/);
	});

	it('a field the expression names but did not give (undefined, dropped) is refused too', () => {
		expect(refused(node, {})).toBeInstanceOf(ValidationError);
	});

	it('an Access Token it gave empty is refused without showing what it gave', () => {
		const error = refused(nodeWith({ options: '={{ $json.options }}' }), { accessToken: '' }) as Error;
		expect(error.message).toMatch(/^Options is an expression that gave Access Token nothing for item 1/);
	});

	it('a field it neither gives nor names is unset, as typed: your own account, on purpose', () => {
		expect(refused(nodeWith({ options: '={{ { timeout: 5000 } }}' }), { timeout: 5000 })).toBeUndefined();
		expect(refused(nodeWith({ options: '={{ $json.options }}' }), { customerId: 'C1' })).toBeUndefined();
	});

	it('a value it gave is sent as given', () => {
		expect(refused(node, { customerId: 'C1', connectedAccountId: 'A1' })).toBeUndefined();
	});
});

describe('the field as its own expression, and the Accumulation ID', () => {
	it('refuses an empty result of the field itself, as before', () => {
		const node = nodeWith({ options: { customerId: '={{ $json.c }}' } });
		expect((refused(node, { customerId: '' }) as Error).message).toMatch(
			/^Customer ID is an expression that gave "" for item 1/,
		);
		expect(refused(nodeWith({ options: { customerId: '' } }), { customerId: '' })).toBeUndefined();
	});

	it('the Accumulation ID by expression', () => {
		const node = nodeWith({ quotaAccumulationId: '={{ $json.id }}' });
		const error = thrown(() => refuseEmptyExpression(node, 0, [ACCUMULATION_ID.name], ACCUMULATION_ID, ''));
		expect((error as Error).message).toBe(
			'Accumulation ID is an expression that gave "" for item 0, so nothing was sent for this item',
		);
	});
});
