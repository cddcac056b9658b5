/**
 * One poll of the trigger: read what the event watches (through the same endpoint calls and
 * session as the action node), compare it with the state saved at the last poll, and emit what
 * changed. The state lives in the workflow's static data; its diffs are beneficiaryDiff.ts and
 * quotaState.ts, what n8n may not have saved of the polls before is continuity.ts, and the back-off
 * after status U is unknownBackoff.ts.
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
import { maskBankDetails } from '../shared/core/redaction';
import {
	ACCUMULATION_ID,
	maskBankDetailsOption,
	readBoolean,
	refuseEmptyAccountExpressions,
	refuseEmptyExpression,
} from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';
import { baseline, comparedWith, MAX_EVENTS_PER_POLL, readBeneficiaryState } from './beneficiaryDiff';
import { quotaEvent, readQuotaState } from './quotaState';
import { questionDigest, type StateReading } from './savedState';
import {
	activationRun,
	carryOn,
	damagedRecord,
	nextRecord,
	NODE_DATA_KEYS,
	readPollRecord,
	rememberWritten,
	type Carried,
} from './continuity';
import type { BeneficiaryEvent, QuotaEvent } from './events';
import {
	afterUnknown,
	readBackoff,
	UNKNOWN_BACKOFF_HOURS,
	UNKNOWN_REPEATS,
	UNKNOWN_RETRY_MINUTES,
	UNKNOWN_RETRY_SCHEDULE_MINUTES,
} from './unknownBackoff';

/** "Fetch Test Event" shows this many current beneficiaries. */
export const SAMPLE_SIZE = 3;

export async function pollBeneficiaries(
	fn: IPollFunctions,
	session: ApiSession,
	event: BeneficiaryEvent,
	staticData: IDataObject,
	manual: boolean,
	start: PollStart = {},
): Promise<INodeExecutionData[][] | null> {
	const filters = fn.getNodeParameter('filters', {}) as IDataObject;
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	// An expression that gave nothing would watch your own account instead: refused, as in the action node.
	refuseEmptyAccountExpressions(fn.getNode(), 0, 'options', options);
	const shown = bankDetailsShown(fn);
	// A poll always confirms a list of several pages: an event must never come from a list that mixes two moments.
	const question = listingQuestion(filters, { ...options, confirmWholeList: true }, manual ? SAMPLE_SIZE : undefined);
	if (manual) {
		// "Fetch Test Event": a small sample of real current data; the saved state is not touched.
		const sample = await listBeneficiaries(session, question);
		return sample.length ? [sample.map((json) => ({ json: shown({ ...json, event }) }))] : null;
	}
	const [digest, askedBefore] = watchedDigest(
		session,
		{ event, filters, customerId: options.customerId ?? '' },
		options,
	);
	const book = openBook(fn, staticData, start);
	const reading = readBeneficiaryState(staticData.state, digest, askedBefore);
	// A first read that is the saved list as it was needs no confirming read: a quiet poll costs one read.
	const compared = reading.state ? comparedWith(reading.state) : undefined;
	const read = wholeListRead(fn, session, { ...question, settled: compared?.settled });
	const current = await withinBackoff(fn, staticData, digest, read, book);
	if (current === SKIPPED) return null;
	if (!savedState(fn, reading) || !compared) {
		staticData.state = baseline(digest, current) as unknown as IDataObject;
		book.write(true);
		return null;
	}
	const { events, next } = compared.diff(current, new Set([event]), MAX_EVENTS_PER_POLL);
	staticData.state = next as unknown as IDataObject;
	book.write(events.length === 0);
	if (events.length === 0) return null;
	return [
		events.map(({ beneficiary, changes }) => ({
			json: shown({ ...beneficiary, event, ...(changes ? { changes } : {}) } as IDataObject),
		})),
	];
}

/** From this trigger version on, Mask Bank Details is on unless turned off. */
export const MASK_BY_DEFAULT_FROM = 2;

