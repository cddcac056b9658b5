import type {
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
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
import { bankDetailsShown, nodeName, pollBeneficiaries, pollQuota } from './trigger/poll';
import { pollBeneficiarySet, pollQuotaSet, SET_POLL_CONCURRENCY } from './trigger/pollSet';
import { MAX_SET_SIZE, SET_PARAMETERS, type SetParameters } from './trigger/watchSet';

const beneficiaryShow = { show: { event: BENEFICIARY_EVENTS } };
const quotaShow = { show: { event: QUOTA_EVENTS } };
/** One subject or customer (every workflow saved before sets existed), or a set of them (trigger/pollSet.ts). */
const one = (show: { event: string[] }) => ({ show: { ...show, watch: ['one'] } });
const many = (show: { event: string[] }, more: Record<string, string[]> = {}) => ({
	show: { ...show, watch: ['many'], ...more },
});
/**
 * How a set is entered (rows or pasted text), its rows and its text: three properties named by
 * SET_PARAMETERS, which trigger/pollSet.ts reads them by.
 */
function setEntryProperties(
	names: SetParameters,
	show: Record<string, string[]>,
	what: { noun: string; perLine: string; rowValues: INodeProperties[]; textPlaceholder: string; textFormat: string },
): INodeProperties[] {
	const plural = `${what.noun}s`;
	return [
		{
			displayName: `Enter ${plural} As`,
			name: names.entry,
			type: 'options',
			noDataExpression: true,
			default: 'rows',
			displayOptions: { show },
			options: [
				{ name: 'Rows', value: 'rows', description: `One row per ${what.noun.toLowerCase()}, in the editor` },
				{ name: 'Text', value: 'text', description: `${what.perLine}, pasted (from a spreadsheet, say)` },
			],
		},
		{
			displayName: plural,
			name: names.rows,
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			default: {},
			placeholder: `Add ${what.noun}`,
			displayOptions: { show: { ...show, [names.entry]: ['rows'] } },
			options: [{ displayName: what.noun, name: names.row, values: what.rowValues }],
		},
		{
			displayName: plural,
			name: names.text,
			type: 'string',
			typeOptions: { rows: 8 },
			default: '',
			placeholder: what.textPlaceholder,
			displayOptions: { show: { ...show, [names.entry]: ['text'] } },
			description: `${what.perLine}, at most ${MAX_SET_SIZE}${what.textFormat}. Blank lines and lines starting with # are skipped; any other bad line is refused with its line number, and nothing is watched until every line is valid.`,
		},
	];
}

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
			{
				displayName: 'Watch',
				name: 'watch',
				type: 'options',
				noDataExpression: true,
				default: 'one',
				displayOptions: beneficiaryShow,
				options: [
					{
						name: 'One Account',
						value: 'one',
						description: 'Your own account, or one customer (Options > Customer ID)',
					},
					{
						name: 'Many Customers',
						value: 'many',
						description: `Up to ${MAX_SET_SIZE} customers in one trigger, each with its own baseline`,
					},
				],
			},
			{
				displayName: 'Watch',
				name: 'watch',
				type: 'options',
				noDataExpression: true,
				default: 'one',
				displayOptions: quotaShow,
				options: [
					{ name: 'One Subject', value: 'one', description: 'One accumulation method, ID and currency' },
					{
						name: 'Many Subjects',
						value: 'many',
						description: `Up to ${MAX_SET_SIZE} quota subjects in one trigger, each with its own threshold and baseline`,
					},
				],
			},
			...setEntryProperties(SET_PARAMETERS.customers, many(beneficiaryShow.show).show, {
				noun: 'Customer',
				perLine: 'One customer ID a line',
				rowValues: [{ displayName: 'Customer ID', name: 'customerId', type: 'string', default: '' }],
				textPlaceholder: 'CUST_0001\nCUST_0002',
				textFormat: '',
			}),
			filtersCollection(beneficiaryShow),
			optionsCollection(one(beneficiaryShow.show), [
				accessTokenOption('the accessToken body field'),
				customerIdOption,
				timeoutOption,
			]),
			optionsCollection(many(beneficiaryShow.show), [accessTokenOption('the accessToken body field'), timeoutOption]),
			...quotaFields(one(quotaShow.show).show),
			...setEntryProperties(SET_PARAMETERS.quota, many(quotaShow.show).show, {
				noun: 'Subject',
				perLine: 'One subject a line',
				rowValues: [
					...quotaFields({}).map(({ displayOptions, ...field }) => {
						// Inside a row, Trade Type is shown when the row's method needs it; otherwise everywhere.
						const needs = (displayOptions?.show as Record<string, unknown> | undefined)?.quotaAccumulationMethod;
						return needs
							? { ...field, displayOptions: { show: { quotaAccumulationMethod: needs as string[] } } }
							: field;
					}),
					{
						displayName: 'Threshold',
						name: 'threshold',
						type: 'string',
						default: '',
						placeholder: '10000',
						description:
							"For Quota Below Threshold: this subject's own threshold, in major units; empty means the Threshold below",
					},
				],
				textPlaceholder: 'USER_ID, U-1001, USD, 20000\nBENEFICIARY, REF-42, EUR, GOODS',
				textFormat:
					': method, ID, currency, the trade type for BENEFICIARY, and optionally its own threshold, separated by commas, semicolons or tabs',
			}),
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				required: true,
				default: 10000,
				displayOptions: { show: { event: ['quotaBelowThreshold'] } },
				description:
					'In major units of the currency (10000 USD, not cents): the event fires when the quota falls below it. With many subjects, for each subject that gives no threshold of its own.',
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
			const watchMany = this.getNodeParameter('watch', 'one') === 'many';
			const session = await ApiSession.open(this, watchMany ? SET_POLL_CONCURRENCY : POLL_CONCURRENCY);
			if (isBeneficiaryEvent(event) && watchMany) {
				return await pollBeneficiarySet(this, session, event, staticData, manual, start, bankDetailsShown(this));
			}
			if (isQuotaEvent(event) && watchMany) return await pollQuotaSet(this, session, event, staticData, manual, start);
			if (isBeneficiaryEvent(event)) return await pollBeneficiaries(this, session, event, staticData, manual, start);
			if (isQuotaEvent(event)) return await pollQuota(this, session, event, staticData, manual, start);
			throw new NodeOperationError(this.getNode(), `The event "${event}" is not supported`);
		} catch (error) {
			// Nothing from a failed poll is emitted and the saved state is left as it was: the next
			// successful poll emits what this one missed.
			throw toNodeError(this.getNode(), error, 0);
		}
	}
}
