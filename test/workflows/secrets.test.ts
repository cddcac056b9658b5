/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only test: captures process output */
import type { INodeParameters } from 'n8n-workflow';

/** The shortest piece of a secret no text may keep (shared/core/redaction.ts). */
const SECRET_PIECE = 8;
import { readSandboxKey, type FaultRule } from '../../sandbox/server';
import { list, quota, useSimulator, type RunExtras } from '../support/helpers';

const { sim } = useSimulator();
const PLANTED_MARKER = 'AT-7f3a9c1e-never-show-me-0042';
const PRIVATE_PEM = readSandboxKey('demo-partner-private.pem');
const PRIVATE_BODY = PRIVATE_PEM.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
/** Windows over the key body: any of them in the output means key material leaked. */
const KEY_WINDOWS = Array.from({ length: 12 }, (_, i) => PRIVATE_BODY.slice(i * 100, i * 100 + 32));

type Path = [string, 'list' | 'quota', INodeParameters, FaultRule | undefined, RunExtras?];
/** Every path runs with PLANTED_MARKER as the credential's access token, unless the path gives its own. */
const LIST = { returnAll: true, customerId: 'CUST_LARGE', options: { timeout: 1000 } };
const QUOTA = {
	connectedAccountId: 'ACC_0002',
	quotaAccumulationMethod: 'USER_ID',
	quotaAccumulationId: 'U-1001',
	currency: 'USD',
	options: { timeout: 1000 },
};

const PATHS: Path[] = [
	['list success', 'list', LIST, undefined],
	['quota success', 'quota', QUOTA, undefined],
	['validation failure', 'list', { ...LIST, filters: { bankAccountIBAN: 'bad iban' } }, undefined],
	['own with an access token (refused)', 'list', { ...LIST, customerId: 'own' }, undefined],
	['own quota with an access token (refused)', 'quota', { ...QUOTA, connectedAccountId: 'own' }, undefined],
	[
		'access token too long',
		'quota',
		QUOTA,
		undefined,
		{ credentials: { accessToken: `${PLANTED_MARKER}${'x'.repeat(64)}` } },
	],
	['F result', 'quota', { ...QUOTA, quotaAccumulationId: 'U-CONTRACT' }, undefined],
	['U result', 'list', LIST, { fault: 'unknownException' }],
	['OAUTH_FAIL', 'quota', QUOTA, undefined, { credentials: { accessToken: 'expired-token' } }],
	['rate limit exhausted', 'quota', QUOTA, { fault: 'rateLimit' }],
	['HTTP 503', 'list', LIST, { fault: 'http503' }],
	['connection reset', 'quota', QUOTA, { fault: 'reset' }],
	['timeout', 'quota', QUOTA, { fault: 'hang' }],
	['altered body', 'list', LIST, { fault: 'alterBody', pageNumber: 3 }],
	['unsigned success', 'quota', QUOTA, { fault: 'unsigned' }],
	['wrong key', 'quota', QUOTA, { fault: 'wrongKey' }],
	['foreign client ID', 'list', LIST, { fault: 'foreignClientId' }],
	['malformed JSON', 'quota', QUOTA, { fault: 'malformedJson' }],
	['listing keeps changing', 'list', LIST, { fault: 'totalChanges', pageNumber: 1 }],
	['INVALID_SIGNATURE', 'quota', QUOTA, undefined, { credentials: { keyVersion: '9' } }],
	[
		'junk private key',
		'quota',
		QUOTA,
		undefined,
		{ credentials: { privateKey: `${PRIVATE_PEM.slice(0, 900)}\n-----END PRIVATE KEY-----` } },
	],
	['private key as service key', 'quota', QUOTA, undefined, { credentials: { servicePublicKey: PRIVATE_PEM } }],
];

