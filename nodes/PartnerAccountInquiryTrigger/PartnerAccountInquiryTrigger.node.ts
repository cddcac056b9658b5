import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../PartnerAccountInquiry/actions/errorMapping';
import {
	buildRequest as buildQuotaRequest,
	getQuota,
	quotaFields,
	quotaQuestion,
} from '../PartnerAccountInquiry/actions/getAvailableQuota.operation';
import {
	beneficiaryKey,
	customerIdOption,
	filtersCollection,
	listBeneficiaries,
	listingQuestion,
} from '../PartnerAccountInquiry/actions/listBeneficiaries.operation';
import {
	accessTokenOption,
	connectedAccountIdOption,
	optionsCollection,
	timeoutOption,
} from '../PartnerAccountInquiry/actions/common';
import {
	baseline,
	diffBeneficiaries,
	MAX_EVENTS_PER_POLL,
	questionDigest,
	quotaEvent,
	type BeneficiaryEvent,
	type BeneficiaryState,
	type QuotaEvent,
	type QuotaState,
} from '../PartnerAccountInquiry/core/trigger/changes';
import { ApiSession } from '../PartnerAccountInquiry/transport/request';

const BENEFICIARY_EVENTS: readonly string[] = ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged'];
const beneficiaryShow = { show: { event: ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged'] } };
const quotaShow = { show: { event: ['quotaBelowThreshold', 'quotaChanged'] } };
/** "Fetch Test Event" shows this many current beneficiaries. */
const SAMPLE_SIZE = 3;
/** A poll's requests at once: a trigger asks one question, so a narrow stream suffices. */
const POLL_CONCURRENCY = 4;

/** Poll contexts seen: n8n makes one per activation and reuses it for every poll of that activation. */
const activations = new WeakSet<object>();

export class PartnerAccountInquiryTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Account Inquiry Trigger',
		name: 'partnerAccountInquiryTrigger',
		icon: { light: 'file:partnerAccountInquiry.svg', dark: 'file:partnerAccountInquiry.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"beneficiaryAdded": "Beneficiary Added", "beneficiaryRemoved": "Beneficiary Removed", "beneficiaryChanged": "Beneficiary Changed", "quotaBelowThreshold": "Quota Below Threshold", "quotaChanged": "Quota Changed"}[$parameter["event"]] }}',
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
				options: [
					{
						name: 'Beneficiary Added',
						value: 'beneficiaryAdded',
						description: 'A beneficiary that was not in the list at the last poll',
					},
					{
						name: 'Beneficiary Changed',
						value: 'beneficiaryChanged',
						description: 'A beneficiary whose returned fields changed (a status, a nickname, bank details)',
					},
					{
						name: 'Beneficiary Removed',
						value: 'beneficiaryRemoved',
						description: 'A beneficiary that was in the list at the last poll and no longer is',
					},
					{
						name: 'Quota Below Threshold',
						value: 'quotaBelowThreshold',
						description:
							'The available quota fell below the threshold (once per crossing; again only after it was back at or above it)',
					},
					{
						name: 'Quota Changed',
						value: 'quotaChanged',
						description: 'The available quota differs from the last poll',
					},
				],
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
		// A fresh activation starts from a fresh baseline; a restart of n8n ('init') carries on.
		const firstPollOfActivation = !activations.has(this);
		activations.add(this);
		if (firstPollOfActivation && this.getActivationMode() === 'activate' && !manual) delete staticData.state;
		try {
			const session = await ApiSession.open(this, POLL_CONCURRENCY);
			if (BENEFICIARY_EVENTS.includes(event)) {
				return await pollBeneficiaries(this, session, event as BeneficiaryEvent, staticData, manual);
			}
			if (event === 'quotaBelowThreshold' || event === 'quotaChanged') {
				return await pollQuota(this, session, event, staticData, manual);
			}
			throw new NodeOperationError(this.getNode(), `The event "${event}" is not supported`);
		} catch (error) {
			// Nothing from a failed poll is emitted and the saved state is left as it was: the next
			// successful poll emits what this one missed.
			throw toNodeError(this.getNode(), error, 0);
		}
	}
}

async function pollBeneficiaries(
	fn: IPollFunctions,
	session: ApiSession,
	event: BeneficiaryEvent,
	staticData: IDataObject,
	manual: boolean,
): Promise<INodeExecutionData[][] | null> {
	const filters = fn.getNodeParameter('filters', {}) as IDataObject;
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	const question = listingQuestion(filters, options, manual ? SAMPLE_SIZE : undefined);
	const current = await listBeneficiaries(session, question);
	if (manual) {
		// "Fetch Test Event": a small sample of real current data; the saved state is not touched.
		return current.length ? [current.map((json) => ({ json: { ...json, event } }))] : null;
	}
	const digest = questionDigest({ event, filters, customerId: options.customerId ?? '' });
	const identity = (b: Record<string, unknown>) => beneficiaryKey(b as IDataObject);
	const saved = staticData.state as BeneficiaryState | undefined;
	if (!saved || saved.version !== 1 || saved.question !== digest) {
		staticData.state = baseline(digest, current, identity) as unknown as IDataObject;
		return null;
	}
	const { events, next } = diffBeneficiaries(saved, current, identity, new Set([event]), MAX_EVENTS_PER_POLL);
	staticData.state = next as unknown as IDataObject;
	if (events.length === 0) return null;
	return [
		events.map(({ beneficiary, changes }) => ({
			json: { ...beneficiary, event, ...(changes ? { changes } : {}) } as IDataObject,
		})),
	];
}

async function pollQuota(
	fn: IPollFunctions,
	session: ApiSession,
	event: QuotaEvent,
	staticData: IDataObject,
	manual: boolean,
): Promise<INodeExecutionData[][] | null> {
	const request = buildQuotaRequest((name, fallback) => fn.getNodeParameter(name, fallback));
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	const threshold = event === 'quotaBelowThreshold' ? Number(fn.getNodeParameter('threshold', 0)) : 0;
	if (!Number.isFinite(threshold) || threshold < 0) {
		throw new NodeOperationError(
			fn.getNode(),
			`Threshold must be a number of at least 0, got ${JSON.stringify(threshold)}`,
		);
	}
	const quota = await getQuota(session, quotaQuestion(request, options));
	const amount = quota.availableQuotaAmount as number;
	if (manual) return [[{ json: { ...quota, event } }]];
	const digest = questionDigest({ event, request, threshold, connectedAccountId: options.connectedAccountId ?? '' });
	const saved = staticData.state as QuotaState | undefined;
	const outcome = quotaEvent(event, saved?.version === 1 ? saved : undefined, digest, amount, threshold);
	staticData.state = outcome.next as unknown as IDataObject;
	if (!outcome.fire) return null;
	const json: IDataObject = { ...quota, event, previousAmount: outcome.previousAmount ?? null };
	if (event === 'quotaBelowThreshold') json.threshold = threshold;
	return [[{ json }]];
}
