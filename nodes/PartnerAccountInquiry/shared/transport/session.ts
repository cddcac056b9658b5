/**
 * The execution's connection to the API. Every request goes through its scheduler (one paced,
 * rate-limit aware stream for the whole execution). One request: the body is serialised once;
 * the credential's `authenticate` signs exactly those bytes; the raw answer is read within a
 * size cap and a deadline (wire.ts), then judged (core/api/judgeAnswer.ts: authentic, current,
 * well formed, a success) and refused if it is a replay, before anything from it is used. Transient failures are
 * retried by the scheduler, each attempt freshly signed.
 */
import type { KeyObject } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { NUMBER_OPTIONS } from '../core/api/fields';
import { joinUrl } from '../core/api/gateway';
import { judgeAnswer } from '../core/api/judgeAnswer';
import { isRateLimited, isTransient } from '../core/errors';
import { redactError, redactText } from '../core/redaction';
import { RequestScheduler } from '../core/flow/scheduler';
import { privateKeyFrom, publicKeyFrom } from '../core/signing/keys';
import { PROCESS_REPLAY_GUARD } from '../core/signing/replayGuard';
import { signingUri } from '../core/signing/stringToSign';
import { parseTimestamp } from '../core/signing/timestamps';
import { CREDENTIAL_TYPE, readCredentials, type PartnerCredentials } from './credentialSettings';
import { exchange, type RequestContext } from './wire';

export type { RequestContext } from './wire';

export interface CallOptions {
	headers?: IDataObject;
	/**
	 * The wall-clock deadline of one attempt in ms, the whole answer included; also the most the
	 * request pauses in all while the gateway refuses it for traffic (retry.ts, rateLimitWaitMs).
	 */
	timeout?: number;
	/** Ends the call at once (its listing's, when another page failed; the item's, when an earlier item failed). */
	signal?: AbortSignal;
	/** Its place among the requests waiting (the scheduler's priority: lower first). */
	priority?: number;
	/** Values of the request that must never be shown, even when the gateway echoes them back. */
	secrets?: Array<string | undefined>;
	/** Bank details of the request: shown by their last four characters only, wherever echoed. */
	masked?: Array<string | undefined>;
	/** Keep what a third party needs to verify the answer again (AnswerProof). */
	withProof?: boolean;
}

/** How one read of an endpoint (its requests) runs beside the execution's others. */
export type ReadOptions = Pick<CallOptions, 'signal' | 'priority'>;

/**
 * What anyone with the service public key needs to verify an answer again, offline: the signed
 * content is `POST <path>\n<clientId>.<responseTime>.<body>` (docs/api.md, Proof of an answer).
 */
export interface AnswerProof {
	method: 'POST';
	/** The request URI the answer is signed over (path and query, a base URL's path included). */
	path: string;
	clientId: string;
	responseTime: string;
	/** The Signature header as received, and its signature alone (Base64, ready for openssl). */
	signatureHeader: string;
	signatureBase64: string;
	/** The answer's body, the exact bytes received (Base64). */
	bodyBase64: string;
}

/** A verified, fresh, successful answer: its data and, when asked for, its proof. */
export interface VerifiedAnswer {
	data: IDataObject;
	proof?: AnswerProof;
}

/** Answers already accepted, by responseId: one memory for the whole n8n process and the credential's Test, every credential's tolerance (replayGuard.ts). */
const REPLAYS = PROCESS_REPLAY_GUARD;

export class ApiSession {
	private constructor(
		private readonly fn: RequestContext,
		readonly credentials: PartnerCredentials,
		private readonly publicKey: KeyObject,
		readonly scheduler: RequestScheduler,
		private readonly now: () => number,
	) {}

	/**
	 * Reads the credential once per execution and checks both keys before anything is sent.
	 * `width`: the most requests at once for the whole execution.
	 */
	static async open(fn: RequestContext, width: number, now: () => number = Date.now): Promise<ApiSession> {
		const credentials = readCredentials(await fn.getCredentials(CREDENTIAL_TYPE));
		privateKeyFrom(credentials.privateKey);
		const scheduler = new RequestScheduler({
			width,
			isRateLimited,
			isRetryable: isTransient,
			sleep,
			now: () => performance.now(),
		});
		return new ApiSession(fn, credentials, publicKeyFrom(credentials.servicePublicKey), scheduler, now);
	}

	/** One request, scheduled and retried. */
	async call(path: string, body: IDataObject, options: CallOptions = {}): Promise<VerifiedAnswer> {
		return await this.scheduler.run((signal) => this.send(path, body, { ...options, signal }), {
			signal: options.signal,
			priority: options.priority,
			// The Timeout option is how long the user lets the gateway keep a request waiting: an
			// attempt's deadline, and the time a traffic limit may cost it before it fails.
			rateLimitWaitMs: options.timeout ?? NUMBER_OPTIONS.timeout.default,
		});
	}

	/**
	 * One attempt, now (the caller schedules it): signed, read, judged, and refused if its
	 * responseId was already accepted; secrets removed and account numbers masked in any error.
	 */
	async send(path: string, body: IDataObject, options: CallOptions = {}): Promise<VerifiedAnswer> {
		const url = joinUrl(this.credentials.baseUrl, path);
		const { clientId, responseTimeToleranceSeconds } = this.credentials;
		const set = (values: Array<string | undefined> = []) => values.filter((value): value is string => !!value);
		const secrets = set(options.secrets);
		const masked = set(options.masked);
		try {
			const answer = await exchange(this.fn, {
				url,
				body: Buffer.from(JSON.stringify(body), 'utf8'),
				headers: options.headers,
				timeout: options.timeout ?? NUMBER_OPTIONS.timeout.default,
				signal: options.signal,
			});
			const nowMs = this.now();
			const uri = signingUri(url);
			const judged = judgeAnswer(answer, {
				uri,
				clientId,
				publicKey: this.publicKey,
				nowMs,
				toleranceSeconds: responseTimeToleranceSeconds,
				redact: (text) => redactText(text, secrets, masked),
			});
			const { responseId } = judged.data;
			if (typeof responseId === 'string' && responseId !== '') {
				const responseTimeMs = parseTimestamp(judged.responseTime) as number;
				REPLAYS.accept(clientId, responseId, responseTimeMs, nowMs);
			}
			const data = judged.data as IDataObject;
			if (!options.withProof) return { data };
			return {
				data,
				proof: {
					method: 'POST',
					path: uri,
					clientId,
					responseTime: judged.responseTime,
					signatureHeader: judged.signatureHeader,
					signatureBase64: judged.signature.toString('base64'),
					bodyBase64: answer.body.toString('base64'),
				},
			};
		} catch (error) {
			throw redactError(error, secrets, masked);
		}
	}
}
