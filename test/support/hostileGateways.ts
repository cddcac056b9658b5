/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test */
/**
 * Gateways the simulator has no fault for (the issue 54 attacks). A gateway that signs a
 * genuine-looking listing answer padded to an exact size, and one that drips its response headers
 * for ever (so n8n's helper never resolves). Each tracks its connections.
 */
import { randomBytes, sign } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';

import { CredentialTestContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, INodeCredentialTestResult, INodeType } from 'n8n-workflow';

import { PartnerAccountInquiry } from '../../nodes/PartnerAccountInquiry/PartnerAccountInquiry.node';
import { readSandboxKey } from '../../sandbox/server';

/** The credential's Test as n8n calls it (the function the node's `testedBy` names, on n8n-core's own context). */
export async function credentialTestWith(data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
	const node: INodeType = new PartnerAccountInquiry();
	const name = node.description.credentials?.find((c) => c.name === 'partnerAccountInquiryApi')?.testedBy as string;
	const fn = node.methods?.credentialTest?.[name];
	if (!fn) throw new Error('no credential test');
	return await fn.call(new CredentialTestContext(), {
		id: 'cred-h54',
		name: 'hostile 54',
		type: 'partnerAccountInquiryApi',
		data,
	});
}

export interface TrackedServer {
	url: string;
	/** Sockets still open on the server's side. */
	open: () => number;
	/** Bytes of answer body the server managed to write (http server only). */
	written: () => number;
	close: () => Promise<void>;
}

/**
 * A gateway that answers every POST with an empty, genuinely signed (gateway key) listing success,
 * its body padded with JSON whitespace to exactly `bodyBytes`.
 */
export async function paddedSignedGateway(bodyBytes: number): Promise<TrackedServer> {
	const key = readSandboxKey('gateway-private.pem');
	const sockets = new Set<Socket>();
	let written = 0;
	const server: Server = createHttpServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const core = JSON.stringify({
				result: { resultStatus: 'S', resultCode: 'SUCCESS', resultMessage: 'Success' },
				responseId: `H54${randomBytes(8).toString('hex')}`,
				beneficiaries: [],
				totalCount: 0,
				totalPageNumber: 0,
			});
			const body = Buffer.alloc(bodyBytes, 0x20);
			body.write(core, 0, 'utf8');
			const responseTime = new Date(Math.floor(Date.now() / 1000) * 1000 + 8 * 3_600_000)
				.toISOString()
				.replace('.000Z', '+08:00');
			const clientId = String(req.headers['client-id'] ?? '');
			const content = Buffer.concat([Buffer.from(`POST ${req.url ?? ''}\n${clientId}.${responseTime}.`), body]);
			const signature = sign('sha256', content, key).toString('base64');
			res.writeHead(200, {
				'content-type': 'application/json; charset=UTF-8',
				'response-time': responseTime,
				'client-id': clientId,
				signature: `algorithm=RSA256,keyVersion=1,signature=${encodeURIComponent(signature)}`,
				'content-length': String(body.length),
			});
			res.end(body, () => (written = body.length));
		});
	});
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		open: () => sockets.size,
		written: () => written,
		close: async () => {
			for (const s of sockets) s.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/**
 * A gateway that sends its status line at once, then one byte of a header every 200 ms for ever:
 * the response's headers never end, so n8n's helper never resolves, and an idle timeout never fires.
 */
export async function headerDripGateway(): Promise<TrackedServer> {
	const sockets = new Set<Socket>();
	const server: NetServer = createNetServer((socket) => {
		sockets.add(socket);
		socket.on('error', () => undefined);
		let started = false;
		const timer = setInterval(() => {
			if (socket.destroyed) return clearInterval(timer);
			if (!started) {
				started = true;
				socket.write('HTTP/1.1 200 OK\r\nX-Drip: ');
			} else socket.write('x');
		}, 200);
		socket.on('close', () => {
			clearInterval(timer);
			sockets.delete(socket);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		open: () => sockets.size,
		written: () => 0,
		close: async () => {
			for (const s of sockets) s.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A gateway (or a proxy in front of it) that answers every request with `status` and a plain-text `body`. */
export async function textGateway(status: number, body: string): Promise<TrackedServer> {
	const server: Server = createHttpServer((req, res) => {
		req.resume();
		req.on('end', () => {
			res.writeHead(status, { 'content-type': 'text/plain' });
			res.end(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		open: () => 0,
		written: () => 0,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
