/**
 * One poll of a watched set: many quota subjects, or many customers' beneficiary lists, in one
 * trigger (watchSet.ts keeps the set and its state). Every entry is read through the poll's one
 * request scheduler, least recently read first, within the poll's budget; each entry is compared
 * with its own saved state exactly as the single-subject trigger compares (quotaState.ts,
 * beneficiaryDiff.ts), with its own status U back-off.
 *
 * A poll either emits or throws. A failing entry must neither hold back nor lose the others'
 * events, and an error workflow must hear of it once per failure episode: so a poll with events
 * emits them and keeps the failures to report; a poll without events reports every failure not
 * yet reported, in one error naming each entry. Neither the activation poll nor the first poll
 * after n8n starts reports (n8n would take it as the workflow failing to activate).
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { METHOD_WITH_TRADE_TYPE, isMaskedField, isMaskedQuotaId } from '../shared/core/api/fields';
import { ApiResultError, ListingChangedError, ValidationError, WatchedSetError } from '../shared/core/errors';
import { maskAccount } from '../shared/core/redaction';
import {
	listBeneficiaries,
	listingQuestion,
	OWNER_FIELD,
	type ListingQuestion,
} from '../shared/endpoints/beneficiaries';
import { buildQuotaRequest, getQuota, quotaQuestion, type QuotaQuestion } from '../shared/endpoints/quota';
import type { QuotaRequest } from '../shared/core/api/validation';
import { toNodeError } from '../shared/errorMapping';
import { refuseEmptyAccountExpressions } from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';
import {
	baseline,
	comparedWith,
	MAX_EVENTS_PER_POLL,
	readBeneficiaryState,
	type BeneficiaryState,
} from './beneficiaryDiff';
import type { BeneficiaryEvent, QuotaEvent } from './events';
import {
	openBook,
	readThreshold,
	SAMPLE_SIZE,
	UNSETTLED_POLLS_REPORTED,
	warn,
	watchedDigest,
	type PollStart,
} from './poll';
import { quotaEvent, readQuotaState, type QuotaState } from './quotaState';
import { questionDigest } from './savedState';
import { afterUnknown, UNKNOWN_REPEATS } from './unknownBackoff';
import {
	checkSet,
	dueOrder,
	entriesOfText,
	readInTurn,
	readSetState,
	SET_PARAMETERS,
	SET_STATE_VERSION,
	type EnteredEntry,
	type EntryRecord,
	type Failure,
	type SetKind,
	type SetParameters,
	type SetState,
} from './watchSet';

/** Requests of a set's poll at once (the action node's default): one paced stream for every entry. */
export const SET_POLL_CONCURRENCY = 8;
/**
 * The longest a set's poll reads: half of n8n's shortest poll interval (a minute), so that a poll
 * ends well before the next one is due; the 2.x poll scheduler's own budget when it is shorter.
 */
export const SET_POLL_BUDGET_MS = 30_000;
/** The activation poll's budget where n8n gives none (1.x): n8n-core's own default for a poll. */
const ACTIVATION_BUDGET_MS = 5 * 60_000;

/** One entry of a set, ready to read. */
interface Watched<R, S> {
	key: string;
	where: string;
	/** How a message names it (an account number by its last four). */
	label: string;
	read: (signal: AbortSignal) => Promise<R>;
	/** Compares the read with the entry's saved state: its events (at most `cap`) and the state after them. */
	compare: (saved: S | undefined, read: R, cap: number) => { events: IDataObject[]; next: S | undefined };
	/** The entry's saved state, if it is one of its question. */
	readState: (saved: unknown) => { state?: S; problem?: string };
}

