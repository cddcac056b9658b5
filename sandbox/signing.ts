/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only simulator, not in the published package */
/**
 * The simulator's signing, both ways: the check of a request's signature over the exact bytes
 * received (and of the headers signed with it), and the signature of every answer with the
 * gateway's own key. Written here again on purpose (a few lines of node:crypto), independent of
 * the package's core, so that a mistake in one is caught by the other. The `signing` hooks of the
 * fault catalogue bend how an answer is written and signed.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';

import type { FaultRule } from './faultRules';
import { echo, struck } from './faults';
import type { Answer, PreparedResponse, SimulatorOptions } from './types';

/** sandbox/keys, whether this runs from the sources (ts-jest) or compiled into .dev-dist/. */
export const SANDBOX_KEYS_DIR = [join(__dirname, 'keys'), join(__dirname, '..', '..', 'sandbox', 'keys')].find((dir) =>
	existsSync(dir),
) as string;
export const SANDBOX_CLIENT_ID = 'SANDBOX_CLIENT_0001';
export const SANDBOX_KEY_VERSION = '1';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function readSandboxKey(name: string): string {
	return readFileSync(join(SANDBOX_KEYS_DIR, name), 'utf8');
}

export class Signing {
	readonly clientId: string;
	private readonly keyVersion: string;
	private readonly partnerKey: KeyObject;
	private readonly gatewayKey: KeyObject;
	/** The demo partner's private key: what a wrongly signed answer is signed with. */
	private readonly wrongKey: KeyObject;

	constructor(options: SimulatorOptions) {
		this.clientId = options.clientId ?? SANDBOX_CLIENT_ID;
		this.keyVersion = options.keyVersion ?? SANDBOX_KEY_VERSION;
		this.partnerKey = createPublicKey(options.partnerPublicKey ?? readSandboxKey('demo-partner-public.pem'));
		this.gatewayKey = createPrivateKey(options.gatewayPrivateKey ?? readSandboxKey('gateway-private.pem'));
		this.wrongKey = createPrivateKey(readSandboxKey('demo-partner-private.pem'));
	}

	/** The refusal of a request whose headers or signature do not hold (as `raw` arrived), or undefined. */
	checkRequest(req: IncomingMessage, path: string, raw: Buffer): Answer | undefined {
		const contentType = String(req.headers['content-type'] ?? '');
		if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(contentType)) {
			return {
				status: 'F',
				code: 'PARAM_ILLEGAL',
				message: `Content-Type must be application/json; charset=UTF-8, got "${contentType}"`,
			};
		}
		if (req.headers['client-id'] !== this.clientId)
			return { status: 'F', code: 'INVALID_CLIENT', message: 'Client-Id does not exist or is invalid' };
		const requestTime = String(req.headers['request-time'] ?? '');
		if (!ISO_TIME.test(requestTime))
			return {
				status: 'F',
				code: 'PARAM_ILLEGAL',
				message: `Request-Time "${requestTime}" is not ISO 8601 with a zone`,
			};
		const header = String(req.headers.signature ?? '');
		const attrs = new Map<string, string>();
		for (const part of header.split(',')) {
			const eq = part.indexOf('=');
			if (eq > 0) attrs.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
		}
		if (attrs.get('algorithm') !== 'RSA256' || !attrs.get('signature')) {
			return { status: 'F', code: 'INVALID_SIGNATURE', message: 'Signature header is missing or malformed' };
		}
		if (attrs.get('keyVersion') !== this.keyVersion) {
			return {
				status: 'F',
				code: 'INVALID_SIGNATURE',
				message: `keyVersion ${attrs.get('keyVersion')} is not registered`,
			};
		}
		const signature = Buffer.from(decodeURIComponent(attrs.get('signature') as string), 'base64');
		const content = Buffer.concat([Buffer.from(`POST ${path}\n${this.clientId}.${requestTime}.`, 'utf8'), raw]);
		if (!verify('sha256', content, this.partnerKey, signature))
			return { status: 'F', code: 'INVALID_SIGNATURE', message: 'Signature is invalid' };
		return undefined;
	}

	/**
	 * The signed answer, ready to write: made when the request arrives, written when its latency is
	 * up. `rule` is the fault the endpoint applied, whose `signing` hooks bend it.
	 */
	prepare(
		req: IncomingMessage,
		path: string,
		answer: Answer,
		rule: FaultRule | undefined,
		requestBody: string,
	): PreparedResponse {
		const fault = struck(rule);
		const hooks = fault?.signing;
		const written = hooks?.result ? hooks.result(answer, () => echo(req, requestBody)) : answer;
		const payload = {
			result: { resultStatus: written.status, resultCode: written.code, resultMessage: written.message },
			...written.data,
		};
		let body = JSON.stringify(payload);
		if (hooks?.signedBody) body = hooks.signedBody(body);
		const at = (shiftMs: number) =>
			new Date(Math.floor(Date.now() / 1000) * 1000 + 8 * 3_600_000 + shiftMs).toISOString().replace('.000Z', '+08:00');
		const responseTime = hooks?.responseTime ? hooks.responseTime(at) : at(0);
		// The gateway answers the client that called, as that client: it echoes Client-Id and signs over it.
		const echoed = typeof req.headers['client-id'] === 'string' ? req.headers['client-id'] : this.clientId;
		const content = Buffer.concat([
			Buffer.from(`${req.method} ${path}\n${echoed}.${responseTime}.`, 'utf8'),
			Buffer.from(body, 'utf8'),
		]);
		const signature = sign('sha256', content, hooks?.partnerKey ? this.wrongKey : this.gatewayKey);
		if (hooks?.sentBody) body = hooks.sentBody(body);
		const headers: Record<string, string> = {
			'content-type': 'application/json; charset=UTF-8',
			'response-time': responseTime,
			'client-id': hooks?.clientId ?? echoed,
		};
		if (!(fault && hooks?.unsigned?.(fault.rule))) {
			headers.signature = `algorithm=RSA256,keyVersion=${this.keyVersion},signature=${encodeURIComponent(signature.toString('base64'))}`;
		}
		const status = fault && hooks?.httpStatus ? hooks.httpStatus(fault.rule) : 200;
		return { status, headers, body, requestBody };
	}
}
