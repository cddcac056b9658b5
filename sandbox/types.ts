/**
 * The simulator's shapes: what a test starts it with (SimulatorOptions), what it hands back
 * (Simulator), what it logs of each request, and the answer on its way from an endpoint to the wire.
 */
import type { Which } from './accounts';
import type { Beneficiary, QuotaRecord } from './data';
import type { FaultRule } from './faultRules';
import type { FaultKind } from './faults';

export interface LoggedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	resultCode?: string;
	fault?: FaultKind;
	/** When it arrived, and when its answer went (epoch ms, Date.now(): a test's clock moves both). */
	at: number;
	answeredAt?: number;
	/** The client closed the connection before the answer ended (its deadline, an abort): the answer was cut. */
	closedEarly?: boolean;
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
	/** Removes the rules `which` picks (every rule when omitted). */
	clearFaults(which?: (rule: FaultRule) => boolean): void;
	setLatency(ms: number): void;
	/** The account's beneficiaries now (a live list: the next answers show what is done to it). */
	beneficiaries(customerId: string): Beneficiary[];
	/**
	 * Moves a quota: the next answers for that method and ID (for BENEFICIARY "<id>:<tradeType>")
	 * carry this value (minor units). What is omitted keeps its value: without `currency`, the
	 * subject's own (USD for a subject that holds none). Throws, naming the field, for a method,
	 * value or currency the gateway could not answer with. Returns the quota as it now stands.
	 */
	setQuota(method: string, id: string, value?: string | number, currency?: string): QuotaRecord;
	/**
	 * New bank details for the beneficiary with this reference ID (or `which`: its token, for one
	 * bound without), as a bank-account swap makes them: a new account number (and IBAN, where it
	 * had one) and so a new beneficiary token (spec 2.3: the token is ciphertext of the bank
	 * details); its reference ID stays. Returns it.
	 */
	changeBankDetails(customerId: string, which: string | Which): Beneficiary;
	/** Sets fields other than the bank details and the reference ID (a nickname, a status) of one beneficiary; returns it. */
	changeBeneficiary(customerId: string, which: Which, fields: Record<string, unknown>): Beneficiary;
	/** Unbinds one beneficiary of the customer, by its reference ID or its token; returns it (throws when none matches). */
	removeBeneficiary(customerId: string, which: Which): Beneficiary;
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
	/** Back to the start: no held answers, faults or logged requests, the accounts and the latency as started. */
	reset(): void;
	close(): Promise<void>;
}

/** An API result (docs/api.md section 7) and, on success, the fields that go beside it. */
export interface Answer {
	status: 'S' | 'F' | 'U';
	code: string;
	message: string;
	data?: Record<string, unknown>;
}

/** What an endpoint answers, and the fault rule it drew, unless it refused the request before the rule could act. */
export interface Outcome {
	answer: Answer;
	rule?: FaultRule;
}

/** The signed answer, ready to write. */
export interface PreparedResponse {
	status: number;
	headers: Record<string, string>;
	body: string;
	requestBody?: string;
}
