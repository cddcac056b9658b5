/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only command line */
/**
 * The command line of `npm run sandbox` (sandbox/cli.ts): its options, their help text and defaults
 * (one table, so that --help never disagrees with what is parsed), and the parse of argv and the
 * environment into what to do.
 */
import { isAbsolute, join } from 'node:path';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
/** Read, in this order, when --port is not given. */
export const PORT_VARIABLES = ['SANDBOX_PORT', 'PORT'] as const;

export type CliCommand =
	| { kind: 'help' }
	| { kind: 'start'; port: number; host: string; latencyMs: number; rateLimitEvery: number }
	| { kind: 'writeCredential'; file: string; port: number };

/** A command line that cannot be run as given: its message names the option (or variable) and value. */
export class CliUsageError extends Error {}

type Env = Record<string, string | undefined>;

interface OptionSpec {
	flag: string;
	alias?: string;
	value?: string;
	what: string;
	default?: string;
	/** Only meaningful when the simulator starts (not with --write-credential). */
	startOnly?: boolean;
}

const OPTIONS: OptionSpec[] = [
	{
		flag: '--port',
		value: 'N',
		what: 'Port to listen on, 1 to 65535, or 0 for any free port (the one taken is printed). With --write-credential: the port the credential names.',
		default: `$SANDBOX_PORT, else $PORT, else ${DEFAULT_PORT}`,
	},
	{
		flag: '--host',
		value: 'H',
		what: 'Address to listen on. n8n accepts plain http:// only from a loopback address.',
		default: DEFAULT_HOST,
		startOnly: true,
	},
	{
		flag: '--latency',
		value: 'MS',
		what: 'Milliseconds added before every answer, as a distant gateway would.',
		default: '0',
		startOnly: true,
	},
	{
		flag: '--rate-limit-every',
		value: 'N',
		what: 'Answer every Nth request with REQUEST_TRAFFIC_EXCEED_LIMIT (0: never).',
		default: '0',
		startOnly: true,
	},
	{
		flag: '--write-credential',
		value: 'FILE',
		what: `Write FILE for \`n8n import:credentials --input=FILE\`: one partnerAccountInquiryApi credential (Gateway custom, Base URL http://${DEFAULT_HOST}:<port>, the sandbox Client ID, Key Version and demo keys), then exit without starting the simulator. FILE is overwritten; a relative path is from where you ran npm.`,
		default: 'not written',
	},
	{ flag: '--help', alias: '-h', what: 'Print this help and exit.' },
];

/** Wraps `text` to `width` columns, every line after the first indented by `indent`. */
function wrap(text: string, width: number, indent: string): string {
	const lines: string[] = [];
	let line = '';
	for (const word of text.split(' ')) {
		if (line && line.length + 1 + word.length > width) {
			lines.push(line);
			line = word;
		} else line = line ? `${line} ${word}` : word;
	}
	lines.push(line);
	return lines.join(`\n${indent}`);
}

export function usage(): string {
	const column = 28;
	const indent = ' '.repeat(column);
	const rows = OPTIONS.map((o) => {
		const name = `${o.alias ? `${o.alias}, ` : ''}${o.flag}${o.value ? ` ${o.value}` : ''}`;
		const text = `${o.what}${o.default ? ` Default: ${o.default}.` : ''}`;
		return `  ${name.padEnd(column - 3)} ${wrap(text, 100 - column, indent)}`;
	});
	return [
		'Usage: npm run sandbox -- [--port N] [--host H] [--latency MS] [--rate-limit-every N]',
		'       npm run sandbox -- --write-credential FILE [--port N]',
		'       npm run sandbox -- --help',
		'',
		'Starts the local gateway simulator of the partner account inquiry API and prints the values of',
		'an n8n credential for it, and the customers and quota subjects it knows. Ctrl+C stops it.',
		'',
		'Options (a value follows its option, or is joined to it with "=", as in --port=8788):',
		...rows,
		'',
		'Environment:',
		`  ${'SANDBOX_PORT, PORT'.padEnd(column - 3)} ${wrap('The port when --port is not given; SANDBOX_PORT wins over PORT, --port over both. An empty variable counts as unset.', 100 - column, indent)}`,
	].join('\n');
}

function wholeNumber(text: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
	if (!/^\d+$/.test(text)) return undefined;
	const n = Number(text);
	return n <= max ? n : undefined;
}

function port(text: string, source: string): number {
	const n = wholeNumber(text, 65535);
	if (n === undefined) {
		throw new CliUsageError(
			`${source} "${text}" is not a port: give a whole number from 1 to 65535 (or 0 for any free port).`,
		);
	}
	return n;
}

/** `argv` (after `node cli.js`) and the environment, as what to do. Throws CliUsageError. */
export function parseCliArgs(argv: readonly string[], env: Env = {}, cwd = '.'): CliCommand {
	if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
	const given = new Map<string, string>();
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (!arg.startsWith('-')) {
			throw new CliUsageError(`unexpected argument "${arg}": every value follows its option (see --help).`);
		}
		const equals = arg.indexOf('=');
		const flag = equals > 0 ? arg.slice(0, equals) : arg;
		const spec = OPTIONS.find((o) => o.flag === flag);
		if (!spec) throw new CliUsageError(`unknown option "${flag}".`);
		if (!spec.value) throw new CliUsageError(`${flag} takes no value ("${arg}").`);
		let value: string | undefined;
		if (equals > 0) value = arg.slice(equals + 1);
		else {
			const next = argv[i + 1];
			if (next !== undefined && !next.startsWith('--')) {
				value = next;
				i++;
			}
		}
		if (value === undefined || value === '') throw new CliUsageError(`${flag} needs a value (${flag} ${spec.value}).`);
		given.set(flag, value);
	}

	const fromFlag = given.get('--port');
	const variable = PORT_VARIABLES.find((name) => (env[name] ?? '') !== '');
	const chosenPort =
		fromFlag !== undefined
			? port(fromFlag, '--port')
			: variable
				? port(env[variable] as string, `${variable} (environment variable)`)
				: DEFAULT_PORT;

	const file = given.get('--write-credential');
	if (file !== undefined) {
		const startOnly = OPTIONS.find((o) => o.startOnly && given.has(o.flag));
		if (startOnly) {
			throw new CliUsageError(
				`${startOnly.flag} applies only when the simulator starts; --write-credential writes the file and exits (run the two commands one after the other).`,
			);
		}
		if (chosenPort === 0) {
			throw new CliUsageError(
				`--write-credential needs a fixed port to name in the file; port 0 (any free port) is known only once the simulator starts.`,
			);
		}
		return { kind: 'writeCredential', file: isAbsolute(file) ? file : join(cwd, file), port: chosenPort };
	}

	const latency = given.get('--latency') ?? '0';
	const latencyMs = wholeNumber(latency);
	if (latencyMs === undefined) {
		throw new CliUsageError(`--latency "${latency}" is not a whole number of milliseconds (0 or more).`);
	}
	const every = given.get('--rate-limit-every') ?? '0';
	const rateLimitEvery = wholeNumber(every);
	if (rateLimitEvery === undefined) {
		throw new CliUsageError(`--rate-limit-every "${every}" is not a whole number (0 for never).`);
	}
	return { kind: 'start', port: chosenPort, host: given.get('--host') ?? DEFAULT_HOST, latencyMs, rateLimitEvery };
}
