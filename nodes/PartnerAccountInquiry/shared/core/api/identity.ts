/**
 * Which beneficiary an item of the list is: the one definition used by the listing's
 * exactly-once check (flow/paging.ts, through endpoints/beneficiaries.ts) and by the trigger's
 * saved state (trigger/changes.ts).
 *
 * A beneficiary is its partner reference ID (`referenceBeneficiaryId`, spec 2.3: "partner-defined
 * unique ID"). It stays when the bank details change; the beneficiary token does not (it is
 * ciphertext of the bank details), so a bank-account swap is the same beneficiary changed, not
 * one removed and another added. Without a reference ID a beneficiary is its token, and without
 * either its whole object.
 *
 * Two beneficiaries are never merged: where one list carries a reference ID more than once, each
 * of those entries is told apart by its token too. (The listing reads a list of several pages
 * until two reads agree, so such a repeat is in the data, not an artefact of shifting pages.)
 */
type Item = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** The identity of one item; `referenceRepeats`: its reference ID occurs more than once in its list. */
export function beneficiaryIdentity(item: Item, referenceRepeats = false): string {
	const reference = text(item.referenceBeneficiaryId);
	const token = text(item.beneficiaryToken);
	if (reference && !referenceRepeats) return `r:${reference}`;
	if (reference) return `r:${reference}\nt:${token ?? JSON.stringify(item)}`;
	if (token) return `t:${token}`;
	return `j:${JSON.stringify(item)}`;
}

/**
 * The identity of every item of one list, in order. For the exactly-once check of a read in
 * progress, where the rest of the list is not known yet, `beneficiaryIdentity(item, true)` is the
 * same rule at its finest: an entry seen twice is the same reference ID with the same token.
 */
export function beneficiaryIdentities(items: readonly Item[]): string[] {
	const uses = new Map<string, number>();
	for (const item of items) {
		const reference = text(item.referenceBeneficiaryId);
		if (reference) uses.set(reference, (uses.get(reference) ?? 0) + 1);
	}
	return items.map((item) => {
		const reference = text(item.referenceBeneficiaryId);
		return beneficiaryIdentity(item, reference !== undefined && (uses.get(reference) ?? 0) > 1);
	});
}
