/** docs/api.md, Result codes: what each result code means and what to do about it. */
import { ERRORS_DOC, ISSUES_URL } from '../links';

export type ResultStatus = 'S' | 'F' | 'U';

/**
 * `meaning`: what the code means, as the error's title says it after the code; `action`: one thing
 * to do, the error's hint (for status U, the API's retry schedule behind the README's link).
 */
export interface ResultCodeInfo {
	status: ResultStatus;
	meaning: string;
	action: string;
}

/** What to do after U: the schedule (at most 7 repeats, 5 to 320 minutes apart) is in the README. */
const AFTER_UNKNOWN = `Retry later on the API's schedule, then contact support: ${ERRORS_DOC}`;

export const RESULT_CODES: Record<string, ResultCodeInfo> = {
	SUCCESS: { status: 'S', meaning: 'success', action: 'None.' },
	PROCESS_FAIL: {
		status: 'F',
		meaning: 'general business failure',
		action: 'Do not retry: contact support quoting this message.',
	},
	PARAM_ILLEGAL: {
		status: 'F',
		meaning: 'illegal parameter',
		action: "Check the node's parameters and the credential, then run again.",
	},
	UNKNOWN_EXCEPTION: {
		status: 'U',
		meaning: 'failure for unknown reasons',
		action: AFTER_UNKNOWN,
	},
	REQUEST_TRAFFIC_EXCEED_LIMIT: {
		status: 'U',
		meaning: 'traffic exceeds the limit',
		action: `Call again later on the API's schedule: ${ERRORS_DOC}`,
	},
	OAUTH_FAIL: {
		status: 'F',
		meaning: 'OAuth authentication failed',
		action: 'Check the Access Token in the credential.',
	},
	INVALID_API: {
		status: 'F',
		meaning: 'the API called is invalid or not active',
		action: 'Check the Gateway in the credential, then ask support to enable the API.',
	},
	INVALID_CLIENT: {
		status: 'F',
		meaning: 'the client ID does not exist or is invalid',
		action: 'Check the Client ID and the Gateway in the credential.',
	},
	INVALID_SIGNATURE: {
		status: 'F',
		meaning: 'the request signature is invalid',
		action:
			"Check that the credential's Private Key pairs with the public key registered with the service, under its Key Version.",
	},
	METHOD_NOT_SUPPORTED: {
		status: 'F',
		meaning: 'HTTP method not implemented',
		action: `The node always sends POST: report this as a bug at ${ISSUES_URL}`,
	},
	UN_SUPPORT_BUSINESS: {
		status: 'F',
		meaning: 'unsupported business',
		action: 'Check the currency and the filters, then run again.',
	},
	SYSTEM_ERROR: { status: 'F', meaning: 'system error', action: 'Do not retry: contact support quoting this message.' },
	USER_NOT_EXIST: {
		status: 'F',
		meaning: 'the user does not exist',
		action: 'Check the Customer ID or Connected Account ID, then run again.',
	},
	CONTRACT_CHECK_FAIL: {
		status: 'F',
		meaning: 'contract check failed',
		action: 'Check the contract status with support before retrying.',
	},
	ACCOUNT_NOT_EXIST: {
		status: 'F',
		meaning: 'the account does not exist',
		action: 'Check the Accumulation ID and the Connected Account ID, then run again.',
	},
};

/** After U (docs/api.md, Result codes), at most 7 repeats at these intervals (minutes). */
export const UNKNOWN_RETRY_SCHEDULE_MINUTES = [5, 10, 20, 40, 80, 160, 320] as const;

/** What an answer U says, in its error's detail. */
const UNKNOWN_OUTCOME = 'The outcome is unknown (status U).';

export interface ApiResult {
	resultStatus?: string;
	resultCode?: string;
	resultMessage?: string;
}

export interface ResultExplanation {
	status: string;
	code: string;
	/** The gateway's own resultMessage, as it came: the error item's `resultMessage`, in no text. */
	message: string;
	/** The code and its meaning, once: the error's message. */
	title: string;
	/** What to do: the error's hint. */
	action: string;
	/** For status U: that the outcome is unknown. */
	detail?: string;
}

/** The title and action of a documented code (read by scripts/lint-errors.mjs for each row of RESULT_CODES). */
function explainCode(code: string, info: ResultCodeInfo): { title: string; action: string } {
	return { title: `The API answered ${code}: ${info.meaning}`, action: info.action };
}

export function explainResult(result: ApiResult): ResultExplanation {
	const status = String(result.resultStatus ?? '');
	const code = String(result.resultCode ?? 'UNKNOWN');
	const message = String(result.resultMessage ?? '');
	const info = Object.hasOwn(RESULT_CODES, code) ? RESULT_CODES[code] : undefined;
	const detail = status === 'U' ? UNKNOWN_OUTCOME : undefined;
	if (info) {
		const { title, action } = explainCode(code, info);
		// The status the gateway sent counts, not the table's: a documented F code answered U is retried as U.
		return {
			status,
			code,
			message,
			title,
			action: status === 'U' && info.status !== 'U' ? AFTER_UNKNOWN : action,
			detail,
		};
	}
	return {
		status,
		code,
		message,
		title: `The API answered ${code}, a code it does not document`,
		action:
			status === 'U'
				? AFTER_UNKNOWN
				: status === 'F'
					? 'Check the parameters, then contact support quoting the code.'
					: 'Contact support quoting the code.',
		detail,
	};
}
