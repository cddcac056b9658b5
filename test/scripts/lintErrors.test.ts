/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only test: runs scripts/lint-errors.mjs on a fixture package */
/**
 * scripts/lint-errors.mjs on a small package laid out as ours (fields.ts, errors.ts, ...): each rule
 * fails on the texts made to break it, the dodges included (a message built from a field row's
 * `name`, a destructured name, a name passed on as a default parameter), and passes the texts
 * written as the rules ask.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'lint-errors.mjs');
const NODE = 'nodes/PartnerAccountInquiry';
const ISSUES = 'https://github.com/example/n8n-nodes-example/issues';

const FILES: Record<string, string> = {
	'package.json': JSON.stringify({
		name: 'fixture',
		repository: { type: 'git', url: 'git+https://github.com/example/n8n-nodes-example.git' },
	}),
	'tsconfig.json': JSON.stringify({
		compilerOptions: {
			strict: true,
			module: 'commonjs',
			target: 'es2022',
			lib: ['es2022'],
			types: [],
			skipLibCheck: true,
		},
		include: ['nodes/**/*'],
	}),
	[`${NODE}/shared/core/api/fields.ts`]: `
export interface FieldRule {
	name: string;
	label: string;
	header?: string;
	responseField?: string;
	pattern?: { regex: RegExp; text: string };
	onlyWith?: { field: string; value: string };
}
export const CUSTOMER_ID: FieldRule = { name: 'customerId', label: 'Customer ID', responseField: 'customerNo' };
export const CLIENT_ID: FieldRule = { name: 'clientId', label: 'Client ID', header: 'Client-Id' };
export const CURRENCY: FieldRule = { name: 'currency', label: 'Currency' };
export const IBAN: FieldRule = {
	name: 'bankAccountIBAN',
	label: 'Bank Account IBAN',
	pattern: { regex: /^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/, text: 'a country code, two digits, then letters or digits' },
};
export const TRADE_TYPE: FieldRule = { name: 'tradeType', label: 'Trade Type', onlyWith: { field: 'quotaAccumulationMethod', value: 'BENEFICIARY' } };
const LABELS: Record<string, string> = { customerId: 'Customer ID', clientId: 'Client ID', bankAccountIBAN: 'Bank Account IBAN', limit: 'Limit' };
export const labelOf = (name: string): string => LABELS[name] ?? name;
`,
	[`${NODE}/shared/core/errors.ts`]: `
import { labelOf } from './api/fields';
export abstract class PartnerError extends Error {
	constructor(message: string, public hint: string, public detail?: string) {
		super(message);
	}
}
export class ValidationError extends PartnerError {
	constructor(readonly field: string, readonly rule: string, message: string, hint = \`Correct \${labelOf(field)}, then run again.\`, detail?: string) {
		super(message, hint, detail);
	}
}
export class RequestError extends PartnerError {}
`,
	[`${NODE}/shared/core/api/validation.ts`]: `
export interface BeneficiaryListRequest { pageSize: number; pageNumber: number }
`,
	[`${NODE}/bad.ts`]: `
import { ValidationError, RequestError } from './shared/core/errors';
import { CUSTOMER_ID, IBAN, TRADE_TYPE, type FieldRule } from './shared/core/api/fields';

export function plainName() {
	throw new ValidationError('customerId', 'r', 'customerId must be set');
}
export function builtFromName(rule: FieldRule) {
	throw new ValidationError(rule.name, 'r', \`\${rule.name} is empty\`);
}
builtFromName(CUSTOMER_ID);
export function destructured(rule: FieldRule) {
	const { name: field } = rule;
	throw new ValidationError(field, 'r', \`\${field} is too long\`);
}
export function onlyWithField(rule: FieldRule) {
	throw new ValidationError(rule.name, 'r', \`Trade Type is only for \${rule.onlyWith?.field}\`, 'Pick another method.');
}
onlyWithField(TRADE_TYPE);
function checkNumber(field: string, value: unknown, label = field) {
	if (typeof value !== 'number') throw new ValidationError(field, 'n', \`\${label} must be a number\`);
}
checkNumber('pageSize', 1);
export function header() {
	throw new RequestError('The Client-Id header is missing', 'Check the Client ID.');
}
export function unquotedHint() {
	throw new RequestError('The customer is unknown', 'Send customerId in the body.');
}
export function regexText() {
	throw new ValidationError('bankAccountIBAN', 'p', 'Bank Account IBAN must match ^[A-Z0-9]{0,34}$');
}
export function regexBuilt() {
	throw new ValidationError('bankAccountIBAN', 'p', \`Bank Account IBAN must match \${IBAN.pattern?.regex.source}\`);
}
export function tooLong() {
	throw new RequestError(
		'The gateway answered with a page that does not belong to the listing that was asked for at all, twice',
		'Run the node again.',
	);
}
export function repeated() {
	throw new RequestError('The gateway refused the signed request for this account', 'The gateway refused the signed request for this account. Try again later.');
}
export function env() {
	throw new RequestError('The poll took too long', 'Raise N8N_SCHEDULER_POLL_TIMEOUT and restart n8n.');
}
export function bug() {
	throw new RequestError('The answer arrived already parsed', 'Report this as a bug of the node.');
}
export function detailUnquoted() {
	throw new RequestError('The beneficiary is unknown', 'Check the filters.', 'No customer has that customerId.');
}
export function detailRepeatsMessage() {
	throw new RequestError('The list could not be read in time', 'Narrow the list.', 'The list could not be read in time: 9 pages.');
}
export function hintRepeatsDetail() {
	throw new RequestError('The poll ran out of time', 'Read a list this large on a schedule instead.', 'Read a list this large on a schedule instead of a poll.');
}
export function detailEnv() {
	throw new RequestError('The poll took too long', 'Narrow the list.', 'n8n gives a poll N8N_EXAMPLE_POLL_TIMEOUT at most.');
}
`,
	[`${NODE}/good.ts`]: `
import { ValidationError, RequestError } from './shared/core/errors';
import { CUSTOMER_ID, IBAN, type FieldRule } from './shared/core/api/fields';

export function byLabel(rule: FieldRule) {
	const { name: field, label } = rule;
	throw new ValidationError(field, 'r', \`\${label} is empty\`);
}
byLabel(CUSTOMER_ID);
export function literal() {
	throw new ValidationError('customerId', 'r', 'Customer ID is empty');
}
export function quotedInHint() {
	throw new RequestError('The customer is unknown', 'The API names it \`customerId\`; check the Customer ID.');
}
export function quotedHeaderValue() {
	throw new RequestError('The signature header is malformed', 'Expected "algorithm=RSA256, clientId=<id>".');
}
export function inWords() {
	throw new ValidationError('bankAccountIBAN', 'p', \`Bank Account IBAN must be \${IBAN.pattern?.text}\`);
}
function checkNumber(field: string, value: unknown, label = field) {
	if (typeof value !== 'number') throw new ValidationError(field, 'n', \`\${label} must be a number\`);
}
checkNumber('limit', 1, 'Limit');
export function plainWord() {
	throw new ValidationError('currency', 'r', 'Pick a currency');
}
export function bugWithLink() {
	throw new RequestError('The answer arrived already parsed', 'Report this as a bug: ${ISSUES}');
}
export function withDetail(value: string) {
	throw new ValidationError('customerId', 'r', 'Customer ID is too long', undefined, \`It is \${value}; the API names it \\\`customerId\\\`.\`);
}
withDetail('x');
`,
};

