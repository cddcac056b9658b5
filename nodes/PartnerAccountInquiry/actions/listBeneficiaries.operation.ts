import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ValidationError } from '../core/errors';
import { readListing, type Page } from '../core/paging';
import {
	compactBody,
	MAX_PAGE_SIZE,
	SUPPORTED_CURRENCIES,
	validateBeneficiaryListRequest,
	type BeneficiaryListRequest,
} from '../core/validation';
import { isRateLimited, isTransient, RequestError } from '../transport/errors';
import { PATHS } from '../transport/paths';
import { TRANSIENT_RETRIES, type ApiSession } from '../transport/request';
import { accessTokenOption, optionalString, optionsCollection, timeoutOption } from './common';

const show = { show: { operation: ['listBeneficiaries'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		displayOptions: show,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		displayOptions: { show: { operation: ['listBeneficiaries'], returnAll: [false] } },
		description: 'Max number of results to return',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: show,
		options: [
			{
				displayName: 'Account Name',
				name: 'accountName',
				type: 'string',
				default: '',
				description: 'Account holder name; the gateway matches it fuzzily (part of the name is enough)',
			},
			{
				displayName: 'Asset Type',
				name: 'assetType',
				type: 'options',
				default: 'BANK_ACCOUNT',
				options: [
					{ name: 'Bank Account', value: 'BANK_ACCOUNT' },
					{ name: 'Wallet Account', value: 'WALLET_ACCOUNT' },
				],
				description: 'Only beneficiaries of this asset type',
			},
			{
				displayName: 'Bank Account IBAN',
				name: 'bankAccountIBAN',
				type: 'string',
				default: '',
				placeholder: 'GB29NWBK60161331926819',
				description: 'IBAN of the beneficiary account, without spaces; max 34 characters',
			},
			{
				displayName: 'Bank Account Number',
				name: 'bankAccountNo',
				type: 'string',
				default: '',
				description: 'Domestic bank or wallet account number: upper-case letters and digits, at most 34',
			},
			{
				displayName: 'Beneficiary Nickname',
				name: 'beneficiaryNick',
				type: 'string',
				default: '',
				description: 'Nickname the customer gave the beneficiary; max 70 characters',
			},
			{
				displayName: 'Beneficiary Token',
				name: 'beneficiaryToken',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description: "Base64 token holding the beneficiary's bank account details; max 128 characters",
			},
			{
				displayName: 'Currencies',
				name: 'currencyList',
				type: 'multiOptions',
				default: [],
				options: SUPPORTED_CURRENCIES.map((code) => ({ name: code, value: code })),
				description: 'Only beneficiaries in these currencies; none selected means all',
			},
			{
				displayName: 'Reference Beneficiary ID',
				name: 'referenceBeneficiaryId',
				type: 'string',
				default: '',
				description: 'Your own unique ID of the beneficiary; max 64 characters',
			},
			{
				displayName: 'Relation',
				name: 'relationFilter',
				type: 'multiOptions',
				default: [],
				options: [
					{ name: 'Same Name', value: 'SAME_NAME' },
					{ name: 'Third Party', value: 'THIRD_PARTY' },
				],
				description: 'Only same-name or third-party beneficiaries; none selected means all',
			},
		],
	},
	optionsCollection(show, [
		accessTokenOption('the accessToken body field'),
		{
			displayName: 'Customer ID',
			name: 'customerId',
			type: 'string',
			default: '',
			description:
				'The account whose beneficiaries to list, sent as the Connected-CustomerId header; empty lists your own account',
		},
		{
			displayName: 'Page Concurrency',
			name: 'pageConcurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10 },
			default: 4,
			description:
				'With Return All: how many pages to read at once after the first. Halves by itself when the gateway reports a traffic limit.',
		},
		{
			displayName: 'Page Size',
			name: 'pageSize',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_PAGE_SIZE },
			default: MAX_PAGE_SIZE,
			description: 'Beneficiaries per request (1 to 50). Larger pages mean fewer requests.',
		},
		timeoutOption,
	]),
];

export const FILTER_KEYS = [
	'beneficiaryToken',
	'beneficiaryNick',
	'referenceBeneficiaryId',
	'bankAccountNo',
	'bankAccountIBAN',
	'currencyList',
	'assetType',
	'relationFilter',
	'accountName',
] as const;

