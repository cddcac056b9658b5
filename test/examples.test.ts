/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test: reads the shipped example files */
/**
 * The shipped example workflows (examples/*.json) as files: each parses as a workflow with nodes and
 * connections, and carries an ID of its own that n8n 1.x can keep static data under (at most 16
 * characters: a longer ID gets no saved static data, so a trigger would forget what it has seen at
 * every restart). What a user types is typed in a node made for typing (no Code node); a scheduled
 * example runs by hand too (a Manual Trigger beside its schedule); an example that lists whole bank
 * details keeps no successful run's data in n8n's database, and a file is written where n8n lets a
 * node write by default. The package's nodes in them use the parameters the nodes have now. What n8n
 * makes of them is checked in real apps by `npm run test:n8n` (shipped.mjs runs them as shipped). The
 * picture examples/README.md shows of an example (docs/example-<name>.png) was made from the bytes
 * that ship: `npm run docs:screenshot` records their sha256 in docs/example-pictures.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { PartnerAccountInquiry } from '../nodes/PartnerAccountInquiry/PartnerAccountInquiry.node';
import { PartnerAccountInquiryTrigger } from '../nodes/PartnerAccountInquiry/PartnerAccountInquiryTrigger.node';

const ROOT = join(__dirname, '..');
const DIR = join(ROOT, 'examples');
const DIGESTS = 'docs/example-pictures.json';
const FILES = readdirSync(DIR)
	.filter((file) => file.endsWith('.json'))
	.sort();

interface Example {
	id?: unknown;
	name?: unknown;
	nodes?: unknown;
	connections?: unknown;
	settings?: Record<string, unknown>;
}
interface ExampleNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: INodeParameters;
}
type Connections = Record<string, { main?: Array<Array<{ node: string }> | null> }>;

const PACKAGE = 'n8n-nodes-partner-account-inquiry';
/** Node types that run code a user writes: none in an example, whose users type values, not code. */
const CODE_NODES = [
	'n8n-nodes-base.code',
	'n8n-nodes-base.function',
	'n8n-nodes-base.functionItem',
	'@n8n/n8n-nodes-langchain.code',
	'@n8n/n8n-nodes-langchain.toolCode',
];
const SCHEDULE = 'n8n-nodes-base.scheduleTrigger';
const MANUAL = 'n8n-nodes-base.manualTrigger';

const parsed = (file: string): Example => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Example;
const nodesOf = (file: string) => parsed(file).nodes as ExampleNode[];
/** The nodes a node's main outputs lead to, sorted. */
const targets = (file: string, name: string) =>
	((parsed(file).connections as Connections)[name]?.main ?? [])
		.flatMap((output) => output ?? [])
		.map((t) => t.node)
		.sort();
/**
 * Whether an example lists beneficiaries with whole bank details: the action node with Mask Bank
 * Details off (it is on unless set off, or unless Include Proof is on), or a trigger with it off.
 */
const listsWholeBankDetails = (file: string) =>
	nodesOf(file).some((n) => {
		if (!n.type.startsWith(`${PACKAGE}.partnerAccountInquiry`)) return false;
		const options = (n.parameters.options ?? {}) as Record<string, unknown>;
		const lists = n.type.endsWith('Trigger') || n.parameters.operation === 'listBeneficiaries';
		const masked = options.maskBankDetails ?? !options.includeProof;
		return lists && masked !== true;
	});

/** The description of a package node type as n8n loads it (the tool variant: the action node's, plus its tool fields). */
function descriptionOf(type: string): INodeTypeDescription | undefined {
	if (type === `${PACKAGE}.partnerAccountInquiryTrigger`) return new PartnerAccountInquiryTrigger().description;
	if (type === `${PACKAGE}.partnerAccountInquiry` || type === `${PACKAGE}.partnerAccountInquiryTool`)
		return new PartnerAccountInquiry().description;
	return undefined;
}
const TOOL_FIELDS = ['descriptionType', 'toolDescription'];

