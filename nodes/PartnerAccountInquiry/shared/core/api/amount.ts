/**
 * Amount (docs/api.md, Amount): `{ currency, value }`, value an integer in the currency's minor unit,
 * sent as a string by some SDKs and as a number by others.
 */
const EXPONENT_0 = [
	'BIF',
	'CLP',
	'DJF',
	'GNF',
	'ISK',
	'JPY',
	'KMF',
	'KRW',
	'PYG',
	'RWF',
	'UGX',
	'UYI',
	'VND',
	'VUV',
	'XAF',
	'XOF',
	'XPF',
];
const EXPONENT_3 = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];
const EXPONENT_4 = ['CLF', 'UYW'];

/** ISO 4217 minor-unit exponent; 2 for every currency not listed as an exception. */
function currencyExponent(currency: string): number {
	const code = currency.toUpperCase();
	if (EXPONENT_0.includes(code)) return 0;
	if (EXPONENT_3.includes(code)) return 3;
	if (EXPONENT_4.includes(code)) return 4;
	return 2;
}

/**
 * The value in major units as a number (12345 USD cents -> 123.45; 5000 JPY -> 5000). The decimal
 * point is placed in the digit string, so no binary floating-point division is involved.
 * Undefined when the value is not a whole number of minor units within the safe integer range
 * (beyond it a number could not hold the amount exactly; `availableQuota` keeps the exact text).
 */
export function minorToMajor(value: unknown, currency: string): number | undefined {
	let digits: string;
	if (typeof value === 'number' && Number.isSafeInteger(value)) {
		digits = String(value);
	} else if (typeof value === 'string' && /^-?\d+$/.test(value.trim()) && Number.isSafeInteger(Number(value.trim()))) {
		digits = value.trim();
	} else {
		return undefined;
	}
	const negative = digits.startsWith('-');
	const magnitude = (negative ? digits.slice(1) : digits).replace(/^0+(?=\d)/, '');
	const exponent = currencyExponent(currency);
	if (exponent === 0) return Number(`${negative ? '-' : ''}${magnitude}`);
	const padded = magnitude.padStart(exponent + 1, '0');
	const major = `${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`;
	return Number(`${negative ? '-' : ''}${major}`);
}
