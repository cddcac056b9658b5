/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test: reads the shipped example files */
/**
 * The shipped example workflows (examples/*.json) as files: each parses as a workflow with nodes and
 * connections, and carries an ID of its own that n8n 1.x can keep static data under (at most 16
 * characters: a longer ID gets no saved static data, so a trigger would forget what it has seen at
 * every restart). What n8n makes of them is checked in real apps by `npm run test:n8n`. The picture
 * examples/README.md shows of an example (docs/example-<name>.png) was made from the bytes that ship:
 * `npm run docs:screenshot` records their sha256 in docs/example-pictures.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
