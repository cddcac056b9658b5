/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only test */
/**
 * The credential's Test as n8n runs it: the function the nodes name by `testedBy`, called on
 * n8n-core's own CredentialTestContext (its `helpers.request`, the real HTTP client), against the
 * simulator, with the right credential and with each field wrong in turn.
 */
import { createServer } from 'node:net';

import { CredentialTestContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	INodeCredentialTestResult,
	INodeType,
} from 'n8n-workflow';

import { PartnerAccountInquiryApi } from '../../credentials/PartnerAccountInquiryApi.credentials';
import { PartnerAccountInquiry } from '../../nodes/PartnerAccountInquiry/PartnerAccountInquiry.node';
import { PartnerAccountInquiryTrigger } from '../../nodes/PartnerAccountInquiry/PartnerAccountInquiryTrigger.node';
import { sandboxCredentials } from '../../sandbox/engine';
import { LIST_PATH, readSandboxKey } from '../../sandbox/server';
import { otherPrivate, servicePublic } from '../fixtures/keys';
import { useSimulator } from '../support/helpers';

const { sim } = useSimulator();

/** The test function n8n finds for the credential (CredentialsTester.getCredentialTestFunction). */
function testedBy(node: INodeType): ICredentialTestFunction {
	const entry = node.description.credentials?.find((c) => c.name === 'partnerAccountInquiryApi');
	const name = entry?.testedBy;
	if (typeof name !== 'string') throw new Error(`${node.description.name} names no credential test`);
	const fn = node.methods?.credentialTest?.[name];
	if (!fn) throw new Error(`${node.description.name} has no methods.credentialTest.${name}`);
	return fn;
}

async function test(
	overrides: ICredentialDataDecryptedObject = {},
	node: INodeType = new PartnerAccountInquiry(),
): Promise<INodeCredentialTestResult> {
	const data = { ...sandboxCredentials(sim().url), ...overrides };
	return await testedBy(node).call(new CredentialTestContext(), {
		id: 'cred-1',
		name: 'Partner Account Inquiry API account',
		type: 'partnerAccountInquiryApi',
		data,
	});
}

async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

describe('how n8n finds the credential test', () => {
	it('the credential declares no `test` (it would win over testedBy), and both nodes name one function', () => {
		expect('test' in new PartnerAccountInquiryApi()).toBe(false);
		const action = testedBy(new PartnerAccountInquiry());
		const trigger = testedBy(new PartnerAccountInquiryTrigger());
		expect(trigger).toBe(action);
	});
});

describe('the credential test against the simulator', () => {
	it('says OK for the right credential, from either node, after one signed request of the exact bytes signed', async () => {
		for (const node of [new PartnerAccountInquiry(), new PartnerAccountInquiryTrigger()]) {
			const result = await test({}, node);
			expect(result).toEqual({ status: 'OK', message: expect.stringMatching(/^Connection successful/) });
		}
		// The simulator verified each request's signature over the bytes it received.
		expect(sim().requests.map((r) => [r.path, r.body, r.resultCode])).toEqual([
			[LIST_PATH, '{"pageSize":1,"pageNumber":1}', 'SUCCESS'],
			[LIST_PATH, '{"pageSize":1,"pageNumber":1}', 'SUCCESS'],
		]);
	});

	it('a wrong Private Key: INVALID_SIGNATURE, naming Private Key and Key Version (the API cannot tell them apart)', async () => {
		const result = await test({ privateKey: otherPrivate });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_SIGNATURE: Signature is invalid\. /);
		expect(result.message).toMatch(/Private Key in the credential belongs to the public key registered/);
		expect(result.message).toMatch(/Key Version matches/);
	});

	it('a wrong Key Version: the same INVALID_SIGNATURE, naming both fields', async () => {
		const result = await test({ keyVersion: '2' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_SIGNATURE: keyVersion 2 is not registered\. /);
		expect(result.message).toMatch(/Private Key .* Key Version matches/);
	});

	it("a wrong Service Public Key: the answer's signature does not verify, naming Service Public Key", async () => {
		const result = await test({ servicePublicKey: servicePublic });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The response signature could not be verified: it does not match the response body\. /,
		);
		expect(result.message).toMatch(/Check that the Service Public Key in the credential is the one the service gave/);
		// The gateway did answer: only the verification failed.
		expect(sim().requests.map((r) => r.resultCode)).toEqual(['SUCCESS']);
	});

	it("the user's own public key as Service Public Key: refused by name, before anything is sent", async () => {
		const result = await test({ servicePublicKey: readSandboxKey('demo-partner-public.pem') });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The Service Public Key in the credential is your own public key \(the pair of your Private Key\), not the service's\. Paste the service's public key/,
		);
		expect(sim().requests).toHaveLength(0);
	});

	it('a wrong Client ID: INVALID_CLIENT, naming Client ID and Gateway (a client of another region is unknown there too)', async () => {
		const result = await test({ clientId: 'NOT_A_CLIENT_0001' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_CLIENT: Client-Id does not exist or is invalid\. /);
		expect(result.message).toMatch(/Check the Client ID and the Gateway in the credential/);
	});

	it('a gateway that cannot be reached: says so, naming Gateway and Base URL', async () => {
		const result = await test({ baseUrl: `http://127.0.0.1:${await closedPort()}` });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^No answer from the gateway: the connection was refused\. Check the Gateway .*Base URL/,
			),
		});
	});

	it('a Base URL that reaches no API (a wrong path): INVALID_API, naming the gateway or base URL', async () => {
		const result = await test({ baseUrl: `${sim().url}/gw` });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_API: No API at \/gw\//);
		expect(result.message).toMatch(/the gateway or base URL/);
	});

	it('an unsigned INVALID_SIGNATURE (a gateway that does not sign its refusals) still names both fields', async () => {
		sim().addFault({
			fault: 'answer',
			answer: { status: 'F', code: 'INVALID_SIGNATURE', message: 'Signature is invalid' },
			unsigned: true,
			httpStatus: 401,
		});
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/INVALID_SIGNATURE.*Private Key .* Key Version matches.*did not sign this failure/);
	});

	it("an answer dated 10 minutes ago: the host's clock and the Response Time Tolerance", async () => {
		sim().addFault({ fault: 'staleTime' });
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The response is not fresh: .* 60\d s old .*at most 300 s is accepted\. Check the n8n host's clock/,
		);
		expect(result.message).toMatch(/Response Time Tolerance/);
	});

	it('a gateway that answers HTTP 503: try again later, not a wrong field', async () => {
		sim().addFault({ fault: 'http503' });
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The gateway answered HTTP 503\. The gateway is there but did not give an API answer now/,
		);
	});

	it.each([
		[
			'an unreadable Private Key',
			{ privateKey: 'not a key' },
			/^The Private Key in the credential could not be read as an RSA key/,
		],
		[
			'a private key as Service Public Key',
			{ servicePublicKey: readSandboxKey('demo-partner-private.pem') },
			/^The Service Public Key in the credential holds a private key/,
		],
		[
			'plain http to a public host',
			{ baseUrl: 'http://gateway.example.com' },
			/^The Base URL "http:\/\/gateway.example.com" in the credential does not use https/,
		],
		[
			'a key pasted as Client ID',
			{ clientId: readSandboxKey('gateway-public.pem') },
			/^The Client ID in the credential holds what looks like a key/,
		],
	])('%s: refused by field before anything is sent', async (_name, overrides, message) => {
		const result = await test(overrides);
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(message) });
		expect(sim().requests).toHaveLength(0);
		expect(result.message).not.toContain('MII');
	});
});
