/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only simulator, not in the published package */
/**
 * The simulator's credential, from one place: its fields (the engine's runs, n8nHost.ts) and the
 * file `n8n import:credentials --input=FILE` reads (`npm run sandbox -- --write-credential FILE`,
 * and the real-app tests' scripts/n8n-app/n8n.mjs, which loads this from .dev-dist/).
 */
import { writeFileSync } from 'node:fs';

import { readSandboxKey, SANDBOX_CLIENT_ID, SANDBOX_KEY_VERSION } from './signing';

/** The fields of a `partnerAccountInquiryApi` credential that talk to a simulator at `baseUrl`. */
export interface SimulatorCredentialData {
	/** `custom`: the Gateway option that takes a Base URL. */
	environment: 'custom';
	baseUrl: string;
	clientId: string;
	privateKey: string;
	servicePublicKey: string;
	keyVersion: string;
}

/** One entry of n8n's credential file (an array of them; n8n encrypts `data` on import). */
export interface CredentialFileEntry {
	id: string;
	name: string;
	type: 'partnerAccountInquiryApi';
	data: SimulatorCredentialData;
}

/**
 * The id and name `--write-credential` gives the credential. The id has n8n's form (16 letters and
 * digits), so that importing the file again replaces it; the name is the one the examples
 * reference, so that `n8n import:workflow --input=examples/<file>.json` links them to it.
 */
export const SIMULATOR_CREDENTIAL = { id: 'PaiSimulatorCred', name: 'Partner Account Inquiry account' } as const;

/** The address n8n reaches the simulator at on `port` (plain http:// is accepted only on loopback). */
export const simulatorBaseUrl = (port: number): string => `http://127.0.0.1:${port}`;

export function simulatorCredentialData(baseUrl: string): SimulatorCredentialData {
	return {
		environment: 'custom',
		baseUrl,
		clientId: SANDBOX_CLIENT_ID,
		privateKey: readSandboxKey('demo-partner-private.pem'),
		servicePublicKey: readSandboxKey('gateway-public.pem'),
		keyVersion: SANDBOX_KEY_VERSION,
	};
}

export function simulatorCredential(
	baseUrl: string,
	{ id, name }: { id: string; name: string } = SIMULATOR_CREDENTIAL,
): CredentialFileEntry {
	return { id, name, type: 'partnerAccountInquiryApi', data: simulatorCredentialData(baseUrl) };
}

/** Writes (or overwrites) `file` with the simulator's credential at `baseUrl`. */
export function writeCredentialFile(file: string, baseUrl: string): CredentialFileEntry {
	const entry = simulatorCredential(baseUrl);
	writeFileSync(file, `${JSON.stringify([entry], null, 2)}\n`);
	return entry;
}