/** What is wrong with a package node's parameters against the node as it is now: unknown or hidden, an unknown option, an issue the editor flags. */
function parameterProblems(node: ExampleNode): string[] {
	const description = descriptionOf(node.type);
	if (!description) return [];
	// n8n's loader gives a polling node its Poll Times first (n8n-core's commonPollingParameters).
	const pollTimes: INodeProperties = {
		displayName: 'Poll Times',
		name: 'pollTimes',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: { item: [{ mode: 'everyMinute' }] },
		options: NodeHelpers.cronNodeOptions,
	};
	const properties = [...(description.polling ? [pollTimes] : []), ...description.properties];
	const own = Object.fromEntries(Object.entries(node.parameters).filter(([key]) => !TOOL_FIELDS.includes(key)));
	const full = NodeHelpers.getNodeParameters(properties, own, true, false, node, description) ?? {};
	const problems = Object.keys(own)
		.filter((key) => !(key in full))
		.map((key) => `parameter "${key}" is unknown or hidden`);
	// A collection's values: each an option of the collection shown here.
	const shown = (property: INodeProperties) =>
		NodeHelpers.displayParameter(full, property, node as unknown as INode, description);
	for (const property of properties.filter((p) => p.type === 'collection' && shown(p))) {
		const names = (property.options ?? []).map((o) => (o as INodeProperties).name);
		const given = (own[property.name] ?? {}) as Record<string, unknown>;
		for (const key of Object.keys(given))
			if (!names.includes(key))
				problems.push(`"${property.name}" holds "${key}", which is not one of its options (${names.join(', ')})`);
	}
	const issues = NodeHelpers.getNodeParametersIssues(
		properties,
		{ ...(node as unknown as INode), parameters: full },
		description,
	);
	if (issues) problems.push(`the editor would flag ${JSON.stringify(issues.parameters ?? issues)}`);
	return problems;
}

