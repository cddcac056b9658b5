/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only test */
/**
 * The credential's Test as n8n runs it: the function the nodes name by `testedBy`, called on
 * n8n-core's own CredentialTestContext (its `helpers.request`, the real HTTP client), against the
 * simulator, with the right credential and with each field wrong in turn.
 */
import { createServer, type Socket } from 'node:net';

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
import { PATHS } from '../../nodes/PartnerAccountInquiry/shared/core/api/gateway';
import { signRequestOptions } from '../../nodes/PartnerAccountInquiry/shared/transport/authenticate';
import { sandboxCredentials } from '../../sandbox/engine';
import { LIST_PATH, readSandboxKey } from '../../sandbox/server';
import { bareBase64, otherPrivate, servicePublic } from '../fixtures/keys';
import { until, useSimulator } from '../support/helpers';

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
	context: CredentialTestContext = new CredentialTestContext(),
): Promise<INodeCredentialTestResult> {
	const data = { ...sandboxCredentials(sim().url), ...overrides };
	return await testedBy(node).call(context, {
		id: 'cred-1',
		name: 'Partner Account Inquiry account',
		type: 'partnerAccountInquiryApi',
		data,
	});
}

/** n8n's own CredentialTestContext, its `request` helper watched: the connection each answer came on. */
function watchedContext(): { context: CredentialTestContext; socket: () => Socket } {
	const context = new CredentialTestContext();
	const request = context.helpers.request;
	let socket: Socket | undefined;
	context.helpers.request = async (uriOrObject: string | object, options?: object) => {
		const response = (await request(uriOrObject, options)) as { request?: { socket?: Socket } };
		socket = response?.request?.socket ?? undefined;
		return response;
	};
	return { context, socket: () => socket ?? fail('no answer came') };
}

/** The request's signature as sent, Base64 and URL-encoded (as its Signature header carries it). */
function sentSignature(index = 0): string[] {
	const encoded = /signature=([^,\s]+)/.exec(String(sim().requests[index].headers.signature))?.[1] ?? '';
	return [encoded, decodeURIComponent(encoded)];
}

