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
import { gzipSync } from 'node:zlib';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

import { CODE_CUSTOMERS, createCustomers, quotaRecord, type Beneficiary, type Customer } from './data';

/** sandbox/keys, whether this runs from the sources (ts-jest) or compiled into .dev-dist/. */
export const SANDBOX_KEYS_DIR = [join(__dirname, 'keys'), join(__dirname, '..', '..', 'sandbox', 'keys')].find((dir) =>
	existsSync(dir),
) as string;
export const SANDBOX_CLIENT_ID = 'SANDBOX_CLIENT_0001';
export const SANDBOX_KEY_VERSION = '1';
export const LIST_PATH = '/amsin/api/v1/business/account/inquiryBeneficiaryList';
export const QUOTA_PATH = '/amsin/api/v1/business/account/inquiryAvailableQuota';

export type FaultKind =
	| 'rateLimit'
	| 'unknownException'
	| 'http429'
	| 'http502'
	| 'http503'
	| 'reset'
	| 'hang'
	| 'alterBody'
	| 'unsigned'
	| 'wrongKey'
	| 'foreignClientId'
	| 'malformedJson'
	| 'totalChanges'
	| 'answer'
	| 'redirect'
	| 'foreignQuota'
	// A genuinely signed answer dated 10 minutes ago, 10 minutes ahead, or with a response-time that is no time.
	| 'staleTime'
	| 'futureTime'
	| 'badTime'
	// Answers that verify but are not about the question, or not of the documented shape.
	| 'ignoreFilters'
	| 'impossibleTotals'
	| 'nonObjectItem'
	| 'quotaMissingField'
	| 'badResultStatus'
	| 'ignorePageNumber'
	| 'lowerPageCap'
	// Bodies that never end, or end badly.
	| 'drip'
	| 'huge'
	| 'gzipBomb'
	| 'dropMidBody'
	// Unsigned answers that echo the request (its access token, its beneficiary token) back.
	| 'echoRequest'
	| 'echoInResult'
	// A signed quota failure (ACCOUNT_NOT_EXIST) that names the accumulation ID as sent, as bare
	// digits and in groups of four, and other accounts: hyphenated, letter-prefixed, a spaced IBAN.
	| 'echoAccount'
	// Something on the way (a proxy, a misconfigured gateway in front of a sandbox) drops the
	// Connected-CustomerId header, or rewrites the customer wherever it travels (header or body;
	// rewriting the body breaks the request's signature).
	| 'dropCustomerHeader'
	| 'rewriteCustomer'
	// Right after answering this request, one beneficiary is unbound (at \`position\`, default 0)
	// and another bound at the end: the total stays the same, the pages after it shift.
	| 'swapBeneficiary'
	// Right after answering this request, one beneficiary is bound at the end of the list (a
	// list that keeps growing beyond the pages a Limit reads).
	| 'growTail'
	// The entries at \`position\` and the next, served in the other order (as a sort with a tie may
	// at each request); the list itself does not change. With \`every: 2\`, every other request.
	| 'swapOrder'
	// The answer of the last identical request, served again byte for byte (a replay within the
	// freshness window): a genuine signature and a fresh enough time.
	| 'replay';

export interface FaultRule {
	fault: FaultKind;
	operation?: 'list' | 'quota';
	customerId?: string;
	/** Only quota requests for this accumulation ID (one subject of a trigger watching many). */
	accumulationId?: string;
	pageNumber?: number;
	/** How many matching requests get the fault; unlimited when omitted. */
	times?: number;
	/** Only every Nth matching request gets the fault (the Nth, the 2Nth, ...). */
	every?: number;
	/** For fault 'answer': the result to answer with (any section 7 code). */
	answer?: { status: 'S' | 'F' | 'U'; code: string; message: string };
	/** For fault 'answer': send it without a signature header. */
	unsigned?: boolean;
	/** For fault 'answer': the HTTP status to send it with (200 when omitted). */
	httpStatus?: number;
	/** For fault 'lowerPageCap': the most beneficiaries the gateway puts on a page. */
	pageCap?: number;
	/** For fault 'quotaMissingField': the field left out of the quota answer. */
	field?: string;
	/** For fault 'nonObjectItem': what stands in for the first beneficiary. */
	item?: unknown;
	/** For fault 'swapBeneficiary': the index of the beneficiary unbound (default 0); for 'swapOrder', the first of the two. */
	position?: number;
	/** For fault 'rewriteCustomer': the customer the request is turned into. */
	to?: string;
}

