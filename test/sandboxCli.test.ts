/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test: the simulator's command line, files and ports */
/**
 * `npm run sandbox` (sandbox/cli.ts, cliOptions.ts): --help, the port from --port or the
 * environment, errors that name the option and value, and --write-credential's file, which must
 * hold a whole `partnerAccountInquiryApi` credential that works against the simulator it names.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PartnerAccountInquiryApi } from '../credentials/PartnerAccountInquiryApi.credentials';
import { runCli, type CliIo, type CliOutcome } from '../sandbox/cli';
import { CliUsageError, DEFAULT_PORT, parseCliArgs, usage } from '../sandbox/cliOptions';
import { runNode } from '../sandbox/engine';
import { readSandboxKey, SANDBOX_CLIENT_ID, SANDBOX_KEY_VERSION, type Simulator } from '../sandbox/server';

interface Captured {
	io: CliIo;
	out: () => string;
	err: () => string;
}

function capture(env: Record<string, string | undefined> = {}, cwd = '/nowhere'): Captured {
	const out: string[] = [];
	const err: string[] = [];
	return {
		io: { out: (text = '') => out.push(text), err: (text) => err.push(text), env, cwd },
		out: () => out.join('\n'),
		err: () => err.join('\n'),
	};
}

/** A port nothing listens on now (the system's pick, released). */
async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

const started: Simulator[] = [];
function simulatorOf(outcome: CliOutcome): Simulator {
	if (!('simulator' in outcome)) throw new Error(`the CLI did not start the simulator (exit ${outcome.exitCode})`);
	started.push(outcome.simulator);
	return outcome.simulator;
}
afterEach(async () => {
	await Promise.all(started.splice(0).map(async (sim) => await sim.close()));
});

describe('npm run sandbox -- --help', () => {
	it.each([[['--help']], [['-h']], [['--port', 'nonsense', '--help']]])(
		'%j prints every option and exits 0',
		async (argv) => {
			const c = capture();
			expect(await runCli(argv, c.io)).toEqual({ exitCode: 0 });
			expect(c.out()).toBe(usage());
			expect(c.err()).toBe('');
		},
	);

	it('names every option, what it does and its default, and the port variables', () => {
		const text = usage();
		for (const option of [
			'--port N',
			'--host H',
			'--latency MS',
			'--rate-limit-every N',
			'--write-credential FILE',
			'-h, --help',
		]) {
			expect(text).toContain(option);
		}
		const flat = text.replace(/\s+/g, ' ');
		expect(flat).toContain(`Default: $SANDBOX_PORT, else $PORT, else ${DEFAULT_PORT}.`);
		expect(flat).toContain(
			'Address to listen on. n8n accepts plain http:// only from a loopback address. Default: 127.0.0.1.',
		);
		expect(flat).toContain('(0: never). Default: 0.');
		expect(flat).toContain('Write FILE for `n8n import:credentials --input=FILE`');
		expect(flat).toContain('then exit without starting the simulator.');
		expect(flat).toContain(
			'SANDBOX_PORT, PORT The port when --port is not given; SANDBOX_PORT wins over PORT, --port over both.',
		);
		expect(text.split('\n').every((line) => line.length <= 100)).toBe(true);
	});
});

