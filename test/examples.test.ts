/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test: reads the shipped example files */
/**
 * The shipped example workflows (examples/*.json) as files: each parses as a workflow with nodes and
 * connections, and carries an ID of its own that n8n 1.x can keep static data under (at most 16
 * characters: a longer ID gets no saved static data, so a trigger would forget what it has seen at
 * every restart). What n8n makes of them is checked in real apps by `npm run test:n8n`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', 'examples');
const FILES = readdirSync(DIR)
	.filter((file) => file.endsWith('.json'))
	.sort();

interface Example {
	id?: unknown;
	name?: unknown;
	nodes?: unknown;
	connections?: unknown;
}

const parsed = (file: string): Example => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Example;

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
});
