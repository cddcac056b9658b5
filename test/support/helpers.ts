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

/** Get Many Beneficiaries (listBeneficiaries), its parameters as a user sets them. */
export const list = (sim: Simulator, parameters: INodeParameters, extra: RunExtras = {}) =>
	runOperation(sim, 'listBeneficiaries', parameters, extra);

/**
 * The gateway's beneficiaries as the listing outputs them: each as returned, with _listedFor saying
 * whose list it came from: { customerId } as sent, { viaAccessToken: true } when an access token was
 * sent, { ownAccount: true } when neither was (spelled out here, not taken from the node's code).
 */
export function listedAs<T extends object>(
	beneficiaries: readonly T[],
	customerId?: string,
	viaAccessToken = false,
): Array<T & { _listedFor: IDataObject }> {
	const owner: IDataObject = {
		...(customerId !== undefined ? { customerId } : {}),
		...(viaAccessToken ? { viaAccessToken: true } : {}),
	};
	return beneficiaries.map((b) => ({ ...b, _listedFor: Object.keys(owner).length > 0 ? owner : { ownAccount: true } }));
}

export const quota = (sim: Simulator, parameters: INodeParameters, extra: RunExtras = {}) =>
	runOperation(sim, 'getAvailableQuota', parameters, extra);

/** The simulator's quota of service user U-1001, asked for and answered (USD 12,500.00). */
export const QUOTA = { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD' };
export const OK_QUOTA = {
	quotaAccumulationMethod: 'USER_ID',
	quotaAccumulationId: 'U-1001',
	availableQuota: { currency: 'USD', value: '1250000' },
	availableQuotaAmount: 12500,
};

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