interface Failure {
	rule: string;
	where: string;
	kind: string;
	detail: string;
	text: string;
}
interface Report {
	rows: Array<{ where: string; kind: string; length: number; text: string }>;
	failures: Failure[];
	summary: { texts: number; byRule: Record<string, number>; wireNames: string[] };
}

let dir: string;
let report: Report;
let status: number | null;

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'lint-errors-'));
	for (const [file, text] of Object.entries(FILES)) {
		mkdirSync(dirname(join(dir, file)), { recursive: true });
		writeFileSync(join(dir, file), text);
	}
	const run = spawnSync(process.execPath, [SCRIPT, '--json', '--root', dir], { encoding: 'utf8' });
	status = run.status;
	report = JSON.parse(run.stdout) as Report;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failuresIn = (file: string) => report.failures.filter((f) => f.where.startsWith(`${NODE}/${file}`));
const failing = (rule: string, text: string) =>
	failuresIn('bad.ts')
		.concat(failuresIn('shared'))
		.filter((f) => f.rule === rule && f.text.includes(text));

test('derives the wire names from the field rows, headers and request shapes; plain words are left out', () => {
	expect(report.summary.wireNames).toEqual(
		expect.arrayContaining([
			'customerId',
			'customerNo',
			'clientId',
			'Client-Id',
			'bankAccountIBAN',
			'tradeType',
			'quotaAccumulationMethod',
			'pageSize',
			'pageNumber',
		]),
	);
	expect(report.summary.wireNames).not.toContain('currency');
	expect(status).toBe(1);
});

