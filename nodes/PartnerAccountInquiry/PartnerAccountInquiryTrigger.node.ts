import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { EVENT_SUBTITLE } from './trigger/events';
import { pollTrigger } from './trigger/poll';
import { PollMemory } from './trigger/pollMemory';
import { triggerProperties } from './trigger/properties';
import { credentialTest } from './shared/transport/credentialTest';

export class PartnerAccountInquiryTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Account Inquiry Trigger',
		name: 'partnerAccountInquiryTrigger',
		icon: {
			light: 'file:../../icons/partnerAccountInquiry.svg',
			dark: 'file:../../icons/partnerAccountInquiry.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: EVENT_SUBTITLE,
		description:
			'Starts the workflow when a beneficiary is added, removed or changed, or an FX quota falls below a threshold (WorldFirst, Ant International)',
		defaults: { name: 'Partner Account Inquiry Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'partnerAccountInquiryApi', required: true, testedBy: 'partnerAccountInquiryApiTest' }],
		properties: triggerProperties,
	};

	/** The credential's Test (shared/transport/credentialTest.ts), named by `testedBy` above. */
	methods = { credentialTest };

	/** Per object: n8n makes one node type object per process, and this memory is that process's. */
	poll = ((memory: PollMemory) =>
		async function (this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
			return await pollTrigger(this, memory);
		})(new PollMemory());
}
