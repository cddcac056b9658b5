/**
 * The beneficiary list endpoint, for the action node and the trigger alike: the question built
 * from the parameters and checked before sending, every page read through the execution's
 * scheduler, each page verified and checked against the question, the items in API order.
 */
import type { IDataObject } from 'n8n-workflow';

import { checkBeneficiaries } from '../core/api/answers';
import { BENEFICIARY_FILTERS, maskedValues, NUMBER_OPTIONS, SECRET_FIELDS } from '../core/api/fields';
import { listingEntryKey } from '../core/api/identity';
import { PATHS } from '../core/api/gateway';
import {
	compactBody,
	readWholeNumber,
	validateBeneficiaryListRequest,
	type BeneficiaryListRequest,
} from '../core/api/validation';
import { RequestError, ValidationError } from '../core/errors';
import { readListing, type Page } from '../core/flow/paging';
import { includeProofOption, optionalString, readBoolean } from '../properties';
import type { AnswerProof, ApiSession, ReadOptions } from '../transport/session';

const FILTER_KEYS = BENEFICIARY_FILTERS.map((rule) => rule.name);

/** The request's secret values (the rows marked `secret`: the access token, the token filter), never shown even when echoed. */
function secretValues(request: BeneficiaryListRequest): string[] {
	const body = request as unknown as Readonly<Record<string, unknown>>;
	return [...SECRET_FIELDS].map((name) => body[name]).filter((value): value is string => typeof value === 'string');
}

/** What one listing asks for: the page-1 request (the customer included) and how to read it. */
export interface ListingQuestion {
	request: BeneficiaryListRequest;
	timeout: number;
	/** Undefined reads every page. */
	limit?: number;
	/** Attach each page's proof to its items. */
	withProof: boolean;
	/** A first read that is what the caller already had needs no confirming read (paging.ts). */
	settled?: (items: IDataObject[]) => boolean;
}

/** The size of a list as its last page read reported it. */
export interface ListingSize {
	totalCount?: number;
	totalPageNumber?: number;
}

/** Builds page 1's request from the item's parameters and checks every rule of docs/api.md (List beneficiaries). */
export function buildListRequest(
	filters: IDataObject,
	customerId: unknown,
	options: IDataObject,
): BeneficiaryListRequest {
	const request: BeneficiaryListRequest = {
		// The API's largest page: the fewest requests (the width and the pace are the scheduler's).
		pageSize: NUMBER_OPTIONS.pageSize.max,
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
	request.customerId = optionalString(customerId);
	const compact = compactBody(request) as BeneficiaryListRequest;
	validateBeneficiaryListRequest(compact);
	return compact;
}

/** One listing's question from its parameters (customer, filters, options), checked before anything is sent. */
export function listingQuestion(
	customerId: unknown,
	filters: IDataObject,
	options: IDataObject,
	limit?: number,
): ListingQuestion {
	return {
		request: buildListRequest(filters, customerId, options),
		timeout: readWholeNumber('timeout', options.timeout, 'Timeout'),
		limit,
		withProof: readBoolean(includeProofOption, options),
	};
}

/**
 * The output field that says whose list an item came from, so that a merge or an export
 * downstream can check it. The API names its fields in camelCase; this one
 * begins with "_", so it cannot take the place of one of them.
 */
export const OWNER_FIELD = '_listedFor';

/**
 * Whose list a question reads: `{ customerId }` as sent, or `{ ownAccount: true }` when no customer
 * and no access token were sent; `viaAccessToken: true` when an OAuth token was sent (never the token).
 */
export function listedFor(request: BeneficiaryListRequest): IDataObject {
	const owner: IDataObject = {};
	if (request.customerId !== undefined) owner.customerId = request.customerId;
	if (request.accessToken !== undefined) owner.viaAccessToken = true;
	if (Object.keys(owner).length === 0) owner.ownAccount = true;
	return owner;
}

/**
 * Each item as the API returned it, with OWNER_FIELD added. An item that already carries that
 * name is refused, never overwritten nor passed on: downstream
 * it would read as this node's word on whose list it came from.
 */
export function withOwner(items: readonly IDataObject[], request: BeneficiaryListRequest): IDataObject[] {
	const owner = listedFor(request);
	return items.map((item, index) => {
		if (Object.hasOwn(item, OWNER_FIELD)) {
			throw new RequestError(
				`Beneficiary ${index + 1} of the answer carries a field named ${OWNER_FIELD}, the name this node gives the field that says whose list an item came from`,
				`Nothing was returned rather than an item whose ${OWNER_FIELD} is not this node's. Contact support quoting this message.`,
			);
		}
		return { ...item, [OWNER_FIELD]: { ...owner } };
	});
}

/**
 * Every beneficiary the question asks for, in API order, exactly once, each page verified and
 * checked. With a proof, the first item of each page carries the page's whole proof and the
 * others name their page (`proof: { page }`): a page's body is not repeated in each of its items.
 */
export async function listBeneficiaries(
	session: ApiSession,
	question: ListingQuestion,
	{ signal, priority }: ReadOptions = {},
	/** Filled in as pages arrive, so that a listing cut short can still say how large it is. */
	observed: ListingSize = {},
): Promise<IDataObject[]> {
	const { request, timeout, limit, withProof, settled } = question;
	const { items, pages } = await readListing<IDataObject>({
		pageSize: request.pageSize,
		limit,
		settled,
		scheduler: session.scheduler,
		signal,
		priority,
		// A traffic limit costs a page up to the Timeout option in pauses, as in session.call.
		rateLimitWaitMs: timeout,
		// An entry identical to another of the same read (core/api/identity.ts).
		keyOf: listingEntryKey,
		fetchPage: async (pageNumber, pageSignal) => {
			// One attempt: the scheduler (shared by every request of the execution) retries it.
			const answer = await session.send(PATHS.listBeneficiaries, { ...request, pageNumber } as unknown as IDataObject, {
				timeout,
				signal: pageSignal,
				secrets: secretValues(request),
				masked: maskedValues(request),
				withProof,
			});
			const page = toPage(answer.data, pageNumber, request);
			observed.totalCount = page.totalCount;
			observed.totalPageNumber = page.totalPageNumber;
			return { ...page, evidence: answer.proof };
		},
	});
	if (!withProof) return items;
	const proven: IDataObject[] = [];
	pages.forEach((page, i) => {
		for (const [index, item] of page.items.entries()) {
			if (proven.length === items.length) break;
			const proof = index === 0 ? { page: i + 1, ...(page.evidence as AnswerProof) } : { page: i + 1 };
			proven.push({ ...item, proof });
		}
	});
	return proven;
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
