/**
 * A watched set (framework-free): one trigger watching many quota subjects or many customers.
 *
 * - The set, entered row by row or pasted as text (one entry a line), is checked whole before
 *   anything is watched: every bad line is refused with its line number and the rule, a repeated
 *   entry names the line it repeats, and the set holds at most MAX_SET_SIZE entries.
 * - Its state is one record per entry, keyed by the entry's own question digest (what a trigger
 *   watching that entry alone would be asked): the entry's state as the single-subject trigger
 *   keeps it, when it was last read, and its failure episode. Adding an entry gives it a baseline
 *   of its own; removing one drops its record; neither touches the others.
 * - A poll reads the due entries least recently read first (`dueOrder`), so that a poll which
 *   cannot read them all within its budget reads the others at the next ones.
 */
import { ValidationError } from '../shared/core/errors';
import { redactText } from '../shared/core/redaction';
import { settle, settleSync, type Settled } from '../shared/core/flow/settle';
import { isRecord } from './savedState';
import { readBackoff, type UnknownBackoff } from './unknownBackoff';

/** Entries a set holds at most. */
export const MAX_SET_SIZE = 1000;
/** Problems one refusal lists at most (the rest are counted). */
const MAX_PROBLEMS_SHOWN = 20;

/** One entry as entered: where it is ("line 3", "row 2") and its fields. */
export interface EnteredEntry {
	where: string;
	fields: string[];
}

/**
 * The entries of pasted text: one a line, its fields separated by commas, semicolons or tabs (a
 * spreadsheet's copy). Blank lines and lines starting with `#` are no entries (comments).
 */
export function entriesOfText(text: string): EnteredEntry[] {
	const entries: EnteredEntry[] = [];
	text.split(/\r\n|\r|\n/).forEach((line, i) => {
		const trimmed = line.trim();
		if (trimmed === '' || trimmed.startsWith('#')) return;
		entries.push({ where: `line ${i + 1}`, fields: trimmed.split(/[,;\t]/).map((field) => field.trim()) });
	});
	return entries;
}

/**
 * The set, checked whole: `parse` turns one entry into its value or throws a ValidationError
 * naming the rule; `keyOf` says which entries are the same. Throws one ValidationError listing every
 * problem (bad entries, repeats, an empty or oversized set): nothing is watched until the set is valid.
 */
export function checkSet<T>(
	field: string,
	entries: EnteredEntry[],
	parse: (entry: EnteredEntry) => T,
	keyOf: (value: T) => string,
	/** The values of an entry a message shows by their last four (a receiving or virtual account). */
	masked: (entry: EnteredEntry) => string[] = () => [],
): Array<{ where: string; value: T }> {
	const problems: string[] = [];
	if (entries.length === 0) {
		throw new ValidationError(field, 'at least one entry', `${label(field)} holds no entry: add at least one`);
	}
	if (entries.length > MAX_SET_SIZE) {
		throw new ValidationError(
			field,
			`at most ${MAX_SET_SIZE} entries`,
			`${label(field)} holds ${entries.length} entries, more than the ${MAX_SET_SIZE} one trigger watches: split them over several triggers`,
		);
	}
	const checked: Array<{ where: string; value: T }> = [];
	const seen = new Map<string, string>();
	for (const entry of entries) {
		const outcome = settleSync(() => parse(entry));
		if (!outcome.ok) {
			if (!(outcome.error instanceof ValidationError)) throw outcome.error;
			// What was typed, quoted back: an account typed in any column is masked.
			problems.push(`${entry.where}: ${redactText(outcome.error.message, [], masked(entry))}`);
			continue;
		}
		const value = outcome.value;
		const key = keyOf(value);
		const first = seen.get(key);
		if (first !== undefined) {
			problems.push(`${entry.where} repeats ${first}`);
			continue;
		}
		seen.set(key, entry.where);
		checked.push({ where: entry.where, value });
	}
	if (problems.length > 0) {
		const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).join('; ');
		const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
		throw new ValidationError(
			field,
			'every entry valid',
			`${label(field)} has ${problems.length} bad ${problems.length === 1 ? 'entry' : 'entries'}: ${shown}${more}`,
			'Correct them and activate again: nothing is watched until every entry is valid. Nothing was sent.',
		);
	}
	return checked;
}

const label = (field: string) => (field.startsWith('customers') ? 'The set of customers' : 'The set of quota subjects');

/** A failure episode of one entry: from its first failed read to its next successful one. */
export interface Failure {
	/** What failed, as a message may show it (redacted: the session's errors are). */
	reason: string;
	/** What was reported of it: 0 nothing yet, 1 its start, 2 (status U, every repeat U) that support must be contacted. */
	reported: 0 | 1 | 2;
	/** The API's back-off after status U. */
	backoff?: UnknownBackoff;
	/** Polls in a row that found its list changing while they read it. */
	unsettled?: number;
}

