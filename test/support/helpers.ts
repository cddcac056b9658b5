import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { PartnerAccountInquiryApi } from '../../credentials/PartnerAccountInquiryApi.credentials';
import { PartnerAccountInquiry } from '../../nodes/PartnerAccountInquiry/PartnerAccountInquiry.node';

import { runNode, sandboxCredentials, type NodeRun, type RunNodeOptions } from '../../sandbox/engine';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../sandbox/server';

/** One simulator per test file, reset before each test. */
export function useSimulator(options: SimulatorOptions = {}): { sim: () => Simulator } {
	let sim: Simulator | undefined;
	beforeAll(async () => {
		sim = await startSimulator(options);
	});
	beforeEach(() => sim?.reset());
	afterAll(async () => {
		await sim?.close();
	});
	return { sim: () => sim as Simulator };
}

export interface RunExtras {
	items?: IDataObject[];
	/** The node and credential types (watchedNode's), instead of the package's own. */
	nodeType?: INodeType;
	credentialType?: ICredentialType;
	continueOnFail?: boolean;
	onError?: RunNodeOptions['onError'];
	typeVersion?: number;
	credentials?: ICredentialDataDecryptedObject;
	cancelAfterMs?: number;
}

async function runOperation(
	sim: Simulator,
	operation: string,
	parameters: INodeParameters,
	extra: RunExtras,
): Promise<NodeRun> {
	return await runNode({
		parameters: { operation, ...parameters },
		credentials: { ...sandboxCredentials(sim.url), ...extra.credentials },
		items: extra.items,
		continueOnFail: extra.continueOnFail,
		onError: extra.onError,
		typeVersion: extra.typeVersion,
		cancelAfterMs: extra.cancelAfterMs,
		nodeType: extra.nodeType,
		credentialType: extra.credentialType,
	});
}

/**
 * Get Many Beneficiaries (listBeneficiaries), its parameters as a user sets them, the items whole
 * (Simplify and Mask Bank Details off) unless the test sets them: most tests are about what the
 * gateway answered. The defaults are tested as such (listAsSet) in whoseAccount.test.ts and maskBankDetails.test.ts.
 */
export const list = (sim: Simulator, parameters: INodeParameters, extra: RunExtras = {}) =>
	runOperation(
		sim,
		'listBeneficiaries',
		{
			simplify: false,
			...parameters,
			options: { maskBankDetails: false, ...(parameters.options as IDataObject | undefined) },
		},
		extra,
	);

/** Get Many Beneficiaries with only the parameters the test gives: the node's own defaults for the rest (Simplify and Mask Bank Details on). */
export const listAsSet = (sim: Simulator, parameters: INodeParameters, extra: RunExtras = {}) =>
	runOperation(sim, 'listBeneficiaries', parameters, extra);

/**
 * The gateway's beneficiaries as the listing outputs them whole: each as returned, after
 * `whoseAccount` (`own` or the customer's ID as sent), spelled out here, not taken from the node's code.
 */
export function listedAs<T extends object>(
	beneficiaries: readonly T[],
	whose = 'own',
): Array<{ whoseAccount: string } & T> {
	return beneficiaries.map((b) => ({ whoseAccount: whose, ...b }));
}

export const quota = (sim: Simulator, parameters: INodeParameters, extra: RunExtras = {}) =>
	runOperation(sim, 'getAvailableQuota', parameters, extra);

/** The simulator's quota of service user U-1001, asked for and answered (USD 12,500.00). */
export const QUOTA = { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD' };
export const OK_QUOTA = {
	whoseAccount: 'own',
	subject: 'own USER_ID U-1001 USD',
	quotaAccumulationMethod: 'USER_ID',
	quotaAccumulationId: 'U-1001',
	availableQuota: { currency: 'USD', value: '1250000' },
	availableQuotaAmount: 12500,
};

/**
 * A trigger's refused set (Customer IDs or Quotas): n8n's title counts the bad entries ("Quotas has
 * 1 bad entry"), its description lists them ("row 1: ...; line 3: ...") and ends with this hint.
 */
export const SET_HINT = 'Correct them: nothing is watched until every entry is valid. Nothing was sent.';
/** The description of a refused set whose bad entries are `entries` ("row 1: ...; line 2: ..."). */
export const setRefusal = (entries: string) => `${entries}. ${SET_HINT}`;

/**
 * Waits until `condition` holds, looking every 10 ms (failing after `timeoutMs`, saying `what`):
 * for something the simulator sees after the run returns (a connection the node closed).
 */
export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
	for (let waitedMs = 0; !condition(); waitedMs += 10) {
		if (waitedMs >= timeoutMs) throw new Error(`${what}: not seen in ${timeoutMs} ms`);
		await sleep(10);
	}
}

/**
 * The action node and its credential, watched: `executeEnded` settles when the node's own execute
 * has ended (n8n ends a cancelled run at once, whatever the node still does), and `signed()`
 * counts the requests the credential signed (every attempt the node made, arrived or not).
 */
export function watchedNode(): {
	nodeType: INodeType;
	credentialType: ICredentialType;
	executeEnded: Promise<void>;
	signed: () => number;
} {
	const node = new PartnerAccountInquiry();
	const credential = new PartnerAccountInquiryApi();
	let ended = () => {};
	const executeEnded = new Promise<void>((resolve) => (ended = resolve));
	let signed = 0;
	const nodeType = Object.assign(Object.create(node) as INodeType, {
		async execute(this: IExecuteFunctions) {
			try {
				return await node.execute.call(this);
			} finally {
				ended();
			}
		},
	});
	const authenticate = credential.authenticate as (
		credentials: ICredentialDataDecryptedObject,
		options: IHttpRequestOptions,
	) => Promise<IHttpRequestOptions>;
	const credentialType = Object.assign(Object.create(credential) as ICredentialType, {
		authenticate: async (credentials: ICredentialDataDecryptedObject, options: IHttpRequestOptions) => {
			signed++;
			return await authenticate(credentials, options);
		},
	});
	return { nodeType, credentialType, executeEnded, signed: () => signed };
}
