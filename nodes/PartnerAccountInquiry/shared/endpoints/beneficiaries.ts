/**
 * The beneficiary list endpoint, for the action node and the trigger alike: the question built
 * from the parameters and checked before sending, every page read through the execution's
 * scheduler, each page verified and checked against the question, the items in API order.
 */
import type { IDataObject } from 'n8n-workflow';

import { checkBeneficiaries } from '../core/api/answers';
import { BENEFICIARY_FILTERS, CUSTOMER_ID } from '../core/api/fields';
import { PATHS } from '../core/api/gateway';
import { checkHeaderValue } from '../core/api/headerValues';
import {
	compactBody,
	readWholeNumber,
	validateBeneficiaryListRequest,
	type BeneficiaryListRequest,
} from '../core/api/validation';
import { RequestError, ValidationError } from '../core/errors';
import { readListing, type Page } from '../core/flow/paging';
import { optionalString } from '../properties';
import type { ApiSession } from '../transport/session';

const FILTER_KEYS = BENEFICIARY_FILTERS.map((rule) => rule.name);

/** What one listing asks for: the page-1 request, the headers and the limits of reading it. */
export interface ListingQuestion {
	request: BeneficiaryListRequest;
	headers?: IDataObject;
	timeout: number;
	/** Undefined reads every page. */
	limit?: number;
}

/** Builds page 1's request from the item's parameters and checks every rule of docs/api.md (List beneficiaries). */
export function buildListRequest(filters: IDataObject, options: IDataObject): BeneficiaryListRequest {
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

/** One listing's question from its parameters (filters, options), checked before anything is sent. */
export function listingQuestion(filters: IDataObject, options: IDataObject, limit?: number): ListingQuestion {
	const request = buildListRequest(filters, options);
	const customerId = optionalString(options.customerId);
	return {
		request,
		headers: customerId ? { [CUSTOMER_ID.header as string]: checkHeaderValue(CUSTOMER_ID, customerId) } : undefined,
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
		scheduler: session.scheduler,
		signal,
		keyOf: beneficiaryKey,
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