describe('examples/*.json', () => {
	it('are there', () => {
		expect(FILES.length).toBeGreaterThanOrEqual(7);
	});

	it.each(FILES)('%s parses as a workflow with a name, nodes and connections', (file) => {
		const workflow = parsed(file);
		expect(typeof workflow.name).toBe('string');
		expect(Array.isArray(workflow.nodes)).toBe(true);
		expect((workflow.nodes as unknown[]).length).toBeGreaterThan(0);
		expect(workflow.connections).toEqual(expect.any(Object));
		expect(Array.isArray(workflow.connections)).toBe(false);
	});

	it.each(FILES)('%s has a workflow ID of 1 to 16 letters and digits (n8n 1.x keeps static data only then)', (file) => {
		const { id } = parsed(file);
		expect(typeof id).toBe('string');
		expect(id).toMatch(/^[A-Za-z0-9]{1,16}$/);
	});

	it('no two examples share an ID', () => {
		const owners = new Map<string, string[]>();
		for (const file of FILES) {
			const id = String(parsed(file).id);
			owners.set(id, [...(owners.get(id) ?? []), file]);
		}
		const shared = [...owners].filter(([, files]) => files.length > 1);
		expect(shared).toEqual([]);
	});

	it.each(FILES)('%s has no Code node: what a user types is typed in a node made for it', (file) => {
		expect(
			nodesOf(file)
				.filter((n) => CODE_NODES.includes(n.type))
				.map((n) => `${n.name} (${n.type})`),
		).toEqual([]);
	});

	describe('scheduled examples run by hand too', () => {
		const scheduled = FILES.filter((file) => nodesOf(file).some((n) => n.type === SCHEDULE));

		it('are the three daily and weekly ones at least', () => {
			expect(scheduled).toEqual(
				expect.arrayContaining([
					'daily-quota-check.json',
					'many-accounts-quota-check.json',
					'weekly-beneficiary-export.json',
				]),
			);
		});

		it.each(scheduled)('%s has a Manual Trigger beside each schedule, starting the same nodes', (file) => {
			const manual = nodesOf(file).filter((n) => n.type === MANUAL);
			expect(manual.length).toBeGreaterThan(0);
			for (const schedule of nodesOf(file).filter((n) => n.type === SCHEDULE)) {
				expect(targets(file, schedule.name).length).toBeGreaterThan(0);
				expect(manual.map((m) => targets(file, m.name))).toContainEqual(targets(file, schedule.name));
			}
		});
	});

	describe('whole bank details', () => {
		const whole = FILES.filter(listsWholeBankDetails);

		it('the export lists them (the record), and is the only example that does', () => {
			expect(whole).toEqual(['weekly-beneficiary-export.json']);
		});

		it.each(whole)(
			'%s keeps no run in n8n, successful or failed (saveDataSuccessExecution and saveDataErrorExecution "none", saveManualExecutions false)',
			(file) => {
				expect(parsed(file).settings).toEqual(
					expect.objectContaining({
						saveDataSuccessExecution: 'none',
						saveDataErrorExecution: 'none',
						saveManualExecutions: false,
					}),
				);
			},
		);
	});

	it.each(FILES)(
		"%s writes files only into /home/node/.n8n-files/ (~/.n8n-files of n8n's Docker image: where n8n 2.x lets a node write by default), each run a file of its own",
		(file) => {
			const written = nodesOf(file)
				.filter((n) => n.type === 'n8n-nodes-base.readWriteFile' && n.parameters.operation === 'write')
				.map((n) => String(n.parameters.fileName).replace(/^=/, ''));
			expect(written.filter((path) => !path.startsWith('/home/node/.n8n-files/') || path.includes('..'))).toEqual([]);
			// A second run the same day writes another file: the time to the second and the execution's ID.
			expect(written.filter((path) => !path.includes('HHmmss') || !path.includes('$execution.id'))).toEqual([]);
		},
	);

	it.each(FILES)('%s gives the package nodes only parameters they have now, none the editor would flag', (file) => {
		expect(nodesOf(file).flatMap((n) => parameterProblems(n).map((p) => `${n.name}: ${p}`))).toEqual([]);
	});

	it('the parameter check finds an option the node no longer has', () => {
		const node = nodesOf('new-beneficiary-alert.json').find((n) => n.type.endsWith('Trigger')) as ExampleNode;
		const stale = { ...node, parameters: { ...node.parameters, options: { customerId: 'CUST_SMALL' } } };
		expect(parameterProblems(stale)).toEqual([expect.stringContaining('"options" holds "customerId"')]);
	});

	describe('pictures (docs/example-*.png in examples/README.md)', () => {
		/** Each picture examples/README.md shows, with the example whose section (`## \`<file>.json\`: …`) it is in. */
		const shown = (): Array<{ file?: string; picture: string }> => {
			const found: Array<{ file?: string; picture: string }> = [];
			let section: string | undefined;
			for (const line of readFileSync(join(DIR, 'README.md'), 'utf8').split('\n')) {
				if (/^#+\s/.test(line)) section = /^#+\s+`([^`]+\.json)`/.exec(line)?.[1];
				for (const [, picture] of line.matchAll(/!\[[^\]]*\]\(\.\.\/(docs\/example-[^)\s]+\.png)\)/g))
					found.push({ file: section, picture });
			}
			return found;
		};
		const recorded = (): Record<string, { picture?: string; sha256?: string }> =>
			existsSync(join(ROOT, DIGESTS)) ? JSON.parse(readFileSync(join(ROOT, DIGESTS), 'utf8')) : {};
		/** What is wrong with the pictures of the examples as `read` gives their bytes: nothing when each was made from them. */
		const stale = (read: (file: string) => Buffer): string[] => {
			const digests = recorded();
			return shown().flatMap(({ file, picture }) => {
				if (!file || !FILES.includes(file))
					return [`examples/README.md shows ${picture} outside the section of an example file`];
				const rerun = `run \`SCREENSHOT_EXAMPLES=examples/${file} npm run docs:screenshot\` after changing an example, and commit the picture with ${DIGESTS}`;
				const sha256 = createHash('sha256').update(read(file)).digest('hex');
				const entry = digests[file];
				if (!existsSync(join(ROOT, picture))) return [`${picture} (of ${file}) does not exist: ${rerun}`];
				if (!entry) return [`${file} has no digest in ${DIGESTS}, so ${picture} may not show it: ${rerun}`];
				if (entry.picture !== picture)
					return [`${DIGESTS} records ${entry.picture} for ${file}, examples/README.md shows ${picture}: ${rerun}`];
				if (entry.sha256 !== sha256)
					return [
						`${file} changed since ${picture} was made from it (sha256 ${entry.sha256} recorded, ${sha256} now): ${rerun}`,
					];
				return [];
			});
		};
		const shipped = (file: string) => readFileSync(join(DIR, file));

		it('examples/README.md shows pictures, each in the section of an example', () => {
			expect(shown().length).toBeGreaterThan(0);
			expect(shown().filter(({ file }) => !file || !FILES.includes(file))).toEqual([]);
		});

		it('each was made from the example file as it is now (its sha256 in docs/example-pictures.json), and exists', () => {
			expect(stale(shipped)).toEqual([]);
		});

		it('the check fails when an example changes without its picture', () => {
			const changed = String(shown()[0].file); // one space more than was pictured
			const problems = stale((file) =>
				file === changed ? Buffer.concat([shipped(file), Buffer.from(' ')]) : shipped(file),
			);
			const problem = problems.find((text) => text.startsWith(`${changed} changed since`));
			expect(problem).toContain(`SCREENSHOT_EXAMPLES=examples/${changed} npm run docs:screenshot`);
		});
	});
});
