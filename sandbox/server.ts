/**
 * The local gateway simulator: a real HTTP server on 127.0.0.1 that implements both endpoints of
 * docs/api.md as strictly as the real gateway should. It verifies request signatures over the exact
 * bytes received, validates bodies, and signs every response with its own key. It is the package's
 * rules written again on purpose, independent of its core (it imports nothing of nodes/), so that a
 * mistake in one is caught by the other.
 *
 * This file is the front door: startSimulator puts the parts together, and everything a test,
 * script or tool imports is exported from here. The parts, by job:
 * - http.ts       the HTTP front: a request's way through the stages, the admin routes
 * - gate.ts       in-flight counting, latency, holdUntilInFlight's gate
 * - signing.ts    the check of requests' signatures, the signature of answers, the sandbox keys
 * - list.ts       the beneficiary list endpoint; quota.ts the available quota endpoint
 * - faults.ts     the fault catalogue: one row per fault, its doc and its behaviour
 * - faultRules.ts a fault rule, which request draws it, and the shape of a catalogue row
 * - accounts.ts   the accounts as they stand now (data.ts's data set and what was done to it)
 * - types.ts      the Simulator and its options, the logged request, an answer
 */
import { Accounts } from './accounts';
import { FaultBook } from './faultRules';
import { RequestGate } from './gate';
import { listen } from './http';
import { Signing } from './signing';
import type { LoggedRequest, Simulator, SimulatorOptions } from './types';

export type { FaultRule } from './faultRules';
export type { FaultKind } from './faults';
export type { HeldAnswers, HoldOptions, LoggedRequest, Simulator, SimulatorOptions } from './types';
export { LIST_PATH } from './list';
export { QUOTA_PATH } from './quota';
export { readSandboxKey, SANDBOX_CLIENT_ID, SANDBOX_KEY_VERSION, SANDBOX_KEYS_DIR } from './signing';

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const signing = new Signing(options);
	const basePath = (options.basePath ?? '').replace(/\/+$/, '');
	const gate = new RequestGate(options.latencyMs ?? 0);
	const faults = new FaultBook();
	const accounts = new Accounts();
	const requests: LoggedRequest[] = [];

	const sim: Simulator = {
		url: '',
		port: 0,
		clientId: signing.clientId,
		requests,
		peakInFlight: 0,
		holdUntilInFlight: (count, holdOptions) => gate.hold(count, holdOptions),
		addFault: (rule) => faults.add(rule),
		clearFaults: (which) => faults.clear(which),
		setLatency: (ms) => {
			gate.latencyMs = ms;
		},
		beneficiaries: (customerId) => accounts.beneficiaries(customerId),
		setQuota: (method, id, value, currency) => accounts.setQuota(method, id, value, currency),
		changeBankDetails: (customerId, which) => accounts.changeBankDetails(customerId, which),
		changeBeneficiary: (customerId, which, fields) => accounts.changeBeneficiary(customerId, which, fields),
		removeBeneficiary: (customerId, which) => accounts.removeBeneficiary(customerId, which),
		bindAgain: (customerId, index, fields) => accounts.bindAgain(customerId, index, fields),
		setReference: (customerId, index, reference) => accounts.setReference(customerId, index, reference),
		reuseReference: (customerId, index) => accounts.reuseReference(customerId, index),
		reset: () => {
			// Answers a test left held go now, so that they are not counted in flight in the next test.
			gate.open('the simulator was reset');
			gate.latencyMs = options.latencyMs ?? 0;
			faults.clear();
			requests.length = 0;
			sim.peakInFlight = 0;
			accounts.reset();
		},
		close: () => {
			gate.open('the simulator was closed');
			return front.close();
		},
	};

	const host = options.host ?? '127.0.0.1';
	const front = await listen({ sim, requests, basePath, gate, faults, accounts, signing }, host, options.port ?? 0);
	sim.port = front.port;
	sim.url = `http://${host}:${front.port}${basePath}`;
	return sim;
}
