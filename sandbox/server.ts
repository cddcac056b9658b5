/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only simulator, not in the published package */
/**
 * The local gateway simulator: a real HTTP server on 127.0.0.1 that implements both endpoints of
 * docs/api.md as strictly as the real gateway should. It verifies request signatures over the exact
 * bytes received, validates bodies, and signs every response with its own key. Its signing code
 * is written here again on purpose (a few lines of node:crypto), independent of the package's
 * core, so that a mistake in one is caught by the other.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

import { Accounts } from './accounts';
import { CODE_CUSTOMERS, type Beneficiary, type Customer } from './data';
import { FaultBook, type FaultRule } from './faultRules';
import { echo, struck } from './faults';
import { RequestGate } from './gate';
import type { Answer, LoggedRequest, Outcome, PreparedResponse, Simulator, SimulatorOptions } from './types';

/** sandbox/keys, whether this runs from the sources (ts-jest) or compiled into .dev-dist/. */
export const SANDBOX_KEYS_DIR = [join(__dirname, 'keys'), join(__dirname, '..', '..', 'sandbox', 'keys')].find((dir) =>
	existsSync(dir),
) as string;
export const SANDBOX_CLIENT_ID = 'SANDBOX_CLIENT_0001';
export const SANDBOX_KEY_VERSION = '1';
export const LIST_PATH = '/amsin/api/v1/business/account/inquiryBeneficiaryList';
export const QUOTA_PATH = '/amsin/api/v1/business/account/inquiryAvailableQuota';

export type { FaultRule } from './faultRules';
export type { FaultKind } from './faults';
export type { HeldAnswers, HoldOptions, LoggedRequest, Simulator, SimulatorOptions } from './types';

