/**
 * Pasted set lines (framework-free): the one reading of the text a user pastes for a trigger's set
 * (quotas `own, USER_ID, U-1001, USD[, trade type][, threshold]`, whose account first; or customer
 * IDs), one entry a line. The trigger checks its entries by it (trigger/enteredSet.ts), and an error that quotes the
 * parameters masks the same text by it (maskSubjectsText), so that what is masked as an account is
 * exactly what the trigger reads as one: a second reading could disagree on a line (a leading tab,
 * a comment) and leave an account typed there whole in an error.
 */
import { isMaskedQuotaId, QUOTA_METHOD_CHOICES } from './api/fields';
import { maskAccount, maskAccountNumbers } from './redaction';

/** The trigger's parameter (in its Options) that holds quota lines: an error's copy of the node's parameters masks it (maskSubjectsText). */
export const QUOTA_LINES_PARAMETER = 'quotasText';

/** One entry of pasted text: its line (from 1), its fields trimmed, and where each stands in the text. */
export interface PastedEntry {
	line: number;
	fields: string[];
	/** Each field's [start, end) in the whole text, so that a field can be rewritten in place. */
	spans: Array<[start: number, end: number]>;
}

/** How a line ends: any of the three a browser or a spreadsheet writes. */
const LINE_BREAK = /(\r\n|\r|\n)/;
/** What parts two fields: a comma, a semicolon or a tab (a spreadsheet's copy); one character each. */
const SEPARATOR = /[,;\t]/;

/**
 * The entries of pasted text: one a line, its fields separated by commas, semicolons or tabs.
 * Blank lines and lines starting with `#` are no entries (comments). A line is trimmed before it is
 * split, so a leading tab is no empty first field, and each field is trimmed.
 */
export function pastedEntries(text: string): PastedEntry[] {
	const entries: PastedEntry[] = [];
	let lineStart = 0;
	// The breaks are kept (odd pieces) so that every offset counts them.
	text.split(LINE_BREAK).forEach((piece, i) => {
		if (i % 2 === 0) {
			const entry = entryOfLine(piece, lineStart);
			if (entry) entries.push({ line: i / 2 + 1, ...entry });
		}
		lineStart += piece.length;
	});
	return entries;
}

function entryOfLine(line: string, lineStart: number): Omit<PastedEntry, 'line'> | undefined {
	const trimmed = line.trim();
	if (trimmed === '' || trimmed.startsWith('#')) return undefined;
	const fields: string[] = [];
	const spans: PastedEntry['spans'] = [];
	let cellStart = lineStart + (line.length - line.trimStart().length);
	for (const cell of trimmed.split(SEPARATOR)) {
		const field = cell.trim();
		const start = cellStart + (cell.length - cell.trimStart().length);
		fields.push(field);
		spans.push([start, start + field.length]);
		cellStart += cell.length + 1;
	}
	return { fields, spans };
}

/**
 * Pasted quota lines (the trigger's Quotas as Text) as an error may show them: the ID of a receiving or
 * virtual account by its last four, and any other account-like run masked (a column typed in the
 * wrong place, a comment). Everything else stays as typed, spaces and line breaks included.
 */
export function maskSubjectsText(text: string): string {
	let out = text;
	// Last entry first, so that each span still points into the text as typed.
	for (const { fields, spans } of pastedEntries(text).reverse()) {
		const id = maskedIdIndex(fields);
		if (id === undefined) continue;
		const [start, end] = spans[id];
		out = `${out.slice(0, start)}${maskAccount(fields[id])}${out.slice(end)}`;
	}
	return maskAccountNumbers(out);
}

export const isMethod = (field = '') => QUOTA_METHOD_CHOICES.some((choice) => choice.value === field.toUpperCase());

/**
 * Where a quota line's ID stands when it is shown by its last four (a receiving or virtual
 * account's): after the method, which is the second field (whose account first), or the first in a
 * line typed without it, which is refused but still quoted masked.
 */
export function maskedIdIndex(fields: readonly string[]): number | undefined {
	const method = isMethod(fields[1]) ? 1 : isMethod(fields[0]) ? 0 : undefined;
	if (method === undefined || !fields[method + 1]) return undefined;
	return isMaskedQuotaId(fields[method].toUpperCase()) ? method + 1 : undefined;
}
