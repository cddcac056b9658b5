import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as getAvailableQuota from './actions/getAvailableQuota.operation';
import * as listBeneficiaries from './actions/listBeneficiaries.operation';
import { router } from './actions/router';

export class PartnerAccountInquiry implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Account Inquiry',
		name: 'partnerAccountInquiry',
		icon: {
			light: 'file:../../icons/partnerAccountInquiry.svg',
			dark: 'file:../../icons/partnerAccountInquiry.dark.svg',
		},
		group: ['transform'],
		// Numbered 1.1 since the development builds: the first release's workflows say 1.1.
		version: 1.1,
		subtitle:
			'={{ {"listBeneficiaries": "List Beneficiaries", "getAvailableQuota": "Get Available Quota"}[$parameter["operation"]] }}',
		description:
			'List the beneficiaries bound to an account and check the available FX settlement quota, with signed requests and verified responses',
		defaults: { name: 'Partner Account Inquiry' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'partnerAccountInquiryApi', required: true }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				default: 'listBeneficiaries',
				options: [
					{
						name: 'List Beneficiaries',
						value: 'listBeneficiaries',
						description: 'List the beneficiaries bound to an account, filtered and paged',
						action: 'List beneficiaries',
					},
					{
						name: 'Get Available Quota',
						value: 'getAvailableQuota',
						description: 'Get the quota available for FX settlement declaration',
						action: 'Get available quota',
					},
				],
			},
			...listBeneficiaries.description,
			...getAvailableQuota.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
