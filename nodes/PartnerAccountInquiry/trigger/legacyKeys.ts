/**
 * How releases up to 0.3.0 keyed an entry (framework-free): the digest of its question with the
 * events picked in it (one `event` in node versions 1 and 2, the sorted `events` of version 3), the
 * filters as entered and, for a quota, the threshold. A state keyed so is migrated to keys of the
 * request alone (watchState.ts). The events, and filters left empty, may have been edited since that
 * state was saved (a migration n8n has not saved yet is done again after a restart), so every form
 * they could have had is tried: each names the same request, and no other. A threshold edited since,
 * or hidden since (Quota Below Threshold unpicked: n8n drops a parameter it no longer shows), has
 * no such forms: that entry starts anew, with a warning (store.ts; for a one-subject state of
 * 0.1.0 or 0.2.0, which its entry's reader finds asks another question: pollPhases.ts plan).
 */
import { isUnset } from '../shared/core/api/validation';
import { TRIGGER_EVENTS, type Family } from './events';

/** An entry's key in such a state, and the threshold the quota alert in it was judged by (none: not watched). */
export type LegacyKey = { key: string; threshold?: number };

/** Every form the events of `family` took in a key: each alone, and each list of them; `below`: Quota Below Threshold in it. */
export function legacyEventForms(family: Family): Array<{ events: Record<string, unknown>; below: boolean }> {
	const all: string[] = TRIGGER_EVENTS.filter((row) => row.reads === family).map((row) => row.value);
	const lists = Array.from({ length: 2 ** all.length - 1 }, (_, n) => all.filter((_, i) => (n + 1) & (1 << i)).sort());
	return [
		...all.map((event) => ({ events: { event }, below: event === 'quotaBelowThreshold' })),
		...lists.map((events) => ({ events: { events }, below: events.includes('quotaBelowThreshold') })),
	];
}

/** Fields left unset (the request's own rule, isUnset) at most whose every combination is tried (beyond: all or none). */
const MAX_EMPTY_FILTERS_COMBINED = 3;

/** The forms the filters as entered now had in a key if only fields left empty were added since. */
export function legacyFilterForms(filters: Record<string, unknown>): Array<Record<string, unknown>> {
	const empty = Object.keys(filters).filter((name) => isUnset(filters[name]));
	const without = (dropped: string[]) =>
		Object.fromEntries(Object.entries(filters).filter(([name]) => !dropped.includes(name)));
	if (empty.length > MAX_EMPTY_FILTERS_COMBINED) return [filters, without(empty)];
	return Array.from({ length: 2 ** empty.length }, (_, n) => without(empty.filter((_, i) => n & (1 << i))));
}