/** An item as Mask Bank Details has it shown. Unset (a version 1 node saved without it): off, as version 1 emitted. */
export function bankDetailsShown(fn: IPollFunctions): (json: IDataObject) => IDataObject {
	// The version's own default: an expression that gives nothing masks in version 2, as leaving it unset does.
	const byDefault = fn.getNode().typeVersion >= MASK_BY_DEFAULT_FROM;
	const mask = readBoolean(
		{ ...maskBankDetailsOption, default: byDefault },
		{ [maskBankDetailsOption.name]: fn.getNodeParameter(maskBankDetailsOption.name, byDefault) },
	);
	return (json) => (mask ? maskBankDetails(json) : json);
}

export async function pollQuota(
	fn: IPollFunctions,
	session: ApiSession,
	event: QuotaEvent,
	staticData: IDataObject,
	manual: boolean,
	start: PollStart = {},
): Promise<INodeExecutionData[][] | null> {
	const id = fn.getNodeParameter(ACCUMULATION_ID.name, '');
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	refuseEmptyExpression(fn.getNode(), 0, [ACCUMULATION_ID.name], ACCUMULATION_ID, id);
	refuseEmptyAccountExpressions(fn.getNode(), 0, 'options', options);
	const request = buildQuotaRequest((name, fallback) =>
		name === ACCUMULATION_ID.name ? id : fn.getNodeParameter(name, fallback),
	);
	const threshold = event === 'quotaBelowThreshold' ? readThreshold(fn.getNodeParameter('threshold', '')) : 0;
	const question = quotaQuestion(request, options);
	if (manual) return [[{ json: { ...(await getQuota(session, question)), event } }]];
	const [digest, askedBefore] = watchedDigest(
		session,
		{ event, request, threshold, connectedAccountId: options.connectedAccountId ?? '' },
		options,
	);
	const book = openBook(fn, staticData, start);
	const quota = await withinBackoff(fn, staticData, digest, { read: () => getQuota(session, question) }, book);
	if (quota === SKIPPED) return null;
	const saved = savedState(fn, readQuotaState(staticData.state, digest, askedBefore));
	const outcome = quotaEvent(event, saved, digest, quota.availableQuotaAmount as number, threshold, book.whole);
	staticData.state = outcome.next as unknown as IDataObject;
	book.write(!outcome.fire);
	if (!outcome.fire) return null;
	const json: IDataObject = { ...quota, event, previousAmount: outcome.previousAmount ?? null };
	if (event === 'quotaBelowThreshold') json.threshold = threshold;
	return [[{ json }]];
}

/**
 * The Threshold as a number of at least 0. An expression can make it anything: an empty string,
 * text or a negative number is refused (naming the field), never read as 0, an alert that could
 * never fire. A number in a string ("10000") is that number.
 */
export function readThreshold(raw: unknown): number {
	const value =
		typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : Number.NaN;
	if (!Number.isFinite(value) || value < 0) {
		throw new ValidationError(
			'threshold',
			'a number of at least 0',
			`Threshold must be a number of at least 0, got ${JSON.stringify(raw) ?? 'nothing'}`,
		);
	}
	return value;
}

/** Which poll of an activation this is (PartnerAccountInquiryTrigger.node.ts). */
export interface PollStart {
	/** The poll n8n runs at a user's activation. */
	activating?: boolean;
	/** The first poll after n8n started ('init'): if it fails, n8n counts it as the workflow failing to activate. */
	startup?: boolean;
}

/** What a poll carries on from and writes besides its state: continuity.ts. */
export interface Book {
	/** Whether the state carried on from holds every earlier poll's finding. */
	whole: boolean;
	/** The poll n8n runs at a user's activation: it must take the baseline (a U fails the activation). */
	activating: boolean;
	/**
	 * Whether a report (a poll that throws) is due on this poll: not on the first poll after n8n
	 * started, which n8n would count as the workflow failing to activate (and retry); the next poll reports.
	 */
	mayReport: boolean;
	/** The poll wrote its data and emits nothing (`quiet`) or something; records it, here and in this process. */
	write: (quiet: boolean) => void;
}

/**
 * Opens a poll's book: reads the poll record (damage: a warning, and it is dropped), and when this
 * process wrote newer data than the static data the poll was given (a poll n8n did not save),
 * carries on from that data; when the node's last activation (in the workflow's global static
 * data) is newer than that data, its poll was not saved: a fresh baseline, as it took.
 */
