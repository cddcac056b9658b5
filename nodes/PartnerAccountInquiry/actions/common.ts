/**
 * The node's parameters, derived from the field rows of core/api/fields.ts, and the readers of
 * option values that check them with the same bounds the editor shows.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { ACCESS_TOKEN, NUMBER_OPTIONS, type FieldRule, type NumberRange } from '../core/api/fields';

/** The editor's form of one field row. */
export function fieldProperty(rule: FieldRule, overrides: Partial<INodeProperties> = {}): INodeProperties {
	const base = {
		displayName: rule.label,
		name: rule.name,
		description: rule.description,
		...(rule.placeholder ? { placeholder: rule.placeholder } : {}),
	};
	const options = rule.choices?.map((choice) => ({
		name: choice.label,
		value: choice.value,
		...(choice.description ? { description: choice.description } : {}),
	}));
	if (rule.kind === 'choice') {
		return { ...base, type: 'options', options, default: rule.choices?.[0]?.value ?? '', ...overrides };
	}
	if (rule.kind === 'choices') return { ...base, type: 'multiOptions', options, default: [], ...overrides };
	return {
		...base,
		type: 'string',
		default: '',
		...(rule.secret ? { typeOptions: { password: true } } : {}),
		...overrides,
	};
}

/** The Access Token option; `sentAs` says where it goes (a body field or a header). */
export function accessTokenOption(sentAs: string): INodeProperties {
	return fieldProperty(ACCESS_TOKEN, {
		description: `${ACCESS_TOKEN.description}. Sent as ${sentAs}; max ${ACCESS_TOKEN.maxLength} characters.`,
	});
}

export const connectedAccountIdOption: INodeProperties = {
	displayName: 'Connected Account ID',
	name: 'connectedAccountId',
	type: 'string',
	default: '',
	description: "When you manage a customer's account: that account's ID, sent as the Connected-AccountId header",
};

/** A whole-number option with the editor's bounds from NUMBER_OPTIONS. */
export function numberProperty(
	name: keyof typeof NUMBER_OPTIONS,
	displayName: string,
	description: string,
): INodeProperties {
	const range: NumberRange = NUMBER_OPTIONS[name];
	const defaultValue = range.default;
	return {
		displayName,
		name,
		type: 'number',
		typeOptions: { minValue: range.min, ...(range.max !== undefined ? { maxValue: range.max } : {}) },
		default: defaultValue,
		description,
	};
}

export const timeoutOption = numberProperty(
	'timeout',
	'Timeout (Ms)',
	'How long one attempt may take, the whole answer included, before it counts as a transient failure (retried up to 3 times)',
);

export const concurrencyOption = numberProperty(
	'concurrency',
	'Concurrency',
	'How many requests this node runs at once, for all items and every page together (1 = one after another, in input order). Spread over the round trip; halves by itself when the gateway reports a traffic limit. Read from the first item.',
);

/** The operation's "Options" collection. */
export function optionsCollection(show: IDisplayOptions, options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show,
		options,
	};
}

/** Reads a string parameter, trimmed; empty means "not set". */
export function optionalString(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}
