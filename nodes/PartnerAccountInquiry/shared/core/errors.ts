/**
 * The one error family of the package. Every failure the node can report is a PartnerError:
 * `message` says what happened (one short line, at most 80 characters: n8n's title), `detail` what
 * exactly (the values, counts and entries), `hint` one way to get unstuck; n8n's description is
 * `detail` then `hint` (descriptionOf). `itemFields()` is what a Continue On Fail error item
 * carries besides `error` and `description`, and `isApiError` says whether n8n shows it as an
 * API error (the gateway's result code, an HTTP status, no answer at all: NodeApiError) or as
 * the node's own finding (a parameter, a key, an answer that failed a check:
 * NodeOperationError). The n8n layer maps them in one function (shared/errorMapping.ts).
 *
 * No error ever carries key material or an access token: every text of an error from a request is
 * redacted (redaction.ts) before it leaves the session.
 */
import { labelOf } from './api/fields';
import { explainResult, type ApiResult, type ResultExplanation } from './api/resultCodes';
import { RETRY_POLICY } from './flow/retry';

export type ErrorFields = Record<string, string | number | boolean>;

export abstract class PartnerError extends Error {
	/** Shown as n8n's NodeApiError: the gateway's own answer or its absence, not the node's finding. */
	readonly isApiError: boolean = false;
	readonly httpCode?: number;
	/** What the failed question was about, and whose account (`own` or the customer's ID): aboutAccount. */
	about?: string;
	whoseAccount?: string;

	constructor(
		message: string,
		/** One way to get unstuck. */
		public hint: string,
		/** What exactly: the values, counts and entries the short message leaves out. */
		public detail?: string,
	) {
		super(message);
		this.name = new.target.name;
	}

	/** Fields an error item carries besides `error` and `description`. */
	itemFields(): ErrorFields {
		return {};
	}
}

/** A parameter or credential field that breaks a rule; nothing was sent. */
export class ValidationError extends PartnerError {
	constructor(
		readonly field: string,
		readonly rule: string,
		message: string,
		hint = `Correct ${labelOf(field)}, then run again. Nothing was sent.`,
		detail?: string,
	) {
		super(message, hint, detail);
	}

	itemFields(): ErrorFields {
		return { field: this.field };
	}
}

export type KeyField = 'privateKey' | 'servicePublicKey';

/** An F or U answer that came without a signature: said in its detail. */
const UNSIGNED_FAILURE =
	'The gateway did not sign this failure answer; it carries no data, so it is reported as it came.';

const KEY_FIELD_LABEL: Record<KeyField, string> = {
	privateKey: 'Private Key',
	servicePublicKey: 'Service Public Key',
};

export class KeyFormatError extends PartnerError {
	constructor(
		readonly field: KeyField,
		problem: string,
		hint: string,
		detail?: string,
	) {
		super(`The credential's ${KEY_FIELD_LABEL[field]} ${problem}`, hint, detail);
	}
}

export class SignatureHeaderError extends PartnerError {}

export type VerificationFailure =
	| 'missing-signature'
	| 'malformed-signature'
	| 'unsupported-algorithm'
	| 'missing-response-time'
	| 'unparsable-response-time'
	| 'stale-response'
	| 'client-id-mismatch'
	| 'signature-mismatch'
	| 'replayed-response';

/** Verification failed (docs/api.md, Verifying a response): nothing from the response may be used. */
export class ResponseVerificationError extends PartnerError {
	constructor(
		readonly reason: VerificationFailure,
		message: string,
		hint: string,
		detail?: string,
	) {
		super(message, hint, detail);
	}
}

/** The API answered with status F or U (docs/api.md, Result codes). */
export class ApiResultError extends PartnerError {
	readonly isApiError = true;
	readonly explanation: ResultExplanation;

	/**
	 * The code and its meaning once, in the message; what to do in the hint. The gateway's own
	 * resultMessage is the error item's `resultMessage`, not repeated in a text.
	 * `unsigned`: an F or U answer that came without a signature (it carries no data to trust).
	 */
	constructor(
		readonly result: ApiResult,
		readonly unsigned = false,
	) {
		const explanation = explainResult(result);
		super(
			explanation.title,
			explanation.action,
			unsigned ? `${UNSIGNED_FAILURE}${explanation.detail ? ` ${explanation.detail}` : ''}` : explanation.detail,
		);
		this.explanation = explanation;
	}

	get code(): string {
		return this.explanation.code;
	}

	itemFields(): ErrorFields {
		const { status, code, message } = this.explanation;
		const fields: ErrorFields = { resultStatus: status, resultCode: code, resultMessage: message };
		// A workflow can tell an unsigned failure (nothing in it is verified) from a signed one.
		if (this.unsigned) fields.signed = false;
		return fields;
	}
}

/** The request got no API answer: network error, timeout, HTTP 429 or 5xx. Worth another try. */
export class TransientError extends PartnerError {
	readonly isApiError = true;

	/**
	 * `cause`: the network code (ETIMEDOUT) or, with an HTTP status, the start of the answer's body
	 * (redacted by the caller): said in `detail`.
	 */
	constructor(
		message: string,
		cause: string,
		readonly httpCode?: number,
	) {
		super(
			message,
			httpCode === 429
				? 'Run the node again later, with fewer items at a time.'
				: httpCode
					? 'Run the node again later; if it persists, contact support.'
					: 'Check the Gateway in the credential and that this n8n host can reach it, then run again.',
			httpCode === 429
				? // A rate limit is retried for a time, not a count (retry.ts).
					'The gateway kept refusing the request for traffic while the node called again with growing pauses, each call freshly signed, for as long as the Timeout option allows.'
				: `Tried ${RETRY_POLICY.retries + 1} times, with growing pauses, each freshly signed; ${httpCode ? `the body began: ${cause}` : `network code ${cause}`}`,
		);
	}
}

