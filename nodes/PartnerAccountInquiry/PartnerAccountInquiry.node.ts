import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as getAvailableQuota from './actions/getAvailableQuota.operation';
import * as listBeneficiaries from './actions/listBeneficiaries.operation';
import { router } from './actions/router';
import { credentialTest } from './shared/transport/credentialTest';

export class PartnerAccountInquiry implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Account Inquiry',
		name: 'partnerAccountInquiry',
		icon: {
			light: 'file:../../icons/partnerAccountInquiry.svg',
			dark: 'file:../../icons/partnerAccountInquiry.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ {"listBeneficiaries": "Get many beneficiaries", "getAvailableQuota": "Get available quota"}[$parameter["operation"]] }}',
		description:
			'Get beneficiaries and available FX settlement quota from the partner account inquiry API (WorldFirst, Ant International)',
		defaults: { name: 'Partner Account Inquiry' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'partnerAccountInquiryApi', required: true, testedBy: 'partnerAccountInquiryApiTest' }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				default: 'listBeneficiaries',
				options: [
					{
						name: 'Get Available Quota',
						value: 'getAvailableQuota',
						description: 'Get the quota still available for FX settlement of an account',
						action: 'Get available quota',
					},
					{
						// The value keeps the first name: saved workflows say listBeneficiaries.
						name: 'Get Many Beneficiaries',
						value: 'listBeneficiaries',
						description: 'Retrieve a list of the beneficiaries (payees) bound to an account',
						action: 'Get many beneficiaries',
					},
				],
			},
			...listBeneficiaries.description,
			...getAvailableQuota.description,
		],
	};

	/** The credential's Test (shared/transport/credentialTest.ts), named by `testedBy` above. */
	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
