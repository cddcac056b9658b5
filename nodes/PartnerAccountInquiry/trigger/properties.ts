/**
 * The trigger's parameters in the editor: its events, then one list of what to watch (customer
 * IDs for the beneficiary events, quotas for the quota events; a single account is a list of one),
 * then what narrows or shapes what it reads. The events decide what it reads (events.ts).
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { OWN_ACCOUNT } from '../shared/core/api/fields';
import {
	connectedAccountIdProperty,
	filtersCollection,
	maskBankDetailsOption,
	optionsCollection,
	quotaFields,
	simplifyProperty,
	sortedByName,
	timeoutOption,
} from '../shared/properties';
import { MAX_SET_SIZE, SET_PARAMETERS } from './enteredSet';
import { eventsOf, TRIGGER_EVENTS } from './events';

/**
 * Each family's parameters hide while an event of the other is picked, rather than show only with
 * one of their own: with no event picked (between two picks) nothing is hidden, so n8n's editor,
 * which drops a hidden parameter's value, drops nothing typed. Only a switch to the other family's
 * events drops the list of the family left.
 */
const forBeneficiaries: IDisplayOptions = { hide: { events: eventsOf('quota') } };
const forQuota: IDisplayOptions = { hide: { events: eventsOf('beneficiaries') } };
/** The same, for an option inside a collection: the events are the node's (root) parameter. */
const rootHide = (display: IDisplayOptions): IDisplayOptions => ({ hide: { '/events': display.hide?.events ?? [] } });

/** Inside a quota row, Trade Type is shown when the row's method needs it. */
const quotaRowFields: INodeProperties[] = quotaFields({}).map(({ displayOptions, ...field }) => {
	const needs = (displayOptions?.show as IDisplayOptions['show'])?.quotaAccumulationMethod;
	return needs ? { ...field, displayOptions: { show: { quotaAccumulationMethod: needs } } } : field;
});

export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		noDataExpression: true,
		required: true,
		default: ['beneficiaryAdded', 'beneficiaryBankDetailsChanged', 'beneficiaryRemoved'],
		options: TRIGGER_EVENTS.map(({ name, value, description }) => ({ name, value, description })),
		description: 'Beneficiary events or quota events (not both in one trigger); each item says which event it is',
	},
	{
		displayName: 'Customer IDs',
		name: SET_PARAMETERS.customers.text,
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: OWN_ACCOUNT,
		placeholder: 'e.g. own\nCUST_0001',
		displayOptions: forBeneficiaries,
		description: `Whose beneficiaries, one a line, at most ${MAX_SET_SIZE}: own for your own account, or a customer's ID`,
	},
	{
		displayName: 'Quotas',
		name: SET_PARAMETERS.quota.rows,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		placeholder: 'Add Quota',
		displayOptions: forQuota,
		description: 'The quotas to watch, each of your own account (own) or of a customer. For hundreds, paste lines in Options.',
		options: [
			{
				displayName: 'Quota',
				name: SET_PARAMETERS.quota.row,
				values: sortedByName([
					connectedAccountIdProperty,
					...quotaRowFields,
					{
						displayName: 'Threshold',
						name: 'threshold',
						type: 'number',
						typeOptions: { minValue: 0, numberPrecision: 2 },
						default: 10000,
						description:
							"Quota Below Threshold fires when the quota falls below this amount, in the currency's major units (10000 USD, not cents)",
					},
				]),
			},
		],
	},
	{ ...filtersCollection(forBeneficiaries) },
	optionsCollection(
		{},
		sortedByName([
			{ ...maskBankDetailsOption, displayOptions: rootHide(forBeneficiaries) },
			{
				displayName: 'Quotas as Text',
				name: SET_PARAMETERS.quota.text,
				type: 'string',
				typeOptions: { rows: 6 },
				default: '',
				placeholder: 'e.g. own, USER_ID, U-1001, USD, 20000\nACC_0002, BENEFICIARY, B-4001, USD, SERVICE, 5000',
				displayOptions: rootHide(forQuota),
				description: `More quotas, one a line (a spreadsheet's columns): whose account, method, ID, currency, trade type (Beneficiary only), threshold. At most ${MAX_SET_SIZE} in all.`,
			},
			{ ...simplifyProperty, displayOptions: rootHide(forBeneficiaries) },
			timeoutOption,
		]),
	),
];
