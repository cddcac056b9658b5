/**
 * What a trigger watches, from its parameters: the events picked, and the entries (one quota
 * subject or customer, or a set of them), each with how it is read, compared with its saved state
 * and named. One subject is a set of one: the poll (poll.ts) does the same for either.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, isMaskedField, isMaskedQuotaId } from '../shared/core/api/fields';
import { ValidationError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import { maskAccount } from '../shared/core/redaction';
import {
	listBeneficiaries,
	listedFor,
	listingQuestion,
	OWNER_FIELD,
	type ListingSize,
} from '../shared/endpoints/beneficiaries';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import type { QuotaRequest } from '../shared/core/api/validation';
import {
	ACCUMULATION_ID,
	maskBankDetailsOption,
	readBoolean,
	refuseEmptyAccountExpressions,
	refuseEmptyExpression,
} from '../shared/properties';
import type { ApiSession, ReadOptions } from '../shared/transport/session';
import { baseline, comparedWith, readBeneficiaryState } from './beneficiaryDiff';
import {
	checkSet,
	entriesOfText,
	quotaEntryValues,
	quotaRowFields,
	SET_PARAMETERS,
	type SetParameters,
} from './enteredSet';
import { eventOptions, familyOf, type Family, type TriggerEvent } from './events';
import { legacyEventForms, type LegacyKey } from './legacyKeys';
import { listCost, type EntryCost } from './pollPlan';
import { quotaEvents, readQuotaState, type QuotaState } from './quotaState';
import { questionDigest, type StateReading } from './savedState';
import type { EntryRecord } from './watchState';

/** "Fetch Test Event" shows this many current beneficiaries. */
const SAMPLE_SIZE = 3;
/** The node versions from which Mask Bank Details is on by default, and the trigger takes a list of events. */
const MASK_BY_DEFAULT_FROM = 2;
export const EVENTS_FROM = 3;

/**
 * One watched entry, for one poll: its key (the digest of the question a trigger watching it alone
 * asks), where it was entered ('' for one subject), how a message names it (an account by its last
 * four), its cost (pollPlan.ts), read and comparison: events (at most `cap`) and the state after them.
 */
export interface WatchedEntry {
	key: string;
	/** Its keys in a state saved by 0.1.0 to 0.3.0 (legacyKeys.ts): such a state is migrated. */
	legacyKeys: () => LegacyKey[];
	where: string;
	label: string;
	readState: (saved: unknown) => StateReading<unknown>;
	cost: (record: EntryRecord | undefined, width: number, typicalPages: number) => EntryCost;
	read: (session: ApiSession, options: ReadOptions, observed: ListingSize) => Promise<unknown>;
	compare: (saved: unknown, read: unknown, cap: number, whole: boolean) => Compared;
	/** "Fetch Test Event": a few items of current data. */
	sample: (session: ApiSession) => Promise<IDataObject[]>;
}

/**
 * `held`: the read was the saved state as it was (one read of a list); `moved`: the state moved in
 * a way a restart must not lose (a baseline, a re-armed alert, a list that changed).
 */
type Compared = { events: IDataObject[]; next: unknown; held: boolean; moved: () => boolean };

/** What a trigger watches: its family, the events picked, whether a set (Watch Many), and the entries. */
export type Watch = { family: Family; events: ReadonlySet<TriggerEvent>; many: boolean; entries: WatchedEntry[] };

/** The events picked: one (`event`, versions 1 and 2) or a list (`events`), all of one family. */
function eventsOf(fn: IPollFunctions): { family: Family; events: TriggerEvent[] } {
	const version = fn.getNode().typeVersion;
	if (version < EVENTS_FROM) {
		const event = fn.getNodeParameter('event') as TriggerEvent;
		const family = familyOf(event);
		if (!family) throw new ValidationError('event', 'a known event', `The event "${event}" is not supported`);
		return { family, events: [event] };
	}
	const family = fn.getNodeParameter('triggerOn') as Family;
	const picked = [fn.getNodeParameter('events', [])].flat() as string[];
	const offered = eventOptions(family, version).map((option) => option.value as string);
	const unknown = picked.filter((event) => !offered.includes(event));
	const rule = `one or more of ${offered.join(', ')}`;
	if (picked.length === 0) throw new ValidationError('events', rule, `Pick at least one event: ${rule}`);
	if (unknown.length > 0)
		throw new ValidationError('events', rule, `${unknown.join(', ')} are not events of ${family}: pick ${rule}`);
	const events = [...new Set(picked)].sort() as TriggerEvent[];
	return { family, events };
}

