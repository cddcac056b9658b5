/**
 * What changed in a beneficiary list between two polls (framework-free; its state: beneficiaryState.ts).
 * Each current entry is matched to a saved one of its group (reference ID, else token): the one
 * identical to it, else the one most like it, never one of another payee; across the two groups
 * by token for a payee given or losing an ID. Unmatched: added; saved and unmatched: removed;
 * matched and different: changed. The state moves only past what is emitted (at most `cap`, in API
 * order, removals last); every other entry stays as saved and is matched again at the next poll.
 */
import {
	BANK_DETAIL_FIELDS,
	beneficiaryGroup,
	hasReference,
	isAnotherPayee,
	PAYEE_FIELDS,
	tokenGroup,
} from '../shared/core/api/identity';
import { maskAccount } from '../shared/core/redaction';
import {
	BENEFICIARY_STATE_VERSION,
	Columns,
	columnsFor,
	entryHolds,
	entryKey,
	entryOf,
	groupKey,
	groupOfKey,
	keyed,
	sameDigests,
	summaryOf,
	WHOLE_CHARS,
	type BeneficiaryState,
	type Entry,
} from './beneficiaryState';
import { changeEvent, type BeneficiaryEvent } from './events';
import type { HeldEvent } from './watchState';

export { readBeneficiaryState } from './beneficiaryState';

/** Events one poll emits at most; the rest wait for the next poll, in order. */
export const MAX_EVENTS_PER_POLL = 500;

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

/** The baseline: the current list, nothing emitted. */
export function baseline(question: string, beneficiaries: Array<Record<string, unknown>>): BeneficiaryState {
	const fields = columnsFor([], beneficiaries);
	const groups = beneficiaries.map((b): [string, Entry] => [groupKey(beneficiaryGroup(b)), entryOf(b, fields)]);
	return { version: BENEFICIARY_STATE_VERSION, kind: 'beneficiaries', question, fields, entries: keyed(groups) };
}

/** One entry of the current list, with its group digest and its packed entry. */
interface Current {
	item: Record<string, unknown>;
	group: string;
	entry: Entry;
	/** The saved entry's key it carries on, once matched. */
	was?: string;
}

/**
 * The events of `wanted` kinds between the state and the current list, at most `cap`, in API
 * order (removals last, in the order they were saved), and the state after exactly those.
 */
function diffBeneficiaries(
	state: BeneficiaryState,
	list: Array<Record<string, unknown>>,
	wanted: ReadonlySet<string>,
	cap = MAX_EVENTS_PER_POLL,
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
	const kept: Array<[string, Entry]> = [];
	// The cap never parts a bank change without a reference ID (an Added and a Removed of one
	// nickname): such an Added fits only with room for its Removed, which keeps that room.
	const removable = new Map<unknown, number>();
	for (const [key, entry] of wanted.has('beneficiaryRemoved') ? Object.entries(state.entries) : []) {
		const nick = matched.has(key) ? undefined : untagged(summaryOf(entry));
		if (nick !== undefined) removable.set(nick, (removable.get(nick) ?? 0) + 1);
	}
	const roomFor = new Map<unknown, number>();
	let reserved = 0;
	/** Emits the event if it is wanted and fits; says whether the state may move past it. */
	const report = (change: Omit<BeneficiaryChange, 'event'> & { event: BeneficiaryEvent | undefined }): boolean => {
		if (change.event === undefined || !wanted.has(change.event)) return true;
		const nick = untagged(change.beneficiary);
		if (change.event === 'beneficiaryRemoved' && (roomFor.get(nick) ?? 0) > 0) {
			roomFor.set(nick, (roomFor.get(nick) as number) - 1);
			reserved--;
		} else {
			const pairs = change.event === 'beneficiaryAdded' && (removable.get(nick) ?? 0) > (roomFor.get(nick) ?? 0);
			if (events.length + reserved + (pairs ? 2 : 1) > cap) return false;
			if (pairs) {
				roomFor.set(nick, (roomFor.get(nick) ?? 0) + 1);
				reserved++;
			}
		}
		events.push(change as BeneficiaryChange);
		return true;
	};
	for (const now of current) {
		const before = now.was === undefined ? undefined : state.entries[now.was];
		if (!before) {
			if (report({ event: 'beneficiaryAdded', beneficiary: now.item })) kept.push([now.group, now.entry]);
			continue;
		}
		const changed = changedFields(before[0], now.entry[0], columns);
		const changes = () => changesOf(before, now.item, changed);
		const moves =
			changed.length === 0 ||
			report({ event: changeEvent(changed, wanted), beneficiary: now.item, changes: changes() });
		kept.push(moves ? [now.group, now.entry] : [groupOfKey(now.was as string), before]);
	}
	for (const [key, entry] of Object.entries(state.entries)) {
		if (matched.has(key)) continue;
		if (!report({ event: 'beneficiaryRemoved', beneficiary: summaryOf(entry) })) kept.push([groupOfKey(key), entry]);
	}
	return { events: besideTheirAdded(events), next: { ...state, fields, entries: keyed(kept) } };
}

/** A payee without a reference ID: its nickname, which a bank change keeps (its token changes). */
const untagged = (item: Record<string, unknown>) =>
	hasReference(item.referenceBeneficiaryId) ? undefined : item.beneficiaryNick;
const untaggedNick = ({ beneficiary }: BeneficiaryChange) => untagged(beneficiary);

/** Each untagged removal right after an addition of its nickname (a bank change), which the cap never parts (pairedRemoval). */
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

/** Whether `removed` is the Removed that besideTheirAdded put right after `added` (items as emitted). */
export function pairedRemoval({ key, json: a }: HeldEvent, { key: other, json: r }: HeldEvent): boolean {
	const kinds = a.event === 'beneficiaryAdded' && r.event === 'beneficiaryRemoved';
	return key === other && kinds && untagged(a) !== undefined && untagged(a) === untagged(r);
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
	let held: Array<Record<string, unknown>> | undefined;
	return {
		settled: (list: Array<Record<string, unknown>>): boolean => {
			const holds = holdsState(state, list);
			held = holds ? list : undefined;
			return holds;
		},
		diff: (list: Array<Record<string, unknown>>, wanted: ReadonlySet<string>, cap: number) =>
			list === held ? { events: [] as BeneficiaryChange[], next: state } : diffBeneficiaries(state, list, wanted, cap),
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
 * Matches the current entries to saved ones (sets `was`); returns the saved keys matched. First
 * within each group, then across the token and reference-ID groups of one beneficiary.
 */
function match(state: BeneficiaryState, current: Current[], columns: Columns, samePayeeOnly: boolean): Set<string> {
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
