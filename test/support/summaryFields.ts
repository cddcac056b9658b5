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
