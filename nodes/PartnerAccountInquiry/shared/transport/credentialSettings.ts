import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { resolveBaseUrl } from '../core/api/gateway';
import { ACCESS_TOKEN, CLIENT_ID, KEY_VERSION } from '../core/api/fields';
import { checkHeaderValue } from '../core/api/headerValues';
import { readWholeNumber } from '../core/api/validation';
import { ValidationError } from '../core/errors';

export const CREDENTIAL_TYPE = 'partnerAccountInquiryApi';

export interface PartnerCredentials {
	baseUrl: string;
	clientId: string;
	keyVersion: string;
	privateKey: string;
	servicePublicKey: string;
	responseTimeToleranceSeconds: number;
	/** A customer's OAuth access token, sent with every request of this credential; undefined when none. */
	accessToken?: string;
}

const FIELD_LABELS = { baseUrl: 'Base URL', clientId: 'Client ID', keyVersion: 'Key Version' } as const;

/** PEM armour, or a long Base64 run such as DER keys start with ("MII..."). */
const KEY_MATERIAL = /-----BEGIN|PRIVATE KEY|MII[A-Za-z0-9+/]{60,}/;

/** A key pasted into the wrong field is refused without quoting it back. */
function refuseKeyMaterial(field: keyof typeof FIELD_LABELS, value: string): void {
	if (!KEY_MATERIAL.test(value)) return;
	throw new ValidationError(
		field,
		'no key material',
		`The credential's ${FIELD_LABELS[field]} holds what looks like a key`,
		`Enter the real ${FIELD_LABELS[field]} there; keys go only into Private Key and Service Public Key.`,
		'Its text is not shown.',
	);
}

/** The credential's fields, read once, trimmed and checked, with the gateway resolved to a base URL. */
export function readCredentials(data: ICredentialDataDecryptedObject): PartnerCredentials {
	const baseUrl = String(data.baseUrl ?? '');
	const clientId = String(data.clientId ?? '').trim();
	const keyVersion = String(data.keyVersion ?? '1').trim() || '1';
	refuseKeyMaterial('baseUrl', baseUrl);
	refuseKeyMaterial('clientId', clientId);
	refuseKeyMaterial('keyVersion', keyVersion);
	if (clientId) checkHeaderValue(CLIENT_ID, clientId);
	checkHeaderValue(KEY_VERSION, keyVersion);
	// Sent as the quota call's Access-Token header: a header's rules (and its length) hold for both calls.
	const accessToken = String(data.accessToken ?? '').trim() || undefined;
	if (accessToken) checkHeaderValue(ACCESS_TOKEN, accessToken);
	return {
		baseUrl: resolveBaseUrl(String(data.environment ?? 'sg'), baseUrl),
		clientId,
		keyVersion,
		privateKey: String(data.privateKey ?? ''),
		servicePublicKey: String(data.servicePublicKey ?? ''),
		responseTimeToleranceSeconds: readWholeNumber(
			'responseTimeToleranceSeconds',
			// A credential saved before the field existed has none (or, from some editors, an empty one).
			data.responseTimeToleranceSeconds === '' ? undefined : data.responseTimeToleranceSeconds,
			'Response Time Tolerance',
		),
		...(accessToken ? { accessToken } : {}),
	};
}
