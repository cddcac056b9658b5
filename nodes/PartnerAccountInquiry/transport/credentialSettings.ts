import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { resolveBaseUrl } from '../core/api/gateway';

export const CREDENTIAL_TYPE = 'partnerAccountInquiryApi';

export interface PartnerCredentials {
	baseUrl: string;
	clientId: string;
	keyVersion: string;
	privateKey: string;
	servicePublicKey: string;
}

/** The credential's fields, read once, trimmed, with the gateway resolved to a base URL. */
export function readCredentials(data: ICredentialDataDecryptedObject): PartnerCredentials {
	return {
		baseUrl: resolveBaseUrl(String(data.environment ?? 'sg'), String(data.baseUrl ?? '')),
		clientId: String(data.clientId ?? '').trim(),
		keyVersion: String(data.keyVersion ?? '1').trim() || '1',
		privateKey: String(data.privateKey ?? ''),
		servicePublicKey: String(data.servicePublicKey ?? ''),
	};
}
