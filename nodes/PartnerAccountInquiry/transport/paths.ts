/** Spec section 4. */
export const PATHS = {
	listBeneficiaries: '/amsin/api/v1/business/account/inquiryBeneficiaryList',
	getAvailableQuota: '/amsin/api/v1/business/account/inquiryAvailableQuota',
} as const;
