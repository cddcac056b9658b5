/** The trigger's events, one row each: the editor's options, its subtitle and what a poll reads come from here. */
import { BANK_DETAIL_FIELDS } from '../shared/core/api/identity';

export type Family = 'beneficiaries' | 'quota';

/** `reads`: what a poll reads for it. */
type TriggerEventRow = { value: string; name: string; description: string; reads: Family };

export const TRIGGER_EVENTS = [
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
		value: 'beneficiaryBankDetailsChanged',
		name: 'Bank Details Changed',
		description:
			"A beneficiary's bank details changed (token, account number or IBAN). Without a Reference Beneficiary ID, it comes as Removed plus Added.",
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

export function eventOptions(family: Family) {
	return (TRIGGER_EVENTS as readonly TriggerEventRow[])
		.filter((row) => row.reads === family)
		.map(({ name, value, description }) => ({ name, value, description }));
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
