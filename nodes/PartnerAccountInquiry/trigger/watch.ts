/** What a trigger watches, from its parameters: the events picked and the entries (one account is a list of one). */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CUSTOMER_ID } from '../shared/core/api/fields';
import { readWhoseAccount, WHOSE_ACCOUNT_FIELD } from '../shared/core/api/whoseAccount';
import { beneficiariesSubject, ValidationError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import { simplifyBeneficiary } from '../shared/core/simplify';
import { listBeneficiaries, listingQuestion, withWhose } from '../shared/endpoints/beneficiaries';
import { maskBankDetailsOption, readBoolean, simplifyProperty } from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';
import { baseline, comparedWith, readBeneficiaryState } from './beneficiaryDiff';
import { checkSet, enteredCustomers } from './enteredSet';
import { familyOf, type Family, type TriggerEvent } from './events';
import { listCost } from './pollPlan';
import { quotaEntries } from './quotaEntries';
import { keyOf, type Context, type WatchedEntry } from './watchedEntry';

/** The fields a beneficiary event's item has from the trigger, never from the gateway (withWhose refuses them). */
const TRIGGER_FIELDS = [WHOSE_ACCOUNT_FIELD, 'event', 'changes', 'possibleBankChange'];

/** "Fetch Test Event" shows one current item of each of the first entries, this many at most. */
export const SAMPLE_ENTRIES = 10;

/** `many`: more than one entry, so that each message names the entry it is about. */
export type Watch = { family: Family; many: boolean; entries: WatchedEntry[] };

export function watchOf(fn: IPollFunctions, session: ApiSession): Watch {
	const picked = [fn.getNodeParameter('events', [])].flat().map(String);
	const family = familyOf(picked);
	const wanted = new Set<string>([...new Set(picked)].sort() as TriggerEvent[]);
	const options = fn.getNodeParameter('options', {}) as IDataObject;
	const context = { options, wanted, accessToken: session.credentials.accessToken };
	const entries =
		family === 'quota' ? quotaEntries(fn, session, context) : beneficiaryEntries(fn, session, context, shaper(options));
	// One entry is named by its label alone, not also by where it was typed.
	const many = entries.length > 1;
	return { family, many, entries: many ? entries : entries.map((entry) => ({ ...entry, where: '' })) };
}

/** What a beneficiary item shows: masked (Mask Bank Details, on by default), then simplified (Simplify, on by default). */
function shaper(options: IDataObject): (json: IDataObject) => IDataObject {
	const mask = readBoolean(maskBankDetailsOption, options);
	const simplify = readBoolean(simplifyProperty, options);
	return (json) => {
		const masked = mask ? maskBankDetails(json) : json;
		return simplify ? (simplifyBeneficiary(masked) as IDataObject) : masked;
	};
}

function beneficiaryEntries(
	fn: IPollFunctions,
	session: ApiSession,
	context: Context,
	shown: (json: IDataObject) => IDataObject,
): WatchedEntry[] {
	const { options, wanted, accessToken } = context;
	const filters = fn.getNodeParameter('filters', {}) as IDataObject;
	const customers = checkSet(
		'customerIds',
		enteredCustomers(fn),
		({ fields }) => {
			if (fields.length > 1)
				throw new ValidationError('customerIds', 'one ID a line', `${fields.length} fields, expected one ID a line`);
			const whose = readWhoseAccount(CUSTOMER_ID, fields[0]);
			return { whose, question: listingQuestion(whose, filters, options, accessToken) };
		},
		(customer) => customer.whose,
	);
	return customers.map(({ where, value: { whose, question } }) => {
		// Paging is how the list is read, not which list; the token counts by its digest alone.
		const list: IDataObject = { ...question.request };
		for (const field of ['pageSize', 'pageNumber', 'accessToken']) delete list[field];
		const key = keyOf(session, { list }, question.request.accessToken);
		// Read before the read: a first read that is the saved list as it was needs no confirming read.
		let compared: ReturnType<typeof comparedWith> | undefined;
		return {
			key,
			where,
			label: beneficiariesSubject(whose),
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
						event,
						...withWhose([beneficiary as IDataObject], whose, TRIGGER_FIELDS)[0],
						...(changes ? { changes } : {}),
						...(possibleBankChange ? { possibleBankChange } : {}),
					} as IDataObject),
				);
				// Asked only when a report is due: whether the list's state changed at all (entries, columns).
				const moved = () => next !== saved && JSON.stringify(next) !== JSON.stringify(saved);
				return { events: items, next, unchanged: next === saved, moved };
			},
			sample: async (s) => {
				const sample = await listBeneficiaries(s, { ...question, limit: 1 });
				return withWhose(sample, whose, TRIGGER_FIELDS).map((json) => shown({ event: [...wanted][0], ...json }));
			},
		};
	});
}
