/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only benchmark */
/**
 * Per-request CPU of this package's path (serialise, sign, verify, parse a 50-item page) against
 * one raw RSA-2048 sign by OpenSSL (node:crypto), against the floor (a bare sign, verify, decode and
 * JSON.parse: the least any implementation does), and against the same path with node-forge.
 * Run first, in a fresh heap: after the 10,000-item listings the allocating path would pay for a
 * large heap in its scavenges.
 */
import { createPrivateKey, sign, verify } from 'node:crypto';

import forge from 'node-forge';

import { createCustomers } from '../sandbox/data';
import { readSandboxKey } from '../sandbox/server';
import {
	formatSignatureHeader,
	parseSignatureHeader,
} from '../nodes/PartnerAccountInquiry/shared/core/signing/signatureHeader';
import { parseResponseBody } from '../nodes/PartnerAccountInquiry/shared/core/api/responseBody';
import { signRequest } from '../nodes/PartnerAccountInquiry/shared/core/signing/signRequest';
import { joinUrl } from '../nodes/PartnerAccountInquiry/shared/core/api/gateway';
import { buildStringToSign } from '../nodes/PartnerAccountInquiry/shared/core/signing/stringToSign';
import { verifyResponse } from '../nodes/PartnerAccountInquiry/shared/core/signing/verifyResponse';
import { checkBeneficiaries } from '../nodes/PartnerAccountInquiry/shared/core/api/answers';
import { privateKeyFrom, publicKeyFrom } from '../nodes/PartnerAccountInquiry/shared/core/signing/keys';
import { type Goals, out } from './common';

/**
 * CPU microseconds per call, measured in pairs: every batch runs each function a few times in a
 * row, so that a shared machine's drift (it is large here) hits all of them alike, and each ratio
 * is taken within a batch and then the median over the batches. No forced GC between batches: a
 * full collection shrinks the young generation, after which an allocating path pays for
 * scavenges that a long-running n8n process does not.
 */
function pairedCpu<K extends string>(fns: Record<K, [fn: () => void, iterations: number]>, batches: number) {
	const names = Object.keys(fns) as K[];
	for (const name of names) for (let i = 0; i < Math.min(50, fns[name][1] * 5); i++) fns[name][0]();
	const perCall = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
	for (let b = 0; b < batches; b++) {
		for (const name of names) {
			const [fn, iterations] = fns[name];
			const start = process.cpuUsage();
			for (let i = 0; i < iterations; i++) fn();
			const used = process.cpuUsage(start);
			perCall[name].push((used.user + used.system) / iterations);
		}
	}
	const median = (list: number[]) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
	return {
		/** Median CPU microseconds per call. */
		cpu: (name: K) => median(perCall[name]),
		/** Median over the batches of (a per call) / (b per call). */
		ratio: (a: K, b: K) => median(perCall[a].map((x, i) => x / perCall[b][i])),
	};
}

interface RequestCpu {
	raw: number;
	ours: number;
	floor: number;
	forge: number;
	verify: number;
	parse: number;
	checks: number;
	oursToFloor: number;
	oursToRaw: number;
	floorToRaw: number;
	forgeToOurs: number;
	pageBytes: number;
}

