import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { GATEWAYS, PATHS } from '../nodes/PartnerAccountInquiry/core/api/gateway';
import { signRequestOptions } from '../nodes/PartnerAccountInquiry/transport/authenticate';
import { NUMBER_OPTIONS } from '../nodes/PartnerAccountInquiry/core/api/fields';

const defaultTolerance = NUMBER_OPTIONS.responseTimeToleranceSeconds.default;

export class PartnerAccountInquiryApi implements ICredentialType {
	name = 'partnerAccountInquiryApi';

	displayName = 'Partner Account Inquiry API';

	icon: Icon = {
		light: 'file:partnerAccountInquiry.svg',
		dark: 'file:partnerAccountInquiry.dark.svg',
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
			description: 'The regional gateway your account is served by, or a custom base URL',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://sandbox-gateway.example.com',
			required: true,
			displayOptions: { show: { environment: ['custom'] } },
			description:
				'Scheme, host and optional path of the gateway (a path is part of what is signed). Must be https, except for a simulator on this machine (127.0.0.1 or localhost).',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'The client ID issued to you, sent as the Client-Id header',
		},
		{
			displayName: 'Private Key',
			name: 'privateKey',
			type: 'string',
			typeOptions: { password: true, rows: 6 },
			default: '',
			required: true,
			placeholder: '-----BEGIN PRIVATE KEY----- ...',
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
			placeholder: '-----BEGIN PUBLIC KEY----- ...',
			description:
				"The service's RSA public key, from technical support or the developer centre, that verifies every response: PEM or bare Base64, X.509 (SPKI) or PKCS#1",
		},
		{
			displayName: 'Key Version',
			name: 'keyVersion',
			type: 'string',
			default: '1',
			required: true,
			description:
				'The version of the key pair, sent as keyVersion in the Signature header (the developer centre shows it)',
		},
		{
			displayName: 'Response Time Tolerance (Seconds)',
			name: 'responseTimeToleranceSeconds',
			type: 'number',
			typeOptions: {
				minValue: NUMBER_OPTIONS.responseTimeToleranceSeconds.min,
				maxValue: NUMBER_OPTIONS.responseTimeToleranceSeconds.max,
			},
			default: defaultTolerance,
			description:
				"How far a signed answer's response-time may be from this n8n host's clock, either way. An older (or future-dated) answer is refused as a possible replay. Keep the host's clock synchronised; raise this only for a known clock skew.",
		},
	];

	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => await signRequestOptions(credentials, requestOptions);

	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			url: PATHS.listBeneficiaries,
			body: { pageSize: 1, pageNumber: 1 },
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'result.resultCode',
					value: 'INVALID_SIGNATURE',
					message:
						'INVALID_SIGNATURE: the gateway rejected the signature. Check that the Private Key belongs to the public key you registered with the service, and that the Key Version matches.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'result.resultCode',
					value: 'INVALID_CLIENT',
					message:
						'INVALID_CLIENT: the Client ID does not exist or is not valid for this gateway. Check the Client ID and the Gateway.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'result.resultCode',
					value: 'OAUTH_FAIL',
					message: 'OAUTH_FAIL: OAuth authentication failed. Contact the service’s technical support.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'result.resultCode',
					value: 'INVALID_API',
					message:
						'INVALID_API: the API is not active for this client. Check the Gateway or Base URL, then ask technical support to enable it.',
				},
			},
		],
	};
}
