/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only simulator, not in the published package */
/**
 * The simulator's HTTP front: reads each request whole, answers the admin routes, and takes an API
 * request through its stages: logged and counted in flight (the gate), faults on the way, the
 * signature check, the endpoint, the signed answer, the latency, then the wire (or a transport
 * fault). It also keeps the last answers, for the 'replay' fault.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import type { Accounts } from './accounts';
import type { FaultBook, FaultRule } from './faultRules';
import { FAULTS, struck } from './faults';
import type { RequestGate } from './gate';
import { LIST_PATH, listBeneficiaries } from './list';
import { QUOTA_PATH, availableQuota } from './quota';
import type { Signing } from './signing';
import type { LoggedRequest, Outcome, PreparedResponse, Simulator } from './types';

/** The parts of one simulator the front drives. */
export interface Parts {
	sim: Simulator;
	/** The log of API requests (the simulator's `requests`). */
	requests: LoggedRequest[];
	basePath: string;
	gate: RequestGate;
	faults: FaultBook;
	accounts: Accounts;
	signing: Signing;
}

export interface Front {
	port: number;
	/** Cuts every open connection and stops listening. */
	close(): Promise<void>;
}

export async function listen(parts: Parts, host: string, port: number): Promise<Front> {
	const { sim, requests, basePath, gate, faults, accounts, signing } = parts;
	const sockets = new Set<Socket>();
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

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const arrival = performance.now();
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		let raw: Buffer = Buffer.concat(chunks);
		let wayRule: FaultRule | undefined;
		const url = new URL(req.url ?? '/', 'http://simulator');
		if (admin(req, res, url, raw, parts)) return;
		const path = `${url.pathname}${url.search}`;
		const entry: LoggedRequest = {
			method: req.method ?? '',
			path,
			headers: req.headers,
			body: raw.toString('utf8'),
			at: Date.now(),
		};
		requests.push(entry);
		res.on('close', () => {
			if (!res.writableFinished) entry.closedEarly = true;
		});
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
				const rejected = signing.checkRequest(req, path, raw);
				let body: unknown;
				try {
					body = rejected ? undefined : JSON.parse(raw.toString('utf8'));
				} catch {
					body = undefined;
				}
				if (rejected) result = { answer: rejected };
				else if (!body || typeof body !== 'object' || Array.isArray(body))
					result = { answer: { status: 'F', code: 'PARAM_ILLEGAL', message: 'Body is not a JSON object' } };
				else if (operation === 'list')
					result = listBeneficiaries(req, body as Record<string, unknown>, faults, accounts);
				else result = availableQuota(req, body as Record<string, unknown>, faults, accounts);
			}
			entry.resultCode = result.answer.code;
			entry.fault = result.rule?.fault ?? wayRule?.fault;
			const prepared = signing.prepare(req, path, result.answer, result.rule, raw.toString('utf8'));
			answered.set(`${req.url}\n${raw.toString('utf8')}`, prepared);
			// The last few answers are enough to replay one; a benchmark's thousands are not kept.
			if (answered.size > 64) answered.delete(answered.keys().next().value as string);
			await gate.leaveAfterLatency(arrival);
			entry.answeredAt = Date.now();
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
	// A port in use (EADDRINUSE) rejects, instead of an 'error' event nobody listens to.
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	return {
		port: (server.address() as AddressInfo).port,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

/** The routes beside the API (under `basePath`), for the benchmark and the real-app checks; false when it is none of them. */
function admin(
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
	raw: Buffer,
	{ sim, requests, basePath }: Parts,
): boolean {
	const reply = (status: number, value: unknown): true => {
		res.writeHead(status, { 'content-type': 'application/json' });
		res.end(JSON.stringify(value));
		return true;
	};
	if (req.method === 'GET' && url.pathname === `${basePath}/__stats`) {
		// For the benchmark and the live trigger check: how many API requests came, how many got each fault.
		const byFault: Record<string, number> = {};
		for (const entry of requests) if (entry.fault) byFault[entry.fault] = (byFault[entry.fault] ?? 0) + 1;
		return reply(200, { requests: requests.length, faults: byFault });
	}
	if (!(req.method === 'POST' && url.pathname.startsWith(`${basePath}/__admin/`))) return false;
	// What a user or the bank does to the accounts meanwhile, and the faults: for the real-app
	// trigger checks and by hand (docs/simulator.md). A mistake is a 400 naming the field.
	const action = url.pathname.slice(`${basePath}/__admin/`.length);
	try {
		const body = parsedObject(raw);
		if (!body) throw new Error('the body is not a JSON object: send one, as -d \'{"customerId":"CUST_SMALL"}\'');
		const text = (field: string): string | undefined => (body[field] === undefined ? undefined : String(body[field]));
		const which = {
			referenceBeneficiaryId: text('referenceBeneficiaryId'),
			beneficiaryToken: text('beneficiaryToken'),
		};
		if (action === 'add-beneficiary') {
			// Binds a new beneficiary to a customer (CUST_SMALL by default), as a user would.
			const list = sim.beneficiaries(text('customerId') ?? 'CUST_SMALL');
			const n = list.length + 1;
			const reference = text('referenceBeneficiaryId') ?? `REF-BOUND-${n}`;
			const added = {
				...list[0],
				beneficiaryToken: Buffer.from(`token:${reference}`).toString('base64'),
				referenceBeneficiaryId: reference,
				beneficiaryNick: `Newly bound ${n}`,
			};
			list.push(added);
			return reply(200, added);
		}
		if (action === 'change-bank-details') return reply(200, sim.changeBankDetails(text('customerId') ?? '', which));
		if (action === 'change-beneficiary') {
			const set = body.set;
			if (typeof set !== 'object' || set === null || Array.isArray(set))
				throw new Error('set is required: the fields to change, as "set":{"beneficiaryNick":"Renamed"}');
			return reply(200, sim.changeBeneficiary(text('customerId') ?? '', which, set as Record<string, unknown>));
		}
		if (action === 'remove-beneficiary') return reply(200, sim.removeBeneficiary(text('customerId') ?? '', which));
		if (action === 'set-quota') {
			const method = text('method');
			if (method === undefined)
				throw new Error('method is required: USER_ID, RECEIVING_ACCOUNT, VIRTUAL_ACCOUNT or BENEFICIARY');
			const tradeType = text('tradeType');
			if (tradeType !== undefined && (method !== 'BENEFICIARY' || !['GOODS', 'SERVICE'].includes(tradeType)))
				throw new Error(`tradeType "${tradeType}" is only for method BENEFICIARY, as GOODS or SERVICE`);
			const id = text('id') ?? '';
			if (method === 'BENEFICIARY' && tradeType === undefined && !/:(GOODS|SERVICE)$/.test(id))
				throw new Error('tradeType is required for method BENEFICIARY: GOODS or SERVICE');
			const key = tradeType === undefined ? id : `${id}:${tradeType}`;
			// A managed customer's quota (the Connected-AccountId it is asked with) is its own.
			const account = text('connectedAccountId');
			const quota = sim.setQuota(
				method,
				account ? `${account}/${key}` : key,
				body.value as string | number | undefined,
				body.currency as string | undefined,
			);
			return reply(200, {
				ok: true,
				method,
				id,
				...(tradeType ? { tradeType } : {}),
				...(account ? { connectedAccountId: account } : {}),
				...quota,
			});
		}
		if (action === 'add-fault') {
			if (!Object.hasOwn(FAULTS, String(body.fault)))
				throw new Error(
					`fault ${JSON.stringify(body.fault)} is not in the catalogue: give one of ${Object.keys(FAULTS).join(', ')}`,
				);
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

/** The admin body: a JSON object (none: an empty one), or undefined when it is not one. */
function parsedObject(raw: Buffer): Record<string, unknown> | undefined {
	let value: unknown;
	try {
		value = JSON.parse(raw.toString() || '{}');
	} catch {
		return undefined;
	}
	return typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}
