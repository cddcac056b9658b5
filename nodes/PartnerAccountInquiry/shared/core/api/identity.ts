/**
 * Which beneficiary an entry of the list is: the one definition used by the listing's
 * exactly-once check (flow/paging.ts, through endpoints/beneficiaries.ts) and by the trigger's
 * saved state (trigger/beneficiaryState.ts, trigger/beneficiaryDiff.ts).
 *
 * An entry of the list is one binding. A list may carry one beneficiary more than once (bound
 * again under another nickname, or once per currency: the same reference ID and token, other
 * fields): those are distinct entries, both returned and both watched. Only an entry identical in
 * every field to another of the same read is a repeat of it; across pages that is the mark of
 * pages that shifted while they were read, and the listing reads again (paging.ts).
 *
 * A beneficiary is its partner reference ID (`referenceBeneficiaryId`, spec 2.3: "partner-defined
 * unique ID"). It stays when the bank details change; the beneficiary token does not (it is
 * ciphertext of the bank details), so a bank-account swap is the same beneficiary changed. Without
 * a reference ID a beneficiary is its token, and without either its whole entry. The trigger
 * matches the entries of one such group across two polls; `isAnotherPayee` says when two entries
 * of a group cannot be the same payee: a reference ID reused for someone else.
 */
type Item = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** JSON with the keys of every object sorted: equal values, equal text, whatever the order of their fields. */
export function canonical(value: unknown): string {
	if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	const entries = Object.entries(value as Item)
		.filter(([, v]) => v !== undefined)
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * The group of beneficiaries an entry belongs to: its reference ID, else its token, else the entry
 * itself (its fields in any order). An empty reference ID or token is none.
 */
export function beneficiaryGroup(item: Item): string {
	const reference = text(item.referenceBeneficiaryId);
	if (reference) return `r:${reference}`;
	return tokenGroup(item) ?? `j:${canonical(item)}`;
}

/** Whether an entry has a reference ID (an empty one is none). */
export const hasReference = (value: unknown): boolean => text(value) !== undefined;

/** The group an entry would be in by its token alone (a beneficiary before it was given a reference ID). */
export function tokenGroup(item: Item): string | undefined {
	const token = text(item.beneficiaryToken);
	return token ? `t:${token}` : undefined;
}

/**
 * The listing's exactly-once key: an entry read twice in one read is the same in every field. The
 * entry as serialised: one gateway writes its fields in one order, and this runs for every entry
 * of every page (three times faster than the sorted form).
 */
export function listingEntryKey(item: Item): string {
	return JSON.stringify(item);
}

/** The fields that say which bank account an entry pays: new ones are a bank-detail change. */
export const BANK_DETAIL_FIELDS = ['beneficiaryToken', 'bankAccountNo', 'bankAccountIBAN'] as const;
/**
 * A beneficiary's codes and IDs a workflow routes on (a Switch on `status`, say), listed once: Mask
 * Bank Details never masks them (masking.ts), and a removal carries them, as the trigger keeps them
 * by value (beneficiaryState.ts). A field added here changes that saved format: a new version of it.
 */
export const BENEFICIARY_ROUTING_FIELDS = [
	'referenceBeneficiaryId',
	'beneficiaryType',
	'status',
	'assetType',
	'relationType',
	'currency',
] as const;
/** The field that names the payee. */
export const PAYEE_NAME_FIELD = 'accountName';
/** Fields whose change decides who is paid: the trigger keeps longer digests of them. */
export const PAYEE_FIELDS: readonly string[] = [...BANK_DETAIL_FIELDS, PAYEE_NAME_FIELD];

/**
 * Two entries of one group are another payee when both the account name and the bank details
 * differ (each present in both and not equal): a reference ID reused for someone else. New bank
 * details under the same name, or a new name on the same bank details, stay one beneficiary.
 * `same(field)` says whether the field is equal in both, `undefined` when either lacks it.
 */
export function isAnotherPayee(same: (field: string) => boolean | undefined): boolean {
	if (same(PAYEE_NAME_FIELD) !== false) return false;
	return BANK_DETAIL_FIELDS.some((field) => same(field) === false);
}