/** One entry's record in the set's state. */
export interface EntryRecord<S> {
	/** Its state as the single-subject trigger keeps it; absent until its baseline. */
	state?: S;
	/** The set's turn (poll count) it was last read at; 0: never. */
	readAt: number;
	failure?: Failure;
}

export type SetKind = 'quotaSet' | 'beneficiarySet';
export const SET_STATE_VERSION = 1;

export interface SetState<S> {
	version: typeof SET_STATE_VERSION;
	kind: SetKind;
	/** Digest of what all entries share (event, filters, client ID, gateway): another starts every entry anew. */
	question: string;
	/** Polls that read the set so far: what `readAt` counts in. */
	turn: number;
	/** Entry key (its question digest) -> record. */
	entries: Record<string, EntryRecord<S>>;
}

/**
 * The saved set state of this kind and question; undefined when none (or another question's), a
 * problem when it is damaged. Each entry's own state is read by its kind's reader when used.
 */
export function readSetState<S>(
	saved: unknown,
	kind: SetKind,
	question: string,
): { state?: SetState<S>; problem?: string } {
	if (saved === undefined || saved === null) return {};
	if (!isRecord(saved) || saved.kind !== kind) return {};
	if (saved.version !== SET_STATE_VERSION)
		return { problem: `its watched set has an unknown version (${JSON.stringify(saved.version)})` };
	if (saved.question !== question) return {};
	const whole = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
	if (!whole(saved.turn) || !isRecord(saved.entries))
		return { problem: 'its watched set is not of the expected shape' };
	for (const record of Object.values(saved.entries)) {
		if (!isRecord(record) || !whole(record.readAt))
			return { problem: 'an entry of its watched set is not of the expected shape' };
		const failure = record.failure;
		if (failure === undefined) continue;
		if (
			!isRecord(failure) ||
			typeof failure.reason !== 'string' ||
			![0, 1, 2].includes(failure.reported as number) ||
			(failure.unsettled !== undefined && !whole(failure.unsettled))
		) {
			return { problem: 'a failure in its watched set is not of the expected shape' };
		}
	}
	return { state: saved as unknown as SetState<S> };
}

/**
 * The entries a poll reads, in the order it reads them: those not waiting out a status U back-off,
 * least recently read first (never read first), the set's order among equals. A poll that runs out
 * of budget has read the first ones, so every entry is read within ⌈N / read a poll⌉ polls.
 */
export function dueOrder<S>(keys: readonly string[], state: SetState<S>, nowMs: number): string[] {
	const due = keys.filter((key) => {
		const backoff = state.entries[key]?.failure?.backoff;
		if (!backoff) return true;
		const reading = readBackoff(backoff, backoff.question, nowMs);
		return reading.problem !== undefined || nowMs >= backoff.nextPollAt;
	});
	const readAt = (key: string) => state.entries[key]?.readAt ?? 0;
	return due
		.map((key, i) => ({ key, i }))
		.sort((a, b) => readAt(a.key) - readAt(b.key) || a.i - b.i)
		.map(({ key }) => key);
}

/** The parameters a set is entered by: how (rows or text), the rows (a fixed collection of `row`), the text. */
export interface SetParameters {
	entry: string;
	rows: string;
	row: string;
	text: string;
}

export const SET_PARAMETERS = {
	quota: { entry: 'subjectsEntry', rows: 'subjects', row: 'subject', text: 'subjectsText' },
	customers: { entry: 'customersEntry', rows: 'customers', row: 'customer', text: 'customersText' },
} as const satisfies Record<string, SetParameters>;

/**
 * Runs `read` over `keys` in order, `width` at a time, until `signal` aborts: no entry is started
 * after it, and one it cut short is left out. Returns the outcome of each entry read to the end,
 * and the entries it cut short although they had the whole budget (started at once): such an entry
 * does not fit in a poll, which is a failure of its own, not a turn missed.
 */
export async function readInTurn<T>(
	keys: readonly string[],
	width: number,
	read: (key: string, signal: AbortSignal) => Promise<T>,
	signal: AbortSignal,
): Promise<{ outcomes: Map<string, Settled<T>>; cutShort: Set<string> }> {
	const outcomes = new Map<string, Settled<T>>();
	/** Entries started at once, when the poll began (they had its whole budget), that it cut short. */
	const cutShort = new Set<string>();
	// One listener on the poll's signal, one signal of its own for each entry read: hundreds of
	// entries would otherwise each add listeners to the one signal.
	const running = new Set<AbortController>();
	const stop = () => running.forEach((controller) => controller.abort(signal.reason));
	signal.addEventListener('abort', stop, { once: true });
	let next = 0;
	const worker = async () => {
		while (next < keys.length && !signal.aborted) {
			const first = next < width;
			const key = keys[next++];
			const controller = new AbortController();
			running.add(controller);
			const outcome = await settle(read(key, controller.signal));
			running.delete(controller);
			if (!signal.aborted) outcomes.set(key, outcome);
			else if (first) cutShort.add(key);
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(width, keys.length)) }, worker));
	signal.removeEventListener('abort', stop);
	return { outcomes, cutShort };
}
