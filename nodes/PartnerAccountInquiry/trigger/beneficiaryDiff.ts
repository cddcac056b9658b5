/**
 * What changed in a beneficiary list between two polls (framework-free; its state: beneficiaryState.ts).
 * Each current entry is matched to a saved one (beneficiaryMatch.ts). Unmatched: added; saved and
 * unmatched: removed; matched and different: changed. Events come in API order, removals last.
 */
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
	/**
	 * For an Added and a Removed of one nickname without a reference ID in one poll (one payee's new
	 * bank details, maybe): the other one's event, nickname and bank details by their last four.
	 */
	possibleBankChange?: Record<string, unknown>;
}

/** The state of the current list (the baseline: nothing emitted). */
export function baseline(question: string, beneficiaries: Array<Record<string, unknown>>): BeneficiaryState {
	const fields = columnsFor([], beneficiaries);
	const groups = beneficiaries.map((b): [string, Entry] => [groupKey(beneficiaryGroup(b)), entryOf(b, fields)]);
	return { version: BENEFICIARY_STATE_VERSION, kind: 'beneficiaries', question, fields, entries: keyed(groups) };
}

/** The events of `wanted` kinds between the state and the current list, and the state of the list. */
function diffBeneficiaries(
	state: BeneficiaryState,
	list: Array<Record<string, unknown>>,
	wanted: ReadonlySet<string>,
): { events: BeneficiaryChange[]; next: BeneficiaryState } {
	const fields = columnsFor(state.fields, list);
	const current: Current[] = list.map((item) => ({
		item,
		group: groupKey(beneficiaryGroup(item)),
		entry: entryOf(item, fields),
	}));
	const columns = new Columns(fields);
	// With Bank Details Changed wanted, a vetted reference ID that now pays another account under
	// another name is that event (its changes name the account name too), not Removed plus Added.
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
	const entries = keyed(current.map((now): [string, Entry] => [now.group, now.entry]));
	return { events: besideTheirAdded(events), next: { ...state, fields, entries } };
}

/** A payee without a reference ID: its nickname, which a bank change keeps (its token changes). */
const untagged = (item: Record<string, unknown>) =>
	hasReference(item.referenceBeneficiaryId) ? undefined : item.beneficiaryNick;
const untaggedNick = ({ beneficiary }: BeneficiaryChange) => untagged(beneficiary);

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

/** How one of a possible bank change's pair names the other: its event, nickname, bank details by their last four. */
function named({ event, beneficiary }: BeneficiaryChange): Record<string, unknown> {
	const tails = BANK_DETAIL_FIELDS.flatMap((field) => {
		const value = beneficiary[field];
		return typeof value === 'string' && value !== '' ? [[field, maskAccount(value)]] : [];
	});
	return { event, beneficiaryNick: beneficiary.beneficiaryNick, ...Object.fromEntries(tails) };
}

/**
 * Whether the list is exactly what the state holds, entry for entry in order (no event of any kind):
 * such a first read needs no confirming read (paging.ts `settled`); a change it missed is the next poll's.
 */
function holdsState(state: BeneficiaryState, list: Array<Record<string, unknown>>): boolean {
	// What diffBeneficiaries would find, the cheap way: the same keys in the same order (keyed), each
	// entry as saved (entryHolds). A quiet poll of many customers spends most of its time here.
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

/**
 * One poll's comparison with the saved state: `settled` for the first read (paging.ts), `diff` for
 * the read returned; a first read that held is not diffed again (most of a quiet poll's processor time).
 */
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

/**
 * The fields that changed, or none when the whole-entry digests agree. Should every field digest
 * agree although the whole entry changed (a collision of two short digests), every field but the
 * payee fields is named: their long digests say they did not change.
 */
function changedFields(before: string, after: string, columns: Columns): string[] {
	if (before.slice(0, WHOLE_CHARS) === after.slice(0, WHOLE_CHARS)) return [];
	const changed = columns.fields.filter((_, i) => columns.same(before, after, i) !== true);
	if (changed.length > 0) return changed;
	return columns.fields.filter((field) => !PAYEE_FIELDS.includes(field));
}
