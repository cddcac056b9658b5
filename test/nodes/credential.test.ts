import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { PartnerAccountInquiryApi } from '../../credentials/PartnerAccountInquiryApi.credentials';
import {
	partnerPublicSpki,
	partnerPrivatePkcs8,
	privateKeyVariants,
	servicePublic,
	bareBase64,
} from '../fixtures/keys';
import { opensslVerify } from '../fixtures/openssl';

const credential = new PartnerAccountInquiryApi();
const authenticate = credential.authenticate as (
	c: ICredentialDataDecryptedObject,
	o: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;
const LIST = '/amsin/api/v1/business/account/inquiryBeneficiaryList';

function creds(overrides: ICredentialDataDecryptedObject = {}): ICredentialDataDecryptedObject {
	return {
		environment: 'sg',
		clientId: 'CLIENT_1',
		privateKey: partnerPrivatePkcs8,
		servicePublicKey: servicePublic,
		keyVersion: '2',
		...overrides,
	};
}

/** Independent of the package's parser: a plain regex over the header text. */
function signatureOf(header: string): Buffer {
	const m = /^algorithm=RSA256, keyVersion=(\S+), signature=([A-Za-z0-9%]+)$/.exec(header);
	if (!m) throw new Error(`unexpected Signature header: ${header}`);
	return Buffer.from(decodeURIComponent(m[2]), 'base64');
}

function contentFor(signed: IHttpRequestOptions): Buffer {
	const headers = signed.headers as Record<string, string>;
	const uri = new URL(signed.url).pathname + new URL(signed.url).search;
	return Buffer.concat([
		Buffer.from(`POST ${uri}\n${headers['Client-Id']}.${headers['Request-Time']}.`, 'utf8'),
		signed.body as Buffer,
	]);
}

describe('credential fields', () => {
	it('has exactly the documented field names and gateway presets', () => {
		expect(credential.name).toBe('partnerAccountInquiryApi');
		expect(credential.properties.map((p) => p.name)).toEqual([
			'environment',
			'baseUrl',
			'clientId',
			'privateKey',
			'servicePublicKey',
			'keyVersion',
			'responseTimeToleranceSeconds',
			'accessToken',
		]);
		const environment = credential.properties[0];
		expect(environment.options?.map((o) => ('value' in o ? o.value : undefined))).toEqual(['sg', 'eu', 'na', 'custom']);
		expect(credential.properties.find((p) => p.name === 'privateKey')?.typeOptions).toMatchObject({ password: true });
		expect(credential.properties.find((p) => p.name === 'keyVersion')?.default).toBe('1');
		// A customer's OAuth token: optional, a secret n8n encrypts with the credential.
		const accessToken = credential.properties.find((p) => p.name === 'accessToken');
		expect(accessToken).toMatchObject({ displayName: 'Access Token', type: 'string', default: '' });
		expect(accessToken?.typeOptions).toMatchObject({ password: true });
		expect(accessToken?.required).toBeFalsy();
	});
});

describe('authenticate', () => {
	it.each(Object.entries(privateKeyVariants))(
		'signs so that OpenSSL verifies it, with a %s private key',
		async (_name, privateKey) => {
			const signed = await authenticate(creds({ privateKey }), {
				url: LIST,
				method: 'POST',
				body: { pageSize: 50, pageNumber: 1 },
			});
			expect(signed.url).toBe(`https://open-sea.worldfirst.com${LIST}`);
			expect(Buffer.isBuffer(signed.body)).toBe(true);
			expect((signed.body as Buffer).toString('utf8')).toBe('{"pageSize":50,"pageNumber":1}');
			const headers = signed.headers as Record<string, string>;
			expect(headers['Content-Type']).toBe('application/json; charset=UTF-8');
			expect(headers['Client-Id']).toBe('CLIENT_1');
			expect(headers['Request-Time']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
			expect(headers.Signature).toMatch(/^algorithm=RSA256, keyVersion=2, signature=/);
			expect(opensslVerify(partnerPublicSpki, contentFor(signed), signatureOf(headers.Signature))).toBe(true);
		},
	);

	it('signs the base URL path and a non-ASCII body exactly as sent', async () => {
		const body = Buffer.from('{"accountName":"深圳市 Zoë","pageSize":5,"pageNumber":1}', 'utf8');
		const signed = await authenticate(creds({ environment: 'custom', baseUrl: 'https://gateway.example.com/gw/' }), {
			url: LIST,
			method: 'POST',
			body,
		});
		expect(signed.url).toBe(`https://gateway.example.com/gw${LIST}`);
		expect(signed.body).toBe(body);
		const content = contentFor(signed);
		expect(content.toString('utf8')).toContain(`POST /gw${LIST}\nCLIENT_1.`);
		expect(
			opensslVerify(partnerPublicSpki, content, signatureOf((signed.headers as Record<string, string>).Signature)),
		).toBe(true);
	});

	it('takes the baseURL and url of n8n credential-test requests, and folds qs into the signed URL', async () => {
		const signed = await authenticate(creds(), {
			baseURL: 'https://open-eu.worldfirst.com',
			url: LIST,
			method: 'POST',
			qs: { trace: 'a b' },
			body: {},
		});
		expect(signed.url).toBe(`https://open-eu.worldfirst.com${LIST}?trace=a+b`);
		expect(signed.baseURL).toBeUndefined();
		expect(signed.qs).toBeUndefined();
		expect(contentFor(signed).toString('utf8')).toContain(`POST ${LIST}?trace=a+b\n`);
	});

	it('re-signs its own output (n8n does this after a 401) without duplicating headers', async () => {
		const first = await authenticate(creds(), {
			url: LIST,
			method: 'POST',
			body: { pageSize: 1, pageNumber: 1 },
			headers: { 'content-type': 'text/plain', 'Connected-CustomerId': 'C1' },
		});
		const again = await authenticate(creds(), first);
		const names = Object.keys(again.headers ?? {}).map((n) => n.toLowerCase());
		expect(names.sort()).toEqual(['client-id', 'connected-customerid', 'content-type', 'request-time', 'signature']);
		expect(again.body).toEqual(first.body);
		expect(
			opensslVerify(
				partnerPublicSpki,
				contentFor(again),
				signatureOf((again.headers as Record<string, string>).Signature),
			),
		).toBe(true);
	});

	it('refuses a junk private key, naming the field and never echoing it', async () => {
		const junk = `-----BEGIN PRIVATE KEY-----\n${bareBase64(partnerPrivatePkcs8).slice(0, 300)}XYZ\n-----END PRIVATE KEY-----`;
		const error = await authenticate(creds({ privateKey: junk }), { url: LIST, method: 'POST', body: {} }).catch(
			(e: Error) => e,
		);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toMatch(/^The credential's Private Key could not be read as an RSA key$/);
		expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(
			bareBase64(partnerPrivatePkcs8).slice(0, 40),
		);
	});

	it.each([
		[
			'plain http to a public host',
			{ environment: 'custom', baseUrl: 'http://gateway.example.com' },
			/does not use https/,
		],
		[
			'plain http to a private address',
			{ environment: 'custom', baseUrl: 'http://10.0.0.5:8080' },
			/does not use https/,
		],
		['a relative base URL', { environment: 'custom', baseUrl: 'gateway.example.com' }, /not an absolute URL/],
		['a base URL with a query', { environment: 'custom', baseUrl: 'https://gateway.example.com/?a=1' }, /query string/],
	])('refuses %s', async (_name, overrides, message) => {
		await expect(authenticate(creds(overrides), { url: LIST, method: 'POST', body: {} })).rejects.toThrow(message);
	});

	it.each(['http://127.0.0.1:8080', 'http://localhost:3000/gw', 'http://[::1]:9000'])(
		'accepts plain http on loopback: %s',
		async (baseUrl) => {
			const signed = await authenticate(creds({ environment: 'custom', baseUrl }), {
				url: LIST,
				method: 'POST',
				body: {},
			});
			expect(signed.url.startsWith(baseUrl)).toBe(true);
		},
	);
});
