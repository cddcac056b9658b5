/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error -- dev-only command line, no node to wrap errors for */
/**
 * `npm run sandbox`: starts the local gateway simulator and prints what to paste into an n8n
 * credential; `npm run sandbox -- --write-credential FILE` writes that credential as a file for
 * `n8n import:credentials` instead. Options and their defaults: `npm run sandbox -- --help`
 * (cliOptions.ts); docs/installation.md#the-local-simulator.
 */
import { minorToMajor } from '../nodes/PartnerAccountInquiry/shared/core/api/amount';
import { CliUsageError, parseCliArgs, usage } from './cliOptions';
import { simulatorBaseUrl, writeCredentialFile } from './credentialFile';
import { QUOTAS } from './data';
import { readSandboxKey, SANDBOX_CLIENT_ID, SANDBOX_KEY_VERSION, startSimulator, type Simulator } from './server';

/** Where the command line writes, and what it reads besides its arguments. */
export interface CliIo {
	/** Writes one line (a newline is added) to standard output; `err` to standard error. */
	out: (text?: string) => void;
	err: (text: string) => void;
	env: Record<string, string | undefined>;
	/** Where a relative --write-credential path is from (npm's INIT_CWD: where npm was run). */
	cwd: string;
}

/** What a run came to: an exit code, or a simulator started (it runs until stopped). */
export type CliOutcome = { exitCode: number } | { simulator: Simulator };

/** The quota subjects the simulator knows, read from its table (so this list never disagrees with it). */
/** One quota subject as the simulator prints it: its ID (and trade type) and what it answers. */
function quotaText(key: string, record: (typeof QUOTAS)[string][string]): string {
	const [id, tradeType] = key.split(':');
	const answer =
		'code' in record
			? `${record.code}${record.status === 'U' ? ', status U' : ''}`
			: `${record.currency} ${minorToMajor(record.value, record.currency)?.toLocaleString('en-US')}`;
	return `${id}${tradeType ? ` ${tradeType}` : ''} (${answer})`;
}

/** Your own account's quota subjects, a line per method; `managed`: the customers' own ("ACC_0002/U-2001"). */
function quotaLines(managed = false): string[] {
	return Object.entries(QUOTAS).flatMap(([method, records]) => {
		const listed = Object.entries(records)
			.filter(([key]) => key.includes('/') === managed)
			.map(([key, record]) => quotaText(managed ? key.replace('/', ' ') : key, record));
		if (method === 'USER_ID' && !managed) listed.push('U-B0 to U-B9999 (U-Bn: USD n.01)');
		return listed.length > 0 ? [`  ${method}: ${listed.join(', ')}`] : [];
	});
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<CliOutcome> {
	let command;
	try {
		command = parseCliArgs(argv, io.env, io.cwd);
	} catch (error) {
		if (!(error instanceof CliUsageError)) throw error;
		io.err(`sandbox: ${error.message}`);
		io.err('Options: npm run sandbox -- --help');
		return { exitCode: 2 };
	}
	const { out } = io;

	if (command.kind === 'help') {
		out(usage());
		return { exitCode: 0 };
	}

	if (command.kind === 'writeCredential') {
		const url = simulatorBaseUrl(command.port);
		let entry;
		try {
			entry = writeCredentialFile(command.file, url);
		} catch (error) {
			io.err(`sandbox: cannot write ${command.file}: ${(error as Error).message ?? String(error)}`);
			return { exitCode: 1 };
		}
		out(`Wrote ${command.file}: credential "${entry.name}" (id ${entry.id}, type ${entry.type}), Base URL ${url}.`);
		out(`Import it:           n8n import:credentials --input=${command.file}`);
		out(`Start the simulator: npm run sandbox -- --port ${command.port}`);
		out('The keys in it are the demo keys of sandbox/keys: public on purpose, never use them for real.');
		return { exitCode: 0 };
	}

	let sim: Simulator;
	try {
		sim = await startSimulator({ port: command.port, host: command.host, latencyMs: command.latencyMs });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
		io.err(
			`sandbox: port ${command.port} on ${command.host} is in use (another simulator?): stop it, or pick another with --port N or SANDBOX_PORT.`,
		);
		return { exitCode: 1 };
	}
	// Every Nth request is answered REQUEST_TRAFFIC_EXCEED_LIMIT (for the benchmark).
	if (command.rateLimitEvery > 0) sim.addFault({ fault: 'rateLimit', every: command.rateLimitEvery });
	out(`Partner account inquiry gateway simulator listening on ${sim.url}`);
	out();
	out('Create a "Partner Account Inquiry API" credential in n8n, named "Partner Account Inquiry account" (the name n8n proposes), with:');
	out(`  Gateway:            Custom (Sandbox or Proxy)`);
	out(`  Base URL:           ${sim.url}`);
	out(`  Client ID:          ${SANDBOX_CLIENT_ID}`);
	out(`  Key Version:        ${SANDBOX_KEY_VERSION}`);
	out('  Private Key:        (the demo partner key below; public on purpose, never use it for real)');
	out(readSandboxKey('demo-partner-private.pem').trim());
	out('  Service Public Key:');
	out(readSandboxKey('gateway-public.pem').trim());
	out(`Or as a file for n8n import:credentials: npm run sandbox -- --write-credential cred.json --port ${sim.port}`);
	out();
	out('Customer IDs to try (Customer ID): own for your own 12, CUST_LARGE (320), CUST_SMALL (5, non-ASCII names),');
	out('CUST_EMPTY, CUST_BENCH (10,000). CUST_UNKNOWN, CUST_RATE_LIMITED,');
	out('CUST_PROCESS_FAIL and CUST_SYSTEM_ERROR answer with those codes; any other ID: USER_NOT_EXIST.');
	out('CUST_FIVE: 250 beneficiaries (5 pages of 50). CUST_NO_REF: 3 bound without a Reference Beneficiary ID.');
	out('Quota subjects of your own account (Connected Account ID own; Accumulation Method: ID, its available');
	out('quota or the code it answers); any other ID: ACCOUNT_NOT_EXIST.');
	for (const line of quotaLines()) out(line);
	out();
	out("Managed customers' own quotas (Connected Account ID, then the subject):");
	for (const line of quotaLines(true)) out(line);
	out('Any other Connected Account ID (e.g. ACC_0009) reads your own quotas above until set-quota gives it its');
	out('own ({"connectedAccountId":"ACC_0009",...}); ACC_MISSING answers ACCOUNT_NOT_EXIST.');
	out('Every trigger event and failure, one call each (payees, quotas, faults): docs/simulator.md');
	out('Press Ctrl+C to stop.');
	return { simulator: sim };
}

async function main(): Promise<void> {
	const outcome = await runCli(process.argv.slice(2), {
		out: (text = '') => process.stdout.write(`${text}\n`),
		err: (text) => process.stderr.write(`${text}\n`),
		env: process.env,
		cwd: process.env.INIT_CWD ?? process.cwd(),
	});
	if ('exitCode' in outcome) {
		process.exitCode = outcome.exitCode;
		return;
	}
	const stop = () => {
		outcome.simulator.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

if (require.main === module) {
	main().catch((error) => {
		process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
		process.exit(1);
	});
}
