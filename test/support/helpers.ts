import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

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
	});
}

export const list = (sim: Simulator, parameters: INodeParameters, extra: RunExtras = {}) =>
	runOperation(sim, 'listBeneficiaries', parameters, extra);

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
