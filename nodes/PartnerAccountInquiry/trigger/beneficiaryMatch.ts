/** Which saved entry each current entry is: never one of another payee, never a guess between two equally likely. */
import { beneficiaryGroup, hasReference, isAnotherPayee, tokenGroup } from '../shared/core/api/identity';
import {
	Columns,
	groupKey,
	groupOfKey,
	summaryOf,
	WHOLE_CHARS,
	type BeneficiaryState,
	type Entry,
} from './beneficiaryState';

/** One entry of the current list. */
export interface Current {
	item: Record<string, unknown>;
	group: string;
	entry: Entry;
	/** The saved entry's key it carries on, once matched. */
	was?: string;
}

/** Sets `was` (within each group, then across one payee's token and ID groups); returns the saved keys matched. */
export function match(
	state: BeneficiaryState,
	current: Current[],
	columns: Columns,
	samePayeeOnly: boolean,
): Set<string> {
	const saved = new Map<string, string[]>();
	for (const key of Object.keys(state.entries)) {
		const group = groupOfKey(key);
		saved.set(group, [...(saved.get(group) ?? []), key]);
	}
	const matcher: Matcher = { state, columns, samePayeeOnly, taken: new Set(), doubtful: new Set() };
	const byGroup = new Map<string, Current[]>();
	for (const now of current) byGroup.set(now.group, [...(byGroup.get(now.group) ?? []), now]);
	for (const [group, entries] of byGroup) pair(matcher, entries, saved.get(group) ?? []);
	const unmatched = () => current.filter((now) => now.was === undefined && !matcher.doubtful.has(now));
	const hasId = (key: string) => hasReference(summaryOf(state.entries[key]).referenceBeneficiaryId);
	for (const now of unmatched()) {
		// A beneficiary given a reference ID: its saved entry is in its token's group, without an ID.
		const token = tokenGroup(now.item);
		const untaggedKeys = token ? (saved.get(groupKey(token)) ?? []).filter((key) => !hasId(key)) : [];
		if (hasReference(now.item.referenceBeneficiaryId)) pair(matcher, [now], untaggedKeys);
	}
	// A beneficiary whose reference ID was taken away: a saved entry with an ID and the same token digest.
	const tokenColumn = columns.fields.indexOf('beneficiaryToken');
	const lostId = unmatched().filter((now) => tokenColumn >= 0 && beneficiaryGroup(now.item) === tokenGroup(now.item));
	if (lostId.length === 0) return matcher.taken;
	const withId = new Map<string, string[]>();
	for (const [key, entry] of Object.entries(state.entries)) {
		const token = columns.at(entry[0], tokenColumn);
		if (!matcher.taken.has(key) && token && hasId(key)) withId.set(token, [...(withId.get(token) ?? []), key]);
	}
	for (const now of lostId) pair(matcher, [now], withId.get(columns.at(now.entry[0], tokenColumn) as string) ?? []);
	return matcher.taken;
}

interface Matcher {
	state: BeneficiaryState;
	columns: Columns;
	/** Never pair entries of another payee (another name and other bank details under one ID). */
	samePayeeOnly: boolean;
	taken: Set<string>;
	/** Entries, current or saved, that two matches fitted equally well: left unmatched. */
	doubtful: Set<Current | string>;
}

/** Best scores first; a tie is never guessed: Removed plus Added can be undone, one payee merged into another not. */
function pair({ state, columns, samePayeeOnly, taken, doubtful }: Matcher, current: Current[], keys: string[]): void {
	const free = keys.filter((key) => !taken.has(key) && !doubtful.has(key));
	if (free.length === 0) return;
	const options: Array<{ now: Current; key: string; score: number }> = [];
	for (const now of current) {
		if (now.was !== undefined || doubtful.has(now)) continue;
		for (const key of free) {
			const before = state.entries[key][0];
			const same = (field: string) => {
				const i = columns.fields.indexOf(field);
				return i < 0 ? undefined : columns.same(before, now.entry[0], i);
			};
			if (samePayeeOnly && isAnotherPayee(same)) continue;
			const identical = before.slice(0, WHOLE_CHARS) === now.entry[0].slice(0, WHOLE_CHARS);
			const alike = columns.fields.filter((_, i) => columns.same(before, now.entry[0], i) === true).length;
			const score =
				(identical ? 1_000_000 : 0) + (same('beneficiaryToken') ? 1000 : 0) + (same('currency') ? 100 : 0) + alike;
			options.push({ now, key, score });
		}
	}
	// Stable: equal scores keep list order, then saved order.
	options.sort((a, b) => b.score - a.score);
	const open = (o: (typeof options)[number]) =>
		o.now.was === undefined && !taken.has(o.key) && !doubtful.has(o.now) && !doubtful.has(o.key);
	for (const option of options) {
		if (!open(option)) continue;
		const { now, key, score } = option;
		const rivals = options.filter(
			(o) =>
				o.score === score &&
				open(o) &&
				((o.now === now && state.entries[o.key][0] !== state.entries[key][0]) ||
					(o.key === key && o.now.entry[0] !== now.entry[0])),
		);
		if (rivals.length > 0) {
			for (const o of [option, ...rivals]) doubtful.add(o.now).add(o.key);
			continue;
		}
		now.was = key;
		taken.add(key);
	}
}
