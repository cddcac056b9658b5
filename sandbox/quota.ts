/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only simulator, not in the published package */
/**
 * The available quota endpoint (docs/api.md): the question checked, the draw of a fault (whose
 * `instead` and `quota` hooks bend the answer), then the quota as the accounts hold it now.
 */
import type { IncomingMessage } from 'node:http';

import type { Accounts } from './accounts';
import type { FaultBook } from './faultRules';
import { struck } from './faults';
import type { Outcome } from './types';

export const QUOTA_PATH = '/amsin/api/v1/business/account/inquiryAvailableQuota';

export function availableQuota(
	req: IncomingMessage,
	body: Record<string, unknown>,
	faults: FaultBook,
	accounts: Accounts,
): Outcome {
	const method = String(body.quotaAccumulationMethod ?? '');
	const id = String(body.quotaAccumulationId ?? '');
	const currency = String(body.currency ?? '');
	if (!['USER_ID', 'RECEIVING_ACCOUNT', 'VIRTUAL_ACCOUNT', 'BENEFICIARY'].includes(method)) {
		return { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'quotaAccumulationMethod is illegal' } };
	}
	if (!id) return { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'quotaAccumulationId is required' } };
	if (!/^[A-Z]{3}$/.test(currency))
		return { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'currency is illegal' } };
	if (
		method === 'BENEFICIARY' ? !['GOODS', 'SERVICE'].includes(String(body.tradeType)) : body.tradeType !== undefined
	) {
		return {
			answer: {
				status: 'F',
				code: 'PARAM_ILLEGAL',
				message: 'tradeType is illegal for this quotaAccumulationMethod',
			},
		};
	}
	const customerId = String(req.headers['connected-accountid'] ?? '');
	const rule = faults.draw({ onTheWay: false, operation: 'quota', customerId, accumulationId: id });
	const fault = struck(rule);
	const instead = fault?.instead?.(fault.rule, { operation: 'quota', id });
	if (instead) return { answer: instead, rule };
	if (req.headers['access-token'] === 'expired-token')
		return { answer: { status: 'F', code: 'OAUTH_FAIL', message: 'OAuth authentication failed' } };
	if (req.headers['connected-accountid'] === 'ACC_MISSING') {
		return { answer: { status: 'F', code: 'ACCOUNT_NOT_EXIST', message: 'Connected account does not exist' } };
	}
	const key = method === 'BENEFICIARY' ? `${id}:${body.tradeType}` : id;
	const record = accounts.quota(method, customerId ? `${customerId}/${key}` : key);
	if (!record) return { answer: { status: 'F', code: 'ACCOUNT_NOT_EXIST', message: `No ${method} ${id}` } };
	if ('code' in record) return { answer: { status: record.status, code: record.code, message: record.message } };
	if (record.currency !== currency) {
		return {
			answer: {
				status: 'F',
				code: 'PARAM_ILLEGAL',
				message: `${id} holds quota in ${record.currency}, not ${currency}`,
			},
		};
	}
	const data: Record<string, unknown> = {
		quotaAccumulationMethod: method,
		quotaAccumulationId: id,
		availableQuota: { currency: record.currency, value: record.value },
		...(method === 'BENEFICIARY' ? { tradeType: body.tradeType } : {}),
	};
	if (fault?.quota) fault.quota(data, fault.rule);
	return { answer: { status: 'S', code: 'SUCCESS', message: 'success', data }, rule };
}
