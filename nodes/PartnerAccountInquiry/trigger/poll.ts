/**
 * One poll of the trigger: read what the event watches (through the same endpoint calls and
 * session as the action node), compare it with the state saved at the last poll, and emit what
 * changed. The state lives in the workflow's static data; its diff is changes.ts.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { ValidationError } from '../shared/core/errors';
import { beneficiaryKey, listBeneficiaries, listingQuestion } from '../shared/endpoints/beneficiaries';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import type { ApiSession } from '../shared/transport/session';
import {
	baseline,
	diffBeneficiaries,
	MAX_EVENTS_PER_POLL,
	questionDigest,
	quotaEvent,
	type BeneficiaryState,
	type QuotaState,
} from './changes';
import type { BeneficiaryEvent, QuotaEvent } from './events';

/** "Fetch Test Event" shows this many current beneficiaries. */
const SAMPLE_SIZE = 3;

export async function pollBeneficiaries(
	fn: IPollFunctions,
	session: ApiSession,
	event: BeneficiaryEvent,
	staticData: IDataObject,
	manual: boolean,
): Promise<INodeExecutionData[][] | null> {
	const filters = fn.getNodeParameter('filters', {}) as IDataObject;
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	// A poll always confirms a list of several pages: an event must never come from a list that mixes two moments.
	const question = listingQuestion(filters, { ...options, confirmWholeList: true }, manual ? SAMPLE_SIZE : undefined);
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

export async function pollQuota(
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
		throw new ValidationError(
			'threshold',
			'a number of at least 0',
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