const PAGE_SIZE_LIMIT = 50;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function readSandboxKey(name: string): string {
	return readFileSync(join(SANDBOX_KEYS_DIR, name), 'utf8');
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const clientId = options.clientId ?? SANDBOX_CLIENT_ID;
	const keyVersion = options.keyVersion ?? SANDBOX_KEY_VERSION;
	const partnerKey: KeyObject = createPublicKey(options.partnerPublicKey ?? readSandboxKey('demo-partner-public.pem'));
	const gatewayKey: KeyObject = createPrivateKey(options.gatewayPrivateKey ?? readSandboxKey('gateway-private.pem'));
	const wrongKey: KeyObject = createPrivateKey(readSandboxKey('demo-partner-private.pem'));
	const basePath = (options.basePath ?? '').replace(/\/+$/, '');
	const gate = new RequestGate(options.latencyMs ?? 0);
	const accounts = new Accounts();
	const faults = new FaultBook();
	const sockets = new Set<Socket>();
	const requests: LoggedRequest[] = [];

	const sim: Simulator = {
		url: '',
		port: 0,
		clientId,
		requests,
		peakInFlight: 0,
		holdUntilInFlight: (count, holdOptions) => gate.hold(count, holdOptions),
		addFault: (rule) => faults.add(rule),
		clearFaults: () => faults.clear(),
		setLatency: (ms) => {
			gate.latencyMs = ms;
		},
		beneficiaries: (customerId) => accounts.beneficiaries(customerId),
		setQuota: (method, id, value, currency) => accounts.setQuota(method, id, value, currency),
		changeBankDetails: (customerId, reference) => accounts.changeBankDetails(customerId, reference),
		bindAgain: (customerId, index, fields) => accounts.bindAgain(customerId, index, fields),
		setReference: (customerId, index, reference) => accounts.setReference(customerId, index, reference),
		reuseReference: (customerId, index) => accounts.reuseReference(customerId, index),
		reset: () => {
			// Answers a test left held go now, so that they are not counted in flight in the next test.
			gate.open('the simulator was reset');
			faults.clear();
			requests.length = 0;
			sim.peakInFlight = 0;
			accounts.reset();
		},
		close: () =>
			new Promise<void>((resolve) => {
				gate.open('the simulator was closed');
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};

	/** The last answer to each identical request (path and body), for the 'replay' fault. */
	const answered = new Map<string, PreparedResponse>();

	/**
	 * What happens to a request on its way to the gateway: its customer header dropped, its
	 * customer rewritten (in the body that breaks the signature), or an earlier answer replayed.
	 */
	function onTheWay(
		req: IncomingMessage,
		operation: 'list' | 'quota',
		raw: Buffer,
	): { raw: Buffer; replayed?: PreparedResponse; rule?: FaultRule } {
		let body: Record<string, unknown> = {};
		try {
			body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
		} catch {
			// judged later
		}
		const customerId = String(req.headers['connected-customerid'] ?? body.customerId ?? '');
		const pageNumber = typeof body.pageNumber === 'number' ? body.pageNumber : undefined;
		const rule = faults.draw({ onTheWay: true, operation, customerId, pageNumber });
		const fault = struck(rule);
		const bent = fault?.onTheWay?.({ req, raw, body, rule: fault.rule, answered }) ?? {};
		return { raw: bent.raw ?? raw, replayed: bent.replayed, rule };
	}

	/** The signed answer, ready to write: made when the request arrives, written when its latency is up. */
	function prepare(
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
		const echoed = typeof req.headers['client-id'] === 'string' ? req.headers['client-id'] : clientId;
		const content = Buffer.concat([
			Buffer.from(`${req.method} ${path}\n${echoed}.${responseTime}.`, 'utf8'),
			Buffer.from(body, 'utf8'),
		]);
		const signature = sign('sha256', content, hooks?.partnerKey ? wrongKey : gatewayKey);
		if (hooks?.sentBody) body = hooks.sentBody(body);
		const headers: Record<string, string> = {
			'content-type': 'application/json; charset=UTF-8',
			'response-time': responseTime,
			'client-id': hooks?.clientId ?? echoed,
		};
		if (!(fault && hooks?.unsigned?.(fault.rule))) {
			headers.signature = `algorithm=RSA256,keyVersion=${keyVersion},signature=${encodeURIComponent(signature.toString('base64'))}`;
		}
		const status = fault && hooks?.httpStatus ? hooks.httpStatus(fault.rule) : 200;
		return { status, headers, body, requestBody };
	}

	function verifyRequest(req: IncomingMessage, path: string, raw: Buffer): Answer | undefined {
		const contentType = String(req.headers['content-type'] ?? '');
		if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(contentType)) {
			return {
				status: 'F',
				code: 'PARAM_ILLEGAL',
				message: `Content-Type must be application/json; charset=UTF-8, got "${contentType}"`,
			};
		}
		if (req.headers['client-id'] !== clientId)
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
		if (attrs.get('keyVersion') !== keyVersion) {
			return {
				status: 'F',
				code: 'INVALID_SIGNATURE',
				message: `keyVersion ${attrs.get('keyVersion')} is not registered`,
			};
		}
		const signature = Buffer.from(decodeURIComponent(attrs.get('signature') as string), 'base64');
		const content = Buffer.concat([Buffer.from(`POST ${path}\n${clientId}.${requestTime}.`, 'utf8'), raw]);
		if (!verify('sha256', content, partnerKey, signature))
			return { status: 'F', code: 'INVALID_SIGNATURE', message: 'Signature is invalid' };
		return undefined;
	}

	function listBeneficiaries(req: IncomingMessage, body: Record<string, unknown>): Outcome {
		// Both carriers have the same function (docs/api.md); a request that names two customers is refused.
		const header = req.headers['connected-customerid'];
		if (header !== undefined && body.customerId !== undefined && header !== body.customerId) {
			return {
				answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'Connected-CustomerId and customerId differ' },
			};
		}
		const customerId = String(header ?? body.customerId ?? '');
		const { pageSize, pageNumber } = body;
		if (!Number.isInteger(pageSize) || (pageSize as number) < 1 || (pageSize as number) > PAGE_SIZE_LIMIT) {
			return { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: `pageSize must be 1..${PAGE_SIZE_LIMIT}` } };
		}
		if (!Number.isInteger(pageNumber) || (pageNumber as number) < 1) {
			return { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'pageNumber must be 1 or more' } };
		}
		const rule = faults.draw({ onTheWay: false, operation: 'list', customerId, pageNumber: pageNumber as number });
		const fault = struck(rule);
		const instead = fault?.instead?.(fault.rule, { operation: 'list' });
		if (instead) return { answer: instead, rule };
		if (body.accessToken === 'expired-token')
			return { answer: { status: 'F', code: 'OAUTH_FAIL', message: 'OAuth authentication failed' } };
		const coded = CODE_CUSTOMERS[customerId];
		if (coded) return { answer: { status: coded.status, code: coded.code, message: coded.message } };
		const customer = accounts.customer(customerId);
		if (!customer)
			return { answer: { status: 'F', code: 'USER_NOT_EXIST', message: `User ${customerId} does not exist` } };
		const illegal = checkFilters(body, customer);
		if (illegal) return { answer: illegal };
		const hooks = fault?.list;
		const filtered = !hooks?.ignoresFilters && FILTER_FIELDS.some((field) => body[field] !== undefined);
		const listed = filtered ? customer.beneficiaries.filter((b) => matchesFilters(b, body)) : customer.beneficiaries;
		const matches = fault && hooks?.order ? hooks.order(listed, fault.rule) : listed;
		const size = fault && hooks?.pageSize ? hooks.pageSize(pageSize as number, fault.rule) : (pageSize as number);
		const page = hooks?.pageNumber ? hooks.pageNumber(pageNumber as number) : (pageNumber as number);
		const start = (page - 1) * size;
		const beneficiaries: unknown[] = matches.slice(start, start + size);
		if (fault && hooks?.page) hooks.page(beneficiaries, fault.rule);
		const answer: Answer = {
			status: 'S',
			code: 'SUCCESS',
			message: 'success',
			data: {
				// Unique for the life of the process, as the service's are (a replay is recognised by it).
				responseId: `R${(++responseSerial).toString(36).padStart(8, '0')}${Date.now().toString(36)}`.slice(0, 32),
				beneficiaries,
				totalCount: hooks?.totals?.totalCount ?? matches.length,
				totalPageNumber: hooks?.totals?.totalPageNumber ?? Math.ceil(matches.length / size),
				currentPageNumber: page,
			},
		};
		if (fault && hooks?.afterwards) hooks.afterwards(customer, fault.rule, accounts.bind);
		return { answer, rule };
	}

	function availableQuota(req: IncomingMessage, body: Record<string, unknown>): Outcome {
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
		const record = accounts.quota(method, key);
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

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const arrival = performance.now();
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		let raw: Buffer = Buffer.concat(chunks);
		let wayRule: FaultRule | undefined;
		const url = new URL(req.url ?? '/', 'http://simulator');
		if (req.method === 'GET' && url.pathname === `${basePath}/__stats`) {
			// For the benchmark and the live trigger check: how many API requests came, how many got each fault.
			const byFault: Record<string, number> = {};
			for (const entry of requests) if (entry.fault) byFault[entry.fault] = (byFault[entry.fault] ?? 0) + 1;
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ requests: requests.length, faults: byFault }));
			return;
		}
		if (req.method === 'POST' && url.pathname === `${basePath}/__admin/add-beneficiary`) {
			// For the real-app trigger test: binds a new beneficiary to a customer, as a user would.
			const { customerId = 'CUST_SMALL', referenceBeneficiaryId } = JSON.parse(raw.toString() || '{}');
			const list = sim.beneficiaries(String(customerId));
			const n = list.length + 1;
			const reference = String(referenceBeneficiaryId ?? `REF-BOUND-${n}`);
			const added = {
				...list[0],
				beneficiaryToken: Buffer.from(`token:${reference}`).toString('base64'),
				referenceBeneficiaryId: reference,
				beneficiaryNick: `Newly bound ${n}`,
			};
			list.push(added);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(added));
			return;
		}
		if (req.method === 'POST' && url.pathname.startsWith(`${basePath}/__admin/`)) {
			// For the real-app trigger checks: what a user or the bank does to the account meanwhile.
			const body = JSON.parse(raw.toString() || '{}') as Record<string, unknown>;
			const action = url.pathname.slice(`${basePath}/__admin/`.length);
			const reply = (status: number, value: unknown) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(value));
			};
			try {
				if (action === 'change-bank-details')
					return reply(200, sim.changeBankDetails(String(body.customerId ?? ''), String(body.referenceBeneficiaryId)));
				if (action === 'set-quota') {
					sim.setQuota(String(body.method), String(body.id), body.value as string, body.currency as string | undefined);
					return reply(200, { ok: true });
				}
				if (action === 'add-fault') {
					sim.addFault(body as unknown as FaultRule);
					return reply(200, { ok: true });
				}
				if (action === 'clear-faults') {
					sim.clearFaults();
					return reply(200, { ok: true });
				}
				return reply(404, { error: `no admin action ${action}` });
			} catch (error) {
				return reply(400, { error: (error as Error).message });
			}
		}
		const path = `${url.pathname}${url.search}`;
		const entry: LoggedRequest = { method: req.method ?? '', path, headers: req.headers, body: raw.toString('utf8') };
		requests.push(entry);
		sim.peakInFlight = Math.max(sim.peakInFlight, gate.enter());
		try {
			// Held by holdUntilInFlight, the request is answered as it stands when the gate opens.
			await gate.pass(entry);
			const operation =
				url.pathname === `${basePath}${LIST_PATH}`
					? 'list'
					: url.pathname === `${basePath}${QUOTA_PATH}`
						? 'quota'
						: undefined;
			let result: Outcome;
			if (req.method !== 'POST') {
				result = { answer: { status: 'F', code: 'METHOD_NOT_SUPPORTED', message: `${req.method} is not supported` } };
			} else if (!operation) {
				result = { answer: { status: 'F', code: 'INVALID_API', message: `No API at ${url.pathname}` } };
			} else {
				const way = onTheWay(req, operation, raw);
				raw = way.raw;
				if (way.replayed) {
					entry.fault = way.rule?.fault;
					await gate.leaveAfterLatency(arrival);
					res.writeHead(way.replayed.status, way.replayed.headers);
					res.end(way.replayed.body);
					return;
				}
				wayRule = way.rule;
				const rejected = verifyRequest(req, path, raw);
				let body: unknown;
				try {
					body = rejected ? undefined : JSON.parse(raw.toString('utf8'));
				} catch {
					body = undefined;
				}
				if (rejected) result = { answer: rejected };
				else if (!body || typeof body !== 'object' || Array.isArray(body))
					result = { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'Body is not a JSON object' } };
				else if (operation === 'list') result = listBeneficiaries(req, body as Record<string, unknown>);
				else result = availableQuota(req, body as Record<string, unknown>);
			}
			entry.resultCode = result.answer.code;
			entry.fault = result.rule?.fault ?? wayRule?.fault;
			const prepared = prepare(req, path, result.answer, result.rule, raw.toString('utf8'));
			answered.set(`${req.url}\n${raw.toString('utf8')}`, prepared);
			// The last few answers are enough to replay one; a benchmark's thousands are not kept.
			if (answered.size > 64) answered.delete(answered.keys().next().value as string);
			await gate.leaveAfterLatency(arrival);
			const transport = struck(result.rule)?.transport;
			if (transport) return transport({ req, res, prepared });
			res.writeHead(prepared.status, prepared.headers);
			res.end(prepared.body);
		} finally {
			gate.leave();
		}
	}

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error) => {
			res.writeHead(500, { 'content-type': 'text/plain' });
			res.end(String(error));
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	sim.port = port;
	sim.url = `http://${options.host ?? '127.0.0.1'}:${port}${basePath}`;
	return sim;
}

