import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { BENEFICIARY_FILTERS, NUMBER_OPTIONS } from '../core/api/fields';
import { checkBeneficiaries } from '../core/api/answers';
import { PATHS } from '../core/api/gateway';
import { checkHeaderValue, HEADER_RULES } from '../core/api/headerValues';
import {
	compactBody,
	readWholeNumber,
	validateBeneficiaryListRequest,
	type BeneficiaryListRequest,
} from '../core/api/validation';
import { isRateLimited, isTransient, RequestError, ValidationError } from '../core/errors';
import { readListing, type Page } from '../core/flow/paging';
import type { ApiSession } from '../transport/request';
import {
	accessTokenOption,
	concurrencyOption,
	fieldProperty,
	numberProperty,
	optionalString,
	optionsCollection,
	timeoutOption,
} from './common';

const show = { show: { operation: ['listBeneficiaries'] } };

const FILTER_KEYS = BENEFICIARY_FILTERS.map((rule) => rule.name);

/** The Filters collection, shown where `show` says (here and in the trigger). */
export function filtersCollection(show: IDisplayOptions): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: show,
		options: [...BENEFICIARY_FILTERS].sort((a, b) => a.label.localeCompare(b.label)).map((rule) => fieldProperty(rule)),
	};
}

/** The Customer ID option (the Connected-CustomerId header). */
export const customerIdOption: INodeProperties = {
	displayName: 'Customer ID',
	name: 'customerId',
	type: 'string',
	default: '',
	description:
		'The account whose beneficiaries to list, sent as the Connected-CustomerId header; empty lists your own account',
};

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
		...numberProperty('limit', 'Limit', 'Max number of results to return'),
		displayOptions: { show: { operation: ['listBeneficiaries'], returnAll: [false] } },
	},
	filtersCollection(show),
	optionsCollection(show, [
		accessTokenOption('the accessToken body field'),
		customerIdOption,
		{
			...concurrencyOption,
			// The name the option had when it covered the pages of one listing: saved workflows keep it.
			name: 'pageConcurrency',
		},
		numberProperty('pageSize', 'Page Size', 'Beneficiaries per request (1 to 50). Larger pages mean fewer requests.'),
		timeoutOption,
	]),
];

/** Builds page 1's request from the item's parameters and checks every rule of docs/api.md (List beneficiaries). */
export function buildRequest(filters: IDataObject, options: IDataObject): BeneficiaryListRequest {
	const request: BeneficiaryListRequest = {
		pageSize: readWholeNumber('pageSize', options.pageSize, 'Page Size'),
		pageNumber: 1,
	};
	for (const key of Object.keys(filters)) {
		if (!FILTER_KEYS.includes(key)) {
			throw new ValidationError(
				key,
				'known filter',
				`Unknown filter "${key}"`,
				`Use one of: ${FILTER_KEYS.join(', ')}.`,
			);
		}
	}
	for (const rule of BENEFICIARY_FILTERS) {
		const value = filters[rule.name];
		if (rule.kind === 'choices') {
			// A list, or the comma-separated text an expression may give.
			if (value !== undefined && value !== '')
				request[rule.name] = (Array.isArray(value) ? value : String(value).split(',')).map((v) => String(v).trim());
		} else {
			request[rule.name] = optionalString(value);
		}
	}
	request.accessToken = optionalString(options.accessToken);
	const compact = compactBody(request) as BeneficiaryListRequest;
	validateBeneficiaryListRequest(compact);
	return compact;
}

/** The execution's request width, from the first item (it is one stream for all items). */
export function readConcurrency(fn: IExecuteFunctions): number {
	const options = fn.getNodeParameter('options', 0, {}) as IDataObject;
	return readWholeNumber('concurrency', options.pageConcurrency, 'Concurrency');
}

/** What one listing asks for: the page-1 request, the headers and the limits of reading it. */
export interface ListingQuestion {
	request: BeneficiaryListRequest;
	headers?: IDataObject;
	timeout: number;
	/** Undefined reads every page. */
	limit?: number;
}

/** One listing's question from its parameters (filters, options), checked before anything is sent. */
export function listingQuestion(filters: IDataObject, options: IDataObject, limit?: number): ListingQuestion {
	const request = buildRequest(filters, options);
	const customerId = optionalString(options.customerId);
	return {
		request,
		headers: customerId ? { 'Connected-CustomerId': checkHeaderValue(HEADER_RULES.customerId, customerId) } : undefined,
		timeout: readWholeNumber('timeout', options.timeout, 'Timeout (Ms)'),
		limit,
	};
}

/** Every beneficiary the question asks for, in API order, exactly once, each page verified and checked. */
export async function listBeneficiaries(
	session: ApiSession,
	question: ListingQuestion,
	signal?: AbortSignal,
): Promise<IDataObject[]> {
	const { request, headers, timeout, limit } = question;
	const { items } = await readListing<IDataObject>({
		pageSize: request.pageSize,
		limit,
		concurrency: session.scheduler.maxWidth,
		scheduler: session.scheduler,
		signal,
		keyOf: beneficiaryKey,
		isRateLimited,
		isRetryable: isTransient,
		sleep,
		now: () => performance.now(),
		fetchPage: async (pageNumber, pageSignal) => {
			// One attempt: the scheduler (shared by every request of the execution) retries it.
			const data = await session.send(PATHS.listBeneficiaries, { ...request, pageNumber } as unknown as IDataObject, {
				headers,
				timeout,
				signal: pageSignal,
				secrets: [request.accessToken, request.beneficiaryToken as string | undefined],
			});
			return toPage(data, pageNumber, request);
		},
	});
	return items;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	session: ApiSession,
	signal?: AbortSignal,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const limit = returnAll
		? undefined
		: readWholeNumber('limit', this.getNodeParameter('limit', itemIndex, NUMBER_OPTIONS.limit.default), 'Limit');
	const items = await listBeneficiaries(session, listingQuestion(filters, options, limit), signal);
	return items.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}

/** Exactly-once identity: the beneficiary token, else the partner's reference ID, else the whole object. */
export function beneficiaryKey(item: IDataObject): string {
	if (typeof item.beneficiaryToken === 'string' && item.beneficiaryToken) return `t:${item.beneficiaryToken}`;
	if (typeof item.referenceBeneficiaryId === 'string' && item.referenceBeneficiaryId)
		return `r:${item.referenceBeneficiaryId}`;
	return `j:${JSON.stringify(item)}`;
}

function toPage(data: IDataObject, pageNumber: number, sent: BeneficiaryListRequest): Page<IDataObject> {
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
	const items: unknown[] = beneficiaries ?? [];
	const totalCount = count('totalCount');
	const totalPageNumber = count('totalPageNumber');
	if (items.length > 0 && (totalCount === 0 || totalPageNumber === 0)) {
		throw listingShape(
			`page ${pageNumber} carries ${items.length} beneficiaries but reports totalCount ${totalCount} and totalPageNumber ${totalPageNumber}, an impossible page`,
		);
	}
	checkBeneficiaries(items, sent, pageNumber);
	return {
		items: items as IDataObject[],
		totalCount,
		totalPageNumber,
		currentPageNumber: data.currentPageNumber === undefined ? pageNumber : count('currentPageNumber'),
	};
}

function listingShape(detail: string): RequestError {
	return new RequestError(
		`The beneficiary list response is not of the documented shape: ${detail}`,
		'The gateway sent an unexpected response; contact support quoting this message.',
	);
}