export async function pollQuotaSet(
	fn: IPollFunctions,
	session: ApiSession,
	event: QuotaEvent,
	staticData: IDataObject,
	manual: boolean,
	start: PollStart,
): Promise<INodeExecutionData[][] | null> {
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	// An expression that gave nothing would read your own account instead: refused, as for one subject.
	refuseEmptyAccountExpressions(fn.getNode(), 0, 'options', options);
	const below = event === 'quotaBelowThreshold';
	// Set by the poll: whether the quota states hold every earlier poll's finding (continuity.ts).
	let wholeHistory = false;
	const defaultThreshold = below ? readThreshold(fn.getNodeParameter('threshold', '')) : 0;
	const subjects = checkSet(
		'subjects',
		quotaEntries(fn),
		(entry) => parseQuotaEntry(entry, below, defaultThreshold),
		(s) => questionDigest(s.request),
		({ fields }) => (isMaskedQuotaId(fields[0]?.toUpperCase()) && fields[1] ? [fields[1]] : []),
	);
	const watched = subjects.map(({ where, value: { request, threshold } }): Watched<IDataObject, QuotaState> => {
		const question: QuotaQuestion = quotaQuestion(request, options);
		const [key] = watchedDigest(
			session,
			{ event, request, threshold, connectedAccountId: options.connectedAccountId ?? '' },
			options,
		);
		const subject = subjectOf(request);
		const shownId = isMaskedField('quotaAccumulationId', request as unknown as IDataObject)
			? maskAccount(request.quotaAccumulationId)
			: request.quotaAccumulationId;
		return {
			key,
			where,
			label: [request.quotaAccumulationMethod, shownId, request.currency, request.tradeType].filter(Boolean).join(' '),
			read: async (signal) => await getQuota(session, question, signal),
			readState: (saved) => readQuotaState(saved, key),
			compare: (saved, quota, cap) => {
				const outcome = quotaEvent(event, saved, key, quota.availableQuotaAmount as number, threshold, wholeHistory);
				if (!outcome.fire) return { events: [], next: outcome.next };
				// Over the poll's cap: nothing emitted and the state stays (none: no baseline yet), so the next poll fires it.
				if (cap < 1) return { events: [], next: saved };
				const json: IDataObject = { ...quota, event, subject, previousAmount: outcome.previousAmount ?? null };
				if (below) json.threshold = threshold;
				return { events: [json], next: outcome.next };
			},
		};
	});
	if (manual) {
		const [first] = watched;
		const quota = await first.read(AbortSignal.timeout(SET_POLL_BUDGET_MS));
		return [[{ json: { ...quota, event, subject: subjectOf(subjects[0].value.request) } }]];
	}
	return await pollSet(fn, staticData, 'quotaSet', questionOfSet(session, event, options), watched, start, (whole) => {
		wholeHistory = whole;
	});
}

export async function pollBeneficiarySet(
	fn: IPollFunctions,
	session: ApiSession,
	event: BeneficiaryEvent,
	staticData: IDataObject,
	manual: boolean,
	start: PollStart,
	shown: (json: IDataObject) => IDataObject,
): Promise<INodeExecutionData[][] | null> {
	const filters = fn.getNodeParameter('filters', {}) as IDataObject;
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	refuseEmptyAccountExpressions(fn.getNode(), 0, 'options', options);
	const customers = checkSet(
		'customers',
		customerEntries(fn),
		(entry) => parseCustomerEntry(entry, filters, options),
		(c) => c.customerId,
	);
	const wanted = new Set([event]);
	const watched = customers.map(
		({ where, value: { customerId, question } }): Watched<IDataObject[], BeneficiaryState> => {
			const [key, askedBefore] = watchedDigest(session, { event, filters, customerId }, options);
			// The saved state this poll compares with, read before the read (see pollSet).
			let compared: ReturnType<typeof comparedWith> | undefined;
			return {
				key,
				where,
				label: `customer ${customerId}`,
				readState: (saved) => {
					const reading = readBeneficiaryState(saved, key, askedBefore);
					compared = reading.state ? comparedWith(reading.state) : undefined;
					return reading;
				},
				// A first read that is the saved list as it was needs no confirming read.
				read: async (signal) => await listBeneficiaries(session, { ...question, settled: compared?.settled }, signal),
				compare: (saved, list, cap) => {
					if (!saved || !compared) return { events: [], next: baseline(key, list) };
					const { events, next } = compared.diff(list, wanted, cap);
					return {
						events: events.map(({ beneficiary, changes }) =>
							shown({
								...beneficiary,
								event,
								...(changes ? { changes } : {}),
								[OWNER_FIELD]: { customerId },
							} as IDataObject),
						),
						next,
					};
				},
			};
		},
	);
	if (manual) {
		const sample = await listBeneficiaries(session, { ...customers[0].value.question, limit: SAMPLE_SIZE });
		const { customerId } = customers[0].value;
		return sample.length
			? [sample.map((json) => ({ json: shown({ ...json, event, [OWNER_FIELD]: { customerId } }) }))]
			: null;
	}
	return await pollSet(
		fn,
		staticData,
		'beneficiarySet',
		questionOfSet(session, event, { ...options, filters }),
		watched,
		start,
	);
}

