/**
 * The one error family of the package. Every failure the node can report is a PartnerError:
 * `message` says what happened, `hint` says what to do, `itemFields()` is what a Continue On
 * Fail error item carries besides those two, and `isApiError` says whether n8n shows it as an
 * API error (the gateway's result code, an HTTP status, no answer at all: NodeApiError) or as
 * the node's own finding (a parameter, a key, an answer that failed a check:
 * NodeOperationError). The n8n layer maps them in one function (shared/errorMapping.ts).
 *
 * No error ever carries key material or an access token: every text of an error from a request is
 * redacted (redaction.ts) before it leaves the session.
 */
import { explainResult, type ApiResult, type ResultExplanation } from './api/resultCodes';
import { RETRY_POLICY } from './flow/retry';

export type ErrorFields = Record<string, string | number | boolean>;

export abstract class PartnerError extends Error {
	/** Shown as n8n's NodeApiError: the gateway's own answer or its absence, not the node's finding. */
	readonly isApiError: boolean = false;
	readonly httpCode?: number;

	constructor(
		message: string,
		/** What to do about it. */
		public hint: string,
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
		hint = 'Correct the parameter and run the node again. Nothing was sent.',
	) {
		super(message, hint);
	}

	itemFields(): ErrorFields {
		return { field: this.field };
	}
}

export type KeyField = 'privateKey' | 'servicePublicKey';

const KEY_FIELD_LABEL: Record<KeyField, string> = {
	privateKey: 'Private Key',
	servicePublicKey: 'Service Public Key',
};

export class KeyFormatError extends PartnerError {
	constructor(
		readonly field: KeyField,
		problem: string,
		hint: string,
	) {
		super(`The ${KEY_FIELD_LABEL[field]} in the credential ${problem}`, hint);
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
	) {
		super(message, hint);
	}
}

/** The API answered with status F or U (docs/api.md, Result codes). */
export class ApiResultError extends PartnerError {
	readonly isApiError = true;
	readonly explanation: ResultExplanation;

	/** `unsigned`: an F or U answer that came without a signature (it carries no data to trust). */
	constructor(
		readonly result: ApiResult,
		readonly unsigned = false,
	) {
		const explanation = explainResult(result);
		if (unsigned) {
			explanation.description +=
				' (The gateway did not sign this failure answer; it carries no data, so it is reported as it came.)';
		}
		super(
			`The API answered ${explanation.code}${explanation.message ? `: ${explanation.message}` : ''}`,
			explanation.description,
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

	constructor(
		message: string,
		public detail: string,
		readonly httpCode?: number,
	) {
		super(
			message,
			httpCode === 429
				? // A rate limit is retried for a time, not a count (retry.ts).
					'The gateway kept refusing the request for traffic while the node called again, with growing pauses, for as long as the Timeout option allows, each call freshly signed. Run the node again later, give it fewer items at a time, or raise its Timeout.'
				: `The request was tried ${RETRY_POLICY.retries + 1} times (${RETRY_POLICY.retries} retries with growing pauses), each freshly signed${httpCode ? '' : ` (network code ${detail})`}. Check the gateway address and your network or proxy, then run the node again.`,
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
	) {
		super(message, hint);
	}
}

/** An answer that verifies but is not about the request that was sent. */
export class ForeignAnswerError extends RequestError {
	constructor(message: string) {
		super(
			message,
			'The gateway answered another question than the one sent (it ignored a filter, or the answer belongs to another request), so nothing from it was used. Run the node again; if it persists, contact support quoting this message.',
		);
	}
}

/** The listing did not add up, or kept changing between reads: nothing is returned rather than a wrong list. */
export class ListingChangedError extends PartnerError {
	constructor(
		readonly detail: string,
		readonly expected: number,
		readonly actual: number,
		hint = 'The list was read a second time and still did not add up, so nothing was returned rather than an incomplete or duplicated list. Run the node again once the beneficiaries stop changing.',
	) {
		super(`The beneficiary list changed while it was being read: ${detail}`, hint);
	}

	/** The same finding, once a confirmed listing has been read `reads` times without two reads agreeing. */
	afterReads(reads: number): ListingChangedError {
		return new ListingChangedError(
			`${this.detail}; it was read ${reads} times and no two reads in a row agreed`,
			this.expected,
			this.actual,
			'Nothing was returned rather than a list that mixes two moments (a beneficiary already gone, one that stayed missing). Run the node again once the beneficiaries stop changing.',
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
				? 'The beneficiary list'
				: `The beneficiary list of ${totalCount} beneficiaries (${totalPages} pages${(totalPages ?? 0) > 1 ? ', each read at least twice to confirm the list is whole' : ''})`;
		super(
			`${size} could not be read within n8n's poll budget of ${budgetMs / 1000} s, so this poll emitted nothing and the saved state did not change`,
			"Narrow the list the trigger watches with its filters (currency, status, asset type), or give n8n's polls more time (N8N_SCHEDULER_POLL_TIMEOUT, which n8n caps by the scheduler's lease). A list this large can also be read by the action node on a Schedule Trigger, which has no poll budget.",
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
			`This n8n saves no trigger state for a workflow whose ID is longer than ${longest} characters, and this workflow's ID "${workflowId}" has ${workflowId.length}: the trigger would forget what it has seen at every restart of n8n (changes made meanwhile never reported, or reported twice), so the workflow was not activated`,
			`Import the workflow again with an "id" of at most ${longest} characters (or with no "id": n8n then makes one), and activate that copy. Workflows made in the editor always have an ID n8n saves.`,
		);
	}
}

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
	) {
		super(message, hint);
	}

	itemFields(): ErrorFields {
		return { failing: this.failing, watched: this.watched };
	}
}
