/**
 * Which saved entry each current entry of a list is (framework-free; beneficiaryDiff.ts reports
 * what changed): within a group (reference ID, else token) the one identical to it, else the one
 * most like it, never one of another payee (identity.ts), never a guess between two equally likely;
 * then across the token and reference-ID groups of one payee given or losing an ID.
 */
import { beneficiaryGroup, hasReference, isAnotherPayee, tokenGroup } from '../shared/core/api/identity';
import {
	Columns,
	groupKey,
	groupOfKey,
	sameDigests,
	summaryOf,
	WHOLE_CHARS,
	type BeneficiaryState,
	type Entry,
} from './beneficiaryState';

/** One entry of the current list, with its group digest and its packed entry. */
export interface Current {
	item: Record<string, unknown>;
	group: string;
	entry: Entry;
	/** The saved entry's key it carries on, once matched. */
	was?: string;
}

/**
 * Matches the current entries to saved ones (sets `was`); returns the saved keys matched. First
 * within each group, then across the token and reference-ID groups of one beneficiary.
 */
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
		if (matcher.taken.has(key) || !token || !hasId(key)) continue;
		// Indexed by the part every kept width has (3 characters, the previous release's).
		withId.set(token.slice(0, 3), [...(withId.get(token.slice(0, 3)) ?? []), key]);
	}
	for (const now of lostId) {
		const token = columns.at(now.entry[0], tokenColumn) as string;
		const sameToken = (withId.get(token.slice(0, 3)) ?? []).filter(
			(key) => columns.same(state.entries[key][0], now.entry[0], tokenColumn) === true,
		);
		pair(matcher, [now], sameToken);
	}
	return matcher.taken;
}

interface Matcher {
	state: BeneficiaryState;
	columns: Columns;
	/** Never pair entries of another payee (another name and other bank details under one ID). */
	samePayeeOnly: boolean;
	/** Saved keys matched. */
	taken: Set<string>;
	/** Entries, current or saved, that two matches fitted equally well: left unmatched. */
	doubtful: Set<Current | string>;
}

/**
 * Pairs current entries with saved ones of one beneficiary, best scores first (identical, the same
 * token, the same currency, the most fields alike), never another payee's (identity.ts), and only
 * when no other pair scores as well for either side: when two are equally likely, none is guessed
 * (the saved ones removed, the current ones added, never one merged into the wrong one).
 */
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
				((o.now === now && !sameDigests(state.entries[o.key][0], state.entries[key][0])) ||
					(o.key === key && !sameDigests(o.now.entry[0], now.entry[0]))),
		);
		if (rivals.length > 0) {
			for (const o of [option, ...rivals]) doubtful.add(o.now).add(o.key);
			continue;
		}
		now.was = key;
		taken.add(key);
	}
}