/** How an item names its subject, for a Switch to route on: "USER_ID U-1001 USD" (the trade type last, for BENEFICIARY). */
function subjectOf(request: QuotaRequest): string {
	return [request.quotaAccumulationMethod, request.quotaAccumulationId, request.currency, request.tradeType]
		.filter(Boolean)
		.join(' ');
}

/** What every entry of a set shares: another event, filter, client ID or gateway starts every entry anew. */
function questionOfSet(session: ApiSession, event: string, shared: IDataObject): string {
	const { clientId, baseUrl } = session.credentials;
	const { accessToken, ...rest } = shared;
	return questionDigest({ event, ...rest, token: accessToken ? questionDigest(accessToken) : '', clientId, baseUrl });
}

async function pollSet<R, S>(
	fn: IPollFunctions,
	staticData: IDataObject,
	kind: SetKind,
	question: string,
	watched: Array<Watched<R, S>>,
	start: PollStart,
	onWhole: (whole: boolean) => void = () => undefined,
): Promise<INodeExecutionData[][] | null> {
	const book = openBook(fn, staticData, start);
	onWhole(book.whole);
	const reading = readSetState<S>(staticData.state, kind, question);
	if (reading.problem) warn(fn, reading.problem, 'every entry records a fresh baseline and reports no change');
	const before = reading.state;
	// Entries no longer in the set are dropped; new ones start without a state (their baseline).
	const entries: Record<string, EntryRecord<S>> = {};
	for (const entry of watched) entries[entry.key] = before?.entries[entry.key] ?? { readAt: 0 };
	const set: SetState<S> = { version: SET_STATE_VERSION, kind, question, turn: (before?.turn ?? 0) + 1, entries };
	// Each entry's saved state, read before its read (a beneficiary list that holds it needs one read).
	const saved = new Map<string, S | undefined>();
	for (const entry of watched) {
		const state = entries[entry.key].state;
		const own = state === undefined ? {} : entry.readState(state);
		if (own.problem) warn(fn, `${entry.label}: ${own.problem}`, 'that entry records a fresh baseline');
		saved.set(entry.key, own.state);
	}
	const now = Date.now();
	const byKey = new Map(watched.map((entry) => [entry.key, entry]));
	const order = dueOrder(
		watched.map((entry) => entry.key),
		set,
		now,
	);
	// The activation poll must take every entry's baseline (see below): it may use n8n's whole poll budget.
	const n8nBudgetMs = (fn as Partial<{ getPollBudgetMs: () => number }>).getPollBudgetMs?.();
	const budgetMs = book.activating
		? (n8nBudgetMs ?? ACTIVATION_BUDGET_MS)
		: Math.min(SET_POLL_BUDGET_MS, n8nBudgetMs ?? Number.POSITIVE_INFINITY);
	const budget = AbortSignal.timeout(Math.max(1, budgetMs));
	// Entries in progress at once: enough to keep the scheduler's width busy while lists wait for their first page.
	// Each read is compared as it arrives, while the others' requests are out (a baseline of 250
	// beneficiaries is milliseconds of work); the cap on events is applied below, in the set's order.
	const { outcomes, cutShort } = await readInTurn(
		order,
		SET_POLL_CONCURRENCY * 4,
		async (key, signal) => {
			const entry = byKey.get(key) as Watched<R, S>;
			const value = await entry.read(signal);
			return { value, compared: entry.compare(saved.get(key), value, Number.POSITIVE_INFINITY) };
		},
		budget,
	);

	if (book.activating) refuseIncompleteActivation(watched, outcomes, budgetMs);
	const events: IDataObject[] = [];
	for (const entry of watched) {
		// Cut short although it had the whole poll: it does not fit in one, a failure to report.
		const outcome = cutShort.has(entry.key)
			? {
					ok: false as const,
					error: new Error(`not read whole within the poll's ${budgetMs / 1000} s, although it was read first`),
				}
			: outcomes.get(entry.key);
		if (!outcome) continue;
		const record = entries[entry.key];
		record.readAt = set.turn;
		if (outcome.ok) {
			delete record.failure;
			const cap = MAX_EVENTS_PER_POLL - events.length;
			// Compared without a cap: the same as with one that it fits in (compare emits the first `cap`).
			const { value, compared } = outcome.value;
			const { events: found, next } =
				compared.events.length <= cap ? compared : entry.compare(saved.get(entry.key), value, cap);
			events.push(...found);
			if (next === undefined) delete record.state;
			else record.state = next;
			continue;
		}
		record.failure = failureAfter(record.failure, outcome.error, entry.key, now);
	}
	// Pending: a failure whose stage (start, or every U repeat U) was not reported yet.
	const pending = watched.filter((entry) => {
		const failure = entries[entry.key].failure;
		return failure !== undefined && stageOf(failure) > failure.reported;
	});
	const report = events.length === 0 && pending.length > 0 && book.mayReport && !book.activating;
	if (report) {
		for (const entry of pending) {
			const failure = entries[entry.key].failure as Failure;
			failure.reported = stageOf(failure);
			if (failure.backoff) failure.backoff.reported = failure.reported;
		}
	}
	staticData.state = set as unknown as IDataObject;
	book.write(events.length === 0 && !report);
	if (report) throw toNodeError(fn.getNode(), failuresError(pending, entries, watched.length), 0);
	return events.length > 0 ? [events.map((json) => ({ json }))] : null;
}

