/**
 * The available quota endpoint, for the action node and the trigger alike: the question built
 * from the parameters and checked before sending, one scheduled call, the answer verified,
 * checked against the question and shaped into the output item.
 */
import type { IDataObject } from 'n8n-workflow';

import { minorToMajor } from '../core/api/amount';
import { checkQuotaAnswer } from '../core/api/answers';
import { ACCESS_TOKEN, CONNECTED_ACCOUNT_ID, maskedValues, quotaFieldsFor } from '../core/api/fields';
import { PATHS } from '../core/api/gateway';
import { checkHeaderValue } from '../core/api/headerValues';
import { compactBody, readWholeNumber, validateQuotaRequest, type QuotaRequest } from '../core/api/validation';
import { RequestError } from '../core/errors';
import { includeProofOption, optionalString, readBoolean } from '../properties';
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
	headers: IDataObject;
	timeout: number;
	accessToken?: string;
	/** Attach the answer's proof to the output. */
	withProof: boolean;
}

/** One quota call's question from its parameters, checked before anything is sent. */
export function quotaQuestion(request: QuotaRequest, connectedAccountId: unknown, options: IDataObject): QuotaQuestion {
	const headers: IDataObject = {};
	const accessToken = optionalString(options.accessToken);
	// Both travel as headers: each is checked against its row and sent under the row's header.
	for (const [rule, value] of [
		[CONNECTED_ACCOUNT_ID, optionalString(connectedAccountId)],
		[ACCESS_TOKEN, accessToken],
	] as const) {
		if (value) headers[rule.header as string] = checkHeaderValue(rule, value);
	}
	return {
		request,
		headers,
		timeout: readWholeNumber('timeout', options.timeout, 'Timeout'),
		accessToken,
		withProof: readBoolean(includeProofOption, options),
	};
}

/** The available quota the question asks for, verified and checked: the output item's JSON. */
export async function getQuota(
	session: ApiSession,
	question: QuotaQuestion,
	{ signal, priority }: ReadOptions = {},
): Promise<IDataObject> {
	const { request, headers, timeout, accessToken, withProof } = question;
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
	const output = toOutput(data, request);
	if (proof) output.proof = proof as unknown as IDataObject;
	return output;
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