export interface LoggedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	resultCode?: string;
	fault?: FaultKind;
}

export interface SimulatorOptions {
	host?: string;
	port?: number;
	clientId?: string;
	keyVersion?: string;
	/** The partner public key registered with the simulator (PEM). */
	partnerPublicKey?: string;
	/** The simulator's own private key, which signs responses (PEM). */
	gatewayPrivateKey?: string;
	/** Added before every answer, to model a distant gateway. */
	latencyMs?: number;
	/** A path prefix, as a gateway behind a reverse proxy has (e.g. "/gw"). */
	basePath?: string;
}

export interface HoldOptions {
	/** Which answers wait (all by default); the others still count as in flight. */
	holds?: (request: LoggedRequest) => boolean;
	/** The longest the answers wait for the count (5 s by default). */
	timeoutMs?: number;
}

export interface HeldAnswers {
	/** Resolves when `count` requests were in flight at once; rejects if the wait ran out or was released first. */
	reached: Promise<void>;
	release(): void;
}

export interface Simulator {
	url: string;
	port: number;
	clientId: string;
	requests: LoggedRequest[];
	peakInFlight: number;
	/**
	 * For tests of concurrency, so that no assertion depends on timing: from now on the answers to
	 * the requests `holds` picks (every request by default) are held back until `count` requests
	 * are in flight at once, and then all go together (once; later requests are not held). If that
	 * many never are in flight within `timeoutMs`, the held answers go anyway and `reached` rejects
	 * saying how many were: a run never hangs on the gate. `release` lets them go at once.
	 */
	holdUntilInFlight(count: number, options?: HoldOptions): HeldAnswers;
	addFault(rule: FaultRule): void;
	clearFaults(): void;
	setLatency(ms: number): void;
	/** The account's beneficiaries now (a live list: the next answers show what is done to it). */
	beneficiaries(customerId: string): Beneficiary[];
	/** Moves a quota: the next answers for that method and ID carry this value (minor units). */
	setQuota(method: string, id: string, value: string | number, currency?: string): void;
	/**
	 * New bank details for the beneficiary with this reference ID, as a bank-account swap makes
	 * them: a new account number (and IBAN, where it had one) and so a new beneficiary token (spec
	 * 2.3: the token is ciphertext of the bank details); its reference ID stays. Returns it.
	 */
	changeBankDetails(customerId: string, referenceBeneficiaryId: string): Beneficiary;
	/**
	 * Lists the beneficiary at `index` once more, right after it, with `fields` changed: bound
	 * again under another nickname, or in another currency (the same reference ID and token).
	 */
	bindAgain(customerId: string, index: number, fields: Partial<Beneficiary>): Beneficiary;
	/** Gives the beneficiary at `index` a reference ID, or takes it away (undefined). */
	setReference(customerId: string, index: number, referenceBeneficiaryId: string | undefined): Beneficiary;
	/**
	 * The reference ID of the beneficiary at `index` now carries another payee: another account
	 * name, other bank details, another token. Returns it.
	 */
	reuseReference(customerId: string, index: number): Beneficiary;
	reset(): void;
	close(): Promise<void>;
}

const PAGE_SIZE_LIMIT = 50;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function readSandboxKey(name: string): string {
	return readFileSync(join(SANDBOX_KEYS_DIR, name), 'utf8');
}

interface PreparedResponse {
	status: number;
	headers: Record<string, string>;
	body: string;
	requestBody?: string;
}

