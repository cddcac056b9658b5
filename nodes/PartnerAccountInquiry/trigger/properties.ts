/** The trigger's parameters in the editor: what it reads (`triggerOn`), any of its events, what is watched. */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import {
	accessTokenOption,
	connectedAccountIdOption,
	customerIdOption,
	filtersCollection,
	maskBankDetailsOption,
	optionsCollection,
	quotaFields,
	timeoutOption,
} from '../shared/properties';
import { MAX_SET_SIZE, SET_PARAMETERS, type SetParameters } from './enteredSet';
import { eventOptions, type Family } from './events';

type Show = NonNullable<IDisplayOptions['show']>;
const on = (family: Family, watch?: 'one' | 'many'): Show => ({
	triggerOn: [family],
	...(watch ? { watch: [watch] } : {}),
});

/** How a set is entered (rows or pasted text), its rows and its text, under SET_PARAMETERS' names. */
function setEntryProperties(
	names: SetParameters,
	show: Show,
	what: { noun: string; perLine: string; rowValues: INodeProperties[]; textPlaceholder: string; textFormat: string },
): INodeProperties[] {
	const plural = `${what.noun}s`;
	return [
		{
			displayName: `Enter ${plural} As`,
			name: names.entry,
			type: 'options',
			noDataExpression: true,
			default: 'rows',
			displayOptions: { show },
			options: [
				{ name: 'Rows', value: 'rows', description: `One row per ${what.noun.toLowerCase()}, in the editor` },
				{ name: 'Text', value: 'text', description: `${what.perLine}, pasted (from a spreadsheet, say)` },
			],
		},
		{
			displayName: plural,
			name: names.rows,
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			default: {},
			placeholder: `Add ${what.noun}`,
			displayOptions: { show: { ...show, [names.entry]: ['rows'] } },
			options: [{ displayName: what.noun, name: names.row, values: what.rowValues }],
		},
		{
			displayName: plural,
			name: names.text,
			type: 'string',
			typeOptions: { rows: 8 },
			default: '',
			placeholder: what.textPlaceholder,
			displayOptions: { show: { ...show, [names.entry]: ['text'] } },
			description: `${what.perLine}, at most ${MAX_SET_SIZE}${what.textFormat}. Blank lines and lines starting with # are skipped; any other bad line is refused with its line number, and nothing is watched until every line is valid.`,
		},
	];
}

const watch = (family: Family, options: INodeProperties['options']): INodeProperties => ({
	displayName: 'Watch',
	name: 'watch',
	type: 'options',
	noDataExpression: true,
	default: 'one',
	displayOptions: { show: on(family) },
	options,
});

const events = (family: Family, defaults: string[]): INodeProperties => ({
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	noDataExpression: true,
	required: true,
	default: [...defaults],
	displayOptions: { show: on(family) },
	options: eventOptions(family),
	description: 'One read of each entry serves every event picked; each item says which event it is (`event`)',
});

/** What the trigger reads, then any of its events, then what is watched. */
export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Trigger On',
		name: 'triggerOn',
		type: 'options',
		noDataExpression: true,
		default: 'beneficiaries',
		options: [
			{ name: 'Beneficiaries', value: 'beneficiaries', description: 'Payees bound, unbound or changed' },
			{
				name: 'Available Quota',
				value: 'quota',
				description: 'The FX settlement quota falling below a threshold, or changing',
			},
		],
	},
	events('beneficiaries', ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryBankDetailsChanged']),
	events('quota', ['quotaBelowThreshold']),
	{ ...maskBankDetailsOption, default: true, displayOptions: { show: on('beneficiaries') } },
	watch('beneficiaries', [
		{ name: 'One Account', value: 'one', description: 'Your own account, or one customer (Options > Customer ID)' },
		{
			name: 'Many Customers',
			value: 'many',
			description: `Up to ${MAX_SET_SIZE} customers in one trigger, each with its own baseline`,
		},
	]),
	watch('quota', [
		{ name: 'One Subject', value: 'one', description: 'One accumulation method, ID and currency' },
		{
			name: 'Many Subjects',
			value: 'many',
			description: `Up to ${MAX_SET_SIZE} quota subjects in one trigger, each with its own threshold and baseline`,
		},
	]),
	...setEntryProperties(SET_PARAMETERS.customers, on('beneficiaries', 'many'), {
		noun: 'Customer',
		perLine: 'One customer ID a line',
		rowValues: [{ displayName: 'Customer ID', name: 'customerId', type: 'string', default: '' }],
		textPlaceholder: 'CUST_0001\nCUST_0002',
		textFormat: '',
	}),
	filtersCollection({ show: on('beneficiaries') }),
	optionsCollection({ show: on('beneficiaries', 'one') }, [
		accessTokenOption('the accessToken body field'),
		customerIdOption,
		timeoutOption,
	]),
	optionsCollection({ show: on('beneficiaries', 'many') }, [
		accessTokenOption('the accessToken body field'),
		timeoutOption,
	]),
	...quotaFields(on('quota', 'one')),
	...setEntryProperties(SET_PARAMETERS.quota, on('quota', 'many'), {
		noun: 'Subject',
		perLine: 'One subject a line',
		rowValues: [
			// Inside a row, Trade Type is shown when the row's method needs it.
			...quotaFields({}).map(({ displayOptions, ...field }) => {
				const needs = (displayOptions?.show as Show | undefined)?.quotaAccumulationMethod;
				return needs ? { ...field, displayOptions: { show: { quotaAccumulationMethod: needs } } } : field;
			}),
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'string',
				default: '',
				placeholder: '10000',
				description:
					"For Quota Below Threshold: this subject's own threshold, in major units; empty means the Threshold below",
			},
		],
		textPlaceholder: 'USER_ID, U-1001, USD, 20000\nBENEFICIARY, REF-42, EUR, GOODS',
		textFormat:
			': method, ID, currency, the trade type for BENEFICIARY, and optionally its own threshold, separated by commas, semicolons or tabs',
	}),
	{
		displayName: 'Threshold',
		name: 'threshold',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		required: true,
		default: 10000,
		displayOptions: { show: { ...on('quota'), events: ['quotaBelowThreshold'] } },
		description:
			'In major units of the currency (10000 USD, not cents): the event fires when the quota falls below it. With many subjects, for each subject that gives no threshold of its own.',
	},
	optionsCollection({ show: on('quota') }, [
		accessTokenOption('the Access-Token header'),
		connectedAccountIdOption,
		timeoutOption,
	]),
];
