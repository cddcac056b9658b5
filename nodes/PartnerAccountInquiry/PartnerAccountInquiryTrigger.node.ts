import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { toNodeError } from './shared/errorMapping';
import {
	accessTokenOption,
	connectedAccountIdOption,
	customerIdOption,
	filtersCollection,
	maskBankDetailsOption,
	optionsCollection,
	quotaFields,
	timeoutOption,
} from './shared/properties';
import { ApiSession } from './shared/transport/session';
import {
	BENEFICIARY_EVENTS,
	EVENT_SUBTITLE,
	isBeneficiaryEvent,
	isQuotaEvent,
	QUOTA_EVENTS,
	TRIGGER_EVENTS,
} from './trigger/events';
import { activationRun, NODE_DATA_KEYS, recordActivation, startRun } from './trigger/continuity';
import { nodeName, pollBeneficiaries, pollQuota } from './trigger/poll';

const beneficiaryShow = { show: { event: BENEFICIARY_EVENTS } };
const quotaShow = { show: { event: QUOTA_EVENTS } };
/** A poll's requests at once: a trigger asks one question, so a narrow stream suffices. */
const POLL_CONCURRENCY = 4;

/**
 * Poll contexts seen: n8n's default poller makes one per activation and reuses it for every poll
 * of that activation. (2.x's poll scheduler makes one per poll, always in activation mode
 * 'update', so none of its polls counts as a user's activation below; the poll it runs at a user's
 * activation does, but is saved only if it emits: trigger/continuity.ts carries its baseline on.)
 */
const activations = new WeakSet<object>();

export class PartnerAccountInquiryTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Account Inquiry Trigger',
		name: 'partnerAccountInquiryTrigger',
		icon: {
			light: 'file:../../icons/partnerAccountInquiry.svg',
			dark: 'file:../../icons/partnerAccountInquiry.dark.svg',
		},
		group: ['trigger'],
		// 2: Mask Bank Details is on unless turned off (version 1 workflows keep their items as they were).
		version: [1, 2],
		defaultVersion: 2,
		subtitle: EVENT_SUBTITLE,
		description:
			'Starts the workflow when a beneficiary is bound, removed or changed, or when the available FX quota crosses a threshold or changes',
		defaults: { name: 'Partner Account Inquiry Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'partnerAccountInquiryApi', required: true }],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				required: true,
				default: 'beneficiaryAdded',
				options: TRIGGER_EVENTS.map(({ name, value, description }) => ({ name, value, description })),
			},
			{
				...maskBankDetailsOption,
				displayOptions: { show: { ...beneficiaryShow.show, '@version': [1] } },
			},
			{
				...maskBankDetailsOption,
				default: true,
				displayOptions: { show: { ...beneficiaryShow.show, '@version': [2] } },
			},
			filtersCollection(beneficiaryShow),
			optionsCollection(beneficiaryShow, [
				accessTokenOption('the accessToken body field'),
				customerIdOption,
				timeoutOption,
			]),
			...quotaFields(quotaShow.show),
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				required: true,
				default: 10000,
				displayOptions: { show: { event: ['quotaBelowThreshold'] } },
				description:
					'In major units of the currency (10000 USD, not cents): the event fires when the quota falls below it',
			},
			optionsCollection(quotaShow, [
				accessTokenOption('the Access-Token header'),
				connectedAccountIdOption,
				timeoutOption,
			]),
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event') as string;
		const manual = this.getMode() === 'manual';
		const staticData = this.getWorkflowStaticData('node');
		// A fresh activation starts from a fresh baseline, and so does what this process remembers of
		// the node; a restart of n8n ('init') carries on.
		const firstPollOfActivation = !activations.has(this);
		activations.add(this);
		const activating = firstPollOfActivation && this.getActivationMode() === 'activate' && !manual;
		const start = { activating, startup: firstPollOfActivation && this.getActivationMode() === 'init' && !manual };
		if (activating) {
			// The run goes to the workflow's global static data too: n8n's activator saves it after this
			// poll on every setup, even where it does not save this poll's node data (durable cursors).
			const global = this.getWorkflowStaticData('global');
			const { id } = this.getNode();
			recordActivation(global, id, startRun(nodeName(this), staticData.pollRecord, activationRun(global, id)));
			for (const key of NODE_DATA_KEYS) delete staticData[key];
		}
		try {
			const session = await ApiSession.open(this, POLL_CONCURRENCY);
			if (isBeneficiaryEvent(event))
				return await pollBeneficiaries(this, session, event, staticData, manual, start);
			if (isQuotaEvent(event)) return await pollQuota(this, session, event, staticData, manual, start);
			throw new NodeOperationError(this.getNode(), `The event "${event}" is not supported`);
		} catch (error) {
			// Nothing from a failed poll is emitted and the saved state is left as it was: the next
			// successful poll emits what this one missed.
			throw toNodeError(this.getNode(), error, 0);
		}
	}
}
