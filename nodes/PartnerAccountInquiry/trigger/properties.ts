/** The trigger's parameters in the editor: what it reads (`triggerOn`), whose account, any of its events. */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import {
	accessTokenOption,
	connectedAccountIdProperty,
	customerIdProperty,
	filtersCollection,
	maskBankDetailsOption,
	optionsCollection,
	quotaFields,
	sortedByName,
	timeoutOption,
} from '../shared/properties';
import { MAX_SET_SIZE, SET_PARAMETERS, type SetParameters } from './enteredSet';
import { eventOptions, type Family } from './events';

type Show = NonNullable<IDisplayOptions['show']>;
const on = (family: Family, ...watch: string[]): Show => ({ triggerOn: [family], ...(watch[0] && { watch }) });

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
			options: [{ displayName: what.noun, name: names.row, values: sortedByName(what.rowValues) }],
		},
		{
			displayName: plural,
			name: names.text,
			type: 'string',
			typeOptions: { rows: 8 },
			default: '',
			placeholder: what.textPlaceholder,
			displayOptions: { show: { ...show, [names.entry]: ['text'] } },
			description: `${what.perLine}, at most ${MAX_SET_SIZE}${what.textFormat}`,
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

/** Mask Bank Details, on by default in the trigger: its items go to chats and tickets. */
export const triggerMaskOption: INodeProperties = { ...maskBankDetailsOption, default: true };

/** What the trigger reads, then whose account (one, or a set), then its events and how items look. */
export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Trigger On',
		name: 'triggerOn',
		type: 'options',
		noDataExpression: true,
		default: 'beneficiaries',
		options: [
			{ name: 'Available Quota', value: 'quota', description: 'A quota falling below a threshold, or changing' },
			{ name: 'Beneficiaries', value: 'beneficiaries', description: 'Beneficiaries added, removed or changed' },
		],
	},
	watch('beneficiaries', [
		{ name: 'One Account', value: 'one', description: "Your own account or one customer's" },
		{ name: 'Many Customers', value: 'many', description: `Up to ${MAX_SET_SIZE} customers, each compared on its own` },
	]),
	watch('quota', [
		{ name: 'One Quota', value: 'one', description: 'One accumulation method, ID and currency' },
		{ name: 'Many Quotas', value: 'many', description: `Up to ${MAX_SET_SIZE} quotas, yours or customers'` },
	]),
	{ ...customerIdProperty, displayOptions: { show: on('beneficiaries', 'one') } },
	...setEntryProperties(SET_PARAMETERS.customers, on('beneficiaries', 'many'), {
		noun: 'Customer',
		perLine: 'One customer ID a line',
		rowValues: [{ ...customerIdProperty, description: "The ID the service gave the customer's account" }],
		textPlaceholder: 'e.g. CUST_0001\nCUST_0002',
		textFormat: '',
	}),
	{ ...connectedAccountIdProperty, displayOptions: { show: on('quota', 'one') } },
	...quotaFields(on('quota', 'one')),
	...setEntryProperties(SET_PARAMETERS.quota, on('quota', 'many'), {
		noun: 'Quota',
		perLine: 'One quota a line',
		// Inside a row, Trade Type is shown when the row's method needs it.
		rowValues: [
			connectedAccountIdProperty,
			...quotaFields({}).map(({ displayOptions, ...field }) => {
				const needs = (displayOptions?.show as Show | undefined)?.quotaAccumulationMethod;
				return needs ? { ...field, displayOptions: { show: { quotaAccumulationMethod: needs } } } : field;
			}),
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'string',
				default: '',
				placeholder: 'e.g. 10000',
				description:
					"This quota's own threshold, in the currency's major units. Leave empty to use the Threshold below.",
			},
		],
		textPlaceholder: 'e.g. USER_ID, U-1001, USD, 20000\nACC_0002, BENEFICIARY, REF-42, EUR, GOODS',
		textFormat:
			': an optional connected account ID, then method, ID, currency, trade type (BENEFICIARY only) and threshold, separated by commas',
	}),
	events('beneficiaries', ['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryBankDetailsChanged']),
	events('quota', ['quotaBelowThreshold']),
	{
		displayName: 'Threshold',
		name: 'threshold',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		required: true,
		default: 10000,
		displayOptions: { show: { ...on('quota'), events: ['quotaBelowThreshold'] } },
		description:
			"The event fires when the quota falls below this amount, in the currency's major units (10000 USD, not cents)",
	},
	{ ...triggerMaskOption, displayOptions: { show: on('beneficiaries') } },
	filtersCollection({ show: on('beneficiaries') }),
	optionsCollection({}, [accessTokenOption, timeoutOption]),
];
