import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { CLIENT_ID, KEY_VERSION, NUMBER_OPTIONS } from '../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { GATEWAYS, PATHS } from '../nodes/PartnerAccountInquiry/shared/core/api/gateway';
import { RESULT_CODES } from '../nodes/PartnerAccountInquiry/shared/core/api/resultCodes';
import { fieldProperty } from '../nodes/PartnerAccountInquiry/shared/properties';
import { signRequestOptions } from '../nodes/PartnerAccountInquiry/shared/transport/authenticate';

/** The result codes that say the credential itself is wrong. */
const CREDENTIAL_RESULT_CODES = ['INVALID_SIGNATURE', 'INVALID_CLIENT', 'OAUTH_FAIL', 'INVALID_API'] as const;

const defaultTolerance = NUMBER_OPTIONS.responseTimeToleranceSeconds.default;

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
		fieldProperty(CLIENT_ID, { required: true }),
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
		fieldProperty(KEY_VERSION, { default: '1', required: true }),
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
		// Failures only a wrong credential causes, each with the API's own meaning and action.
		rules: CREDENTIAL_RESULT_CODES.map((code) => ({
			type: 'responseSuccessBody' as const,
			properties: {
				key: 'result.resultCode',
				value: code,
				message: `${code}: ${RESULT_CODES[code].meaning} What to do: ${RESULT_CODES[code].action}`,
			},
		})),
	};
}