let responseSerial = 0;

function checkFilters(body: Record<string, unknown>, customer: Customer): Answer | undefined {
	const list = body.currencyList;
	if (list !== undefined) {
		if (!Array.isArray(list)) return { status: 'F', code: 'PARAM_ILLEGAL', message: 'currencyList must be an array' };
		const bad = list.find((c) => customer.unsupportedCurrencies.includes(String(c)));
		if (bad)
			return { status: 'F', code: 'UN_SUPPORT_BUSINESS', message: `Currency ${bad} is not supported for this account` };
	}
	if (body.assetType !== undefined && !['BANK_ACCOUNT', 'WALLET_ACCOUNT'].includes(String(body.assetType))) {
		return { status: 'F', code: 'PARAM_ILLEGAL', message: 'assetType is illegal' };
	}
	if (body.bankAccountIBAN !== undefined && !/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$/.test(String(body.bankAccountIBAN))) {
		return { status: 'F', code: 'PARAM_ILLEGAL', message: 'bankAccountIBAN is illegal' };
	}
	return undefined;
}

const FILTER_FIELDS = [
	'beneficiaryToken',
	'beneficiaryNick',
	'referenceBeneficiaryId',
	'bankAccountNo',
	'bankAccountIBAN',
	'currencyList',
	'assetType',
	'relationFilter',
	'accountName',
];

function fold(text: string): string {
	return text.normalize('NFKC').toLowerCase();
}

function matchesFilters(b: Beneficiary, body: Record<string, unknown>): boolean {
	for (const field of [
		'beneficiaryToken',
		'beneficiaryNick',
		'referenceBeneficiaryId',
		'bankAccountNo',
		'bankAccountIBAN',
	] as const) {
		if (body[field] !== undefined && b[field] !== body[field]) return false;
	}
	if (Array.isArray(body.currencyList) && !body.currencyList.includes(b.currency)) return false;
	if (body.assetType !== undefined && b.assetType !== body.assetType) return false;
	if (
		Array.isArray(body.relationFilter) &&
		!body.relationFilter.some((r) => fold(b.relationType).includes(fold(String(r))))
	)
		return false;
	if (body.accountName !== undefined && !fold(b.accountName).includes(fold(String(body.accountName)))) return false;
	return true;
}
