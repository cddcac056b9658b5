/** The trigger's events, one row each: the editor's options, its subtitle and the poll's branches come from here. */
export interface TriggerEventRow {
	value: string;
	name: string;
	description: string;
	/** What a poll reads for it: the beneficiary list, or the available quota. */
	reads: 'beneficiaries' | 'quota';
}

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

const valuesReading = <R extends Row['reads']>(reads: R) =>
	TRIGGER_EVENTS.filter((row) => row.reads === reads).map((row) => row.value);

export const BENEFICIARY_EVENTS = valuesReading('beneficiaries') as BeneficiaryEvent[];
export const QUOTA_EVENTS = valuesReading('quota') as QuotaEvent[];

export const isBeneficiaryEvent = (event: string): event is BeneficiaryEvent =>
	(BENEFICIARY_EVENTS as string[]).includes(event);
export const isQuotaEvent = (event: string): event is QuotaEvent => (QUOTA_EVENTS as string[]).includes(event);

/** The canvas subtitle: the chosen event's name. */
export const EVENT_SUBTITLE = `={{ ${JSON.stringify(
	Object.fromEntries(TRIGGER_EVENTS.map((row) => [row.value, row.name])),
)}[$parameter["event"]] }}`;
