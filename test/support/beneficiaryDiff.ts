import { comparedWith } from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryDiff';
import type { BeneficiaryState } from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryState';

/**
 * What a Beneficiary Removed item carries and a trigger's state entry keeps besides its digests, as
 * the reference documents it (beneficiaryState.ts keeps its own list, private): the tests' one copy.
 */
export const SUMMARY_FIELDS = [
	...[
		'referenceBeneficiaryId',
		'beneficiaryNick',
		'beneficiaryType',
		'status',
		'assetType',
		'relationType',
		'currency',
	],
	...['beneficiaryToken', 'bankAccountNo', 'bankAccountIBAN'],
];

/** The whole comparison of a list with a saved state, as a poll's second read makes it. */
export const diffBeneficiaries = (
	state: BeneficiaryState,
	list: Array<Record<string, unknown>>,
	wanted: ReadonlySet<string>,
) => comparedWith(state).diff(list, wanted);