/**
 * A failure that retrying will not fix: an answer we cannot use (unexpected HTTP status,
 * malformed JSON, wrong shape, an answer to another question) or a request n8n could not send.
 */
export class RequestError extends PartnerError {
	readonly isApiError = true;

	constructor(
		message: string,
		hint: string,
		readonly httpCode?: number,
		detail?: string,
	) {
		super(message, hint, detail);
	}
}

/** An answer that verifies but is not about the request that was sent: nothing from it is used. */
export class ForeignAnswerError extends RequestError {
	constructor(message: string, detail?: string) {
		super(message, 'Run the node again; if it persists, contact support quoting this message.', undefined, detail);
	}
}

/**
 * The listing did not add up, or kept changing between reads: nothing is returned rather than a
 * wrong list. `finding` (what did not add up) is the error's detail.
 */
export class ListingChangedError extends PartnerError {
	constructor(
		readonly finding: string,
		readonly expected: number,
		readonly actual: number,
		note = 'It was read again and still did not add up; nothing was returned rather than an incomplete or duplicated list.',
	) {
		super(
			'The beneficiary list changed while it was being read',
			'Run the node again once the beneficiaries stop changing.',
			`${sentence(finding.charAt(0).toUpperCase() + finding.slice(1))} ${note}`,
		);
	}

	/** The same finding, once a confirmed listing has been read `reads` times without two reads agreeing. */
	afterReads(reads: number): ListingChangedError {
		return new ListingChangedError(
			this.finding,
			this.expected,
			this.actual,
			`It was read ${reads} times and no two reads in a row agreed; nothing was returned rather than a list that mixes two moments.`,
		);
	}
}

/**
 * A trigger poll whose list could not be read within the time n8n gives a poll (2.x's poll
 * scheduler): it was stopped whole, so nothing was emitted and the saved state did not move.
 */
export class PollBudgetError extends PartnerError {
	constructor(
		readonly totalCount: number | undefined,
		readonly totalPages: number | undefined,
		readonly budgetMs: number,
	) {
		const size =
			totalCount === undefined
				? ''
				: `It holds ${totalCount} beneficiaries in ${totalPages} pages${(totalPages ?? 0) > 1 ? ', each read at least twice to confirm the list is whole' : ''}. `;
		super(
			`The beneficiary list could not be read within n8n's ${budgetMs / 1000} s poll budget`,
			"Narrow the list with the trigger's Filters, such as Currencies or Asset Type.",
			`${size}This poll emitted nothing and the saved state did not change.`,
		);
	}
}

/**
 * A trigger in a workflow whose static data the running n8n never saves (an ID longer than that n8n
 * keeps, as a workflow imported from a file may have): it would forget its baseline at every
 * restart, so its activation is refused.
 */
export class UnsavedWorkflowError extends PartnerError {
	constructor(workflowId: string, longest: number) {
		super(
			`Not activated: this n8n saves no trigger state for a ${workflowId.length}-character workflow ID`,
			`Import the workflow again with an "id" of at most ${longest} characters, or with none.`,
		);
	}
}

/**
 * The error of a question about an account: its message starts with what was asked (`subject`:
 * "ACC_0002 USER_ID U-1001 USD", "CUST_0001 beneficiaries") and an action node's error item names
 * `whose` account, so that no failure reads like another account's. Said once; n8n's own errors
 * pass as they are.
 */
export function aboutAccount(error: unknown, subject: string, whose?: string): unknown {
	if (error instanceof PartnerError && !error.about) {
		error.about = subject;
		error.whoseAccount = whose;
		error.message = `${subject}: ${error.message}`;
	}
	return error;
}

/** A text as a sentence: with its closing full stop (none after a link, which would take it in). */
export const sentence = (text: string): string => (/[.!?…]$|https?:\/\/\S+$/.test(text) ? text : `${text}.`);

/** n8n's description of an error (and an error item's `description`): `detail`, then `hint`. */
export function descriptionOf(error: PartnerError): string {
	return [error.detail, error.hint]
		.filter((text): text is string => Boolean(text))
		.map(sentence)
		.join(' ');
}

/** How a message names a listing: whose beneficiaries ("own beneficiaries", "CUST_0001 beneficiaries"). */
export const beneficiariesSubject = (whose: string) => `${whose} beneficiaries`;

/** Rate limited: REQUEST_TRAFFIC_EXCEED_LIMIT or HTTP 429. */
export function isRateLimited(error: unknown): boolean {
	return (
		(error instanceof ApiResultError && error.code === 'REQUEST_TRAFFIC_EXCEED_LIMIT') ||
		(error instanceof TransientError && error.httpCode === 429)
	);
}

/** Network errors, timeouts, HTTP 429 and 5xx, and REQUEST_TRAFFIC_EXCEED_LIMIT: worth another, freshly signed, try. */
export function isTransient(error: unknown): boolean {
	return error instanceof TransientError || isRateLimited(error);
}

/**
 * Entries of a watched set (many quota subjects or customers in one trigger) whose reads failed,
 * each reported once per failure episode; the other entries' events were emitted as usual.
 */
export class WatchedSetError extends PartnerError {
	constructor(
		readonly failing: number,
		readonly watched: number,
		message: string,
		hint: string,
		detail?: string,
	) {
		super(message, hint, detail);
	}

	itemFields(): ErrorFields {
		return { failing: this.failing, watched: this.watched };
	}
}