/**
 * The activation poll takes every entry's baseline, or the workflow is not activated, as for one
 * subject: a baseline taken later by a poll that emits nothing is not saved by n8n's default poller
 * nor by the 2.x scheduler without durable cursors, and a restart would lose it with the changes
 * made meanwhile.
 */
function refuseIncompleteActivation<R, S>(
	watched: Array<Watched<R, S>>,
	outcomes: Map<string, { ok: boolean; error?: unknown }>,
	budgetMs: number,
): void {
	const missing = watched.filter((entry) => outcomes.get(entry.key)?.ok !== true);
	if (missing.length === 0) return;
	const SHOWN = 20;
	const lines = missing.slice(0, SHOWN).map((entry) => {
		const outcome = outcomes.get(entry.key);
		const why = !outcome
			? `not read within the activation's ${Math.round(budgetMs / 1000)} s`
			: outcome.error instanceof Error
				? outcome.error.message
				: String(outcome.error);
		return `${entry.label} (${entry.where}): ${why}`;
	});
	const more = missing.length > SHOWN ? `; and ${missing.length - SHOWN} more` : '';
	throw new WatchedSetError(
		missing.length,
		watched.length,
		`The workflow was not activated: ${missing.length} of the ${watched.length} watched ${missing.length === 1 ? 'entry' : 'entries'} could not be read at activation: ${lines.join('; ')}${more}`,
		'Every entry needs the baseline the activation poll takes, or a change made before a restart could go unreported. Activate again once they can be read (5 minutes later after a status U), or remove them from the set; split a set too large to read within one poll.',
	);
}

/** The stage a failure has reached: 0 nothing to report yet, 1 its start, 2 every U repeat answered U. */
function stageOf(failure: Failure): 0 | 1 | 2 {
	if (failure.backoff) return failure.backoff.unknowns > UNKNOWN_REPEATS ? 2 : 1;
	if (failure.unsettled !== undefined) return failure.unsettled >= UNSETTLED_POLLS_REPORTED ? 1 : 0;
	return 1;
}

/** An entry's failure after one more failed read. */
function failureAfter(previous: Failure | undefined, error: unknown, key: string, now: number): Failure {
	const reason = error instanceof Error ? error.message : String(error);
	const reported = previous?.reported ?? 0;
	if (error instanceof ApiResultError && error.explanation.status === 'U') {
		// The API's back-off, as for one subject; what was reported is the episode's (`reported`).
		const { next } = afterUnknown(previous?.backoff ? { ...previous.backoff, reported } : undefined, key, now, false);
		return { reason, reported, backoff: { ...next, reported } };
	}
	if (error instanceof ListingChangedError) return { reason, reported, unsettled: (previous?.unsettled ?? 0) + 1 };
	// Another failure is another episode only after a success: a back-off stays; a row of polls
	// that found the list changing is broken.
	return { reason, reported, ...(previous?.backoff ? { backoff: previous.backoff } : {}) };
}