/** Every run of 8 characters of `secret` that `text` repeats (redaction.ts removes any such piece). */
function piecesIn(text: string, secret: string): string[] {
	const found = new Set<string>();
	for (let i = 0; i + 8 <= secret.length; i++)
		if (text.includes(secret.slice(i, i + 8))) found.add(secret.slice(i, i + 8));
	return [...found];
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
		// The simulator verified each request's signature over the bytes it received: one beneficiary
		// of the own account whose Reference Beneficiary ID is random, another at each Test.
		const question = /^\{"pageSize":1,"pageNumber":1,"referenceBeneficiaryId":"n8n-credential-test-[a-p]{32}"\}$/;
		expect(sim().requests.map((r) => [r.path, r.body, r.resultCode])).toEqual([
			[LIST_PATH, expect.stringMatching(question), 'SUCCESS'],
			[LIST_PATH, expect.stringMatching(question), 'SUCCESS'],
		]);
		expect(sim().requests[0].body).not.toBe(sim().requests[1].body);
	});

	it("tests the credential's Access Token too: sent in the signed body; one the gateway refuses (OAUTH_FAIL) is named", async () => {
		// Made from words, so that no literal here looks like a secret.
		const token = ['tok', 'customer', 'a'].join('-');
		expect(await test({ accessToken: token })).toEqual({ status: 'OK', message: expect.any(String) });
		expect(JSON.parse(sim().requests[0].body)).toEqual(expect.objectContaining({ accessToken: token }));
		const refused = await test({ accessToken: ['expired', 'token'].join('-') });
		expect(refused.status).toBe('Error');
		expect(refused.message).toMatch(/OAUTH_FAIL/);
		expect(refused.message).toMatch(/Access Token/);
	});

	it('a wrong Private Key: INVALID_SIGNATURE, naming Private Key and Key Version (the API cannot tell them apart)', async () => {
		const result = await test({ privateKey: otherPrivate });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_SIGNATURE: the request signature is invalid\. /);
		expect(result.message).toMatch(/credential's Private Key pairs with the public key registered/);
		expect(result.message).toMatch(/under its Key Version/);
	});

	it('a wrong Key Version: the same INVALID_SIGNATURE, naming both fields', async () => {
		const result = await test({ keyVersion: '2' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_SIGNATURE: the request signature is invalid\. /);
		expect(result.message).toMatch(/Private Key .* under its Key Version/);
	});

	it("a wrong Service Public Key: the answer's signature does not verify, naming Service Public Key", async () => {
		const result = await test({ servicePublicKey: servicePublic });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The answer's signature does not match its body\. /);
		expect(result.message).toMatch(/Check that the credential's Service Public Key is the one the service gave/);
		// The gateway did answer: only the verification failed.
		expect(sim().requests.map((r) => r.resultCode)).toEqual(['SUCCESS']);
	});

	it("the user's own public key as Service Public Key: refused by name, before anything is sent", async () => {
		const result = await test({ servicePublicKey: readSandboxKey('demo-partner-public.pem') });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The credential's Service Public Key is your own public key, not the service's\. It is the pair of your Private Key[^.]*\. Paste the service's public key/,
		);
		expect(sim().requests).toHaveLength(0);
	});

	it('a wrong Client ID: INVALID_CLIENT, naming Client ID and Gateway (a client of another region is unknown there too)', async () => {
		const result = await test({ clientId: 'NOT_A_CLIENT_0001' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_CLIENT: the client ID does not exist or is invalid\. /);
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
		expect(result.message).toMatch(/^The API answered INVALID_API: the API called is invalid or not active\. /);
		expect(result.message).toMatch(/Check the Gateway in the credential/);
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
		expect(result.message).toMatch(/INVALID_SIGNATURE.*did not sign this failure.*Private Key .* under its Key Version/);
	});

	it("an answer dated 10 minutes ago: the host's clock and the Response Time Tolerance", async () => {
		sim().addFault({ fault: 'staleTime' });
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The answer is not fresh: it is 60\d s old by this n8n host's clock\. .*at most 300 s\. .*Check that the n8n host's clock/,
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
			/^The credential's Private Key could not be read as an RSA key/,
		],
		[
			'a private key as Service Public Key',
			{ servicePublicKey: readSandboxKey('demo-partner-private.pem') },
			/^The credential's Service Public Key holds a private key/,
		],
		[
			'plain http to a public host',
			{ baseUrl: 'http://gateway.example.com' },
			/^The credential's Base URL does not use https\. It is "http:\/\/gateway.example.com"/,
		],
		[
			'a key pasted as Client ID',
			{ clientId: readSandboxKey('gateway-public.pem') },
			/^The credential's Client ID holds what looks like a key/,
		],
	])('%s: refused by field before anything is sent', async (_name, overrides, message) => {
		const result = await test(overrides);
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(message) });
		expect(sim().requests).toHaveLength(0);
		expect(result.message).not.toContain('MII');
	});
});

describe('Test is as strict as a run: a replayed or foreign answer does not pass', () => {
	it('a cache serving the last answer to the same URL and body: after the Private Key changed, Test asks anew and fails', async () => {
		sim().addFault({ fault: 'replay' });
		expect((await test()).status).toBe('OK');
		const result = await test({ privateKey: otherPrivate });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered INVALID_SIGNATURE: /);
		// The second question was not the first: the cache had nothing to serve, the gateway refused it.
		expect(sim().requests.map((r) => r.resultCode)).toEqual(['SUCCESS', 'INVALID_SIGNATURE']);
	});

	it("an earlier Test's answer served again to another question: refused by the process's replay guard", async () => {
		expect((await test()).status).toBe('OK');
		sim().addFault({ fault: 'replayAny' });
		const result = await test({ privateKey: otherPrivate });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The same signed answer came back a second time \(a replay\)/);
		expect(result.message).toMatch(/proxy or cache/);
		expect(sim().requests.map((r) => r.fault)).toEqual([undefined, 'replayAny']);
	});

	it("an answer to another question (the old Test's: one beneficiary of the own account), never seen before: refused by the exact filter", async () => {
		// Asked once outside any Test (so no replay guard saw it): the answer a proxy recorded.
		const signed = await signRequestOptions(sandboxCredentials(sim().url), {
			method: 'POST',
			url: PATHS.listBeneficiaries,
			body: { pageSize: 1, pageNumber: 1 },
		});
		const recorded = await fetch(signed.url, {
			method: 'POST',
			headers: signed.headers as Record<string, string>,
			body: signed.body as Buffer,
		});
		expect(((await recorded.json()) as { beneficiaries: unknown[] }).beneficiaries).toHaveLength(1);
		sim().addFault({ fault: 'replayAny' });
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The gateway ignored the Reference Beneficiary ID filter\. Beneficiary 1 on page 1 has `referenceBeneficiaryId` "REF-OWN-00001", but only "n8n-credential-test-[a-p]{32}" was asked for; nothing from the answer was used\. .*Base URL.*proxy or cache/,
		);
	});

	it('an answer listing a beneficiary without a Reference Beneficiary ID is not about the question either', async () => {
		sim().addFault({ fault: 'ignoreFilters' });
		sim().setReference('', 0, undefined);
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The answer lists 1 beneficiary: it answers another question\. The Test asked only for a random Reference Beneficiary ID/,
		);
	});
});