/**
 * An entry's key: the digest of the request the gateway is asked, as built and sent (what decides
 * whose data comes back: the quota subject or the customer and the filters set; the access token,
 * an OAuth token that authorises one user's data, only by a digest; the Client ID; the gateway).
 * Another request starts a fresh baseline; nothing else does: the events, the threshold, masking,
 * paging and the Timeout are how its answers are viewed, not what is asked.
 */
function keyOf(session: ApiSession, asked: IDataObject, accessToken: unknown): string {
	const { clientId, baseUrl } = session.credentials;
	const token = typeof accessToken === 'string' && accessToken ? { accessToken: questionDigest(accessToken) } : {};
	return questionDigest({ ...asked, clientId, baseUrl, ...token });
}

/** An item as Mask Bank Details has it shown. Unset (a version 1 node saved without it): off, as version 1 emitted. */
function bankDetailsShown(fn: IPollFunctions): (json: IDataObject) => IDataObject {
	const { name } = maskBankDetailsOption;
	const byDefault = fn.getNode().typeVersion >= MASK_BY_DEFAULT_FROM;
	const mask = readBoolean(
		{ ...maskBankDetailsOption, default: byDefault },
		{ [name]: fn.getNodeParameter(name, byDefault) },
	);
	return (json) => (mask ? maskBankDetails(json) : json);
}

/** The entries of a set as entered: rows of a fixed collection, or pasted text (one entry a line). */
function enteredEntries(fn: IPollFunctions, names: SetParameters, fieldsOf: (row: IDataObject) => string[]) {
	const text = fn.getNodeParameter(names.entry, 'rows') === 'text';
	if (text) return entriesOfText(String(fn.getNodeParameter(names.text, '')));
	const rows = [(fn.getNodeParameter(names.rows, {}) as IDataObject)[names.row] ?? []].flat() as IDataObject[];
	return rows.map((row, i) => ({ where: `row ${i + 1}`, fields: fieldsOf(row) }));
}

export function watchOf(fn: IPollFunctions, session: ApiSession): Watch {
	const { family, events } = eventsOf(fn);
	const many = fn.getNodeParameter('watch', 'one') === 'many';
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	// An expression that gave nothing would watch your own account instead: refused, as in the action node.
	refuseEmptyAccountExpressions(fn.getNode(), 0, 'options', options);
	const wanted = new Set<string>(events);
	// Items name their subject or list wherever one trigger may watch several (a set, or version 3).
	const named = many || fn.getNode().typeVersion >= EVENTS_FROM;
	const entries =
		family === 'quota'
			? quotaEntries(fn, session, { options, wanted, many, named })
			: beneficiaryEntries(fn, session, { options, wanted, many, named, shown: bankDetailsShown(fn) });
	return { family, events: wanted as ReadonlySet<TriggerEvent>, many, entries };
}

type Context = {
	options: IDataObject;
	wanted: ReadonlySet<string>;
	many: boolean;
	named: boolean;
};

/**
 * The Threshold as a number of at least 0 (a number in a string, "10000", is that number). An empty
 * string, text or a negative number is refused, never read as 0, an alert that could never fire.
 */
function readThreshold(raw: unknown): number {
	const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() ? Number(raw) : Number.NaN;
	if (Number.isFinite(value) && value >= 0) return value;
	const got = `got ${JSON.stringify(raw) ?? 'nothing'}`;
	throw new ValidationError('threshold', 'a number of at least 0', `Threshold must be a number of at least 0, ${got}`);
}

