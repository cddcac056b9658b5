import fc from 'fast-check';

import {
	ACCESS_TOKEN,
	CONNECTED_ACCOUNT_ID,
	CUSTOMER_ID,
	KEY_VERSION,
} from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { checkHeaderValue } from '../../nodes/PartnerAccountInquiry/shared/core/api/headerValues';
import { ValidationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { thrown } from '../fixtures/thrown';

describe('checkHeaderValue: only what reaches the gateway unchanged', () => {
	it('accepts printable ASCII', () => {
		expect(checkHeaderValue(CUSTOMER_ID, 'CUST_01 a-b.c')).toBe('CUST_01 a-b.c');
	});
	it.each([
		['客户01', /^It has "客" \(U\+5BA2\) at position 1;/],
		['AB\tC', /^It has U\+0009 at position 3;/],
		['ABCé', /^It has "é" \(U\+00E9\) at position 4;/],
	])('refuses %p, saying which character where', (value, detail) => {
		const error = thrown(() => checkHeaderValue(CUSTOMER_ID, value)) as ValidationError;
		expect(error.message).toBe('Customer ID has a character an HTTP header cannot carry');
		expect(error.detail).toMatch(detail);
	});
	it.each([
		[' AB', /^Customer ID starts or ends with white space$/],
		['x'.repeat(129), /^Customer ID is 129 characters long, more than the API's 128$/],
	])('refuses %p', (value, message) => {
		expect(() => checkHeaderValue(CUSTOMER_ID, value)).toThrow(message);
	});
	it('never shows a secret character', () => {
		const error = thrown(() => checkHeaderValue(ACCESS_TOKEN, 'abcé')) as ValidationError;
		expect(error.message).toBe('Access Token has a character an HTTP header cannot carry');
		expect(error.detail).toMatch(/^It has U\+00E9 at position 4;/);
		expect(`${error.message} ${error.detail} ${error.hint}`).not.toContain('é');
	});
	it('keeps the key version from splicing attributes into the Signature header', () => {
		for (const value of ['1,signature=x', '1 ', '1=2', '1;2']) {
			expect(() => checkHeaderValue(KEY_VERSION, value)).toThrow(ValidationError);
		}
		expect(checkHeaderValue(KEY_VERSION, '2')).toBe('2');
	});
	it('accepts a value if and only if every character is printable ASCII (property)', () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 40 }), (value) => {
				const ok = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) || value === '';
				let accepted = true;
				try {
					checkHeaderValue(CONNECTED_ACCOUNT_ID, value);
				} catch (e) {
					expect(e).toBeInstanceOf(ValidationError);
					accepted = false;
				}
				expect(accepted).toBe(ok);
			}),
			{ numRuns: 2000 },
		);
	});
});
