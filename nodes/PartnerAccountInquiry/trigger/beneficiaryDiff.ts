/**
 * What changed between two polls, and the small state that remembers the last one. Framework-free:
 * the trigger node reads and writes the state in the workflow's static data.
 *
 * The state keeps no beneficiary objects and no secret: per beneficiary, a digest of its identity
 * (core/api/identity.ts: its reference ID, which stays when its bank details change; never the
 * value itself), a short digest of each field (to know which fields changed), and the values of a
 * few short, non-secret fields (SUMMARY_FIELDS) so that a removal can say which beneficiary went
 * and a change can say what a status or nickname was. Bank details are never kept, not even as a
 * value to compare: a bank-detail change is named by its fields' digests, with `before: null`.
 *
 * A saved state is read back only through readBeneficiaryState / readQuotaState, which tell a
 * state of another question (a fresh baseline) from a damaged or older one (a fresh baseline and
 * a warning): static data can be edited, imported or left by an older version.
 *
 * Exactly once: the state moves forward only for what is emitted. A poll that fails changes
 * nothing; a burst larger than the cap emits the first `cap` events in API order and leaves the
 * rest for the next poll.
 */

import { beneficiaryIdentities, beneficiaryIdentity } from '../shared/core/api/identity';
import type { BeneficiaryEvent } from './events';
import { canonical, digest, headerProblem, isRecord, isScalar, type Scalar, type StateReading } from './savedState';

/** Kept by value (short, not secret): what a removal item carries, and `before` of a change. */
export const SUMMARY_FIELDS = [
	'referenceBeneficiaryId',
	'beneficiaryNick',
	'beneficiaryType',
	'status',
	'assetType',
	'relationType',
	'currency',
] as const;

/** Events one poll emits at most; the rest wait for the next poll, in order. */
export const MAX_EVENTS_PER_POLL = 500;

/**
 * One beneficiary, packed small: [digests, ...summary]. `digests` is an 8-character digest of the
 * whole object (which decides whether it changed), then a 3-character digest per field of the
 * state's `fields`, in that order ("..." for a field it lacks; these only name the fields that
 * changed). `summary` holds the SUMMARY_FIELDS values in that order (null where absent).
 */
type Entry = [digests: string, ...summary: Scalar[]];

/** Version 2 identifies a beneficiary by its reference ID; version 1 (by token) is read as an older format. */
export const STATE_VERSION = 2;

export interface BeneficiaryState {
	version: typeof STATE_VERSION;
	kind: 'beneficiaries';
	/** Digest of what is watched (event, filters, customer, client ID, gateway): another question starts anew. */
	question: string;
	/** Top-level field names seen so far, in first-seen order: the columns of every entry's digests. */
	fields: string[];
	/** Identity digest (12 characters) -> entry. */
	entries: Record<string, Entry>;
}

export interface BeneficiaryChange {
	event: BeneficiaryEvent;
	/** As returned by the API (added, changed), or the kept summary (removed). */
	beneficiary: Record<string, unknown>;
	/** For a change: each changed field, with its value before (null when only its digest was kept) and after. */
	changes?: Record<string, { before: unknown; after: unknown }>;
}

const WHOLE_CHARS = 8;
const FIELD_CHARS = 3;
const ID_CHARS = 12;

function entryOf(beneficiary: Record<string, unknown>, fields: string[]): Entry {
	for (const name of Object.keys(beneficiary)) if (!fields.includes(name)) fields.push(name);
	const perField = fields
		.map((name) =>
			Object.hasOwn(beneficiary, name) ? digest(canonical(beneficiary[name]), FIELD_CHARS) : '.'.repeat(FIELD_CHARS),
		)
		.join('');
	const summary = SUMMARY_FIELDS.map((name) => {
		const value = beneficiary[name];
		return isScalar(value) ? value : null;
	});
	return [digest(canonical(beneficiary), WHOLE_CHARS) + perField, ...summary];
}

/** The kept summary of an entry, as an object without the absent fields. */
function summaryOf(entry: Entry): Record<string, Scalar> {
	const summary: Record<string, Scalar> = {};
	SUMMARY_FIELDS.forEach((name, i) => {
		const value = entry[i + 1];
		if (value !== null && value !== undefined) summary[name] = value;
	});
	return summary;
}

const idOf = (identity: string) => digest(identity, ID_CHARS);

/** The baseline: the current list, nothing emitted. */
export function baseline(question: string, beneficiaries: Array<Record<string, unknown>>): BeneficiaryState {
	const state: BeneficiaryState = { version: STATE_VERSION, kind: 'beneficiaries', question, fields: [], entries: {} };
	const ids = beneficiaryIdentities(beneficiaries);
	beneficiaries.forEach((beneficiary, i) => {
		state.entries[idOf(ids[i])] = entryOf(beneficiary, state.fields);
	});
	return state;
}

/**
 * The events of `wanted` kinds between the state and the current list, at most `cap`, in API
 * order (removals last, in the order they were first seen), and the state after exactly those.
 */