describe('the port', () => {
	const portOf = (argv: string[], env: Record<string, string> = {}) => {
		const command = parseCliArgs(argv, env);
		if (command.kind === 'help') throw new Error('help');
		return command.port;
	};

	it('is --port, else SANDBOX_PORT, else PORT, else 8787', () => {
		expect(portOf([])).toBe(8787);
		expect(portOf([], { PORT: '9001' })).toBe(9001);
		expect(portOf([], { PORT: '9001', SANDBOX_PORT: '9002' })).toBe(9002);
		expect(portOf(['--port', '9003'], { PORT: '9001', SANDBOX_PORT: '9002' })).toBe(9003);
		expect(portOf(['--port=9004'])).toBe(9004);
		expect(portOf(['--port', '0'])).toBe(0);
		expect(portOf([], { PORT: '', SANDBOX_PORT: '' })).toBe(8787);
	});

	it('--port wins over a bad variable; a bad variable is named when it is used', () => {
		expect(portOf(['--port', '9003'], { SANDBOX_PORT: 'x' })).toBe(9003);
		expect(() => portOf([], { SANDBOX_PORT: 'x', PORT: '9001' })).toThrow(
			'SANDBOX_PORT (environment variable) "x" is not a port',
		);
		expect(() => portOf([], { PORT: '70000' })).toThrow('PORT (environment variable) "70000" is not a port');
	});

	it.each([
		[['--port', 'abc'], '--port "abc" is not a port'],
		[['--port', '-1'], '--port "-1" is not a port'],
		[['--port', '65536'], '--port "65536" is not a port'],
		[['--port', '80.5'], '--port "80.5" is not a port'],
		[['--port'], '--port needs a value'],
		[['--port', '--host', '127.0.0.1'], '--port needs a value'],
		[['--prot', '8788'], 'unknown option "--prot"'],
		[['8788'], 'unexpected argument "8788"'],
		[['--latency', 'fast'], '--latency "fast" is not a whole number'],
		[['--rate-limit-every', '1.5'], '--rate-limit-every "1.5" is not a whole number'],
		[['--write-credential', 'c.json', '--port', '0'], '--write-credential needs a fixed port'],
		[['--write-credential', 'c.json', '--latency', '50'], '--latency applies only when the simulator starts'],
	])('%j is refused: the message names the option and value, exit 2, nothing started', async (argv, expected) => {
		let message = '';
		try {
			parseCliArgs(argv);
		} catch (error) {
			expect(error).toBeInstanceOf(CliUsageError);
			message = (error as Error).message;
		}
		expect(message).toContain(expected);
		const c = capture();
		expect(await runCli(argv, c.io)).toEqual({ exitCode: 2 });
		expect(c.err()).toBe(`sandbox: ${message}\nOptions: npm run sandbox -- --help`);
		expect(c.out()).toBe('');
	});

	it('the simulator starts on SANDBOX_PORT, and on --port over it', async () => {
		const [fromVariable, fromFlag] = [await freePort(), await freePort()];
		const c = capture({ SANDBOX_PORT: String(fromVariable), PORT: '1' });
		const sim = simulatorOf(await runCli([], c.io));
		expect(sim.port).toBe(fromVariable);
		expect(c.out()).toContain(`listening on http://127.0.0.1:${fromVariable}\n`);
		const viaFlag = simulatorOf(
			await runCli(['--port', String(fromFlag)], capture({ SANDBOX_PORT: String(fromVariable) }).io),
		);
		expect(viaFlag.url).toBe(`http://127.0.0.1:${fromFlag}`);
	});

	it('a port in use is said so, exit 1', async () => {
		const busy: Server = createServer();
		await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
		const { port } = busy.address() as { port: number };
		try {
			const c = capture();
			expect(await runCli(['--port', String(port)], c.io)).toEqual({ exitCode: 1 });
			expect(c.err()).toContain(`port ${port} on 127.0.0.1 is in use`);
		} finally {
			await new Promise<void>((resolve) => busy.close(() => resolve()));
		}
	});
});

