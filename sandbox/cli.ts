/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only command line */
/**
 * `npm run sandbox`: starts the local gateway simulator and prints what to paste into an n8n
 * credential. Options: --port N (default 8787), --host H (default 127.0.0.1), --latency MS,
 * --rate-limit-every N (every Nth request answered REQUEST_TRAFFIC_EXCEED_LIMIT).
 */
import { minorToMajor } from '../nodes/PartnerAccountInquiry/shared/core/api/amount';
import { QUOTAS } from './data';
import { readSandboxKey, SANDBOX_CLIENT_ID, SANDBOX_KEY_VERSION, startSimulator } from './server';

/** The quota subjects the simulator knows, read from its table (so this list never disagrees with it). */
function quotaLines(): string[] {
	return Object.entries(QUOTAS).map(([method, records]) => {
		const listed = Object.entries(records).map(([key, record]) => {
			const [id, tradeType] = key.split(':');
			const answer =
				'code' in record
					? `${record.code}${record.status === 'U' ? ', status U' : ''}`
					: `${record.currency} ${minorToMajor(record.value, record.currency)?.toLocaleString('en-US')}`;
			return `${id}${tradeType ? ` ${tradeType}` : ''} (${answer})`;
		});
		if (method === 'USER_ID') listed.push('U-B0 to U-B9999 (U-Bn: USD n.01)');
		return `  ${method}: ${listed.join(', ')}`;
	});
}

function arg(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
	const sim = await startSimulator({
		port: Number(arg('port') ?? 8787),
		host: arg('host') ?? '127.0.0.1',
		latencyMs: Number(arg('latency') ?? 0),
	});
	// --rate-limit-every N: every Nth request is answered REQUEST_TRAFFIC_EXCEED_LIMIT (for the benchmark).
	const every = Number(arg('rate-limit-every') ?? 0);
	if (every > 0) sim.addFault({ fault: 'rateLimit', every });
	const out = (text = '') => process.stdout.write(`${text}\n`);
	out(`Partner account inquiry gateway simulator listening on ${sim.url}`);
	out();
	out('Create a "Partner Account Inquiry API" credential in n8n with:');
	out(`  Gateway:            Custom (Sandbox or Proxy)`);
	out(`  Base URL:           ${sim.url}`);
	out(`  Client ID:          ${SANDBOX_CLIENT_ID}`);
	out(`  Key Version:        ${SANDBOX_KEY_VERSION}`);
	out('  Private Key:        (the demo partner key below; public on purpose, never use it for real)');
	out(readSandboxKey('demo-partner-private.pem').trim());
	out('  Service Public Key:');
	out(readSandboxKey('gateway-public.pem').trim());
	out();
	out('Customer IDs to try (Options > Customer ID): CUST_LARGE (320), CUST_SMALL (5, non-ASCII names),');
	out('CUST_EMPTY, CUST_BENCH (10,000), or none for your own 12. CUST_UNKNOWN, CUST_RATE_LIMITED,');
	out('CUST_PROCESS_FAIL and CUST_SYSTEM_ERROR answer with those codes; any other ID: USER_NOT_EXIST.');
	out('CUST_FIVE: 250 beneficiaries (5 pages of 50).');
	out('Quota subjects (Accumulation Method: ID, its available quota or the code it answers);');
	out('any other ID: ACCOUNT_NOT_EXIST.');
	for (const line of quotaLines()) out(line);
	out();
	out('Press Ctrl+C to stop.');
	const stop = () => {
		sim.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