export function openBook(
	fn: IPollFunctions,
	staticData: IDataObject,
	{ activating = false, startup = false }: PollStart,
): Book {
	const node = nodeName(fn);
	const reading = readPollRecord(staticData.pollRecord);
	// Damage is dropped with one warning (where quiet polls are not saved, it comes back at each).
	const damage = reading.problem ? damagedRecord(node, staticData.pollRecord) : undefined;
	if (damage?.news) warn(fn, reading.problem as string, 'it is started anew');
	if (damage) delete staticData.pollRecord;
	// A damaged record names no run: carried on from, as one of the last activation.
	const activated = damage ? undefined : activationRun(fn.getWorkflowStaticData('global'), fn.getNode().id);
	const carried: Carried = carryOn(node, reading.state, staticData, activated);
	if (carried.fresh) {
		for (const key of NODE_DATA_KEYS) delete staticData[key];
	} else if (carried.adopt) {
		for (const key of NODE_DATA_KEYS) {
			if (key === 'state' && carried.keepState) continue;
			const value = carried.adopt[key];
			if (value === undefined) delete staticData[key];
			else staticData[key] = value as IDataObject;
		}
	}
	return {
		whole: carried.whole,
		activating,
		mayReport: !startup,
		write: (quiet) => {
			const record = nextRecord(carried, quiet, Date.now());
			staticData.pollRecord = record as unknown as IDataObject;
			const { state, unknownBackoff, listUnsettled } = staticData;
			const written = { state, unknownBackoff, listUnsettled, pollRecord: record };
			rememberWritten(node, staticData, carried, written, damage?.digest);
		},
	};
}

export function warn(fn: IPollFunctions, problem: string, outcome: string): void {
	fn.logger.warn(
		`Partner Account Inquiry Trigger "${fn.getNode().name}": the saved state cannot be used (${problem}); ${outcome}.`,
	);
}

/**
 * Whose data is watched, and how: another event, filter, subject, customer, access token (an OAuth
 * token authorises one user's data), client ID or gateway is another question, and starts a fresh
 * baseline rather than reporting the difference. The token counts only through a digest, and only
 * when set, so that a question without one is the one the previous release asked; the second digest is
 * the question as the previous release put it (without the token), which its saved states name.
 */
export function watchedDigest(session: ApiSession, watched: IDataObject, options: IDataObject): [string, string] {
	const { clientId, baseUrl } = session.credentials;
	const token = typeof options.accessToken === 'string' && options.accessToken ? options.accessToken : undefined;
	const askedBefore = questionDigest({ ...watched, clientId, baseUrl });
	if (token === undefined) return [askedBefore, askedBefore];
	return [questionDigest({ ...watched, clientId, baseUrl, accessToken: questionDigest(token) }), askedBefore];
}

