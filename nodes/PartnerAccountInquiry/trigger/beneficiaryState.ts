/** The beneficiary events' saved state: only digests, short non-secret values and bank details' last four. */
import { BANK_DETAIL_FIELDS, BENEFICIARY_ROUTING_FIELDS, canonical, PAYEE_FIELDS } from '../shared/core/api/identity';
import { ACCOUNT_MASK, maskAccount } from '../shared/core/redaction';
import { digest, headerProblem, isRecord, isScalar, type Scalar, type StateReading } from './savedState';

/** Kept by value (short, not secret), in their saved order: the fields a workflow routes on, the nickname second. */
const [REFERENCE_FIELD, ...OTHER_ROUTING_FIELDS] = BENEFICIARY_ROUTING_FIELDS;
const KEPT_BY_VALUE = [REFERENCE_FIELD, 'beneficiaryNick', ...OTHER_ROUTING_FIELDS];
/** Bank details are secret: kept by their last four only ("1234", shown as "****1234"), never whole. */
const KEPT_BY_TAIL: readonly string[] = BANK_DETAIL_FIELDS;
/** What a removal item carries, and `before` of a change. */
const SUMMARY_FIELDS: readonly string[] = [...KEPT_BY_VALUE, ...KEPT_BY_TAIL];

/** Digests: the whole entry's, then one per column of the state's `fields` ("." absent). */
export type Entry = [digests: string, ...summary: Scalar[]];

export const BENEFICIARY_STATE_VERSION = 4;

export interface BeneficiaryState {
	version: typeof BENEFICIARY_STATE_VERSION;
	kind: 'beneficiaries';
	/** Digest of what is watched: another question starts anew. */
	question: string;
	/** Top-level field names seen so far, in first-seen order: the columns of every entry's digests. */
	fields: string[];
	/** Group digest, with "~n" for the n-th entry of a group -> entry. */
	entries: Record<string, Entry>;
}

export const WHOLE_CHARS = 8;
export const GROUP_CHARS = 12;
/** Longer for the fields that decide who is paid, so two payees never merge on a collision. */
export const columnWidth = (field: string) => (PAYEE_FIELDS.includes(field) ? 6 : 3);
const ABSENT = '.';

export const groupKey = (group: string) => digest(group, GROUP_CHARS);
export const groupOfKey = (key: string) => key.split('~')[0];

/** The state's entries' layout: where each column's digest starts. */
export class Columns {
	private readonly offsets: number[] = [];
	private readonly names: ReadonlySet<string>;
	/** The length of the digests of an entry that has a column for every field. */
	readonly width: number;
	constructor(readonly fields: string[]) {
		let at = WHOLE_CHARS;
		for (const field of fields) {
			this.offsets.push(at);
			at += columnWidth(field);
		}
		this.width = at;
		this.names = new Set(fields);
	}
	has(field: string): boolean {
		return this.names.has(field);
	}
	/** Undefined when the entry lacks the field. */
	at(digests: string, i: number): string | undefined {
		const start = this.offsets[i];
		const value = digests.slice(start, start + columnWidth(this.fields[i]));
		return value === '' || value.startsWith(ABSENT) ? undefined : value;
	}
	/** Undefined when only one of the two has the field. */
	same(a: string, b: string, i: number): boolean | undefined {
		const [x, y] = [this.at(a, i), this.at(b, i)];
		if (x === undefined || y === undefined) return x === y ? true : undefined;
		return x === y;
	}
}

/** The state's fields, then each new one the list brings: every entry is packed with all, so entryHolds can compare. */
export function columnsFor(fields: readonly string[], list: Array<Record<string, unknown>>): string[] {
	const grown = [...fields];
	const known = new Set(fields);
	for (const item of list) {
		for (const name of Object.keys(item)) {
			if (known.has(name)) continue;
			known.add(name);
			grown.push(name);
		}
	}
	return grown;
}

/** The packed entry of one beneficiary; `fields` must name every field it has (columnsFor). */
export function entryOf(beneficiary: Record<string, unknown>, fields: readonly string[]): Entry {
	let digests = digest(canonical(knownFields(beneficiary)), WHOLE_CHARS);
	for (const name of fields) {
		const value = Object.hasOwn(beneficiary, name) ? beneficiary[name] : null;
		const width = columnWidth(name);
		digests += value === null ? ABSENT.repeat(width) : digest(canonical(value), width);
	}
	return [digests, ...summaryValues(beneficiary)];
}

/** Whether entryOf would give `saved` again: the whole-entry digest alone decides a change, so no field digests. */
export function entryHolds(saved: Entry, beneficiary: Record<string, unknown>, columns: Columns): boolean {
	const [digests, ...summary] = saved;
	if (digests.length !== columns.width) return false;
	if (Object.keys(beneficiary).some((name) => !columns.has(name))) return false;
	if (summaryValues(beneficiary).some((value, i) => value !== summary[i])) return false;
	return digests.startsWith(digest(canonical(knownFields(beneficiary)), WHOLE_CHARS));
}

/** A field present as null is the same as a field absent (the API leaves out what it does not know). */
const knownFields = (beneficiary: Record<string, unknown>) =>
	Object.fromEntries(Object.entries(beneficiary).filter(([, value]) => value !== null));

function summaryValues(beneficiary: Record<string, unknown>): Scalar[] {
	return SUMMARY_FIELDS.map((name) => {
		const value = beneficiary[name];
		if (!KEPT_BY_TAIL.includes(name)) return isScalar(value) ? value : null;
		return (typeof value === 'string' || typeof value === 'number') && value !== ''
			? maskAccount(String(value)).slice(ACCOUNT_MASK.length)
			: null;
	});
}

/** The kept summary of an entry, without the absent fields (bank details as "****1234"). */
export function summaryOf(entry: Entry): Record<string, Scalar> {
	const summary: Record<string, Scalar> = {};
	SUMMARY_FIELDS.forEach((name, i) => {
		const value = entry[i + 1];
		if (value === null || value === undefined) return;
		summary[name] = KEPT_BY_TAIL.includes(name) ? `${ACCOUNT_MASK}${String(value)}` : value;
	});
	return summary;
}

export const entryKey = (group: string, n: number) => (n === 1 ? group : `${group}~${n}`);

export function keyed(groups: Array<[group: string, entry: Entry]>): Record<string, Entry> {
	const entries: Record<string, Entry> = {};
	const uses = new Map<string, number>();
	for (const [group, entry] of groups) {
		const n = (uses.get(group) ?? 0) + 1;
		uses.set(group, n);
		entries[entryKey(group, n)] = entry;
	}
	return entries;
}

/** The saved beneficiary state, if it is one of this question. */
export function readBeneficiaryState(saved: unknown, question: string): StateReading<BeneficiaryState> {
	const problem = headerProblem(saved, 'beneficiaries', BENEFICIARY_STATE_VERSION, question);
	if (problem !== undefined) return problem ? { problem } : {};
	const { fields, entries } = saved as Record<string, unknown>;
	if (
		!Array.isArray(fields) ||
		!fields.every((name) => typeof name === 'string') ||
		!isRecord(entries) ||
		!Object.values(entries).every(isEntry)
	) {
		return { problem: 'its beneficiary entries are not of the expected shape' };
	}
	return { state: saved as BeneficiaryState };
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
