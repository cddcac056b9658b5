/**
 * Simplify (framework-free): a beneficiary item as a treasury user reads it, at most 10 fields,
 * under the names the whole answer gives them, so that an expression reads the same field either
 * way. One table, in the order shown (docs/reference.md, "Simplify").
 */
import { WHOSE_ACCOUNT_FIELD } from './api/whoseAccount';

/**
 * The fields kept, each a list of the names it may come under (the first present wins): a
 * beneficiary's bank account is its IBAN when it has one, else its account number. A trigger's
 * item adds its event and, for a change, what changed; `possibleBankChange` comes only on an entry
 * without a Reference Beneficiary ID and without `changes`, so an item never holds more than 10.
 */
const SIMPLIFIED_FIELDS: ReadonlyArray<readonly string[]> = [
	['event'],
	[WHOSE_ACCOUNT_FIELD],
	['accountName'],
	['beneficiaryNick'],
	['bankAccountIBAN', 'bankAccountNo'],
	['bankName'],
	['currency'],
	['status'],
	['referenceBeneficiaryId'],
	['changes'],
	['possibleBankChange'],
];

/** The simplified item: the fields of SIMPLIFIED_FIELDS the item has, in that order. */
export function simplifyBeneficiary<T extends Record<string, unknown>>(item: T): Partial<T> {
	const simplified: Record<string, unknown> = {};
	for (const names of SIMPLIFIED_FIELDS) {
		// An empty value is none: an empty IBAN gives way to the account number.
		const name = names.find((candidate) => ![undefined, null, ''].includes(item[candidate] as string));
		if (name !== undefined) simplified[name] = item[name];
	}
	return simplified as Partial<T>;
}
