import fc from 'fast-check';

import { minorToMajor } from '../../nodes/PartnerAccountInquiry/shared/core/api/amount';

describe('minor units by currency (ISO 4217 exponent)', () => {
	it.each([
		['USD', 2],
		['EUR', 2],
		['GBP', 2],
		['CNY', 2],
		['CNH', 2],
		['HKD', 2],
		['JPY', 0],
		['KRW', 0],
		['VND', 0],
		['CLP', 0],
		['ISK', 0],
		['BHD', 3],
		['KWD', 3],
		['JOD', 3],
		['OMR', 3],
		['TND', 3],
		['CLF', 4],
		['UYW', 4],
		['XYZ', 2],
	])('%s has exponent %i', (currency, exponent) => {
		expect(minorToMajor(123, currency)).toBe(123 / 10 ** exponent);
	});

	it('ignores case', () => {
		expect(minorToMajor(123, 'jpy')).toBe(123);
		expect(minorToMajor(123, 'bhd')).toBe(0.123);
		expect(minorToMajor(123, 'Usd')).toBe(1.23);
	});
});

describe('minorToMajor', () => {
	describe('exponent 2 (USD)', () => {
		it.each([
			['12345', 123.45],
			['100', 1],
			['1', 0.01],
			['10', 0.1],
			['99', 0.99],
			['0', 0],
			['-12345', -123.45],
			['-1', -0.01],
			['000123', 1.23],
			['-0005', -0.05],
			['00000', 0],
			[' 12345 ', 123.45],
			['\t250\n', 2.5],
		])('string %p -> %p', (value, expected) => {
			expect(minorToMajor(value, 'USD')).toBe(expected);
		});

		it.each([
			[12345, 123.45],
			[1, 0.01],
			[0, 0],
			[-250, -2.5],
			[1_000_000_00, 1_000_000],
			[Number.MAX_SAFE_INTEGER, 90071992547409.91],
			[-Number.MAX_SAFE_INTEGER, -90071992547409.91],
		])('number %p -> %p', (value, expected) => {
			expect(minorToMajor(value, 'USD')).toBe(expected);
		});

		it('gives the same for a number and its string', () => {
			for (const v of [0, 7, 19, 101, 12345, -42, 987654321]) {
				expect(minorToMajor(v, 'USD')).toBe(minorToMajor(String(v), 'USD'));
			}
		});

		it('places the decimal point instead of dividing (no 0.1 + 0.2 style errors)', () => {
			// 29 / 100 is 0.29 in both, but 1.15 * 100 style round trips expose division noise elsewhere.
			expect(minorToMajor('29', 'USD')).toBe(0.29);
			expect(minorToMajor('115', 'USD')).toBe(1.15);
			expect(minorToMajor('100000000000001', 'USD')).toBe(1000000000000.01);
		});
	});

	describe('exponent 0 (JPY, KRW)', () => {
		it.each([
			['5000', 'JPY', 5000],
			[5000, 'JPY', 5000],
			['0', 'JPY', 0],
			['-7', 'JPY', -7],
			['000042', 'KRW', 42],
			[1234567, 'KRW', 1234567],
			['1', 'jpy', 1],
		])('%p %s -> %p', (value, currency, expected) => {
			expect(minorToMajor(value, currency)).toBe(expected);
		});
	});

	describe('exponent 3 (BHD) and 4 (CLF)', () => {
		it.each([
			['1234', 'BHD', 1.234],
			['5', 'BHD', 0.005],
			['50', 'BHD', 0.05],
			['1000', 'BHD', 1],
			[-1500, 'BHD', -1.5],
			['0001', 'KWD', 0.001],
			['12345', 'CLF', 1.2345],
			['5', 'CLF', 0.0005],
		])('%p %s -> %p', (value, currency, expected) => {
			expect(minorToMajor(value, currency)).toBe(expected);
		});
	});

	describe('zero', () => {
		it.each([0, '0', '000', -0])('%p is zero in every exponent', (value) => {
			for (const currency of ['USD', 'JPY', 'BHD', 'CLF']) {
				expect(minorToMajor(value, currency)).toBe(0);
			}
		});

		it('"-0" is numerically zero', () => {
			// Note: the code returns -0 here (the sign is kept on a zero magnitude); it is == 0 and
			// serialises to 0 in JSON, so this only asserts numeric zero.
			for (const currency of ['USD', 'JPY']) {
				const result = minorToMajor('-0', currency);
				expect(result === 0).toBe(true);
				expect(JSON.stringify({ result })).toBe('{"result":0}');
			}
		});
	});

	describe('values beyond the safe integer range', () => {
		it('the largest safe minor-unit value converts exactly', () => {
			expect(minorToMajor('9007199254740991', 'JPY')).toBe(9007199254740991);
			expect(minorToMajor('9007199254740991', 'USD')).toBe(90071992547409.91);
			expect(minorToMajor('-9007199254740991', 'USD')).toBe(-90071992547409.91);
		});

		it('a string beyond it is refused like a number would be: no silent rounding of money', () => {
			expect(minorToMajor('9007199254740992', 'JPY')).toBeUndefined();
			expect(minorToMajor('900719925474099100', 'USD')).toBeUndefined();
			expect(minorToMajor('12345678901234567890', 'USD')).toBeUndefined();
			expect(minorToMajor('-900719925474099199', 'USD')).toBeUndefined();
		});

		it('a number that is not a safe integer is refused (it may already have lost precision)', () => {
			expect(minorToMajor(900719925474099100, 'USD')).toBeUndefined();
			expect(minorToMajor(2 ** 53, 'JPY')).toBeUndefined();
			expect(minorToMajor(-(2 ** 53), 'USD')).toBeUndefined();
			expect(minorToMajor(1e21, 'USD')).toBeUndefined();
		});
	});

	describe('invalid values give undefined', () => {
		it.each([
			['a decimal string', '12.5'],
			['letters', 'abc'],
			['digits and letters', '12a'],
			['an exponent', '1e3'],
			['a plus sign', '+5'],
			['a lone minus', '-'],
			['a double minus', '--5'],
			['the empty string', ''],
			['only spaces', '   '],
			['an inner space', '1 000'],
			['a thousands separator', '1,000'],
			['hex', '0x10'],
			['full-width digits', '１２３'],
			['a fractional number', 1.5],
			['NaN', NaN],
			['Infinity', Infinity],
			['-Infinity', -Infinity],
			['null', null],
			['undefined', undefined],
			['an object', {}],
			['an Amount object', { value: '100', currency: 'USD' }],
			['an array', ['100']],
			['a boolean', true],
			['a BigInt', BigInt(100)],
		])('%s', (_name, value) => {
			expect(minorToMajor(value, 'USD')).toBeUndefined();
			expect(minorToMajor(value, 'JPY')).toBeUndefined();
		});
	});

	describe('properties', () => {
		it('for safe integers and USD: equals Number((v / 100).toFixed(2))', () => {
			fc.assert(
				fc.property(fc.maxSafeInteger(), (v) => {
					expect(minorToMajor(String(v), 'USD')).toBe(Number((v / 100).toFixed(2)));
					expect(minorToMajor(v, 'USD')).toBe(Number((v / 100).toFixed(2)));
				}),
				{ numRuns: 5000 },
			);
		});

		it('for every exponent-2 currency and small integers: the same as USD', () => {
			fc.assert(
				fc.property(
					fc.integer({ min: -1e9, max: 1e9 }),
					fc.constantFrom('EUR', 'GBP', 'CNY', 'HKD', 'SGD', 'AUD', 'CAD', 'NZD', 'CNH', 'usd'),
					(v, currency) => {
						expect(minorToMajor(String(v), currency)).toBe(Number((v / 100).toFixed(2)));
					},
				),
				{ numRuns: 2000 },
			);
		});

		it('for exponent 0: the integer itself, leading zeros or not', () => {
			fc.assert(
				fc.property(fc.maxSafeInteger(), fc.nat({ max: 5 }), (v, zeros) => {
					const text = v < 0 ? `-${'0'.repeat(zeros)}${-v}` : `${'0'.repeat(zeros)}${v}`;
					expect(minorToMajor(text, 'JPY')).toBe(v === 0 ? 0 : v);
					expect(minorToMajor(text, 'KRW') === v).toBe(true);
				}),
				{ numRuns: 2000 },
			);
		});

		it('for exponent 3: equals Number((v / 1000).toFixed(3)) for values up to 1e12', () => {
			fc.assert(
				fc.property(fc.integer({ min: -1e12, max: 1e12 }), (v) => {
					expect(minorToMajor(String(v), 'BHD')).toBe(Number((v / 1000).toFixed(3)));
				}),
				{ numRuns: 2000 },
			);
		});

		it('any string that is not an optionally signed run of digits gives undefined', () => {
			fc.assert(
				fc.property(fc.string(), (text) => {
					fc.pre(!/^-?\d+$/.test(text.trim()));
					expect(minorToMajor(text, 'USD')).toBeUndefined();
				}),
				{ numRuns: 2000 },
			);
		});
	});
});
