/** What changed in a beneficiary list between two polls; events come in API order, removals last. */
import { BANK_DETAIL_FIELDS, beneficiaryGroup, hasReference, PAYEE_FIELDS } from '../shared/core/api/identity';
import { maskAccount } from '../shared/core/redaction';
import {
	BENEFICIARY_STATE_VERSION,
	Columns,
	columnsFor,
	entryHolds,
	entryKey,
	entryOf,
	groupKey,
	keyed,
	summaryOf,
	WHOLE_CHARS,
	type BeneficiaryState,
	type Entry,
} from './beneficiaryState';
import { match, type Current } from './beneficiaryMatch';
import { changeEvent, type BeneficiaryEvent } from './events';

export { readBeneficiaryState } from './beneficiaryState';

export interface BeneficiaryChange {
	event: BeneficiaryEvent;
	/** As returned by the API (added, changed), or the kept summary (removed). */
	beneficiary: Record<string, unknown>;
	/** For a change: each changed field, with its value before (null when only its digest was kept) and after. */
	changes?: Record<string, { before: unknown; after: unknown }>;
	/** Pairs an untagged Added and Removed of one nickname (maybe one payee's new bank details): the other one. */
	possibleBankChange?: Record<string, unknown>;
}

/** The list packed as the state keeps it, with the columns the state had and each new one the list brings. */
function packed(list: Array<Record<string, unknown>>, known: string[] = []) {
	const fields = columnsFor(known, list);
	const current: Current[] = list.map((item) => ({
		item,
		group: groupKey(beneficiaryGroup(item)),
		entry: entryOf(item, fields),
	}));
	return { fields, current, entries: keyed(current.map((now): [string, Entry] => [now.group, now.entry])) };
}

/** The baseline: the current list's state, nothing emitted. */
export function baseline(question: string, beneficiaries: Array<Record<string, unknown>>): BeneficiaryState {
	const { fields, entries } = packed(beneficiaries);
	return { version: BENEFICIARY_STATE_VERSION, kind: 'beneficiaries', question, fields, entries };
}

function diffBeneficiaries(
	state: BeneficiaryState,
	list: Array<Record<string, unknown>>,
	wanted: ReadonlySet<string>,
): { events: BeneficiaryChange[]; next: BeneficiaryState } {
	const { fields, current, entries } = packed(list, state.fields);
	const columns = new Columns(fields);
	// A vetted ID now paying someone else is what Bank Details Changed watches: it must not split into Removed plus Added.
	const matched = match(state, current, columns, !wanted.has('beneficiaryBankDetailsChanged'));
	const events: BeneficiaryChange[] = [];
	const report = (change: Omit<BeneficiaryChange, 'event'> & { event: BeneficiaryEvent | undefined }) => {
		if (change.event !== undefined && wanted.has(change.event)) events.push(change as BeneficiaryChange);
	};
	for (const now of current) {
		const before = now.was === undefined ? undefined : state.entries[now.was];
		if (!before) {
			report({ event: 'beneficiaryAdded', beneficiary: now.item });
			continue;
		}
		const changed = changedFields(before[0], now.entry[0], columns);
		if (changed.length > 0) {
			const changes = changesOf(before, now.item, changed);
			report({ event: changeEvent(changed, wanted), beneficiary: now.item, changes });
		}
	}
	for (const [key, entry] of Object.entries(state.entries)) {
		if (!matched.has(key)) report({ event: 'beneficiaryRemoved', beneficiary: summaryOf(entry) });
	}
	return { events: besideTheirAdded(events), next: { ...state, fields, entries } };
}

/** A payee without a reference ID: its nickname, which a bank change keeps (its token changes). */
const untaggedNick = ({ beneficiary }: BeneficiaryChange) =>
	hasReference(beneficiary.referenceBeneficiaryId) ? undefined : beneficiary.beneficiaryNick;

/** Each untagged removal right after an addition of its nickname (a possible bank change), each naming the other. */
function besideTheirAdded(events: BeneficiaryChange[]): BeneficiaryChange[] {
	const removals = new Map<unknown, BeneficiaryChange[]>();
	for (const change of events.filter((e) => e.event === 'beneficiaryRemoved' && untaggedNick(e) !== undefined)) {
		removals.set(untaggedNick(change), [...(removals.get(untaggedNick(change)) ?? []), change]);
	}
	const placed = new Set<BeneficiaryChange>();
	return events.flatMap((change) => {
		if (placed.has(change)) return [];
		const partner = change.event === 'beneficiaryAdded' ? removals.get(untaggedNick(change))?.shift() : undefined;
		if (!partner) return [change];
		placed.add(partner);
		return [
			{ ...change, possibleBankChange: named(partner) },
			{ ...partner, possibleBankChange: named(change) },
		];
	});
}

/** How one of the pair names the other: bank details by their last four only. */
function named({ event, beneficiary }: BeneficiaryChange): Record<string, unknown> {
	const tails = BANK_DETAIL_FIELDS.flatMap((field) => {
		const value = beneficiary[field];
		return typeof value === 'string' && value !== '' ? [[field, maskAccount(value)]] : [];
	});
	return { event, beneficiaryNick: beneficiary.beneficiaryNick, ...Object.fromEntries(tails) };
}

/** Whether the list is the state entry for entry: diffBeneficiaries' "no event" at a fraction of its cost. */
function holdsState(state: BeneficiaryState, list: Array<Record<string, unknown>>): boolean {
	const keys = Object.keys(state.entries);
	if (keys.length !== list.length) return false;
	const columns = new Columns(state.fields);
	const uses = new Map<string, number>();
	return list.every((item, i) => {
		const group = groupKey(beneficiaryGroup(item));
		const n = (uses.get(group) ?? 0) + 1;
		uses.set(group, n);
		return keys[i] === entryKey(group, n) && entryHolds(state.entries[keys[i]], item, columns);
	});
}

/** One poll's comparison: `settled` for the first read (paging.ts), `diff` for the read returned. */
export function comparedWith(state: BeneficiaryState) {
	let unchangedList: Array<Record<string, unknown>> | undefined;
	return {
		settled: (list: Array<Record<string, unknown>>): boolean => {
			const holds = holdsState(state, list);
			unchangedList = holds ? list : undefined;
			return holds;
		},
		diff: (list: Array<Record<string, unknown>>, wanted: ReadonlySet<string>) =>
			list === unchangedList
				? { events: [] as BeneficiaryChange[], next: state }
				: diffBeneficiaries(state, list, wanted),
	};
}

function changesOf(before: Entry, after: Record<string, unknown>, changed: string[]) {
	const summary = summaryOf(before);
	const changes: Record<string, { before: unknown; after: unknown }> = {};
	for (const name of changed) {
		changes[name] = { before: Object.hasOwn(summary, name) ? summary[name] : null, after: after[name] ?? null };
	}
	return changes;
}

/** Should every short field digest agree although the whole entry changed (a collision), all but the payee fields. */
function changedFields(before: string, after: string, columns: Columns): string[] {
	if (before.slice(0, WHOLE_CHARS) === after.slice(0, WHOLE_CHARS)) return [];
	const changed = columns.fields.filter((_, i) => columns.same(before, after, i) !== true);
	if (changed.length > 0) return changed;
	return columns.fields.filter((field) => !PAYEE_FIELDS.includes(field));
}
