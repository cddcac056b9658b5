/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only simulator, not in the published package */
/**
 * The beneficiary list endpoint (docs/api.md): the request's customer, paging and filters
 * checked, the draw of a fault (whose `instead` and `list` hooks bend the answer), then one page
 * of the customer's live list.
 */
import type { IncomingMessage } from 'node:http';

import type { Accounts } from './accounts';
import { CODE_CUSTOMERS, type Beneficiary, type Customer } from './data';
import type { FaultBook } from './faultRules';
import { struck } from './faults';
import type { Answer, Outcome } from './types';

export const LIST_PATH = '/amsin/api/v1/business/account/inquiryBeneficiaryList';

const PAGE_SIZE_LIMIT = 50;

let responseSerial = 0;

export function listBeneficiaries(
	req: IncomingMessage,
	body: Record<string, unknown>,
	faults: FaultBook,
	accounts: Accounts,
): Outcome {
	// Both carriers have the same function (docs/api.md); a request that names two customers is refused.
	const header = req.headers['connected-customerid'];
	if (header !== undefined && body.customerId !== undefined && header !== body.customerId) {
		return {
			answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'Connected-CustomerId and customerId differ' },
		};
	}
	const customerId = String(header ?? body.customerId ?? '');
	const { pageSize, pageNumber } = body;
	if (!Number.isInteger(pageSize) || (pageSize as number) < 1 || (pageSize as number) > PAGE_SIZE_LIMIT) {
		return { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: `pageSize must be 1..${PAGE_SIZE_LIMIT}` } };
	}
	if (!Number.isInteger(pageNumber) || (pageNumber as number) < 1) {
		return { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'pageNumber must be 1 or more' } };
	}
	const rule = faults.draw({ onTheWay: false, operation: 'list', customerId, pageNumber: pageNumber as number });
	const fault = struck(rule);
	const instead = fault?.instead?.(fault.rule, { operation: 'list' });
	if (instead) return { answer: instead, rule };
	if (body.accessToken === 'expired-token')
		return { answer: { status: 'F', code: 'OAUTH_FAIL', message: 'OAuth authentication failed' } };
	const coded = CODE_CUSTOMERS[customerId];
	if (coded) return { answer: { status: coded.status, code: coded.code, message: coded.message } };
	const customer = accounts.customer(customerId);
	if (!customer)
		return { answer: { status: 'F', code: 'USER_NOT_EXIST', message: `User ${customerId} does not exist` } };
	const illegal = checkFilters(body, customer);
	if (illegal) return { answer: illegal };
	const hooks = fault?.list;
	const filtered = !hooks?.ignoresFilters && FILTER_FIELDS.some((field) => body[field] !== undefined);
	const listed = filtered ? customer.beneficiaries.filter((b) => matchesFilters(b, body)) : customer.beneficiaries;
	const matches = fault && hooks?.order ? hooks.order(listed, fault.rule) : listed;
	const size = fault && hooks?.pageSize ? hooks.pageSize(pageSize as number, fault.rule) : (pageSize as number);
	const page = hooks?.pageNumber ? hooks.pageNumber(pageNumber as number) : (pageNumber as number);
	const start = (page - 1) * size;
	const beneficiaries: unknown[] = matches.slice(start, start + size);
	if (fault && hooks?.page) hooks.page(beneficiaries, fault.rule);
	const answer: Answer = {
		status: 'S',
		code: 'SUCCESS',
		message: 'success',
		data: {
			// Unique for the life of the process, as the service's are (a replay is recognised by it).
			responseId: `R${(++responseSerial).toString(36).padStart(8, '0')}${Date.now().toString(36)}`.slice(0, 32),
			beneficiaries,
			totalCount: hooks?.totals?.totalCount ?? matches.length,
			totalPageNumber: hooks?.totals?.totalPageNumber ?? Math.ceil(matches.length / size),
			currentPageNumber: page,
		},
	};
	if (fault && hooks?.afterwards) hooks.afterwards(customer, fault.rule, accounts.bind);
	return { answer, rule };
}

function checkFilters(body: Record<string, unknown>, customer: Customer): Answer | undefined {
	const list = body.currencyList;
	if (list !== undefined) {
		if (!Array.isArray(list)) return { status: 'F', code: 'PARAM_ILLEGAL', message: 'currencyList must be an array' };
		const bad = list.find((c) => customer.unsupportedCurrencies.includes(String(c)));
		if (bad)
			return { status: 'F', code: 'UN_SUPPORT_BUSINESS', message: `Currency ${bad} is not supported for this account` };
	}
	if (body.assetType !== undefined && !['BANK_ACCOUNT', 'WALLET_ACCOUNT'].includes(String(body.assetType))) {
		return { status: 'F', code: 'PARAM_ILLEGAL', message: 'assetType is illegal' };
	}
	if (body.bankAccountIBAN !== undefined && !/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$/.test(String(body.bankAccountIBAN))) {
		return { status: 'F', code: 'PARAM_ILLEGAL', message: 'bankAccountIBAN is illegal' };
	}
	return undefined;
}

const FILTER_FIELDS = [
	'beneficiaryToken',
	'beneficiaryNick',
	'referenceBeneficiaryId',
	'bankAccountNo',
	'bankAccountIBAN',
	'currencyList',
	'assetType',
	'relationFilter',
	'accountName',
];

function fold(text: string): string {
	return text.normalize('NFKC').toLowerCase();
}

function matchesFilters(b: Beneficiary, body: Record<string, unknown>): boolean {
	for (const field of [
		'beneficiaryToken',
		'beneficiaryNick',
		'referenceBeneficiaryId',
		'bankAccountNo',
		'bankAccountIBAN',
	] as const) {
		if (body[field] !== undefined && b[field] !== body[field]) return false;
	}
	if (Array.isArray(body.currencyList) && !body.currencyList.includes(b.currency)) return false;
	if (body.assetType !== undefined && b.assetType !== body.assetType) return false;
	if (
		Array.isArray(body.relationFilter) &&
		!body.relationFilter.some((r) => fold(b.relationType).includes(fold(String(r))))
	)
		return false;
	if (body.accountName !== undefined && !fold(b.accountName).includes(fold(String(body.accountName)))) return false;
	return true;
}