describe('npm run sandbox -- --write-credential FILE', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'pai-sandbox-cli-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	const readEntries = (file: string) =>
		JSON.parse(readFileSync(file, 'utf8')) as Array<{
			id: string;
			name: string;
			type: string;
			data: Record<string, string>;
		}>;

	it('writes one whole credential for n8n import:credentials (a relative FILE from where npm ran) and exits 0', async () => {
		const c = capture({ SANDBOX_PORT: '9123' }, dir);
		expect(await runCli(['--write-credential', 'cred.json'], c.io)).toEqual({ exitCode: 0 });
		const file = join(dir, 'cred.json');
		expect(c.out()).toContain(`n8n import:credentials --input=${file}`);
		expect(c.out()).toContain('npm run sandbox -- --port 9123');

		const entries = readEntries(file);
		expect(entries).toHaveLength(1);
		const [entry] = entries;
		expect(entry).toEqual({
			id: expect.any(String),
			name: expect.any(String),
			type: 'partnerAccountInquiryApi',
			data: expect.any(Object),
		});
		expect(entry.id).toMatch(/^[A-Za-z0-9]{16}$/);
		// The name the examples reference, so that n8n links an imported example to this credential.
		const example = readFileSync(join(__dirname, '..', 'examples', 'daily-quota-check.json'), 'utf8');
		expect(example).toContain(`"name": "${entry.name}"`);

		const type = new PartnerAccountInquiryApi();
		expect(entry.type).toBe(type.name);
		const names = type.properties.map((p) => p.name);
		for (const key of Object.keys(entry.data)) expect(names).toContain(key);
		for (const property of type.properties.filter((p) => p.required)) {
			expect({ [property.name]: entry.data[property.name] }).toEqual({ [property.name]: expect.stringMatching(/\S/) });
		}
		const gateway = type.properties.find((p) => p.name === 'environment');
		const baseUrl = type.properties.find((p) => p.name === 'baseUrl');
		expect(baseUrl?.displayOptions?.show?.environment).toEqual([entry.data.environment]);
		expect(gateway?.options?.map((o) => ('value' in o ? o.value : undefined))).toContain(entry.data.environment);
		expect(entry.data).toMatchObject({
			baseUrl: 'http://127.0.0.1:9123',
			clientId: SANDBOX_CLIENT_ID,
			keyVersion: SANDBOX_KEY_VERSION,
		});

		// The keys are PEM, and the pair the simulator expects: its partner key and its own public key.
		const privateKey = entry.data.privateKey;
		const servicePublicKey = entry.data.servicePublicKey;
		expect(privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n?$/);
		expect(servicePublicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/);
		const spki = (pem: string) => createPublicKey(pem).export({ type: 'spki', format: 'der' });
		expect(
			spki(
				createPublicKey(createPrivateKey({ key: privateKey, format: 'pem' })).export({
					type: 'spki',
					format: 'pem',
				}) as string,
			),
		).toEqual(spki(readSandboxKey('demo-partner-public.pem')));
		expect(spki(servicePublicKey)).toEqual(
			spki(createPublicKey(readSandboxKey('gateway-private.pem')).export({ type: 'spki', format: 'pem' }) as string),
		);
	});

	it('the file works: the node, with its data, gets the quota from the simulator started on that port', async () => {
		const port = await freePort();
		expect(await runCli(['--write-credential', join(dir, 'cred.json'), '--port', String(port)], capture().io)).toEqual({
			exitCode: 0,
		});
		simulatorOf(await runCli(['--port', String(port)], capture().io));
		const [{ data }] = readEntries(join(dir, 'cred.json'));
		const run = await runNode({
			parameters: {
				operation: 'getAvailableQuota',
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: 'U-1001',
				currency: 'USD',
			},
			credentials: data,
		});
		expect(run.status).toBe('success');
		expect(run.json).toEqual([expect.objectContaining({ quotaAccumulationId: 'U-1001', availableQuotaAmount: 12500 })]);
	});

	it('writes the file and does not start the simulator', async () => {
		const port = await freePort();
		const outcome = await runCli(['--write-credential', join(dir, 'cred.json'), `--port=${port}`], capture().io);
		expect(outcome).toEqual({ exitCode: 0 });
		await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
	});

	it('a file it cannot write is said so, exit 1', async () => {
		const c = capture();
		const file = join(dir, 'no-such-folder', 'cred.json');
		expect(await runCli(['--write-credential', file], c.io)).toEqual({ exitCode: 1 });
		expect(c.err()).toContain(`sandbox: cannot write ${file}: ENOENT: no such file or directory`);
	});
});
