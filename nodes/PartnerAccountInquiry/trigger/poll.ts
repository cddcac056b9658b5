/**
 * One poll of the trigger: read what the event watches (through the same endpoint calls and
 * session as the action node), compare it with the state saved at the last poll, and emit what
 * changed. The state lives in the workflow's static data; its diff is changes.ts, what a restart
 * may have dropped is continuity.ts, and the back-off after status U is unknownBackoff.ts.
 *
 * Whatever fails, a poll emits nothing and leaves the saved state as it was, so the next poll
 * that succeeds reports what this one did not.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { ApiResultError, ListingChangedError, PollBudgetError, ValidationError } from '../shared/core/errors';
import { settle } from '../shared/core/flow/settle';
import { listBeneficiaries, listingQuestion, type ListingSize } from '../shared/endpoints/beneficiaries';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import { toNodeError } from '../shared/errorMapping';
import type { ApiSession } from '../shared/transport/session';
import { baseline, diffBeneficiaries, MAX_EVENTS_PER_POLL, readBeneficiaryState } from './beneficiaryDiff';
import { quotaEvent, readQuotaState } from './quotaState';
import { questionDigest, type StateReading } from './savedState';
import { isWholeHistory, rememberWritten } from './continuity';
import type { BeneficiaryEvent, QuotaEvent } from './events';
import { afterUnknown, readBackoff, UNKNOWN_REPEATS } from './unknownBackoff';

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
	if (manual) {
		// "Fetch Test Event": a small sample of real current data; the saved state is not touched.
		const sample = await listBeneficiaries(session, question);
		return sample.length ? [sample.map((json) => ({ json: { ...json, event } }))] : null;
	}
	const digest = watchedDigest(session, { event, filters, customerId: options.customerId ?? '' });
	const current = await withinBackoff(fn, staticData, digest, wholeListRead(fn, session, question));
	if (current === SKIPPED) return null;
	const saved = savedState(fn, readBeneficiaryState(staticData.state, digest));
	if (!saved) {
		staticData.state = baseline(digest, current) as unknown as IDataObject;
		return null;
	}
	const { events, next } = diffBeneficiaries(saved, current, new Set([event]), MAX_EVENTS_PER_POLL);
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
	const question = quotaQuestion(request, options);
	if (manual) return [[{ json: { ...(await getQuota(session, question)), event } }]];
	const digest = watchedDigest(session, {
		event,
		request,
		threshold,
		connectedAccountId: options.connectedAccountId ?? '',
	});
	const quota = await withinBackoff(fn, staticData, digest, { read: () => getQuota(session, question) });
	if (quota === SKIPPED) return null;
	const saved = savedState(fn, readQuotaState(staticData.state, digest));
	const node = nodeName(fn);
	const whole = saved ? isWholeHistory(node, saved) : true;
	const outcome = quotaEvent(event, saved, digest, quota.availableQuotaAmount as number, threshold, whole);
	staticData.state = outcome.next as unknown as IDataObject;
	rememberWritten(node, outcome.next);
	if (!outcome.fire) return null;
	const json: IDataObject = { ...quota, event, previousAmount: outcome.previousAmount ?? null };
	if (event === 'quotaBelowThreshold') json.threshold = threshold;
	return [[{ json }]];
}

/**
 * Whose data is watched, and how: another event, filter, subject, customer, client ID or gateway
 * is another question, and starts a fresh baseline rather than reporting the difference.
 */
function watchedDigest(session: ApiSession, watched: IDataObject): string {
	const { clientId, baseUrl } = session.credentials;
	return questionDigest({ ...watched, clientId, baseUrl });
}

/** The saved state to carry on from, or undefined for a fresh baseline (with a warning when it was damaged). */
function savedState<S>(fn: IPollFunctions, reading: StateReading<S>): S | undefined {
	if (reading.problem) {
		fn.logger.warn(
			`Partner Account Inquiry Trigger "${fn.getNode().name}": the saved state cannot be used (${reading.problem}); this poll records a fresh baseline and reports no change.`,
		);
	}
	return reading.state;
}

const SKIPPED = Symbol('skipped');

/** One read of a poll, and what its failures mean to a trigger (the error to report). */
interface PollRead<T> {
	read: () => Promise<T>;
	explain?: (error: unknown) => unknown;
}

/**
 * Runs the read unless the API's back-off after status U says to wait. An answer U starts or
 * continues the back-off and emits nothing (no error); after the last repeat is answered U too,
 * the poll reports once that support must be contacted. A success ends the back-off; another
 * failure is reported as usual and leaves it as it was.
 */
async function withinBackoff<T>(
	fn: IPollFunctions,
	staticData: IDataObject,
	question: string,
	{ read, explain = (error) => error }: PollRead<T>,
): Promise<T | typeof SKIPPED> {
	const backoff = readBackoff(staticData.unknownBackoff, question);
	const now = Date.now();
	if (backoff && now < backoff.nextPollAt) return SKIPPED;
	const outcome = await settle(read());
	if (outcome.ok) {
		delete staticData.unknownBackoff;
		return outcome.value;
	}
	const { error } = outcome;
	// Another failure is no answer to count: the back-off stays as it is (only a success ends it).
	if (!(error instanceof ApiResultError && error.explanation.status === 'U')) {
		throw toNodeError(fn.getNode(), explain(error), 0);
	}
	const { next, reportNow } = afterUnknown(backoff, question, now);
	staticData.unknownBackoff = next as unknown as IDataObject;
	if (!reportNow) return SKIPPED;
	error.hint = `The gateway answered U (outcome unknown) to this question and to each of its ${UNKNOWN_REPEATS} repeats, as far apart as the API asks; contact technical support quoting this message. The trigger goes on asking every ${Math.round((next.nextPollAt - now) / 60_000)} minutes without reporting this again, and carries on as usual at the first successful answer.`;
	throw toNodeError(fn.getNode(), error, 0);
}

/**
 * The whole list, within the time n8n gives a poll (2.x's poll scheduler: getPollBudgetMs), or a
 * PollBudgetError: a list cut off part-way would report its missing part as removed.
 */
function wholeListRead(
	fn: IPollFunctions,
	session: ApiSession,
	question: ReturnType<typeof listingQuestion>,
): PollRead<IDataObject[]> {
	const budgetMs = (fn as Partial<{ getPollBudgetMs: () => number }>).getPollBudgetMs?.();
	const budget = typeof budgetMs === 'number' && budgetMs > 0 ? AbortSignal.timeout(budgetMs) : undefined;
	const size: ListingSize = {};
	return {
		read: () => listBeneficiaries(session, question, budget, size),
		explain: (error) => {
			if (budget?.aborted) return new PollBudgetError(size.totalCount, size.totalPageNumber, budgetMs as number);
			if (error instanceof ListingChangedError) {
				error.hint =
					'This poll emitted nothing and the saved state did not change; the next poll reads the list again and reports what really changed, once.';
			}
			return error;
		},
	};
}

/** The trigger node, across polls and activations: its workflow and node IDs. */
function nodeName(fn: IPollFunctions): string {
	return `${fn.getWorkflow().id ?? ''}\n${fn.getNode().id}`;
}
