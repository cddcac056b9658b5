/** The trigger's events, one row each: the editor's options, its subtitle and what a poll reads come from here. */
import { BANK_DETAIL_FIELDS } from '../shared/core/api/identity';
import { ValidationError } from '../shared/core/errors';

export type Family = 'beneficiaries' | 'quota';

/** `reads`: what a poll reads for it. */
type TriggerEventRow = { value: string; name: string; description: string; reads: Family };

/** In the editor's order (by name, as n8n lists options): each family's events side by side. */
export const TRIGGER_EVENTS = [
	{
		value: 'beneficiaryBankDetailsChanged',
		name: 'Bank Details Changed',
		description:
			"A beneficiary's bank details changed (token, account number or IBAN). Without a Reference Beneficiary ID, it comes as Removed plus Added.",
		reads: 'beneficiaries',
	},
	{
		value: 'beneficiaryAdded',
		name: 'Beneficiary Added',
		description: 'A beneficiary that was not in the list at the last poll',
		reads: 'beneficiaries',
	},
	{
		value: 'beneficiaryChanged',
		name: 'Beneficiary Changed',
		description: 'A beneficiary whose returned fields changed (a status, a nickname, bank details)',
		reads: 'beneficiaries',
	},
	{
		value: 'beneficiaryRemoved',
		name: 'Beneficiary Removed',
		description: 'A beneficiary that was in the list at the last poll and no longer is',
		reads: 'beneficiaries',
	},
	{
		value: 'quotaBelowThreshold',
		name: 'Quota Below Threshold',
		description:
			'The available quota fell below the threshold (once per crossing; again only after it was back at or above it)',
		reads: 'quota',
	},
	{
		value: 'quotaChanged',
		name: 'Quota Changed',
		description: 'The available quota differs from the last poll',
		reads: 'quota',
	},
] as const satisfies readonly TriggerEventRow[];

type Row = (typeof TRIGGER_EVENTS)[number];
export type TriggerEvent = Row['value'];
export type BeneficiaryEvent = Extract<Row, { reads: 'beneficiaries' }>['value'];
export type QuotaEvent = Extract<Row, { reads: 'quota' }>['value'];

/** The events of a family, by value: what its parameters hide for (properties.ts). */
export const eventsOf = (family: Family): string[] =>
	(TRIGGER_EVENTS as readonly TriggerEventRow[]).filter((row) => row.reads === family).map((row) => row.value);

/**
 * What a trigger reads, from the events picked: all of one family. Refused when none is picked,
 * an event is unknown, or both families are (one trigger reads one kind of list).
 */
export function familyOf(picked: readonly string[]): Family {
	const rows = TRIGGER_EVENTS as readonly TriggerEventRow[];
	const unknown = picked.filter((event) => !rows.some((row) => row.value === event));
	const nameOf = (family: Family) =>
		rows
			.filter((row) => row.reads === family)
			.map((row) => row.name)
			.join(', ');
	const rule = 'beneficiary events or quota events';
	if (picked.length === 0) throw new ValidationError('events', rule, 'Events is empty: pick at least one event');
	if (unknown.length > 0)
		throw new ValidationError(
			'events',
			rule,
			`Events has ${unknown.length === 1 ? 'an event' : `${unknown.length} events`} this trigger does not know`,
			undefined,
			`Unknown: ${unknown.join(', ')}.`,
		);
	const families = new Set(picked.map((event) => rows.find((row) => row.value === event)?.reads as Family));
	if (families.size > 1) {
		throw new ValidationError(
			'events',
			rule,
			'Events mixes beneficiary events and quota events',
			`Pick events of one kind: ${nameOf('beneficiaries')}; or ${nameOf('quota')}. Watch the other kind with a second trigger.`,
		);
	}
	return [...families][0];
}

/** The event a beneficiary's change is, among those wanted; undefined: the state moves past it unreported. */
export function changeEvent(changed: readonly string[], wanted: ReadonlySet<string>): BeneficiaryEvent | undefined {
	// A new token is new ciphertext of the bank details: it is one of them.
	const bank: readonly string[] = BANK_DETAIL_FIELDS;
	if (wanted.has('beneficiaryBankDetailsChanged') && changed.some((field) => bank.includes(field)))
		return 'beneficiaryBankDetailsChanged';
	return wanted.has('beneficiaryChanged') ? 'beneficiaryChanged' : undefined;
}

const NAMES = JSON.stringify(Object.fromEntries(TRIGGER_EVENTS.map((row) => [row.value, row.name])));
/** The canvas subtitle: the chosen events' names. */
export const EVENT_SUBTITLE = `={{ [].concat($parameter["events"]).map((e) => ${NAMES}[e]).join(", ") }}`;