export function diffBeneficiaries(
	state: BeneficiaryState,
	current: Array<Record<string, unknown>>,
	wanted: ReadonlySet<BeneficiaryEvent>,
	cap = MAX_EVENTS_PER_POLL,
): { events: BeneficiaryChange[]; next: BeneficiaryState } {
	const next: BeneficiaryState = { ...state, fields: [...state.fields], entries: { ...state.entries } };
	const events: BeneficiaryChange[] = [];
	const present = new Set<string>();
	const full = () => events.length >= cap;
	const ids = beneficiaryIdentities(current).map(idOf);
	const carried = carriedIdentities(state, current, ids);
	for (const [i, beneficiary] of current.entries()) {
		const id = ids[i];
		// Where its identity took another form (its reference ID began or ceased to repeat), its old entry.
		const was = state.entries[id] ? id : carried.get(i);
		const before = was === undefined ? undefined : state.entries[was];
		const after = entryOf(beneficiary, next.fields);
		const record = () => {
			if (was !== undefined && was !== id) delete next.entries[was];
			next.entries[id] = after;
		};
		if (!before) {
			present.add(id);
			if (!wanted.has('beneficiaryAdded')) record();
			else if (!full()) {
				events.push({ event: 'beneficiaryAdded', beneficiary });
				record();
			}
			continue;
		}
		present.add(was as string);
		const changed = changedFields(before[0], after[0], next.fields);
		if (changed.length === 0) {
			if (was !== id) record();
			continue;
		}
		if (!wanted.has('beneficiaryChanged')) record();
		else if (!full()) {
			const changes: Record<string, { before: unknown; after: unknown }> = {};
			const kept = summaryOf(before);
			for (const name of changed) {
				changes[name] = { before: Object.hasOwn(kept, name) ? kept[name] : null, after: beneficiary[name] ?? null };
			}
			events.push({ event: 'beneficiaryChanged', beneficiary, changes });
			record();
		}
	}
	for (const [id, entry] of Object.entries(state.entries)) {
		if (present.has(id)) continue;
		if (!wanted.has('beneficiaryRemoved')) delete next.entries[id];
		else if (!full()) {
			events.push({ event: 'beneficiaryRemoved', beneficiary: summaryOf(entry) });
			delete next.entries[id];
		}
	}
	return { events, next };
}

/**
 * Beneficiaries whose identity changed form since the state was saved: a reference ID that began
 * to repeat in the list (its entry was the ID alone, now it is the ID and the token) or ceased to.
 * Such an entry is carried on by the one item of the same reference ID and the same token digest
 * (the token is kept only as a 3-character field digest); when none or several match, nothing is
 * carried and the item and the entry are an addition and a removal, never a merge.
 * Returns: index in `current` -> the state entry it carries on.
 */
function carriedIdentities(state: BeneficiaryState, current: Array<Record<string, unknown>>, ids: string[]) {
	const carried = new Map<number, string>();
	const tokenColumn = state.fields.indexOf('beneficiaryToken');
	if (tokenColumn < 0) return carried;
	const present = new Set(ids);
	const loneForm = (reference: string) => idOf(beneficiaryIdentity({ referenceBeneficiaryId: reference }));
	const orphans = new Map<string, string[]>();
	for (const [id, entry] of Object.entries(state.entries)) {
		const reference = summaryOf(entry).referenceBeneficiaryId;
		if (present.has(id) || typeof reference !== 'string' || !reference) continue;
		orphans.set(reference, [...(orphans.get(reference) ?? []), id]);
	}
	const newcomers = new Map<string, number[]>();
	ids.forEach((id, i) => {
		const reference = current[i].referenceBeneficiaryId;
		if (state.entries[id] || typeof reference !== 'string' || !orphans.has(reference)) return;
		newcomers.set(reference, [...(newcomers.get(reference) ?? []), i]);
	});
	const tokenDigestOf = (entry: Entry) =>
		entry[0].slice(WHOLE_CHARS + tokenColumn * FIELD_CHARS, WHOLE_CHARS + (tokenColumn + 1) * FIELD_CHARS);
	for (const [reference, items] of newcomers) {
		const lone = loneForm(reference);
		for (const was of orphans.get(reference) as string[]) {
			// Only a change of form: the ID alone to the ID and token, or back.
			const candidates = items.filter((i) => (ids[i] === lone) !== (was === lone));
			const token = tokenDigestOf(state.entries[was]);
			const same = candidates.filter(
				(i) => digest(canonical(current[i].beneficiaryToken), FIELD_CHARS) === token && !carried.has(i),
			);
			if (same.length === 1) carried.set(same[0], was);
		}
	}
	return carried;
}

/**
 * The fields that changed, or none when the whole-object digests agree. An entry holds a digest
 * for each field known when it was made, so fields seen only since then (elsewhere, say) count as
 * absent in it. Should every field digest agree although the whole object changed (a 3-character
 * collision), every field is named rather than none.
 */
function changedFields(before: string, after: string, fields: string[]): string[] {
	if (before.slice(0, WHOLE_CHARS) === after.slice(0, WHOLE_CHARS)) return [];
	const at = (digests: string, i: number) =>
		digests.slice(WHOLE_CHARS + i * FIELD_CHARS, WHOLE_CHARS + (i + 1) * FIELD_CHARS) || '.'.repeat(FIELD_CHARS);
	const changed = fields.filter((_, i) => at(before, i) !== at(after, i));
	return changed.length ? changed : [...fields];
}

/** The saved beneficiary state, if it is one of this version for this question. */
export function readBeneficiaryState(saved: unknown, question: string): StateReading<BeneficiaryState> {
	const problem = headerProblem(saved, 'beneficiaries', [STATE_VERSION]);
	if (problem !== undefined) return problem ? { problem } : {};
	const state = saved as BeneficiaryState;
	if (
		!Array.isArray(state.fields) ||
		!state.fields.every((name) => typeof name === 'string') ||
		!isRecord(state.entries) ||
		!Object.values(state.entries).every(isEntry)
	) {
		return { problem: 'its beneficiary entries are not of the expected shape' };
	}
	return state.question === question ? { state } : {};
}

function isEntry(value: unknown): value is Entry {
	return (
		Array.isArray(value) &&
		value.length === 1 + SUMMARY_FIELDS.length &&
		typeof value[0] === 'string' &&
		value[0].length >= WHOLE_CHARS &&
		value.slice(1).every(isScalar)
	);
}
