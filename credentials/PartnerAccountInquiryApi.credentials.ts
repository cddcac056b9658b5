import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import {
	ACCESS_TOKEN,
	CLIENT_ID,
	KEY_VERSION,
	NUMBER_OPTIONS,
} from '../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { GATEWAYS } from '../nodes/PartnerAccountInquiry/shared/core/api/gateway';
import { fieldProperty } from '../nodes/PartnerAccountInquiry/shared/properties';
import { signRequestOptions } from '../nodes/PartnerAccountInquiry/shared/transport/authenticate';

const defaultTolerance = NUMBER_OPTIONS.responseTimeToleranceSeconds.default;

/**
 * Its Test is no `test` request here: n8n's declarative test sees only a parsed body, so it could
 * not verify the answer's signature (a wrong Service Public Key passed). Both nodes name a
 * programmatic test instead (`testedBy`: shared/transport/credentialTest.ts), which n8n uses only
 * while the credential has no `test`.
 */
export class PartnerAccountInquiryApi implements ICredentialType {
	name = 'partnerAccountInquiryApi';

	displayName = 'Partner Account Inquiry API';

	icon: Icon = {
		light: 'file:../icons/partnerAccountInquiry.svg',
		dark: 'file:../icons/partnerAccountInquiry.dark.svg',
	};

	documentationUrl = 'https://github.com/partner-account-inquiry/n8n-nodes-partner-account-inquiry#credential';

	properties: INodeProperties[] = [
		{
			displayName: 'Gateway',
			name: 'environment',
			type: 'options',
			default: 'sg',
			options: [
				{ name: `${GATEWAYS.sg.name}: ${GATEWAYS.sg.url}`, value: 'sg' },
				{ name: `${GATEWAYS.eu.name}: ${GATEWAYS.eu.url}`, value: 'eu' },
				{ name: `${GATEWAYS.na.name}: ${GATEWAYS.na.url}`, value: 'na' },
				{ name: 'Custom (Sandbox or Proxy)', value: 'custom' },
			],
			description: 'The region of the WorldFirst and Ant International gateway that serves your account, or a custom base URL',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://sandbox-gateway.example.com',
			required: true,
			displayOptions: { show: { environment: ['custom'] } },
			description:
				'The gateway address with an optional path. Must be https, except for a simulator on this machine (127.0.0.1 or localhost).',
		},
		fieldProperty(CLIENT_ID, { required: true }),
		{
			displayName: 'Private Key',
			name: 'privateKey',
			type: 'string',
			typeOptions: { password: true, rows: 6 },
			default: '',
			required: true,
			placeholder: 'e.g. -----BEGIN PRIVATE KEY----- ...',
			description:
				'Your RSA private key (2048 bits or more) that signs every request: PEM or bare Base64, PKCS#8 or PKCS#1. It never leaves n8n.',
		},
		{
			displayName: 'Service Public Key',
			name: 'servicePublicKey',
			type: 'string',
			typeOptions: { rows: 6 },
			default: '',
			required: true,
			placeholder: 'e.g. -----BEGIN PUBLIC KEY----- ...',
			description:
				"The service's RSA public key, from technical support or the developer centre, that verifies every response: PEM or bare Base64, X.509 (SPKI) or PKCS#1",
		},
		fieldProperty(KEY_VERSION, { default: '1', required: true }),
		{
			displayName: 'Response Time Tolerance',
			name: 'responseTimeToleranceSeconds',
			type: 'number',
			typeOptions: {
				minValue: NUMBER_OPTIONS.responseTimeToleranceSeconds.min,
				maxValue: NUMBER_OPTIONS.responseTimeToleranceSeconds.max,
			},
			default: defaultTolerance,
			description:
				"Seconds an answer's signed time may differ from this host's clock before it is refused as a possible replay. Raise it only for a known clock difference.",
		},
		// A secret: n8n encrypts a credential, never a node parameter. One customer's token, so a
		// credential that holds one is that customer's (api/whoseAccount.ts refuses `own` with it).
		fieldProperty(ACCESS_TOKEN),
	];

	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => await signRequestOptions(credentials, requestOptions);
}