export function requestCpu(): RequestCpu {
	const privatePem = readSandboxKey('demo-partner-private.pem');
	const gatewayPem = readSandboxKey('gateway-private.pem');
	const gatewayPublicPem = readSandboxKey('gateway-public.pem');
	const rawKey = createPrivateKey(privatePem);
	const uri = '/amsin/api/v1/business/account/inquiryBeneficiaryList';
	const clientId = 'SANDBOX_CLIENT_0001';
	const time = '2026-11-22T10:00:00+08:00';
	// A page that answers the request below (USD and EUR beneficiaries), so the answer checks run in full.
	const page = (createCustomers().get('CUST_LARGE')?.beneficiaries ?? [])
		.filter((b) => ['USD', 'EUR'].includes(b.currency))
		.slice(0, 50);
	if (page.length !== 50) throw new Error(`the bench page has ${page.length} beneficiaries, not 50`);
	const responseBody = JSON.stringify({
		result: { resultStatus: 'S', resultCode: 'SUCCESS', resultMessage: 'success' },
		responseId: 'R1',
		beneficiaries: page,
		totalCount: 320,
		totalPageNumber: 7,
		currentPageNumber: 1,
	});
	const responseContent = buildStringToSign({ method: 'POST', uri, clientId, time, body: responseBody });
	const responseSignature = sign('sha256', responseContent, createPrivateKey(gatewayPem));
	const responseHeaders = {
		signature: formatSignatureHeader('1', responseSignature),
		'response-time': time,
		'client-id': clientId,
	};
	const responseBytes = Buffer.from(responseBody);
	const request = { pageSize: 50, pageNumber: 2, currencyList: ['USD', 'EUR'] };
	const baseUrl = 'https://open-sea.worldfirst.com';

	const rawSign = () => sign('sha256', Buffer.from('POST /x\nc.t.{}'), rawKey);
	// The session parses the service public key once per execution and keeps the KeyObject.
	const sessionPublicKey = publicKeyFrom(gatewayPublicPem);
	const answeredAt = Date.parse(time);
	// Signature and freshness: one call, as the transport makes it.
	const verifyOnly = () =>
		verifyResponse({
			method: 'POST',
			uri,
			clientId,
			headers: responseHeaders,
			body: responseBytes,
			publicKey: sessionPublicKey,
			nowMs: answeredAt,
			toleranceSeconds: 300,
		});
	const parseOnly = () => parseResponseBody(responseBytes);
	const parsedPage = parseResponseBody(responseBytes);
	if (!parsedPage.ok) throw new Error('parse failed');
	// The answer checks after verification: about the filters sent, of the documented shape.
	const checksOnly = () => {
		checkBeneficiaries(parsedPage.value.beneficiaries as unknown[], request, 2);
	};
	// Exactly the functions the transport runs for one request: serialise, sign (authenticate),
	// verify the raw bytes and their time, parse them, check the answer against the request.
	const ourPath = () => {
		const body = Buffer.from(JSON.stringify(request), 'utf8');
		signRequest({
			method: 'POST',
			url: joinUrl(baseUrl, uri),
			clientId,
			keyVersion: '1',
			privateKey: privateKeyFrom(privatePem),
			body,
		});
		verifyOnly();
		const parsed = parseOnly();
		if (!parsed.ok) throw new Error('parse failed');
		checkBeneficiaries(parsed.value.beneficiaries as unknown[], request, 2);
	};
	// The least any implementation must do per request: one sign, one verify over the page, one
	// UTF-8 decode and JSON.parse of it; no header parsing, no checks.
	const gatewayPublic = publicKeyFrom(gatewayPublicPem);
	const decoder = new TextDecoder('utf-8', { fatal: true });
	const floorPath = () => {
		sign('sha256', Buffer.from(JSON.stringify(request), 'utf8'), rawKey);
		if (!verify('sha256', responseContent, gatewayPublic, responseSignature)) throw new Error('floor verify failed');
		JSON.parse(decoder.decode(responseBytes));
	};

	const forgePrivate = forge.pki.privateKeyFromPem(privatePem);
	const forgePublic = forge.pki.publicKeyFromPem(gatewayPublicPem);
	const forgePath = () => {
		const body = Buffer.from(JSON.stringify(request), 'utf8');
		const content = buildStringToSign({ method: 'POST', uri, clientId, time, body });
		const md = forge.md.sha256.create();
		md.update(content.toString('binary'));
		formatSignatureHeader('1', Buffer.from(forgePrivate.sign(md), 'binary'));
		const parsed = parseSignatureHeader(responseHeaders.signature);
		const check = forge.md.sha256.create();
		check.update(responseContent.toString('binary'));
		if (!forgePublic.verify(check.digest().bytes(), parsed.signature.toString('binary')))
			throw new Error('forge verify failed');
		JSON.parse(responseBytes.toString('utf8'));
	};
	const m = pairedCpu(
		{
			raw: [rawSign, 20],
			ours: [ourPath, 20],
			floor: [floorPath, 20],
			verify: [verifyOnly, 20],
			parse: [parseOnly, 20],
			checks: [checksOnly, 20],
		},
		60,
	);
	// The two goal ratios each in a pairing of their own two paths: a batch pays for collecting
	// the garbage of the batch before it, so a third function beside them shifts the ratio (by
	// 3-5 % for the breakdown's functions, by far more for node-forge, whose every call leaves
	// megabytes behind).
	const head = pairedCpu({ ours: [ourPath, 20], floor: [floorPath, 20] }, 60);
	const f = pairedCpu({ ours: [ourPath, 20], forge: [forgePath, 1] }, 20);
	return {
		raw: m.cpu('raw'),
		ours: m.cpu('ours'),
		floor: m.cpu('floor'),
		forge: f.cpu('forge'),
		verify: m.cpu('verify'),
		parse: m.cpu('parse'),
		checks: m.cpu('checks'),
		oursToFloor: head.ratio('ours', 'floor'),
		oursToRaw: m.ratio('ours', 'raw'),
		floorToRaw: m.ratio('floor', 'raw'),
		forgeToOurs: f.ratio('forge', 'ours'),
		pageBytes: responseBytes.length,
	};
}

export function perRequest(r: RequestCpu): Goals {
	const ms = (us: number) => `${(us / 1000).toFixed(3)} ms`;
	out(`## Per-request CPU (serialise, sign, verify, parse a 50-item page of ${(r.pageBytes / 1024).toFixed(1)} KiB)`);
	out();
	out('Medians of 60 batches; each ratio is taken within a batch (the functions run side by side). The two goal');
	out('ratios are each measured head to head, the two paths alone (a batch pays for collecting the garbage of the');
	out('batch before it, so a third function beside them shifts the ratio).');
	out();
	out('| path | CPU per request | / raw sign |');
	out('|---|---|---|');
	out(`| one raw RSA-2048 sign (node:crypto, OpenSSL ${process.versions.openssl}) | ${ms(r.raw)} | 1 |`);
	out(`| this package's path (node:crypto) | ${ms(r.ours)} | ${r.oursToRaw.toFixed(2)} |`);
	out(`| of which: verify the response (header, SHA-256 over the page, RSA verify, freshness) | ${ms(r.verify)} | |`);
	out(`| of which: strict UTF-8 decode and JSON.parse of the page | ${ms(r.parse)} | |`);
	out(`| of which: the answer checks (every beneficiary against the filters, shape) | ${ms(r.checks)} | |`);
	out(
		`| floor: bare sign + verify + decode + JSON.parse, nothing else | ${ms(r.floor)} | ${r.floorToRaw.toFixed(2)} |`,
	);
	out(`| the same path with node-forge | ${(r.forge / 1000).toFixed(2)} ms | |`);
	out();
	out(
		`Head to head: our path / floor = ${r.oursToFloor.toFixed(3)}; node-forge / our path = ${r.forgeToOurs.toFixed(0)}x.`,
	);
	out();
	return [
		[`our path / floor = ${r.oursToFloor.toFixed(3)} (goal <= 1.10)`, r.oursToFloor <= 1.1],
		[`node-forge / our path = ${r.forgeToOurs.toFixed(0)}x (goal >= 50x)`, r.forgeToOurs >= 50],
	];
}