describe('no private key or access token in anything the node produces, on any path', () => {
	let captured = '';
	const originals = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
	beforeEach(() => {
		captured = '';
		const capture = (chunk: unknown) => {
			captured += String(chunk);
			return true;
		};
		process.stdout.write = capture as typeof process.stdout.write;
		process.stderr.write = capture as typeof process.stderr.write;
		for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
			jest.spyOn(console, method).mockImplementation((...args) => capture(args.join(' ')));
	});
	afterEach(() => {
		process.stdout.write = originals.out;
		process.stderr.write = originals.err;
		jest.restoreAllMocks();
	});

	it.each(PATHS)('%s', async (_name, operation, parameters, fault, extra = {}) => {
		if (fault) sim().addFault({ ...fault, customerId: fault.customerId });
		for (const continueOnFail of [false, true]) {
			const credentials = { accessToken: PLANTED_MARKER, ...extra.credentials };
			const run = await (operation === 'list' ? list : quota)(sim(), parameters, {
				...extra,
				credentials,
				continueOnFail,
			});
			// What the node produced: the run's results (every output item and error, as n8n stores and
			// shows them) and everything written to the console. Not the engine's execution stack, which
			// holds the workflow's own parameters as the user typed them, as it does for every node.
			const produced = [
				JSON.stringify(run.run.data.resultData),
				JSON.stringify(run.items),
				JSON.stringify(run.error ?? null),
				captured,
			].join('\n');
			expect(produced.length).toBeGreaterThan(100);
			expect(produced).not.toContain(PLANTED_MARKER);
			for (const window of KEY_WINDOWS) expect(produced).not.toContain(window);
			expect(produced).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----\s*MII/);
		}
	});
});

/**
 * An unsigned HTTP 400 that echoes the listing's body: the error quotes the body's start, which is
 * redacted whole before it is cut, so no run of SECRET_PIECE (8) characters of a secret is left,
 * not even the start of one cut off at the edge.
 */
describe('a secret of the listing echoed by an unsigned 4xx: no piece of it in the error or the error item', () => {
	/** A 64-character access token (the API's maximum). */
	const TOKEN = 'AT-' + 'q7Zk2mWv9xLp4RtB8nCy3HdF6gJs1KeU5aVoTiPwQbXrMlNzEcYuSdGhIjOf0'.slice(0, 61);
	const pieces = (secret: string) =>
		Array.from({ length: secret.length - SECRET_PIECE + 1 }, (_, i) => secret.slice(i, i + SECRET_PIECE));
	const produced = (run: Awaited<ReturnType<typeof list>>) =>
		[JSON.stringify(run.run.data.resultData), JSON.stringify(run.items), JSON.stringify(run.error ?? null)].join('\n');

	it('a 64-character access token', async () => {
		expect(TOKEN).toHaveLength(64);
		sim().addFault({ fault: 'echoRequest', operation: 'list' });
		const run = await list(
			sim(),
			{ returnAll: true, customerId: 'CUST_SMALL' },
			{ credentials: { accessToken: TOKEN }, continueOnFail: true },
		);
		expect(run.json).toHaveLength(1);
		expect(String(run.json[0].error)).toMatch(/HTTP 400/);
		expect(String(run.json[0].description)).toMatch(/The body began: Bad request: .*\[hidden\]/);
		const text = produced(run);
		for (const piece of pieces(TOKEN)) expect(text).not.toContain(piece);
	});

	it('a long beneficiary token filter', async () => {
		const beneficiaryToken = Buffer.from('token:' + 'SECRET-BANK-DETAILS-'.repeat(4)).toString('base64');
		sim().addFault({ fault: 'echoRequest', operation: 'list' });
		const run = await list(
			sim(),
			{ returnAll: true, filters: { beneficiaryToken }, customerId: 'CUST_SMALL' },
			{ continueOnFail: true },
		);
		expect(String(run.json[0].error)).toMatch(/HTTP 400/);
		const text = produced(run);
		for (const piece of pieces(beneficiaryToken)) expect(text).not.toContain(piece);
	});
});
