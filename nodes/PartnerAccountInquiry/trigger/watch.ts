/**
 * What a trigger watches, from its parameters: the events picked, and the entries (one quota
 * subject or customer, or a set of them), each with how it is read, compared with its saved state
 * and named. One subject is a set of one: the poll (poll.ts) does the same for either.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { ValidationError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import { listBeneficiaries, listedFor, listingQuestion, OWNER_FIELD } from '../shared/endpoints/beneficiaries';
import { maskBankDetailsOption, readBoolean, refuseEmptyAccountExpressions } from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';
import { baseline, comparedWith, readBeneficiaryState } from './beneficiaryDiff';
import { checkSet, SET_PARAMETERS } from './enteredSet';
import { eventOptions, familyOf, type Family, type TriggerEvent } from './events';
import { legacyEventForms, legacyFilterForms } from './legacyKeys';
import { listCost } from './pollPlan';
import { quotaEntries } from './quotaEntries';
import { enteredEntries, keyOf, type Context, type WatchedEntry } from './watchedEntry';

/** "Fetch Test Event" shows this many current beneficiaries. */
const SAMPLE_SIZE = 3;
/** The node versions from which Mask Bank Details is on by default, and the trigger takes a list of events. */
const MASK_BY_DEFAULT_FROM = 2;
export const EVENTS_FROM = 3;

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
			legacyEventForms('beneficiaries').flatMap(({ events }) =>
				legacyFilterForms(filters).map((entered) => ({
					key: keyOf(session, { ...events, filters: entered, customerId }, options.accessToken),
				})),
			);
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
				return listCost(key, pages, pages > 1 && !record?.unchanged ? 2 : 1, width);
			},
			read: async (s, read, observed) =>
				await listBeneficiaries(s, { ...question, settled: compared?.settled }, read, observed),
			compare: (saved, read, cap) => {
				const list = read as IDataObject[];
				if (!saved || !compared) return { events: [], next: baseline(key, list), unchanged: false, moved: () => true };
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
				return { events: items, next, unchanged: next === saved, moved };
			},
			// Held beneficiary events stay masked (documented): the state never keeps bank details whole.
			toHeld: maskBankDetails,
			fromHeld: (json) => json,
			sample: async (s) => {
				const sample = await listBeneficiaries(s, { ...question, limit: SAMPLE_SIZE });
				return sample.map((json) => shown({ ...json, event: [...wanted][0], ...owner }));
			},
		};
	});
}