describe("Test reads at most the cap and closes the connection at it and at the deadline (n8n's legacy request helper)", () => {
	it('an answer of 1 GiB with a Signature header: at most 8 MiB read, the connection closed, a message naming the size', async () => {
		sim().addFault({ fault: 'oneGiB' });
		const { context, socket } = watchedContext();
		const result = await test({}, new PartnerAccountInquiry(), context);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The gateway's answer is larger than 8 MiB, the most this node reads/);
		await until(() => socket().destroyed && sim().requests[0].closedEarly === true, 'the connection closed');
		expect(socket().bytesRead).toBeLessThan(9 * 1024 * 1024);
	});

	it('an unsigned answer of 1 GiB: at most 64 KiB of it read, the connection closed', async () => {
		sim().addFault({ fault: 'oneGiB', unsigned: true });
		const { context, socket } = watchedContext();
		const result = await test({}, new PartnerAccountInquiry(), context);
		expect(result.status).toBe('Error');
		await until(() => socket().destroyed && sim().requests[0].closedEarly === true, 'the connection closed');
		expect(socket().bytesRead).toBeLessThan(1024 * 1024);
	});

	it('an answer that drips a byte every 200 ms for ever: Test ends at its 30 s deadline and closes the connection', async () => {
		sim().addFault({ fault: 'dripForever' });
		const { context, socket } = watchedContext();
		const started = Date.now();
		const result = await test({}, new PartnerAccountInquiry(), context);
		expect(Date.now() - started).toBeLessThan(40_000);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^No answer from the gateway: the request timed out \(30000 ms\)\. Check the Gateway/,
			),
		});
		await until(() => socket().destroyed && sim().requests[0].closedEarly === true, 'the connection closed');
	}, 60_000);
});

describe('no Test message repeats a value of the credential or the signature, whatever the gateway echoes', () => {
	it('a refusal that echoes the request (its Client-Id and Signature headers): neither is repeated, nor any 8 characters of them', async () => {
		sim().addFault({ fault: 'echoInResult' });
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered PARAM_ILLEGAL: illegal parameter\. /);
		const message = result.message;
		expect(piecesIn(message, 'SANDBOX_CLIENT_0001')).toEqual([]);
		for (const form of sentSignature()) expect(piecesIn(message, form)).toEqual([]);
	});

	it('a refusal that quotes the Access Token and the keys: none of them is repeated', async () => {
		// A made-up Access Token, as the credential holds one.
		const echoed = ['AT', '7f3k9q2m', '8x4w6v1b5n0c'].join('-');
		const keys = sandboxCredentials(sim().url);
		const privateKey = bareBase64(String(keys.privateKey));
		const servicePublicKey = bareBase64(String(keys.servicePublicKey));
		sim().addFault({
			fault: 'answer',
			answer: {
				status: 'F',
				code: 'PARAM_ILLEGAL',
				message: `token ${echoed} not valid for ${keys.clientId as string}; key ${servicePublicKey.slice(40, 200)}; yours ${privateKey.slice(100, 300)}`,
			},
			unsigned: true,
			httpStatus: 400,
		});
		const result = await test({ accessToken: echoed });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API answered PARAM_ILLEGAL: illegal parameter\. /);
		for (const secret of [echoed, String(keys.clientId), privateKey, servicePublicKey])
			expect(piecesIn(result.message, secret)).toEqual([]);
	});
});