interface Answer {
	status: 'S' | 'F' | 'U';
	code: string;
	message: string;
	data?: Record<string, unknown>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const clientId = options.clientId ?? SANDBOX_CLIENT_ID;
	const keyVersion = options.keyVersion ?? SANDBOX_KEY_VERSION;
	const partnerKey: KeyObject = createPublicKey(options.partnerPublicKey ?? readSandboxKey('demo-partner-public.pem'));
	const gatewayKey: KeyObject = createPrivateKey(options.gatewayPrivateKey ?? readSandboxKey('gateway-private.pem'));
	const wrongKey: KeyObject = createPrivateKey(readSandboxKey('demo-partner-private.pem'));
	const basePath = (options.basePath ?? '').replace(/\/+$/, '');
	let latencyMs = options.latencyMs ?? 0;
	let customers = createCustomers();
	let faults: Array<FaultRule & { used: number; seen: number }> = [];
	const sockets = new Set<Socket>();
	const requests: LoggedRequest[] = [];
	let inFlight = 0;
	/** The gate of holdUntilInFlight while it is armed: the answers it holds and what opens it. */
	interface Gate {
		count: number;
		holds: (request: LoggedRequest) => boolean;
		held: Array<() => void>;
		mostInFlight: number;
		/** Lets every held answer go; `failure` says why the count was not reached. */
		open: (failure?: string) => void;
	}
	let gate: Gate | undefined;
	/** Holds this answer while a gate is armed and picks it; the request that makes the gate's count opens it. */
	async function passGate(entry: LoggedRequest): Promise<void> {
		const armed = gate;
		if (!armed) return;
		armed.mostInFlight = Math.max(armed.mostInFlight, inFlight);
		if (inFlight >= armed.count) return armed.open();
		if (armed.holds(entry)) await new Promise<void>((release) => armed.held.push(release));
	}
	let added = 0;
	let bankChanges = 0;
	const quotaOverrides = new Map<string, { value: string | number; currency: string }>();