/** How an item names a quota subject, for a Switch to route on ("USER_ID U-1001 USD"), or a message does (`id` masked). */
const subjectOf = (request: QuotaRequest, id = request.quotaAccumulationId) =>
	[request.quotaAccumulationMethod, id, request.currency, request.tradeType].filter(Boolean).join(' ');

function quotaEntries(fn: IPollFunctions, session: ApiSession, context: Context): WatchedEntry[] {
	const { options, wanted, many, named } = context;
	const below = wanted.has('quotaBelowThreshold');
	const thresholdParameter = fn.getNodeParameter('threshold', '');
	const defaultThreshold = below ? readThreshold(thresholdParameter) : 0;
	type Subject = { request: QuotaRequest; threshold: number; entered?: unknown };
	let subjects: Array<{ where: string; value: Subject }>;
	if (many) {
		const entered = enteredEntries(fn, SET_PARAMETERS.quota, quotaRowFields);
		subjects = checkSet(
			'subjects',
			entered,
			(entry) => {
				const { values, threshold } = quotaEntryValues(entry);
				const request = buildQuotaRequest((name, fallback) => values[name] ?? fallback);
				const entered = threshold === '' ? thresholdParameter : threshold;
				return { request, threshold: below && threshold !== '' ? readThreshold(threshold) : defaultThreshold, entered };
			},
			({ request }) => questionDigest(request),
			({ fields }) => (isMaskedQuotaId(fields[0]?.toUpperCase()) && fields[1] ? [fields[1]] : []),
		);
	} else {
		const id = fn.getNodeParameter(ACCUMULATION_ID.name, '');
		refuseEmptyExpression(fn.getNode(), 0, [ACCUMULATION_ID.name], ACCUMULATION_ID, id);
		const request = buildQuotaRequest((name, fallback) =>
			name === ACCUMULATION_ID.name ? id : fn.getNodeParameter(name, fallback),
		);
		subjects = [{ where: '', value: { request, threshold: defaultThreshold, entered: thresholdParameter } }];
	}
	return subjects.map(({ where, value: { request, threshold, entered } }) => {
		const question = quotaQuestion(request, options);
		const connected = question.headers[CONNECTED_ACCOUNT_ID.header as string];
		const key = keyOf(session, { quota: request, connectedAccountId: connected }, question.accessToken);
		// Up to 0.3.0 the threshold was in the key (0 without Quota Below Threshold), as entered then.
		const legacyKeys = () =>
			legacyEventForms('quota').flatMap(({ events, below: alerts }) => {
				const judged = alerts ? Number(entered === '' ? Number.NaN : entered) : 0;
				if (!Number.isFinite(judged) || judged < 0) return [];
				const asked = { ...events, request, threshold: judged, connectedAccountId: options.connectedAccountId ?? '' };
				return [{ key: keyOf(session, asked, options.accessToken), threshold: alerts ? judged : undefined }];
			});
		const id = request.quotaAccumulationId;
		const naming = named ? { subject: subjectOf(request) } : {};
		return {
			key,
			legacyKeys,
			where,
			label: subjectOf(request, isMaskedField('quotaAccumulationId', { ...request }) ? maskAccount(id) : id),
			readState: (saved) => readQuotaState(saved, key),
			cost: () => ({ key, requests: 1, steps: 1 }),
			read: async (s, read) => await getQuota(s, question, read),
			compare: (saved, read, cap, whole) => {
				const quota = read as IDataObject;
				const state = saved as QuotaState | undefined;
				const outcome = quotaEvents(wanted, state, key, quota.availableQuotaAmount as number, threshold, whole);
				const { below, amount } = outcome.next;
				const moved = () => !state || below !== state.below || amount !== state.amount || threshold !== state.threshold;
				// Over the cap: nothing emitted and the state stays (none: no baseline yet), so a later poll fires it.
				if (outcome.fired.length > cap) return { events: [], next: state, held: false, moved: () => false };
				const events = outcome.fired.map((event) => {
					const json: IDataObject = { ...quota, event, ...naming, previousAmount: outcome.previousAmount ?? null };
					if (event === 'quotaBelowThreshold') json.threshold = threshold;
					return json;
				});
				return { events, next: outcome.next, held: false, moved };
			},
			sample: async (s) => [{ ...(await getQuota(s, question)), event: [...wanted][0], ...naming }],
		};
	});
}

