import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { minorToMajor } from '../core/api/amount';
import { METHOD_WITH_TRADE_TYPE, QUOTA_METHOD_CHOICES, TRADE_TYPE_CHOICES } from '../core/api/fields';
import { checkQuotaAnswer } from '../core/api/answers';
import { PATHS } from '../core/api/gateway';
import { checkHeaderValue, HEADER_RULES } from '../core/api/headerValues';
import {
	compactBody,
	readWholeNumber,
	validateAccessToken,
	validateQuotaRequest,
	type QuotaRequest,
} from '../core/api/validation';
import { RequestError } from '../core/errors';
import type { ApiSession } from '../transport/request';
import {
	accessTokenOption,
	concurrencyOption,
	connectedAccountIdOption,
	optionalString,
	optionsCollection,
	timeoutOption,
} from './common';

const show = { show: { operation: ['getAvailableQuota'] } };
const firstMethod = QUOTA_METHOD_CHOICES[0].value;
const firstTradeType = TRADE_TYPE_CHOICES[0].value;

/** Method, ID, currency and trade type, shown where `show` says (here and in the trigger). */
export function quotaFields(show: NonNullable<IDisplayOptions['show']>): INodeProperties[] {
	return [
		{
			displayName: 'Accumulation Method',
			name: 'quotaAccumulationMethod',
			type: 'options',
			required: true,
			default: firstMethod,
			displayOptions: { show },
			options: QUOTA_METHOD_CHOICES.map(({ value, label, description }) => ({ name: label, value, description })),
			description: 'How the quota is accumulated, which decides what the ID below identifies',
		},
		{
			displayName: 'Accumulation ID',
			name: 'quotaAccumulationId',
			type: 'string',
			required: true,
			default: '',
			displayOptions: { show },
			description: 'The user ID, receiving account, virtual account or beneficiary ID, as the method says',
		},
		{
			displayName: 'Currency',
			name: 'currency',
			type: 'string',
			required: true,
			default: 'USD',
			placeholder: 'USD',
			displayOptions: { show },
			description: 'Currency of the quota: a 3-letter ISO 4217 code',
		},
		{
			displayName: 'Trade Type',
			name: 'tradeType',
			type: 'options',
			required: true,
			default: firstTradeType,
			options: TRADE_TYPE_CHOICES.map(({ value, label }) => ({ name: label, value })),
			displayOptions: { show: { ...show, quotaAccumulationMethod: [METHOD_WITH_TRADE_TYPE] } },
			description: 'Trade type of the beneficiary quota (required for the Beneficiary method)',
		},
	];
}

export const description: INodeProperties[] = [
	...quotaFields(show.show),
	optionsCollection(show, [
		accessTokenOption('the Access-Token header'),
		connectedAccountIdOption,
		concurrencyOption,
		timeoutOption,
	]),
];

/** Reads one parameter of the node (of one item, in an action node). */
export type ParameterReader = (name: string, fallback?: unknown) => unknown;

export function buildRequest(parameter: ParameterReader): QuotaRequest {
	const method = String(parameter('quotaAccumulationMethod'));
	const request: QuotaRequest = {
		quotaAccumulationMethod: method,
		quotaAccumulationId: String(parameter('quotaAccumulationId', '')).trim(),
		currency: String(parameter('currency', '')).trim().toUpperCase(),
		tradeType: method === METHOD_WITH_TRADE_TYPE ? String(parameter('tradeType', '')) : undefined,
	};
	const compact = compactBody(request) as QuotaRequest;
	validateQuotaRequest(compact);
	return compact;
}

/** The execution's request width, from the first item (it is one stream for all items). */
export function readConcurrency(fn: IExecuteFunctions): number {
	const options = fn.getNodeParameter('options', 0, {}) as IDataObject;
	return readWholeNumber('concurrency', options.concurrency, 'Concurrency');
}

/** What one quota call asks for. */
export interface QuotaQuestion {
	request: QuotaRequest;
	headers: IDataObject;
	timeout: number;
	accessToken?: string;
}

/** One quota call's question from its parameters, checked before anything is sent. */
export function quotaQuestion(request: QuotaRequest, options: IDataObject): QuotaQuestion {
	const headers: IDataObject = {};
	const connectedAccountId = optionalString(options.connectedAccountId);
	const accessToken = optionalString(options.accessToken);
	validateAccessToken(accessToken);
	if (connectedAccountId)
		headers['Connected-AccountId'] = checkHeaderValue(HEADER_RULES.connectedAccountId, connectedAccountId);
	if (accessToken) headers['Access-Token'] = checkHeaderValue(HEADER_RULES.accessToken, accessToken);
	return { request, headers, timeout: readWholeNumber('timeout', options.timeout, 'Timeout (Ms)'), accessToken };
}

/** The available quota the question asks for, verified and checked: the output item's JSON. */
export async function getQuota(
	session: ApiSession,
	question: QuotaQuestion,
	signal?: AbortSignal,
): Promise<IDataObject> {
	const { request, headers, timeout, accessToken } = question;
	const data = await session.call(PATHS.getAvailableQuota, request as unknown as IDataObject, {
		headers,
		timeout,
		signal,
		secrets: [accessToken],
	});
	return toOutput(data, request);
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const request = buildRequest((name, fallback) => this.getNodeParameter(name, itemIndex, fallback));
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const json = await getQuota(session, quotaQuestion(request, options), signal);
	return [{ json, pairedItem: { item: itemIndex } }];
}

/** The quota fields as returned, plus availableQuotaAmount in major units. */
function toOutput(data: IDataObject, request: QuotaRequest): IDataObject {
	checkQuotaAnswer(data, request);
	const quota = data.availableQuota as IDataObject & { currency: string };
	const amount = minorToMajor(quota.value, quota.currency);
	if (amount === undefined) {
		throw new RequestError(
			`The quota response is not of the documented shape: availableQuota.value ${JSON.stringify(quota.value)} is not a whole number of minor units that a number can hold exactly (at most 9007199254740991)`,
			'Contact support quoting this message.',
		);
	}
	const output: IDataObject = {
		quotaAccumulationMethod: data.quotaAccumulationMethod,
		quotaAccumulationId: data.quotaAccumulationId,
	};
	if (data.tradeType !== undefined) output.tradeType = data.tradeType;
	output.availableQuota = quota;
	output.availableQuotaAmount = amount;
	return output;
}
