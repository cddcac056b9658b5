import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { EVENT_SUBTITLE } from './trigger/events';
import { pollTrigger } from './trigger/poll';
import { PollMemory } from './trigger/pollMemory';
import { triggerProperties } from './trigger/properties';

export class PartnerAccountInquiryTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Account Inquiry Trigger',
		name: 'partnerAccountInquiryTrigger',
		icon: {
			light: 'file:../../icons/partnerAccountInquiry.svg',
			dark: 'file:../../icons/partnerAccountInquiry.dark.svg',
		},
		group: ['trigger'],
		// Numbered 3 since the development builds: the first release's workflows say 3.
		version: 3,
		subtitle: EVENT_SUBTITLE,
		description:
			'Starts the workflow when a beneficiary is bound, removed or changed (its bank details included), or when the available FX quota crosses a threshold or changes',
		defaults: { name: 'Partner Account Inquiry Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'partnerAccountInquiryApi', required: true }],
		properties: triggerProperties,
	};

	/** Per object: n8n makes one node type object per process, and this memory is that process's. */
	poll = ((memory: PollMemory) =>
		async function (this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
			return await pollTrigger(this, memory);
		})(new PollMemory());
}
