/**
 * An expression meant to give a field that decides whose data comes back, and that gives nothing,
 * is refused: the field's own expression (Customer ID, Connected Account ID: top-level parameters),
 * or a collection (Options, which holds the Access Token) given as one expression. n8n 2.41 drops a
 * collection given as one expression before the node runs (test/workflows/itemAnswers.test.ts);
 * this is the check for any run that hands it to the node as written.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, CUSTOMER_ID } from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import {
	ACCUMULATION_ID,
	refuseEmptyAccessToken,
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
/** What refuseEmptyAccessToken throws for item 1's Options, or undefined when it lets the item through. */
function refused(node: INode, resolved: IDataObject): unknown {
	try {
		refuseEmptyAccessToken(node, 1, resolved);
		return undefined;
	} catch (error) {
		return error;
	}
}

/** What refuseEmptyExpression throws for item 1's top-level Customer ID or Connected Account ID, or undefined. */
function refusedField(node: INode, field: typeof CUSTOMER_ID, value: unknown): unknown {
	try {
		refuseEmptyExpression(node, 1, [field.name], field, value);
		return undefined;
	} catch (error) {
		return error;
	}
}

describe('whose expression: the field or an enclosing collection', () => {
	it("the field's own expression, the collection that is one expression, or neither (typed: never refused)", () => {
		const own = refusedField(nodeWith({ customerId: '={{ $json.c }}' }), CUSTOMER_ID, '') as Error;
		expect(own.message).toMatch(/^Customer ID is an expression that gave "" for item 1/);
		expect(refusedField(nodeWith({ customerId: '' }), CUSTOMER_ID, '')).toBeUndefined();
		expect(refusedField(nodeWith({}), CUSTOMER_ID, '')).toBeUndefined();
		const empty = { accessToken: '' };
		const whole = refused(nodeWith({ options: '={{ $json.options }}' }), empty) as Error;
		expect(whole.message).toMatch(/^Options is an expression that gave Access Token nothing for item 1/);
		expect(refused(nodeWith({ options: { accessToken: '' } }), empty)).toBeUndefined();
		expect(refused(nodeWith({ options: 'C1' }), empty)).toBeUndefined();
		expect(refused(nodeWith({}), empty)).toBeUndefined();
	});
});

describe('Options given as one expression', () => {
	const node = nodeWith({ options: '={{ { accessToken: $json.token, timeout: 5000 } }}' });

	it.each([
		['an empty Access Token', { accessToken: '' }],
		['a blank one', { accessToken: '  ' }],
		['null', { accessToken: null }],
	])('%s is refused, naming the field and the item, never what it gave', (_name, resolved) => {
		const error = refused(node, resolved as IDataObject);
		expect(error).toBeInstanceOf(ValidationError);
		expect((error as ValidationError).field).toBe('accessToken');
		expect((error as Error).message).toMatch(/^Options is an expression that gave Access Token nothing for item 1/);
		expect((error as ValidationError).hint).toMatch(/leave Access Token out of what the Options expression gives/);
	});

	it('a field the expression names but did not give (undefined, dropped) is refused too', () => {
		expect(refused(node, { timeout: 5000 })).toBeInstanceOf(ValidationError);
	});

	it('a field it neither gives nor names is unset, as typed: no OAuth, on purpose', () => {
		expect(refused(nodeWith({ options: '={{ { timeout: 5000 } }}' }), { timeout: 5000 })).toBeUndefined();
		expect(refused(nodeWith({ options: '={{ $json.options }}' }), { accessToken: 'tok-1' })).toBeUndefined();
	});

	it('a value it gave is sent as given', () => {
		expect(refused(node, { accessToken: 'tok-1', timeout: 5000 })).toBeUndefined();
	});
});

describe('the field as its own expression, and the Accumulation ID', () => {
	it.each([
		[CUSTOMER_ID, "an empty Customer ID lists your own account's beneficiaries, not a customer's"],
		[CONNECTED_ACCOUNT_ID, "an empty Connected Account ID reads your own account's quota, not the managed customer's"],
	])('refuses an empty, blank or missing result of $label itself, saying what empty would read', (field, means) => {
		const node = nodeWith({ [field.name]: '={{ $json.c }}' });
		for (const [value, gave] of [
			['', '""'],
			['  ', '"  "'],
			[undefined, 'nothing'],
		] as const) {
			const error = refusedField(node, field, value) as ValidationError;
			expect(error).toBeInstanceOf(ValidationError);
			expect(error.field).toBe(field.name);
			expect(error.message).toBe(
				`${field.label} is an expression that gave ${gave} for item 1; ${means}, so nothing was sent for this item`,
			);
			expect(error.hint).toMatch(new RegExp(`remove ${field.label} from the node`));
		}
		expect(refusedField(node, field, 'C1')).toBeUndefined();
		expect(refusedField(nodeWith({ [field.name]: '' }), field, '')).toBeUndefined();
	});

	it('the Accumulation ID by expression', () => {
		const node = nodeWith({ quotaAccumulationId: '={{ $json.id }}' });
		const error = thrown(() => refuseEmptyExpression(node, 0, [ACCUMULATION_ID.name], ACCUMULATION_ID, ''));
		expect((error as Error).message).toBe(
			'Accumulation ID is an expression that gave "" for item 0, so nothing was sent for this item',
		);
	});
});
