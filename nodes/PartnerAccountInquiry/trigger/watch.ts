/** What a trigger watches, from its parameters: the events picked and the entries (one subject is a set of one). */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { ValidationError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import { listBeneficiaries, listedFor, listingQuestion, OWNER_FIELD } from '../shared/endpoints/beneficiaries';
import { CUSTOMER_ID } from '../shared/core/api/fields';
import { readBoolean, readWhose, refuseEmptyAccessToken } from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';
import { baseline, comparedWith, readBeneficiaryState } from './beneficiaryDiff';
import { checkSet, enteredEntries, SET_PARAMETERS } from './enteredSet';
import { eventOptions, type Family, type TriggerEvent } from './events';
import { listCost } from './pollPlan';
import { triggerMaskOption } from './properties';
import { quotaEntries } from './quotaEntries';
import { keyOf, type Context, type WatchedEntry } from './watchedEntry';

/** "Fetch Test Event" shows this many current beneficiaries. */
const SAMPLE_SIZE = 3;

export type Watch = { family: Family; many: boolean; entries: WatchedEntry[] };

function eventsOf(fn: IPollFunctions): { family: Family; events: TriggerEvent[] } {
	const family = fn.getNodeParameter('triggerOn') as Family;
	const picked = [fn.getNodeParameter('events', [])].flat() as string[];
	const offered = eventOptions(family).map((option) => option.value as string);
	const unknown = picked.filter((event) => !offered.includes(event));
	const rule = `one or more of ${offered.join(', ')}`;
	if (picked.length === 0) throw new ValidationError('events', rule, `Pick at least one event: ${rule}`);
	if (unknown.length > 0)
		throw new ValidationError('events', rule, `${unknown.join(', ')} are not events of ${family}: pick ${rule}`);
	return { family, events: [...new Set(picked)].sort() as TriggerEvent[] };
}

export function watchOf(fn: IPollFunctions, session: ApiSession): Watch {
	const { family, events } = eventsOf(fn);
	const many = fn.getNodeParameter('watch', 'one') === 'many';
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	// An expression that gave nothing would watch your own account instead: refused, as in the action node.
	refuseEmptyAccessToken(fn.getNode(), 0, options);
	const wanted = new Set<string>(events);
	const { name } = triggerMaskOption;
	const mask = readBoolean(triggerMaskOption, { [name]: fn.getNodeParameter(name, triggerMaskOption.default) });
	const shown = (json: IDataObject) => (mask ? maskBankDetails(json) : json);
	const entries =
		family === 'quota'
			? quotaEntries(fn, session, { options, wanted, many })
			: beneficiaryEntries(fn, session, { options, wanted, many, shown });
	return { family, many, entries };
}

function beneficiaryEntries(
	fn: IPollFunctions,
	session: ApiSession,
	context: Context & { shown: (json: IDataObject) => IDataObject },
): WatchedEntry[] {
	const { options, wanted, many, shown } = context;
	const filters = fn.getNodeParameter('filters', {}) as IDataObject;
	const ask = (customerId: unknown) => listingQuestion(customerId, filters, options);
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
		: [readWhose(fn.getNode(), 0, CUSTOMER_ID, (name) => fn.getNodeParameter(name, ''))].map((customerId) => ({
				where: '',
				value: { customerId: String(customerId ?? '').trim(), question: ask(customerId) },
			}));
	return customers.map(({ where, value: { customerId, question } }) => {
		// Paging is how the list is read, not which list; the token counts by its digest alone.
		const list: IDataObject = { ...question.request };
		for (const field of ['pageSize', 'pageNumber', 'accessToken']) delete list[field];
		const key = keyOf(session, { list }, question.request.accessToken);
		const owner = { [OWNER_FIELD]: listedFor(question.request) };
		// Read before the read: a first read that is the saved list as it was needs no confirming read.
		let compared: ReturnType<typeof comparedWith> | undefined;
		return {
			key,
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
			compare: (saved, read) => {
				const list = read as IDataObject[];
				if (!saved || !compared) return { events: [], next: baseline(key, list), unchanged: false, moved: () => true };
				const { events, next } = compared.diff(list, wanted);
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
			sample: async (s) => {
				const sample = await listBeneficiaries(s, { ...question, limit: SAMPLE_SIZE });
				return sample.map((json) => shown({ ...json, event: [...wanted][0], ...owner }));
			},
		};
	});
}