function failuresError<S>(
	pending: Array<{ key: string; label: string; where: string }>,
	entries: Record<string, EntryRecord<S>>,
	watched: number,
): WatchedSetError {
	const SHOWN = 20;
	const lines = pending.slice(0, SHOWN).map((entry) => {
		const failure = entries[entry.key].failure as Failure;
		const backoff = failure.backoff;
		const when = backoff
			? `; asked again at ${new Date(backoff.nextPollAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}`
			: '';
		const support =
			stageOf(failure) === 2
				? `; every one of its ${UNKNOWN_REPEATS} repeats was answered U: contact technical support`
				: '';
		const unsettled = failure.unsettled !== undefined ? ` (at each of the last ${failure.unsettled} polls)` : '';
		return `${entry.label} (${entry.where}): ${failure.reason}${unsettled}${when}${support}`;
	});
	const more = pending.length > SHOWN ? `; and ${pending.length - SHOWN} more` : '';
	const noun = pending.length === 1 ? 'entry' : 'entries';
	return new WatchedSetError(
		pending.length,
		watched,
		`${pending.length} of the ${watched} watched ${noun} failed: ${lines.join('; ')}${more}`,
		'Every other entry was read and its events were emitted as usual. Each entry named here is reported once, until a read of it succeeds again (a status U back-off is reported at its start and after its 7th repeat); its saved state did not move, so its first successful read reports what changed meanwhile, once.',
	);
}

/** The entries of a set as entered: rows of a fixed collection, or pasted text (one entry a line). */
function enteredEntries(
	fn: IPollFunctions,
	names: SetParameters,
	fieldsOf: (row: IDataObject) => unknown[],
): EnteredEntry[] {
	if (fn.getNodeParameter(names.entry, 'rows') === 'text')
		return entriesOfText(String(fn.getNodeParameter(names.text, '')));
	const rows = (fn.getNodeParameter(names.rows, {}) as IDataObject)[names.row];
	return (Array.isArray(rows) ? (rows as IDataObject[]) : []).map((row, i) => ({
		where: `row ${i + 1}`,
		fields: fieldsOf(row).map((value) => String(value ?? '').trim()),
	}));
}

/** The quota subjects as entered. */
const quotaEntries = (fn: IPollFunctions) =>
	enteredEntries(fn, SET_PARAMETERS.quota, (row) => [
		row.quotaAccumulationMethod,
		row.quotaAccumulationId,
		row.currency,
		...(row.quotaAccumulationMethod === METHOD_WITH_TRADE_TYPE ? [row.tradeType] : []),
		row.threshold,
	]);

/** One quota subject: `METHOD, ID, CURRENCY[, TRADE TYPE for BENEFICIARY][, THRESHOLD]`. */
function parseQuotaEntry(entry: EnteredEntry, below: boolean, defaultThreshold: number) {
	const [method = '', id = '', currency = '', ...rest] = entry.fields;
	const withTradeType = method.toUpperCase() === METHOD_WITH_TRADE_TYPE;
	const most = withTradeType ? 5 : 4;
	if (entry.fields.length > most) {
		throw new ValidationError(
			'subjects',
			`at most ${most} fields`,
			`${entry.fields.length} fields, at most ${most}: method, ID, currency${withTradeType ? ', trade type' : ''} and threshold`,
		);
	}
	const tradeType = withTradeType ? (rest.shift() ?? '') : undefined;
	const values: IDataObject = {
		quotaAccumulationMethod: method.toUpperCase(),
		quotaAccumulationId: id,
		currency,
		tradeType,
	};
	const request = buildQuotaRequest((name, fallback) => values[name] ?? fallback);
	const own = rest[0] ?? '';
	const threshold = below && own !== '' ? readThreshold(own) : defaultThreshold;
	return { request, threshold };
}

/** The customers as entered (one customer ID a line). */
const customerEntries = (fn: IPollFunctions) => enteredEntries(fn, SET_PARAMETERS.customers, (row) => [row.customerId]);

function parseCustomerEntry(
	entry: EnteredEntry,
	filters: IDataObject,
	options: IDataObject,
): { customerId: string; question: ListingQuestion } {
	if (entry.fields.length > 1)
		throw new ValidationError(
			'customers',
			'one customer ID a line',
			`${entry.fields.length} fields, one customer ID expected`,
		);
	const customerId = entry.fields[0] ?? '';
	if (customerId === '') throw new ValidationError('customers', 'a customer ID', 'no customer ID');
	// Checked as the listing checks a Customer ID (its row in fields.ts); a poll confirms whole lists.
	const question = listingQuestion(filters, { ...options, customerId, confirmWholeList: true });
	return { customerId, question };
}