test('wire-name: a name in a message, built from a row name, destructured, passed on as a default, or unquoted in a hint', () => {
	expect(failing('wire-name', 'customerId must be set')).toHaveLength(1);
	expect(failing('wire-name', 'is empty').map((f) => f.detail)).toEqual([expect.stringContaining("field row's name")]);
	expect(failing('wire-name', 'is too long').map((f) => f.detail)).toEqual([
		expect.stringContaining("field row's name"),
	]);
	expect(failing('wire-name', 'Trade Type is only for')).toHaveLength(1);
	expect(failing('wire-name', 'pageSize must be a number')).toHaveLength(1);
	expect(failing('wire-name', 'Correct pageSize')).toHaveLength(1);
	expect(failing('wire-name', 'The Client-Id header')).toHaveLength(1);
	expect(failing('wire-name', 'Send customerId in the body')).toHaveLength(1);
});

test('regex, length, repeat, env and bug-link each fail their text', () => {
	expect(failing('regex', '^[A-Z0-9]{0,34}$')).toHaveLength(1);
	expect(failing('regex', 'must match …').map((f) => f.detail)).toEqual([
		expect.stringContaining('regular expression'),
	]);
	expect(failing('length', 'does not belong to the listing')).toHaveLength(1);
	expect(failing('repeat', 'The gateway refused the signed request')).toHaveLength(1);
	expect(failing('env', 'N8N_SCHEDULER_POLL_TIMEOUT')).toHaveLength(1);
	expect(failing('bug-link', 'Report this as a bug of the node')).toHaveLength(1);
});

test('a detail is a description: a wire name unquoted, an environment variable and a repeat fail in it', () => {
	expect(failing('wire-name', 'has that customerId')).toEqual([
		expect.objectContaining({ kind: 'detail', detail: expect.stringContaining('unquoted in the detail') }),
	]);
	expect(failing('repeat', 'The list could not be read in time').map((f) => f.detail)).toEqual([
		expect.stringContaining('the message is repeated in its detail'),
	]);
	expect(failing('repeat', 'Read a list this large on a schedule instead of a poll').map((f) => f.kind)).toEqual([
		'detail',
	]);
	expect(failing('env', 'N8N_EXAMPLE_POLL_TIMEOUT').map((f) => f.kind)).toEqual(['detail']);
});

test('texts written as the rules ask pass, and are listed', () => {
	expect(failuresIn('good.ts')).toEqual([]);
	expect(
		report.failures.filter(
			(f) =>
				f.text.includes('two digits') ||
				f.text.includes('Correct Customer ID') ||
				f.text.includes('Correct Bank Account IBAN'),
		),
	).toEqual([]);
	const texts = report.rows.map((r) => r.text);
	expect(texts).toEqual(
		expect.arrayContaining([
			'Customer ID is empty',
			'Correct Customer ID, then run again.',
			'Limit must be a number',
			'Bank Account IBAN must be a country code, two digits, then letters or digits',
			'It is x; the API names it `customerId`.',
		]),
	);
	expect(report.rows.find((r) => r.text.startsWith('It is x;'))).toMatchObject({ kind: 'detail' });
	expect(report.rows.find((r) => r.text === 'Customer ID is empty')).toMatchObject({ kind: 'message', length: 20 });
});
