/** A set of entries as entered (rows or text), checked whole: every bad line is refused at once, by its number. */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, QUOTA_SUBJECT_FIELDS, quotaFieldsFor } from '../shared/core/api/fields';
import { ValidationError } from '../shared/core/errors';
import { redactText } from '../shared/core/redaction';
import { pastedEntries, subjectStart } from '../shared/core/subjectLines';
import { settleSync } from '../shared/core/flow/settle';

export const MAX_SET_SIZE = 1000;
/** Problems one refusal lists at most (the rest are counted). */
const MAX_PROBLEMS_SHOWN = 20;

/** One entry as entered: where it is ("line 3", "row 2"), its fields in order, a row as typed (expressions unresolved). */
export type EnteredEntry = { where: string; fields: string[]; typed?: IDataObject };
/** The parameter names of a set: how it is entered, its rows (a fixed collection of `row`), its text. */
export type SetParameters = { entry: string; rows: string; row: string; text: string };

export const SET_PARAMETERS = {
	quota: { entry: 'subjectsEntry', rows: 'subjects', row: 'subject', text: 'subjectsText' },
	customers: { entry: 'customersEntry', rows: 'customers', row: 'customer', text: 'customersText' },
} as const satisfies Record<string, SetParameters>;

/** A quota's row, in the order a pasted line gives its fields: its connected account, the subject, its threshold. */
export function quotaRowFields(row: Record<string, unknown>): string[] {
	const fields = quotaFieldsFor(row[QUOTA_SUBJECT_FIELDS[0].name]).map((rule) => row[rule.name]);
	return [row[CONNECTED_ACCOUNT_ID.name], ...fields, row.threshold].map((value) => String(value ?? '').trim());
}

/** One quota as entered: its connected account ('' for your own), its subject's fields by name (the method in capitals), its threshold. */
export function quotaEntryValues({ fields: all, typed }: EnteredEntry) {
	const start = subjectStart(all);
	const [connectedAccountId, fields] = [start ? all[0] : '', all.slice(start)];
	const method = (fields[0] ?? '').toUpperCase();
	const rules = quotaFieldsFor(method);
	// A line of one field with spaces in it was typed without separators: said so, not "not a method".
	const [count, max] = [fields.length, rules.length + 1];
	if (count > max || (count === 1 && /\s/.test(fields[0]))) {
		const rule = `at most ${max} fields separated by commas, semicolons or tabs`;
		const names = `${rules.map((r) => r.label.toLowerCase()).join(', ')}, threshold (a connected account ID first)`;
		throw new ValidationError('subjects', rule, `${count} field${count === 1 ? '' : 's'}, expected ${rule}: ${names}`);
	}
	const values = Object.fromEntries(rules.map((rule, i) => [rule.name, i === 0 ? method : (fields[i] ?? '')]));
	// Empty is your own account: an empty first field or an expression that gave nothing is refused.
	const { name, label, emptyMeans: means } = CONNECTED_ACCOUNT_ID;
	const expression = /^=/.test(String(typed?.[name] ?? ''));
	const why = typed ? expression && 'is an expression that gave nothing' : start && 'is empty';
	if (!connectedAccountId && why)
		throw new ValidationError(name, 'not empty when given', `${label} ${why}; an empty one ${means}: leave it out`);
	return { values, threshold: fields[rules.length] ?? '', connectedAccountId };
}

/** The set, checked whole: one ValidationError lists every problem, so nothing is watched until all are valid. */
export function checkSet<T>(
	field: string,
	entries: EnteredEntry[],
	parse: (entry: EnteredEntry) => T,
	keyOf: (value: T) => string,
	/** The values of an entry a message shows by their last four (a receiving or virtual account). */
	masked: (entry: EnteredEntry) => string[] = () => [],
): Array<{ where: string; value: T }> {
	const what = field === 'customers' ? 'The set of customers' : 'The set of quotas';
	if (entries.length === 0) throw new ValidationError(field, 'at least one entry', `${what} holds no entry: add one`);
	if (entries.length > MAX_SET_SIZE)
		throw new ValidationError(
			field,
			`at most ${MAX_SET_SIZE} entries`,
			`${what} holds ${entries.length} entries, more than the ${MAX_SET_SIZE} one trigger watches: split them over several triggers`,
		);
	const problems: string[] = [];
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
		const key = keyOf(outcome.value);
		const first = seen.get(key);
		if (first !== undefined) {
			problems.push(`${entry.where} repeats ${first}`);
			continue;
		}
		seen.set(key, entry.where);
		checked.push({ where: entry.where, value: outcome.value });
	}
	if (problems.length > 0) {
		const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).join('; ');
		const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
		throw new ValidationError(
			field,
			'every entry valid',
			`${what} has ${problems.length} bad ${problems.length === 1 ? 'entry' : 'entries'}: ${shown}${more}`,
			'Correct them and activate again: nothing is watched until every entry is valid. Nothing was sent.',
		);
	}
	return checked;
}

/** The entries of a set as entered: rows of a fixed collection, or pasted text (one entry a line). */
export function enteredEntries(fn: IPollFunctions, names: SetParameters, fieldsOf: (row: IDataObject) => string[]) {
	// Read by subjectLines.ts, as maskSubjectsText reads it, so an error masks exactly what was read.
	const pasted = () => pastedEntries(String(fn.getNodeParameter(names.text, '')));
	const text = fn.getNodeParameter(names.entry, 'rows') === 'text';
	if (text) return pasted().map(({ line, fields }) => ({ where: `line ${line}`, fields }));
	const [rows, typed] = [fn.getNodeParameter(names.rows, {}), fn.getNode().parameters[names.rows]].map(
		(set) => [(set as IDataObject | undefined)?.[names.row] ?? []].flat() as IDataObject[],
	);
	return rows.map((row, i) => ({ where: `row ${i + 1}`, fields: fieldsOf(row), typed: typed[i] ?? {} }));
}
