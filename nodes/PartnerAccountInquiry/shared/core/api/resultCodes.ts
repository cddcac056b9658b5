/** docs/api.md, Result codes: what each result code means and what to do about it. */
export type ResultStatus = 'S' | 'F' | 'U';

export interface ResultCodeInfo {
	status: ResultStatus;
	meaning: string;
	action: string;
}

export const RESULT_CODES: Record<string, ResultCodeInfo> = {
	SUCCESS: { status: 'S', meaning: 'Success.', action: 'None.' },
	PROCESS_FAIL: {
		status: 'F',
		meaning: 'General business failure.',
		action: 'Do not retry; human intervention is needed: contact support.',
	},
	PARAM_ILLEGAL: {
		status: 'F',
		meaning: 'Illegal parameter, such as non-numeric input or an invalid date.',
		action: 'Check the header and body fields (the node parameters and the credential).',
	},
	UNKNOWN_EXCEPTION: {
		status: 'U',
		meaning: 'Failure for unknown reasons; the service may be down.',
		action: 'Retry later; if it persists, contact support.',
	},
	REQUEST_TRAFFIC_EXCEED_LIMIT: {
		status: 'U',
		meaning: 'Request traffic exceeds the limit.',
		action: 'Call again later; contact support if it persists.',
	},
	OAUTH_FAIL: {
		status: 'F',
		meaning: 'OAuth authentication failed.',
		action: 'Check the access token; contact support.',
	},
	INVALID_API: {
		status: 'F',
		meaning: 'The called API is invalid or not active.',
		action: 'Check the API called (the gateway or base URL), then ask support to enable it.',
	},
	INVALID_CLIENT: {
		status: 'F',
		meaning: 'The client ID does not exist or is invalid.',
		action: 'Check the Client ID and the Gateway in the credential.',
	},
	INVALID_SIGNATURE: {
		status: 'F',
		meaning: 'The request signature is invalid.',
		action:
			'Check that the Private Key in the credential belongs to the public key registered with the service and that the Key Version matches.',
	},
	METHOD_NOT_SUPPORTED: { status: 'F', meaning: 'HTTP method not implemented.', action: 'Use POST.' },
	UN_SUPPORT_BUSINESS: {
		status: 'F',
		meaning: 'Unsupported business, for example an incorrect currency.',
		action: 'Retry with correct information (check the currency and filters).',
	},
	SYSTEM_ERROR: { status: 'F', meaning: 'System error.', action: 'Do not retry; contact support.' },
	USER_NOT_EXIST: {
		status: 'F',
		meaning: 'The user does not exist.',
		action: 'Retry with correct user information (check the Customer ID).',
	},
	CONTRACT_CHECK_FAIL: {
		status: 'F',
		meaning: 'Contract check failed.',
		action: 'Check the contract status before retrying.',
	},
	ACCOUNT_NOT_EXIST: {
		status: 'F',
		meaning: 'The account does not exist.',
		action: 'Check the account (the accumulation ID or Connected Account ID) and retry.',
	},
};

/** After U (docs/api.md, Result codes), at most 7 repeats at these intervals (minutes). */
export const UNKNOWN_RETRY_SCHEDULE_MINUTES = [5, 10, 20, 40, 80, 160, 320] as const;

const UNKNOWN_RETRY_ADVICE = `The outcome is unknown (status U). You may repeat the call at most ${UNKNOWN_RETRY_SCHEDULE_MINUTES.length} times, waiting ${UNKNOWN_RETRY_SCHEDULE_MINUTES.slice(0, -1).join(', ')} and ${UNKNOWN_RETRY_SCHEDULE_MINUTES.at(-1)} minutes between attempts (for example with a Wait node); if no attempt succeeds, contact technical support.`;

export interface ApiResult {
	resultStatus?: string;
	resultCode?: string;
	resultMessage?: string;
}

export interface ResultExplanation {
	status: string;
	code: string;
	message: string;
	/** The API's meaning and action, plus the retry advice for U. */
	description: string;
}

export function explainResult(result: ApiResult): ResultExplanation {
	const status = String(result.resultStatus ?? '');
	const code = String(result.resultCode ?? 'UNKNOWN');
	const message = String(result.resultMessage ?? '');
	const info = Object.hasOwn(RESULT_CODES, code) ? RESULT_CODES[code] : undefined;
	const parts: string[] = [];
	if (info) {
		parts.push(`${code}: ${info.meaning} What to do: ${info.action}`);
	} else if (status === 'F') {
		parts.push(
			`${code} is not a code the API documents. The call failed; check the parameters, then contact support quoting the code.`,
		);
	} else {
		parts.push(`${code} is not a code the API documents.`);
	}
	if (status === 'U') parts.push(UNKNOWN_RETRY_ADVICE);
	return { status, code, message, description: parts.join(' ') };
}
