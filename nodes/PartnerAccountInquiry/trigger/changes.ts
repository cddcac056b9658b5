/**
 * What changed between two polls, and the small state that remembers the last one. Framework-free:
 * the trigger node reads and writes the state in the workflow's static data.
 *
 * The state keeps no beneficiary objects and no secret: per beneficiary, a digest of its identity
 * (the token or reference ID, never the value itself), a short digest of each field (to know which
 * fields changed), and the values of a few short, non-secret fields (SUMMARY_FIELDS) so that a
 * removal can say which beneficiary went and a change can say what a status or nickname was.
 *
 * Exactly once: the state moves forward only for what is emitted. A poll that fails changes
 * nothing; a burst larger than the cap emits the first `cap` events in API order and leaves the
 * rest for the next poll.
 */
import { createHash } from 'node:crypto';

import type { BeneficiaryEvent, QuotaEvent } from './events';

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

type Scalar = string | number | boolean | null;

/**
 * One beneficiary, packed small: [digests, ...summary]. `digests` is an 8-character digest of the
 * whole object (which decides whether it changed), then a 3-character digest per field of the
 * state's `fields`, in that order ("..." for a field it lacks; these only name the fields that
 * changed). `summary` holds the SUMMARY_FIELDS values in that order (null where absent).
 */
type Entry = [digests: string, ...summary: Scalar[]];

export interface BeneficiaryState {
	version: 1;
	/** Digest of what is watched (event, filters, customer): another question starts anew. */
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

function digest(text: string, chars: number): string {
	return createHash('sha256').update(text).digest('base64').slice(0, chars);
}

/** A question's fingerprint: the same parameters give the same digest, whatever the key order. */
export function questionDigest(question: unknown): string {
	return digest(canonical(question), 16);
}

function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

function isScalar(value: unknown): value is Scalar {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

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

function emptyState(question: string): BeneficiaryState {
	return { version: 1, question, fields: [], entries: {} };
}

/** The baseline: the current list, nothing emitted. */
export function baseline(
	question: string,
	beneficiaries: Array<Record<string, unknown>>,
	identity: (b: Record<string, unknown>) => string,
): BeneficiaryState {
	const state = emptyState(question);
	for (const beneficiary of beneficiaries)
		state.entries[idOf(identity(beneficiary))] = entryOf(beneficiary, state.fields);
	return state;
}

/**
 * The events of `wanted` kinds between the state and the current list, at most `cap`, in API
 * order (removals last, in the order they were first seen), and the state after exactly those.
 */
export function diffBeneficiaries(
	state: BeneficiaryState,
	current: Array<Record<string, unknown>>,
	identity: (b: Record<string, unknown>) => string,
	wanted: ReadonlySet<BeneficiaryEvent>,
	cap = MAX_EVENTS_PER_POLL,
): { events: BeneficiaryChange[]; next: BeneficiaryState } {
	const next: BeneficiaryState = {
		version: 1,
		question: state.question,
		fields: [...state.fields],
		entries: { ...state.entries },
	};
	const events: BeneficiaryChange[] = [];
	const present = new Set<string>();
	const full = () => events.length >= cap;
	for (const beneficiary of current) {
		const id = idOf(identity(beneficiary));
		present.add(id);
		const before = state.entries[id];
		const after = entryOf(beneficiary, next.fields);
		if (!before) {
			if (!wanted.has('beneficiaryAdded')) next.entries[id] = after;
			else if (!full()) {
				events.push({ event: 'beneficiaryAdded', beneficiary });
				next.entries[id] = after;
			}
			continue;
		}
		const changed = changedFields(before[0], after[0], next.fields);
		if (changed.length === 0) continue;
		if (!wanted.has('beneficiaryChanged')) next.entries[id] = after;
		else if (!full()) {
			const changes: Record<string, { before: unknown; after: unknown }> = {};
			const kept = summaryOf(before);
			for (const name of changed) {
				changes[name] = { before: Object.hasOwn(kept, name) ? kept[name] : null, after: beneficiary[name] ?? null };
			}
			events.push({ event: 'beneficiaryChanged', beneficiary, changes });
			next.entries[id] = after;
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

export interface QuotaState {
	version: 1;
	question: string;
	/** The available quota at the last poll, in major units. */
	amount: number;
	/** Whether it was below the threshold at the last poll. */
	below: boolean;
}

/**
 * Whether this poll's quota is an event, and the state after it. Below threshold fires once on
 * crossing, and again only after a poll at or above it; a change fires when the amount differs.
 */
export function quotaEvent(
	event: QuotaEvent,
	state: QuotaState | undefined,
	question: string,
	amount: number,
	threshold: number,
): { fire: boolean; previousAmount?: number; next: QuotaState } {
	const below = amount < threshold;
	const next: QuotaState = { version: 1, question, amount, below };
	if (!state || state.question !== question) return { fire: false, next };
	if (event === 'quotaChanged') return { fire: amount !== state.amount, previousAmount: state.amount, next };
	return { fire: below && !state.below, previousAmount: state.amount, next };
}