	const sim: Simulator = {
		url: '',
		port: 0,
		clientId,
		requests,
		peakInFlight: 0,
		holdUntilInFlight: (count, { holds = () => true, timeoutMs = 5_000 } = {}) => {
			gate?.open('another gate replaced it');
			let settle: (failure?: string) => void = () => undefined;
			const reached = new Promise<void>((resolve, reject) => {
				settle = (failure) => (failure === undefined ? resolve() : reject(new Error(failure)));
			});
			// A gate released on purpose, and never awaited, is no unhandled rejection.
			reached.catch(() => undefined);
			const timer = setTimeout(
				() => armed.open(`${count} requests were not in flight at once within ${timeoutMs} ms`),
				timeoutMs,
			);
			timer.unref();
			const armed: Gate = {
				count,
				holds,
				held: [],
				mostInFlight: inFlight,
				open: (failure) => {
					clearTimeout(timer);
					if (gate === armed) gate = undefined;
					for (const release of armed.held.splice(0)) release();
					settle(
						failure &&
							`holdUntilInFlight(${count}): ${failure}; at most ${armed.mostInFlight} were in flight at once, and the held answers went`,
					);
				},
			};
			gate = armed;
			return { reached, release: () => armed.open('released before the count was reached') };
		},
		addFault: (rule) => faults.push({ ...rule, used: 0, seen: 0 }),
		clearFaults: () => {
			faults = [];
		},
		setLatency: (ms) => {
			latencyMs = ms;
		},
		beneficiaries: (customerId) => {
			const customer = customers.get(customerId);
			if (!customer) throw new Error(`no customer ${customerId}`);
			return customer.beneficiaries;
		},
		setQuota: (method, id, value, currency = 'USD') => {
			quotaOverrides.set(`${method}:${id}`, { value, currency });
		},
		changeBankDetails: (customerId, referenceBeneficiaryId) => {
			const beneficiary = sim
				.beneficiaries(customerId)
				.find((b) => b.referenceBeneficiaryId === referenceBeneficiaryId);
			if (!beneficiary) throw new Error(`no beneficiary ${referenceBeneficiaryId} for ${customerId || 'the partner'}`);
			const n = ++bankChanges;
			beneficiary.bankAccountNo = `${String(70000000 + n * 9173)}${String(n).padStart(4, '0')}`;
			if (beneficiary.bankAccountIBAN)
				beneficiary.bankAccountIBAN = `DE89370400440${String(532013000 + n).padStart(9, '0')}`;
			beneficiary.beneficiaryToken = Buffer.from(
				`token:${referenceBeneficiaryId}:${beneficiary.bankAccountNo}`,
			).toString('base64');
			return beneficiary;
		},
		bindAgain: (customerId, index, fields) => {
			const list = sim.beneficiaries(customerId);
			const again = { ...list[index], ...fields };
			list.splice(index + 1, 0, again);
			return again;
		},
		setReference: (customerId, index, referenceBeneficiaryId) => {
			const beneficiary = sim.beneficiaries(customerId)[index];
			if (referenceBeneficiaryId === undefined) delete (beneficiary as Partial<Beneficiary>).referenceBeneficiaryId;
			else beneficiary.referenceBeneficiaryId = referenceBeneficiaryId;
			return beneficiary;
		},
		reuseReference: (customerId, index) => {
			const list = sim.beneficiaries(customerId);
			const n = ++bankChanges;
			const stranger: Beneficiary = {
				...list[index],
				accountName: `Reused Payee ${n} Ltd`,
				beneficiaryNick: `Reused ${n}`,
				bankAccountNo: `${String(80000000 + n * 7919)}${String(n).padStart(4, '0')}`,
				bankAccountIBAN: undefined,
			};
			delete stranger.bankAccountIBAN;
			stranger.beneficiaryToken = Buffer.from(`token:reused:${stranger.bankAccountNo}`).toString('base64');
			list[index] = stranger;
			return stranger;
		},
		reset: () => {
			// Answers a test left held go now, so that they are not counted in flight in the next test.
			gate?.open('the simulator was reset');
			faults = [];
			requests.length = 0;
			sim.peakInFlight = 0;
			customers = createCustomers();
			quotaOverrides.clear();
		},
		close: () =>
			new Promise<void>((resolve) => {
				gate?.open('the simulator was closed');
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};

	let lastRule: FaultRule | undefined;
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
	): { raw: Buffer; replayed?: PreparedResponse; fault?: FaultKind } {
		let body: Record<string, unknown> = {};
		try {
			body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
		} catch {
			// judged later
		}
		const customerId = String(req.headers['connected-customerid'] ?? body.customerId ?? '');
		const pageNumber = typeof body.pageNumber === 'number' ? body.pageNumber : undefined;
		const fault = takeFault(operation, customerId, pageNumber, true);
		if (fault === 'dropCustomerHeader') delete req.headers['connected-customerid'];
		if (fault === 'rewriteCustomer') {
			const to = lastRule?.to ?? 'CUST_LARGE';
			if (req.headers['connected-customerid'] !== undefined) req.headers['connected-customerid'] = to;
			if (body.customerId !== undefined) {
				raw = Buffer.from(raw.toString('utf8').replace(/"customerId":"[^"]*"/, `"customerId":${JSON.stringify(to)}`));
			}
		}
		const replayed = fault === 'replay' ? answered.get(`${req.url}\n${raw.toString('utf8')}`) : undefined;
		return { raw, replayed, fault };
	}

	function takeFault(
		operation: 'list' | 'quota',
		customerId: string,
		pageNumber?: number,
		onTheWay = false,
		accumulationId?: string,
	): FaultKind | undefined {
		for (const rule of faults) {
			if (ON_THE_WAY.includes(rule.fault) !== onTheWay) continue;
			if (rule.accumulationId !== undefined && rule.accumulationId !== accumulationId) continue;
			if (rule.operation && rule.operation !== operation) continue;
			if (rule.customerId !== undefined && rule.customerId !== customerId) continue;
			if (rule.pageNumber !== undefined && rule.pageNumber !== pageNumber) continue;
			if (rule.times !== undefined && rule.used >= rule.times) continue;
			if (rule.every !== undefined && ++rule.seen % rule.every !== 0) continue;
			rule.used++;
			lastRule = rule;
			return rule.fault;
		}
		return undefined;
	}

	/** The signed answer, ready to write: made when the request arrives, written when its latency is up. */
	function prepare(
		req: IncomingMessage,
		path: string,
		answer: Answer,
		fault: FaultKind | undefined,
		requestBody: string,
	): PreparedResponse {
		const payload = {
			result: {
				resultStatus: fault === 'badResultStatus' ? 'X' : fault === 'echoInResult' ? 'F' : answer.status,
				resultCode: fault === 'echoInResult' ? 'PARAM_ILLEGAL' : answer.code,
				resultMessage: fault === 'echoInResult' ? `Illegal request: ${echo(req, requestBody)}` : answer.message,
			},
			...(fault === 'echoInResult' ? {} : answer.data),
		};
		let body = JSON.stringify(payload);
		if (fault === 'malformedJson') body = body.slice(0, Math.floor(body.length / 2));
		const shift = fault === 'staleTime' ? -600_000 : fault === 'futureTime' ? 600_000 : 0;
		const responseTime =
			fault === 'badTime'
				? 'x'
				: new Date(Math.floor(Date.now() / 1000) * 1000 + 8 * 3_600_000 + shift)
						.toISOString()
						.replace('.000Z', '+08:00');
		// The gateway answers the client that called, as that client: it echoes Client-Id and signs over it.
		const echoed = typeof req.headers['client-id'] === 'string' ? req.headers['client-id'] : clientId;
		const content = Buffer.concat([
			Buffer.from(`${req.method} ${path}\n${echoed}.${responseTime}.`, 'utf8'),
			Buffer.from(body, 'utf8'),
		]);
		const signature = sign('sha256', content, fault === 'wrongKey' ? wrongKey : gatewayKey);
		if (fault === 'alterBody')
			body = body.replace(/"value":"?(\d)/, (m, d) => m.replace(d, String((Number(d) + 1) % 10)));
		if (fault === 'alterBody' && !/"value"/.test(body)) body = body.replace('"resultMessage":"', '"resultMessage":"!');
		const headers: Record<string, string> = {
			'content-type': 'application/json; charset=UTF-8',
			'response-time': responseTime,
			'client-id': fault === 'foreignClientId' ? 'SOMEONE_ELSE_9999' : echoed,
		};
		if (fault !== 'unsigned' && fault !== 'echoInResult' && !(fault === 'answer' && lastRule?.unsigned)) {
			headers.signature = `algorithm=RSA256,keyVersion=${keyVersion},signature=${encodeURIComponent(signature.toString('base64'))}`;
		}
		return { status: fault === 'answer' ? (lastRule?.httpStatus ?? 200) : 200, headers, body, requestBody };
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

	function listBeneficiaries(
		req: IncomingMessage,
		body: Record<string, unknown>,
	): { answer: Answer; fault?: FaultKind } {
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
		const fault = takeFault('list', customerId, pageNumber as number);
		const faultAnswer = fault === 'answer' ? lastRule?.answer : faultResult(fault);
		if (faultAnswer) return { answer: faultAnswer, fault };
		if (body.accessToken === 'expired-token')
			return { answer: { status: 'F', code: 'OAUTH_FAIL', message: 'OAuth authentication failed' } };
		const coded = CODE_CUSTOMERS[customerId];
		if (coded) return { answer: { status: coded.status, code: coded.code, message: coded.message } };
		const customer = customers.get(customerId);
		if (!customer)
			return { answer: { status: 'F', code: 'USER_NOT_EXIST', message: `User ${customerId} does not exist` } };
		const illegal = checkFilters(body, customer);
		if (illegal) return { answer: illegal };
		const filtered = fault !== 'ignoreFilters' && FILTER_FIELDS.some((field) => body[field] !== undefined);
		const listed = filtered ? customer.beneficiaries.filter((b) => matchesFilters(b, body)) : customer.beneficiaries;
		// Two entries that sort alike, served in the other order (the list itself unchanged).
		const at = lastRule?.position ?? 0;
		const matches =
			fault === 'swapOrder' ? [...listed.slice(0, at), listed[at + 1], listed[at], ...listed.slice(at + 2)] : listed;
		const size =
			fault === 'lowerPageCap' ? Math.min(pageSize as number, lastRule?.pageCap ?? 20) : (pageSize as number);
		const page = fault === 'ignorePageNumber' ? 1 : (pageNumber as number);
		const start = (page - 1) * size;
		const beneficiaries: unknown[] = matches.slice(start, start + size);
		if (fault === 'nonObjectItem')
			beneficiaries[0] = lastRule && 'item' in lastRule ? lastRule.item : 'not a beneficiary';
		const answer: Answer = {
			status: 'S',
			code: 'SUCCESS',
			message: 'success',
			data: {
				// Unique for the life of the process, as the service's are (a replay is recognised by it).
				responseId: `R${(++responseSerial).toString(36).padStart(8, '0')}${Date.now().toString(36)}`.slice(0, 32),
				beneficiaries,
				totalCount: fault === 'impossibleTotals' ? 0 : matches.length,
				totalPageNumber: fault === 'impossibleTotals' ? 0 : Math.ceil(matches.length / size),
				currentPageNumber: page,
			},
		};
		/** A new beneficiary like `model`, named by `label` and a serial: what a fault binds while the list is read. */
		const bound = (model: Beneficiary, label: string, nick: string): Beneficiary => {
			added++;
			return {
				...model,
				beneficiaryToken: Buffer.from(`token:${label}-${added}`).toString('base64'),
				referenceBeneficiaryId: `REF-${label}-${added}`,
				beneficiaryNick: `${nick} ${added}`,
			};
		};
		if (fault === 'swapBeneficiary') {
			const [gone] = customer.beneficiaries.splice(lastRule?.position ?? 0, 1);
			customer.beneficiaries.push(bound(gone, 'SWAPPED-IN', 'Bound while read'));
		}
		if (fault === 'growTail') customer.beneficiaries.push(bound(customer.beneficiaries[0], 'TAIL', 'Bound at the end'));
		if (fault === 'totalChanges')
			customer.beneficiaries.unshift(bound(customer.beneficiaries[0], 'NEW', 'New beneficiary'));
		return { answer, fault };
	}

	function availableQuota(req: IncomingMessage, body: Record<string, unknown>): { answer: Answer; fault?: FaultKind } {
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
		const fault = takeFault('quota', String(req.headers['connected-accountid'] ?? ''), undefined, false, id);
		const faultAnswer = fault === 'answer' ? lastRule?.answer : faultResult(fault);
		if (faultAnswer) return { answer: faultAnswer, fault };
		if (fault === 'echoAccount') {
			const digits = id.replace(/\D/g, '');
			const message = `Account ${id} (${digits}, ${digits.replace(/(\d{4})(?=\d)/g, '$1 ')}) does not exist; linked accounts 6222-0212-3456-7890, VA00123456 and GB29 NWBK 6016 1331 9268 19`;
			return { answer: { status: 'F', code: 'ACCOUNT_NOT_EXIST', message }, fault };
		}
		if (req.headers['access-token'] === 'expired-token')
			return { answer: { status: 'F', code: 'OAUTH_FAIL', message: 'OAuth authentication failed' } };
		if (req.headers['connected-accountid'] === 'ACC_MISSING') {
			return { answer: { status: 'F', code: 'ACCOUNT_NOT_EXIST', message: 'Connected account does not exist' } };
		}
		const key = method === 'BENEFICIARY' ? `${id}:${body.tradeType}` : id;
		const record = quotaOverrides.get(`${method}:${key}`) ?? quotaRecord(method, key);
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
			...(fault === 'foreignQuota' ? { quotaAccumulationId: `${id}-SOMEONE-ELSE` } : {}),
			...(method === 'BENEFICIARY' ? { tradeType: body.tradeType } : {}),
		};
		if (fault === 'quotaMissingField') delete data[lastRule?.field ?? 'quotaAccumulationId'];
		return { answer: { status: 'S', code: 'SUCCESS', message: 'success', data }, fault };
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const arrival = performance.now();
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		let raw: Buffer = Buffer.concat(chunks);
		let wayFault: FaultKind | undefined;
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
		inFlight++;
		sim.peakInFlight = Math.max(sim.peakInFlight, inFlight);
		try {
			// Held by holdUntilInFlight, the request is answered as it stands when the gate opens.
			await passGate(entry);
			// The answer is made (and signed) on arrival and leaves `latencyMs` after it: the injected
			// latency is the whole round trip the client sees, not latency plus the simulator's own work.
			const operation =
				url.pathname === `${basePath}${LIST_PATH}`
					? 'list'
					: url.pathname === `${basePath}${QUOTA_PATH}`
						? 'quota'
						: undefined;
			let result: { answer: Answer; fault?: FaultKind };
			if (req.method !== 'POST') {
				result = { answer: { status: 'F', code: 'METHOD_NOT_SUPPORTED', message: `${req.method} is not supported` } };
			} else if (!operation) {
				result = { answer: { status: 'F', code: 'INVALID_API', message: `No API at ${url.pathname}` } };
			} else {
				const way = onTheWay(req, operation, raw);
				raw = way.raw;
				if (way.replayed) {
					entry.fault = way.fault;
					if (latencyMs > 0) await delayUntil(arrival + latencyMs);
					res.writeHead(way.replayed.status, way.replayed.headers);
					res.end(way.replayed.body);
					return;
				}
				wayFault = way.fault;
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
			entry.fault = result.fault ?? wayFault;
			const prepared = prepare(req, path, result.answer, result.fault, raw.toString('utf8'));
			answered.set(`${req.url}\n${raw.toString('utf8')}`, prepared);
			// The last few answers are enough to replay one; a benchmark's thousands are not kept.
			if (answered.size > 64) answered.delete(answered.keys().next().value as string);
			if (latencyMs > 0) await delayUntil(arrival + latencyMs);
			if (transportFault(result.fault, req, res, prepared)) return;
			res.writeHead(prepared.status, prepared.headers);
			res.end(prepared.body);
		} finally {
			inFlight--;
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

/**
 * Waits until `due` (performance.now() time). A plain setTimeout overshoots by a millisecond or
 * two, which over 200 pages would be blamed on the client: the timer wakes a little early and the
 * last stretch yields to the event loop until the exact moment.
 */
async function delayUntil(due: number): Promise<void> {
	const early = due - performance.now() - 2;
	if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
	while (performance.now() < due) await new Promise((resolve) => setImmediate(resolve));
}

function faultResult(fault: FaultKind | undefined): Answer | undefined {
	if (fault === 'rateLimit')
		return { status: 'U', code: 'REQUEST_TRAFFIC_EXCEED_LIMIT', message: 'Request traffic exceeds the limit' };
	if (fault === 'unknownException')
		return { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' };
	return undefined;
}

/** The request as a careless gateway echoes it in an error: the access token first, then the body and every header. */
function echo(req: IncomingMessage, body: string): string {
	return `access token ${String(req.headers['access-token'] ?? '')}; body ${body}; headers ${JSON.stringify(req.headers)}`;
}

let responseSerial = 0;

/** Faults that happen to the request on its way, before the gateway sees it. */
const ON_THE_WAY: readonly FaultKind[] = ['dropCustomerHeader', 'rewriteCustomer', 'replay'];

let gzipBomb: Buffer | undefined;

/** Faults below the API: HTTP errors with an HTML body, a reset connection, no answer at all, bodies that never end well. */
function transportFault(
	fault: FaultKind | undefined,
	req: IncomingMessage,
	res: ServerResponse,
	prepared: PreparedResponse,
): boolean {
	switch (fault) {
		case 'drip': {
			// The headers at once, then one byte every 200 ms: an idle timeout never fires.
			res.writeHead(prepared.status, prepared.headers);
			const bytes = Buffer.from(prepared.body, 'utf8');
			let sent = 0;
			const timer = setInterval(() => {
				if (res.destroyed || sent >= bytes.length) {
					clearInterval(timer);
					if (!res.destroyed) res.end();
					return;
				}
				res.write(bytes.subarray(sent, sent + 1));
				sent++;
			}, 200);
			res.on('close', () => clearInterval(timer));
			return true;
		}
		case 'huge': {
			// A signed-looking answer that never ends: 64 KiB chunks for as long as the client reads.
			res.writeHead(200, prepared.headers);
			const chunk = Buffer.alloc(64 * 1024, 0x20);
			const pump = () => {
				while (!res.destroyed && res.write(chunk));
			};
			res.on('drain', pump);
			pump();
			return true;
		}
		case 'gzipBomb': {
			// 64 KiB on the wire that inflate to 64 MiB.
			gzipBomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
			res.writeHead(200, {
				...prepared.headers,
				'content-encoding': 'gzip',
				'content-length': String(gzipBomb.length),
			});
			res.end(gzipBomb);
			return true;
		}
		case 'dropMidBody': {
			res.writeHead(prepared.status, {
				...prepared.headers,
				'content-length': String(Buffer.byteLength(prepared.body)),
			});
			res.write(prepared.body.slice(0, Math.floor(prepared.body.length / 2)), () => res.socket?.destroy());
			return true;
		}
		case 'echoRequest':
			res.writeHead(400, { 'content-type': 'text/plain' });
			res.end(`Bad request: ${echo(req, prepared.requestBody ?? '')}`);
			return true;
		case 'http429':
		case 'http502':
		case 'http503': {
			const status = Number(fault.slice(4));
			res.writeHead(status, { 'content-type': 'text/html', ...(status === 429 ? { 'retry-after': '1' } : {}) });
			res.end(`<html><body><h1>${status}</h1><p>upstream unavailable</p></body></html>`);
			return true;
		}
		case 'reset':
			res.socket?.destroy();
			return true;
		case 'hang':
			return true;
		case 'redirect':
			res.writeHead(307, {
				location: `http://127.0.0.1:${(res.socket?.localPort ?? 80) as number}/elsewhere${req.url ?? ''}`,
			});
			res.end();
			return true;
		default:
			return false;
	}
}

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
