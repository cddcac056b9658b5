/**
 * The execution's connection to the API. Every request goes through its scheduler (one paced,
 * rate-limit aware stream for the whole execution). One request: the body is serialised once;
 * the credential's `authenticate` signs exactly those bytes; the raw answer is read within a
 * size cap and a deadline (wire.ts), then judged (core/api/judgeAnswer.ts: authentic, current,
 * well formed, a success) before anything from it is parsed into use. Transient failures are
 * retried by the scheduler, each attempt freshly signed.
 */
import type { KeyObject } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { NUMBER_OPTIONS } from '../core/api/fields';
import { joinUrl } from '../core/api/gateway';
import { judgeAnswer } from '../core/api/judgeAnswer';
import { isRateLimited, isTransient, redactError } from '../core/errors';
import { RequestScheduler } from '../core/flow/scheduler';
import { privateKeyFrom, publicKeyFrom } from '../core/signing/keys';
import { signingUri } from '../core/signing/stringToSign';
import { CREDENTIAL_TYPE, readCredentials, type PartnerCredentials } from './credentialSettings';
import { exchange, type RequestContext } from './wire';

export type { RequestContext } from './wire';

export interface CallOptions {
	headers?: IDataObject;
	/** The wall-clock deadline of one attempt in ms, the whole answer included. */
	timeout?: number;
	/** Ends the call at once (its listing's, when another page failed; the item's, when an earlier item failed). */
	signal?: AbortSignal;
	/** Values of the request that must never be shown, even when the gateway echoes them back. */
	secrets?: Array<string | undefined>;
}

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
	async call(path: string, body: IDataObject, options: CallOptions = {}): Promise<IDataObject> {
		return await this.scheduler.run((signal) => this.send(path, body, { ...options, signal }), {
			signal: options.signal,
		});
	}

	/** One attempt, now (the caller schedules it): signed, read, judged; secrets removed from any error. */
	async send(path: string, body: IDataObject, options: CallOptions = {}): Promise<IDataObject> {
		const url = joinUrl(this.credentials.baseUrl, path);
		try {
			const answer = await exchange(this.fn, {
				url,
				body: Buffer.from(JSON.stringify(body), 'utf8'),
				headers: options.headers,
				timeout: options.timeout ?? NUMBER_OPTIONS.timeout.default,
				signal: options.signal,
			});
			return judgeAnswer(answer, {
				uri: signingUri(url),
				clientId: this.credentials.clientId,
				publicKey: this.publicKey,
				nowMs: this.now(),
				toleranceSeconds: this.credentials.responseTimeToleranceSeconds,
			}) as IDataObject;
		} catch (error) {
			throw redactError(
				error,
				(options.secrets ?? []).filter((value): value is string => !!value),
			);
		}
	}
}
