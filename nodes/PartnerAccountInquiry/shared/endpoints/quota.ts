/**
 * The available quota endpoint, for the action node and the trigger alike: the question built
 * from the parameters and checked before sending, one scheduled call, the answer verified,
 * checked against the question and shaped into the output item.
 */
import type { IDataObject } from 'n8n-workflow';

import { minorToMajor } from '../core/api/amount';
import { checkQuotaAnswer } from '../core/api/answers';
import { ACCESS_TOKEN, CONNECTED_ACCOUNT_ID, isMaskedQuotaId, maskedValues, quotaFieldsFor } from '../core/api/fields';
import { maskAccount } from '../core/redaction';
import { customerOf, refuseOwnWithToken, WHOSE_ACCOUNT_FIELD } from '../core/api/whoseAccount';
import { PATHS } from '../core/api/gateway';
import { checkHeaderValue } from '../core/api/headerValues';
import { compactBody, readWholeNumber, validateQuotaRequest, type QuotaRequest } from '../core/api/validation';
import { RequestError } from '../core/errors';
import { includeProofOption, readBoolean } from '../properties';
import type { ApiSession, ReadOptions } from '../transport/session';

/** Reads one parameter of the node (of one item, in an action node). */
export type ParameterReader = (name: string, fallback?: unknown) => unknown;

/** The quota request from its fields' rows (fields.ts), as given: the text trimmed, the currency in capitals. */
export function buildQuotaRequest(parameter: ParameterReader): QuotaRequest {
	const method = String(parameter('quotaAccumulationMethod'));
	const request: Record<string, string> = {};
	for (const rule of quotaFieldsFor(method)) {
		const value = String(parameter(rule.name, rule.defaultValue ?? '') ?? '').trim();
		request[rule.name] = rule.name === 'currency' ? value.toUpperCase() : value;
	}
	const compact = compactBody(request) as unknown as QuotaRequest;
	validateQuotaRequest(compact);
	return compact;
}

/** What one quota call asks for. */
export interface QuotaQuestion {
	request: QuotaRequest;
	/** Whose quota: `own` or the customer's connected account ID (api/whoseAccount.ts). */
	whose: string;
	headers: IDataObject;
	timeout: number;
	accessToken?: string;
	/** Attach the answer's proof to the output. */
	withProof: boolean;
}

/** One quota call's question from its parameters and the credential's access token, checked before anything is sent. */
export function quotaQuestion(
	request: QuotaRequest,
	whose: string,
	options: IDataObject,
	accessToken?: string,
): QuotaQuestion {
	refuseOwnWithToken(CONNECTED_ACCOUNT_ID, whose, accessToken);
	const headers: IDataObject = {};
	// Both travel as headers: each is checked against its row and sent under the row's header.
	for (const [rule, value] of [
		[CONNECTED_ACCOUNT_ID, customerOf(whose)],
		[ACCESS_TOKEN, accessToken],
	] as const) {
		if (value) headers[rule.header as string] = checkHeaderValue(rule, value);
	}
	return {
		request,
		whose,
		headers,
		timeout: readWholeNumber('timeout', options.timeout, 'Timeout'),
		accessToken,
		withProof: readBoolean(includeProofOption, options),
	};
}

/**
 * How an item names a quota, for a workflow to route on and a person to read: whose account, then
 * the subject ("ACC_0002 USER_ID U-1001 USD", "own BENEFICIARY B-4001 USD SERVICE"), as a line
 * gives it. `id` is the accumulation ID as shown (a message masks a receiving account's).
 */
export const quotaSubject = (whose: string, request: QuotaRequest, id = request.quotaAccumulationId) =>
	[whose, request.quotaAccumulationMethod, id, request.currency, request.tradeType].filter(Boolean).join(' ');

/** The subject as a message shows it: a receiving or virtual account by its last four. */
export const quotaLabel = (whose: string, request: QuotaRequest) =>
	quotaSubject(
		whose,
		request,
		isMaskedQuotaId(request.quotaAccumulationMethod) ? maskAccount(request.quotaAccumulationId) : undefined,
	);

/** The available quota the question asks for, verified and checked: the output item's JSON. */
export async function getQuota(
	session: ApiSession,
	question: QuotaQuestion,
	{ signal, priority }: ReadOptions = {},
): Promise<IDataObject> {
	const { request, whose, headers, timeout, accessToken, withProof } = question;
	const { data, proof } = await session.call(PATHS.getAvailableQuota, request as unknown as IDataObject, {
		headers,
		timeout,
		signal,
		priority,
		secrets: [accessToken],
		// A receiving or virtual account the gateway echoes (ACCOUNT_NOT_EXIST, PARAM_ILLEGAL), whatever its shape.
		masked: maskedValues(request as unknown as Record<string, unknown>),
		withProof,
	});
	const output = toOutput(data, request, whose);
	if (proof) output.proof = proof as unknown as IDataObject;
	return output;
}

/**
 * The quota item: whose account and which quota (`subject`), the fields as returned, the amount's
 * value as text (the API's Amount: an integer of minor units, sent as a number by some gateways),
 * and availableQuotaAmount, the same in major units, a number.
 */
function toOutput(data: IDataObject, request: QuotaRequest, whose: string): IDataObject {
	checkQuotaAnswer(data, request);
	const quota = data.availableQuota as IDataObject & { currency: string };
	const amount = minorToMajor(quota.value, quota.currency);
	if (amount === undefined) {
		throw new RequestError(
			"The quota answer's available amount is not a whole number of minor units",
			'Contact support quoting this message.',
			undefined,
			`It is ${JSON.stringify(quota.value)}, which a number cannot hold exactly as whole minor units; the answer was not used.`,
		);
	}
	const output: IDataObject = {
		[WHOSE_ACCOUNT_FIELD]: whose,
		subject: quotaSubject(whose, request),
		quotaAccumulationMethod: data.quotaAccumulationMethod,
		quotaAccumulationId: data.quotaAccumulationId,
	};
	if (data.tradeType !== undefined) output.tradeType = data.tradeType;
	output.availableQuota = { ...quota, value: String(quota.value).trim() };
	output.availableQuotaAmount = amount;
	return output;
}