/** The saved state to carry on from, or undefined for a fresh baseline (with a warning when it was damaged). */
function savedState<S>(fn: IPollFunctions, reading: StateReading<S>): S | undefined {
	if (reading.problem) warn(fn, reading.problem, 'this poll records a fresh baseline and reports no change');
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
	book: Book,
): Promise<T | typeof SKIPPED> {
	const now = Date.now();
	const reading = readBackoff(staticData.unknownBackoff, question, now);
	if (reading.problem) {
		warn(fn, reading.problem, 'the back-off is started anew and this poll asks at once');
		delete staticData.unknownBackoff;
	}
	const backoff = reading.state;
	if (backoff && now < backoff.nextPollAt) {
		// Quiet, and written: where n8n saves this poll, it also saves what an unsaved poll before it left.
		book.write(true);
		return SKIPPED;
	}
	const outcome = await settle(read());
	if (outcome.ok) {
		delete staticData.unknownBackoff;
		delete staticData.listUnsettled;
		return outcome.value;
	}
	const { error } = outcome;
	if (error instanceof ListingChangedError && !book.activating) return unsettled(fn, staticData, question, error, book);
	// Another failure breaks a row of polls that found the list changing (it is reported itself).
	delete staticData.listUnsettled;
	// Another failure is no answer to count: the back-off stays as it is (only a success ends it).
	if (!(error instanceof ApiResultError && error.explanation.status === 'U')) {
		throw toNodeError(fn.getNode(), explain(error), 0);
	}
	const { next, reportNow } = afterUnknown(backoff, question, now, book.mayReport);
	staticData.unknownBackoff = next as unknown as IDataObject;
	if (book.activating) {
		// No baseline: a later quiet poll's would live in memory only (docs/internals.md, Status U) and die with a restart.
		error.hint = `The gateway answered U (outcome unknown) to the poll n8n runs when the workflow is activated, so the trigger has no baseline to compare later polls with, and the workflow was not activated. Activate it again in ${UNKNOWN_RETRY_MINUTES} minutes or later, the wait the API asks for after U.`;
		throw toNodeError(fn.getNode(), error, 0);
	}
	// A poll that throws is saved by no n8n poller: this process remembers the back-off, and the
	// next poll (which sends nothing) writes it where n8n saves that poll.
	book.write(!reportNow);
	if (!reportNow) return SKIPPED;
	const askAgain = new Date(next.nextPollAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
	const waitMinutes = Math.round((next.nextPollAt - now) / 60_000);
	error.hint =
		next.unknowns <= UNKNOWN_REPEATS
			? `The gateway answered U (outcome unknown)${next.unknowns > 1 ? ` ${next.unknowns} times in a row` : ''}. As the API asks, the trigger stops asking this question until ${askAgain} (${waitMinutes} minutes), and asks again at most ${UNKNOWN_REPEATS} times in all, ${UNKNOWN_RETRY_MINUTES} to ${UNKNOWN_RETRY_SCHEDULE_MINUTES[UNKNOWN_REPEATS - 1]} minutes apart (${UNKNOWN_BACKOFF_HOURS} hours). Meanwhile it emits nothing and reports nothing; the first answer that is not U ends the wait, and that poll reports what changed meanwhile, once. It reports again only if every repeat is answered U.`
			: `The gateway answered U (outcome unknown) to this question and to each of its ${UNKNOWN_REPEATS} repeats, as far apart as the API asks; contact technical support quoting this message. The trigger goes on asking every ${waitMinutes} minutes (next at ${askAgain}) without reporting this again, and carries on as usual at the first successful answer.`;
	throw toNodeError(fn.getNode(), error, 0);
}

/** Polls in a row that find the list changing while they read it before one is reported. */
export const UNSETTLED_POLLS_REPORTED = 3;

/**
 * A list that changed while the poll read it (every read of it, up to 4, disagreed) emits nothing
 * and leaves the state as it was, as any failed poll. A list that settles by the next poll is
 * harmless (its changes are reported then, once), so the poll is quiet; only the
 * UNSETTLED_POLLS_REPORTED-th poll in a row that finds it changing is an error execution (or the
 * next one, after n8n's start), once: the polls after it stay quiet until one reads the list whole again.
 */
function unsettled(
	fn: IPollFunctions,
	staticData: IDataObject,
	question: string,
	error: ListingChangedError,
	book: Book,
): typeof SKIPPED {
	const saved = staticData.listUnsettled as { question?: unknown; polls?: unknown; told?: unknown } | undefined;
	const same = saved?.question === question && typeof saved.polls === 'number' && Number.isSafeInteger(saved.polls);
	const polls = (same ? Math.max(saved.polls as number, 0) : 0) + 1;
	const told = same && saved.told === true;
	const reportNow = polls >= UNSETTLED_POLLS_REPORTED && !told && book.mayReport;
	staticData.listUnsettled = { question, polls, told: told || reportNow };
	book.write(!reportNow);
	if (!reportNow) return SKIPPED;
	error.hint = `The list changed while each of the last ${UNSETTLED_POLLS_REPORTED} polls read it (each read it up to 4 times), so the trigger could not tell what really changed: these polls emitted nothing and the saved state did not change. It goes on polling without reporting this again, and the first poll that reads the list whole reports what changed, once. A list that keeps changing this long may be bound and unbound by an automated process: check with the gateway's operator.`;
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
			return error;
		},
	};
}

/** The trigger node, across polls and activations: its workflow and node IDs. */
export function nodeName(fn: IPollFunctions): string {
	return `${fn.getWorkflow().id ?? ''}\n${fn.getNode().id}`;
}