/** Builds page 1's request from the item's parameters and checks every rule of spec 2.3 and 8. */
export function buildRequest(filters: IDataObject, options: IDataObject): BeneficiaryListRequest {
	const request: BeneficiaryListRequest = {
		pageSize: options.pageSize === undefined ? MAX_PAGE_SIZE : Number(options.pageSize),
		pageNumber: 1,
	};
	for (const key of Object.keys(filters)) {
		if (!(FILTER_KEYS as readonly string[]).includes(key)) {
			throw new ValidationError(
				key,
				'known filter',
				`Unknown filter "${key}"`,
				`Use one of: ${FILTER_KEYS.join(', ')}.`,
			);
		}
	}
	for (const key of FILTER_KEYS) {
		const value = filters[key];
		if (key === 'currencyList' || key === 'relationFilter') {
			if (value !== undefined && value !== '')
				request[key] = (Array.isArray(value) ? value : String(value).split(',')).map((v) => String(v).trim());
		} else {
			(request as unknown as IDataObject)[key] = optionalString(value);
		}
	}
	request.accessToken = optionalString(options.accessToken);
	const compact = compactBody(request) as BeneficiaryListRequest;
	validateBeneficiaryListRequest(compact);
	return compact;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const request = buildRequest(filters, options);
	let limit: number | undefined;
	if (!returnAll) {
		limit = Number(this.getNodeParameter('limit', itemIndex, 50));
		if (!Number.isInteger(limit) || limit < 1)
			throw new ValidationError(
				'limit',
				'whole number of at least 1',
				`Limit must be a whole number of at least 1, got ${JSON.stringify(limit)}`,
			);
	}
	const concurrency = options.pageConcurrency === undefined ? 4 : Number(options.pageConcurrency);
	if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10) {
		throw new ValidationError(
			'pageConcurrency',
			'whole number from 1 to 10',
			`Page Concurrency must be a whole number from 1 to 10, got ${JSON.stringify(options.pageConcurrency)}`,
		);
	}
	const customerId = optionalString(options.customerId);
	const headers = customerId ? { 'Connected-CustomerId': customerId } : undefined;
	const timeout = options.timeout === undefined ? undefined : Number(options.timeout);

	const { items } = await readListing<IDataObject>({
		pageSize: request.pageSize,
		limit,
		concurrency,
		keyOf: beneficiaryKey,
		isRateLimited,
		isRetryable: isTransient,
		sleep,
		now: () => performance.now(),
		rateLimitRetries: TRANSIENT_RETRIES,
		fetchPage: async (pageNumber, signal) => {
			const data = await session.call(PATHS.listBeneficiaries, { ...request, pageNumber } as unknown as IDataObject, {
				headers,
				timeout,
				signal,
				retries: 0, // one retry budget per page: the pool's
			});
			return toPage(data, pageNumber);
		},
	});
	return items.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}

/** Exactly-once identity: the beneficiary token, else the partner's reference ID, else the whole object. */
export function beneficiaryKey(item: IDataObject): string {
	if (typeof item.beneficiaryToken === 'string' && item.beneficiaryToken) return `t:${item.beneficiaryToken}`;
	if (typeof item.referenceBeneficiaryId === 'string' && item.referenceBeneficiaryId)
		return `r:${item.referenceBeneficiaryId}`;
	return `j:${JSON.stringify(item)}`;
}

function toPage(data: IDataObject, pageNumber: number): Page<IDataObject> {
	const { beneficiaries } = data;
	if (beneficiaries !== undefined && !Array.isArray(beneficiaries)) {
		throw listingShape(`beneficiaries is not a list on page ${pageNumber}`);
	}
	const count = (name: string): number => {
		const value = data[name];
		const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
		if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
			throw listingShape(`${name} is ${JSON.stringify(value)} on page ${pageNumber}, not a whole number`);
		}
		return n;
	};
	return {
		items: (beneficiaries ?? []) as IDataObject[],
		totalCount: count('totalCount'),
		totalPageNumber: count('totalPageNumber'),
		currentPageNumber: data.currentPageNumber === undefined ? pageNumber : count('currentPageNumber'),
	};
}

function listingShape(detail: string): RequestError {
	return new RequestError(
		`The beneficiary list response is not of the documented shape: ${detail}`,
		'The gateway sent an unexpected response; contact support quoting this message.',
	);
}