function beneficiaryEntries(
	fn: IPollFunctions,
	session: ApiSession,
	context: Context & { shown: (json: IDataObject) => IDataObject },
): WatchedEntry[] {
	const { options, wanted, many, named, shown } = context;
	const filters = fn.getNodeParameter('filters', {}) as IDataObject;
	// A poll always confirms a list of several pages: an event must never come from a list that mixes two moments.
	const ask = (customerId: IDataObject['customerId']) =>
		listingQuestion(filters, { ...options, customerId, confirmWholeList: true });
	const customers = many
		? checkSet(
				'customers',
				enteredEntries(fn, SET_PARAMETERS.customers, (row) => [String(row.customerId ?? '').trim()]),
				(entry) => {
					const [customerId = '', ...more] = entry.fields;
					const got = more.length > 0 ? `${entry.fields.length} fields` : customerId === '' ? 'nothing' : '';
					if (got) throw new ValidationError('customers', 'one customer ID', `one customer ID expected, got ${got}`);
					return { customerId, question: ask(customerId) };
				},
				(c) => c.customerId,
			)
		: [{ where: '', value: { customerId: options.customerId ?? '', question: ask(options.customerId) } }];
	return customers.map(({ where, value: { customerId, question } }) => {
		// Paging is how the list is read, not which list; the token counts by its digest alone.
		const list: IDataObject = { ...question.request };
		for (const field of ['pageSize', 'pageNumber', 'accessToken']) delete list[field];
		const key = keyOf(session, { list }, question.request.accessToken);
		const legacyKeys = () =>
			legacyEventForms('beneficiaries').map(({ events }) => ({
				key: keyOf(session, { ...events, filters, customerId }, options.accessToken),
			}));
		const owner = named ? { [OWNER_FIELD]: listedFor(question.request) } : {};
		// The saved state this poll compares with, read before the read: a first read that is the saved
		// list as it was needs no confirming read.
		let compared: ReturnType<typeof comparedWith> | undefined;
		return {
			key,
			legacyKeys,
			where,
			label: customerId ? `customer ${String(customerId)}` : 'your own list',
			readState: (saved) => {
				const reading = readBeneficiaryState(saved, key);
				compared = reading.state ? comparedWith(reading.state) : undefined;
				return reading;
			},
			// A list of one page is one answer, read once; a longer one is confirmed unless it held.
			cost: (record, width, typicalPages) => {
				const pages = record?.pages ?? typicalPages;
				return listCost(key, pages, pages > 1 && !record?.held ? 2 : 1, width);
			},
			read: async (s, read, observed) =>
				await listBeneficiaries(s, { ...question, settled: compared?.settled }, read, observed),
			compare: (saved, read, cap) => {
				const list = read as IDataObject[];
				if (!saved || !compared) return { events: [], next: baseline(key, list), held: false, moved: () => true };
				const { events, next } = compared.diff(list, wanted, cap);
				const items = events.map(({ event, beneficiary, changes, possibleBankChange }) =>
					shown({
						...beneficiary,
						event,
						...(changes ? { changes } : {}),
						...owner,
						...(possibleBankChange ? { possibleBankChange } : {}),
					} as IDataObject),
				);
				// Asked only when a report is due: whether the list's state changed at all (entries, columns).
				const moved = () => next !== saved && JSON.stringify(next) !== JSON.stringify(saved);
				return { events: items, next, held: next === saved, moved };
			},
			sample: async (s) => {
				const sample = await listBeneficiaries(s, { ...question, limit: SAMPLE_SIZE });
				return sample.map((json) => shown({ ...json, event: [...wanted][0], ...owner }));
			},
		};
	});
}
