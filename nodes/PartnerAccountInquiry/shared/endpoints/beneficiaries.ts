/**
 * The beneficiary list endpoint, for the action node and the trigger alike: the question built
 * from the parameters and checked before sending, every page read through the execution's
 * scheduler, each page verified and checked against the question, the items in API order.
 */
import type { IDataObject } from 'n8n-workflow';

import { checkBeneficiaries } from '../core/api/answers';
import { BENEFICIARY_FILTERS, CUSTOMER_ID, maskedValues, NUMBER_OPTIONS, SECRET_FIELDS } from '../core/api/fields';
import { customerOf, refuseOwnWithToken, WHOSE_ACCOUNT_FIELD } from '../core/api/whoseAccount';
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
	/** Whose list: `own` or the customer's ID (api/whoseAccount.ts). */
	whose: string;
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
export function buildListRequest(filters: IDataObject, whose: string, accessToken?: string): BeneficiaryListRequest {
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
				`"${key}" is not a filter of Get Many Beneficiaries`,
				'Remove it from the Filters. Nothing was sent.',
				`The filters are ${BENEFICIARY_FILTERS.map((rule) => rule.label).join(', ')}.`,
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
	refuseOwnWithToken(CUSTOMER_ID, whose, accessToken);
	request.accessToken = accessToken;
	request.customerId = customerOf(whose);
	const compact = compactBody(request) as BeneficiaryListRequest;
	validateBeneficiaryListRequest(compact);
	return compact;
}

/**
 * One listing's question from its parameters (whose account, filters, options) and the
 * credential's access token, checked before anything is sent.
 */
export function listingQuestion(
	whose: string,
	filters: IDataObject,
	options: IDataObject,
	accessToken?: string,
	limit?: number,
): ListingQuestion {
	return {
		request: buildListRequest(filters, whose, accessToken),
		whose,
		timeout: readWholeNumber('timeout', options.timeout, 'Timeout'),
		limit,
		withProof: readBoolean(includeProofOption, options),
	};
}

/**
 * Each item as the API returned it, `whoseAccount` first (whose list it came from). An item that
 * already carries a field the node writes itself (`whoseAccount`; for the trigger also `event`,
 * `changes`, `possibleBankChange`: `ownFields`) is refused, never overwritten nor passed on:
 * downstream it would read as the node's word, on whose list it came from or on what happened.
 */
export function withWhose(
	items: readonly IDataObject[],
	whose: string,
	ownFields: readonly string[] = [WHOSE_ACCOUNT_FIELD],
): IDataObject[] {
	return items.map((item, index) => {
		const taken = ownFields.find((field) => Object.hasOwn(item, field));
		if (taken !== undefined) {
			throw new RequestError(
				`Beneficiary ${index + 1} of the answer has a field named ${taken}`,
				'Contact support quoting this message.',
				undefined,
				`The node writes \`${taken}\` itself; nothing was returned rather than an item whose \`${taken}\` is not the node's.`,
			);
		}
		return { [WHOSE_ACCOUNT_FIELD]: whose, ...item };
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
		throw listingShape(`On page ${pageNumber}, \`beneficiaries\` is not a list.`);
	}
	const count = (name: string): number => {
		const value = data[name];
		const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
		if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
			throw listingShape(`On page ${pageNumber}, \`${name}\` is ${JSON.stringify(value)}, not a whole number.`);
		}
		return n;
	};
	const items: unknown[] = beneficiaries ?? [];
	const totalCount = count('totalCount');
	const totalPageNumber = count('totalPageNumber');
	if (items.length > 0 && (totalCount === 0 || totalPageNumber === 0)) {
		throw listingShape(
			`Page ${pageNumber} carries ${items.length} beneficiaries but reports \`totalCount\` ${totalCount} and \`totalPageNumber\` ${totalPageNumber}, an impossible page.`,
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
		'The beneficiary list answer is not of the documented shape',
		'Contact support quoting this message.',
		undefined,
		`${detail} Nothing from the answer was used.`,
	);
}
