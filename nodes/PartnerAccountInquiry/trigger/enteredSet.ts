/** What a trigger watches as entered (customer IDs, or quota rows and lines), checked whole: every bad entry is refused at once, by where it is. */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, QUOTA_SUBJECT_FIELDS, quotaFieldsFor } from '../shared/core/api/fields';
import { readWhoseAccount } from '../shared/core/api/whoseAccount';
import { ValidationError } from '../shared/core/errors';
import { redactText } from '../shared/core/redaction';
import { isMethod, pastedEntries, QUOTA_LINES_PARAMETER } from '../shared/core/subjectLines';
import { settleSync } from '../shared/core/flow/settle';

export const MAX_SET_SIZE = 1000;
/** Problems one refusal lists at most (the rest are counted). */
const MAX_PROBLEMS_SHOWN = 20;

/** One entry as entered: where it is ("line 3", "row 2"), its fields in order, whose account first. */
export type EnteredEntry = { where: string; fields: string[] };

/**
 * The parameters a set is entered in: the customer IDs, one a line; the quotas as rows, and for
 * hundreds as lines of text in Options (both read, rows first).
 */
export const SET_PARAMETERS = {
	customers: { text: 'customerIds' },
	quota: { rows: 'quotas', row: 'quota', text: QUOTA_LINES_PARAMETER },
} as const;

/** A quota's row, in the order a line gives its fields: whose account, the subject, its threshold. */
function quotaRowFields(row: IDataObject): string[] {
	// The method in capitals, as the line's own reading takes it: a lower-case one shifts no column.
	const method = String(row[QUOTA_SUBJECT_FIELDS[0].name] ?? '').trim().toUpperCase();
	const fields = quotaFieldsFor(method).map((rule) => row[rule.name]);
	return [row[CONNECTED_ACCOUNT_ID.name], ...fields, row.threshold].map((value) => String(value ?? '').trim());
}

/** One quota as entered: whose account, its subject's fields by name (the method in capitals), its threshold as typed. */
export function quotaEntryValues({ fields: all }: EnteredEntry) {
	if (isMethod(all[0]) && !isMethod(all[1])) {
		throw new ValidationError(
			'quotas',
			'whose account first',
			`starts with the method ${all[0].toUpperCase()}: start it with own or a Connected Account ID`,
		);
	}
	const whose = readWhoseAccount(CONNECTED_ACCOUNT_ID, all[0]);
	const fields = all.slice(1);
	const method = (fields[0] ?? '').toUpperCase();
	const rules = quotaFieldsFor(method);
	// A line of one field with spaces in it was typed without separators: said so, not "not a method".
	const [count, max] = [all.length, rules.length + 2];
	if (count > max || (count === 1 && /\s/.test(all[0]))) {
		const rule = `at most ${max} fields separated by commas, semicolons or tabs`;
		const names = ['whose account', ...rules.map((r) => r.label.toLowerCase()), 'threshold'].join(', ');
		throw new ValidationError(
			'quotas',
			rule,
			count > max ? `${count} fields, more than the ${max} a line takes` : '1 field: its values are not separated',
			undefined,
			`A line is ${names}, separated by commas, semicolons or tabs.`,
		);
	}
	const values = Object.fromEntries(rules.map((rule, i) => [rule.name, i === 0 ? method : (fields[i] ?? '')]));
	return { whose, values, threshold: fields[rules.length] ?? '' };
}

/** The set, checked whole: one ValidationError lists every problem, so nothing is watched until all are valid. */
export function checkSet<T>(
	field: 'customerIds' | 'quotas',
	entries: EnteredEntry[],
	parse: (entry: EnteredEntry) => T,
	keyOf: (value: T) => string,
	/** The values of an entry a message shows by their last four (a receiving or virtual account). */
	masked: (entry: EnteredEntry) => string[] = () => [],
): Array<{ where: string; value: T }> {
	const [what, add] =
		field === 'customerIds'
			? ['Customer IDs', "Enter own for your own account, or a customer's ID, one a line."]
			: ['Quotas', 'Add a quota (or paste lines in Options > Quotas as Text).'];
	if (entries.length === 0) throw new ValidationError(field, 'at least one entry', `${what} is empty`, add);
	if (entries.length > MAX_SET_SIZE)
		throw new ValidationError(
			field,
			`at most ${MAX_SET_SIZE} entries`,
			`${what} has ${entries.length} entries, more than the ${MAX_SET_SIZE} one trigger watches`,
			'Split them over several triggers.',
		);
	const problems: string[] = [];
	const bad: string[] = [];
	const checked: Array<{ where: string; value: T }> = [];
	const seen = new Map<string, string>();
	for (const entry of entries) {
		const outcome = settleSync(() => parse(entry));
		if (!outcome.ok) {
			if (!(outcome.error instanceof ValidationError)) throw outcome.error;
			// What was typed, quoted back: an account typed in any column is masked.
			const { message, detail } = outcome.error;
			const why = detail
				? `${message} (${detail.charAt(0).toLowerCase()}${detail.slice(1).replace(/\.$/, '')})`
				: message;
			problems.push(`${entry.where}: ${redactText(why, [], masked(entry))}`);
			bad.push(entry.where);
			continue;
		}
		const key = keyOf(outcome.value);
		const first = seen.get(key);
		if (first !== undefined) {
			problems.push(`${entry.where} repeats ${first}`);
			bad.push(entry.where);
			continue;
		}
		seen.set(key, entry.where);
		checked.push({ where: entry.where, value: outcome.value });
	}
	if (problems.length > 0) {
		const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).join('; ');
		const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
		// Where, in the title; why, in the detail.
		const where = bad.slice(0, 3).join(', ') + (bad.length > 3 ? ', ...' : '');
		throw new ValidationError(
			field,
			'every entry valid',
			`${what} has ${problems.length} bad ${problems.length === 1 ? 'entry' : 'entries'} (${where})`,
			'Correct them: nothing is watched until every entry is valid. Nothing was sent.',
			`${shown}${more}.`,
		);
	}
	return checked;
}

/** The customer IDs as entered, one a line (blank lines and lines starting with # skipped). */
export function enteredCustomers(fn: IPollFunctions): EnteredEntry[] {
	const text = String(fn.getNodeParameter(SET_PARAMETERS.customers.text, '') ?? '');
	return pastedEntries(text).map(({ line, fields }) => ({ where: `line ${line}`, fields }));
}

/** The quotas as entered: the rows ("row 2"), then Options > Quotas as Text ("line 3"). */
export function enteredQuotas(fn: IPollFunctions, options: IDataObject): EnteredEntry[] {
	const { rows: name, row, text } = SET_PARAMETERS.quota;
	const rows = [(fn.getNodeParameter(name, {}) as IDataObject)?.[row] ?? []].flat() as IDataObject[];
	// Read by subjectLines.ts, as maskSubjectsText reads it, so an error masks exactly what was read.
	const lines = pastedEntries(String(options[text] ?? ''));
	return [
		...rows.map((values, i) => ({ where: `row ${i + 1}`, fields: quotaRowFields(values) })),
		...lines.map(({ line, fields }) => ({ where: `line ${line}`, fields })),
	];
}
