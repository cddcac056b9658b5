import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_MS } from '../transport/request';

export const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Ms)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1000, maxValue: 300_000 },
	default: DEFAULT_TIMEOUT_MS,
	description:
		'How long to wait for one answer from the gateway before it counts as a transient failure (retried up to 3 times)',
};

export const accessTokenOption = (sentAs: string): INodeProperties => ({
	displayName: 'Access Token',
	name: 'accessToken',
	type: 'string',
	typeOptions: { password: true },
	default: '',
	description: `OAuth access token, when the account is reached through OAuth authorization. Sent as ${sentAs}; max 64 characters.`,
});

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
