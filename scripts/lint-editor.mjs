#!/usr/bin/env node
/**
 * node scripts/lint-editor.mjs (npm run lint:editor; part of npm run lint)
 *
 * n8n's parameter lint over what the editor shows. `n8n-node lint` reads the source, and its rules
 * (eslint-plugin-n8n-nodes-base, @n8n/eslint-plugin-community-nodes) only judge object literals
 * with plain keys and literal values in files named as they expect. Most of our parameters are made
 * by helpers (shared/properties.ts, trigger/properties.ts, fieldProperty in the credential), so
 * that lint never sees them. Here each node's evaluated `description` and the credential's evaluated
 * fields are written out again as literal TypeScript, in a temporary copy of the package's layout
 * (nodes/<Name>/<Name>.node.ts, credentials/<Name>.credentials.ts, the package.json, the icons),
 * and linted there with the config `n8n-node lint` uses (@n8n/node-cli/eslint, imported, not
 * copied), kept to its n8n rules about descriptions and parameters. Every finding is mapped back
 * to the parameter it is about (e.g. `options {operation=listBeneficiaries} > timeout: displayName`).
 * The credential's fields are linted twice: as the credential class (cred-* and the community
 * credential rules, as n8n-node lint runs them) and as parameters (the node-param-* rules).
 *
 * The classes are loaded from the TypeScript sources, each file transpiled in memory with the
 * options of tsconfig.json (no type check: `tsc` does that in the build). That is the code the build
 * emits, without needing a build first and without ever writing dist/ (a stale or absent dist/
 * cannot be what is linted, and a concurrent build or test is not disturbed).
 *
 * Plus our own rules, the table OWN_RULES, over every parameter, option and credential field, in
 * every displayOptions branch and every collection and fixedCollection level.
 *
 * `--keep` leaves the generated package in place (its path is printed), to read what was linted.
 * `--count` prints the controls each screen of each node shows (count-controls.mjs); a trigger
 * screen of more than 5 is an error.
 *
 * Exits 1 on any error (n8n's error-level rules and ours); n8n's warn-level rules are printed and,
 * as in `n8n-node lint`, do not fail the run.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { countControls, printTable, TRIGGER_MOST_SHOWN } from './count-controls.mjs';

const started = process.hrtime.bigint();
const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(path.join(root, 'package.json'));

// ---------------------------------------------------------------------------------------------
// Our own rules. Each row: what it looks at (kind: param, option, section; a param is also a
// credential field), the field, the check (a message when it fails). `sameAs` names the plugin
// rule that already says it where the plugin looks: the same finding is printed once.
const UNIT_IN_PARENTHESES =
	/\(\s*(ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|bytes?|[kmgt]i?b|%|percent|px|chars?|characters?)\s*\)/i;
const OWN_RULES = [
	{
		id: 'description-max-160',
		kinds: ['param', 'option', 'section'],
		field: 'description',
		check: (d) => typeof d === 'string' && d.length > 160 && `${d.length} characters, at most 160`,
	},
	{
		id: 'display-name-no-unit',
		kinds: ['param', 'section'],
		field: 'displayName',
		check: (n) =>
			typeof n === 'string' && UNIT_IN_PARENTHESES.test(n) && `"${n}": no unit in parentheses, the description says it`,
	},
	{
		// Collections' and fixedCollections' placeholders are the label of their Add button.
		id: 'placeholder-starts-eg',
		kinds: ['param'],
		field: 'placeholder',
		when: (p) => p.type !== 'collection' && p.type !== 'fixedCollection',
		check: (ph) =>
			typeof ph === 'string' &&
			ph.trim() !== '' &&
			!ph.startsWith('e.g.') &&
			`${JSON.stringify(ph)}: an example starts with "e.g."`,
		sameAs: ['n8n-nodes-base/cred-class-field-placeholder-url-missing-eg'],
	},
	{
		id: 'boolean-description-whether',
		kinds: ['param'],
		field: 'description',
		when: (p) => p.type === 'boolean',
		check: (d) => typeof d === 'string' && !d.startsWith('Whether') && 'a boolean\'s description starts with "Whether"',
		sameAs: ['n8n-nodes-base/node-param-description-boolean-without-whether'],
	},
];

// n8n's rules left out: they judge how the code is written or named (files, execute blocks,
// imports, type assertions, enum use), not what a description says. `n8n-node lint` runs them on
// the real files; on generated code they have nothing to see or would misfire.
const CODE_RULES = new Set(
	[
		'node-execute-block-double-assertion-for-items',
		'node-execute-block-error-missing-item-index',
		'node-execute-block-missing-continue-on-fail',
		'node-execute-block-wrong-error-thrown',
		'node-dirname-against-convention',
		'node-filename-against-convention',
		'node-resource-description-filename-against-convention',
		'cred-filename-against-convention',
		'cred-class-field-authenticate-type-assertion', // authenticate is a function: not written out
		'cred-class-field-properties-assertion',
		'node-param-array-type-assertion',
	]
		.map((r) => `n8n-nodes-base/${r}`)
		.concat(
			[
				'missing-paired-item',
				'no-http-request-with-manual-auth',
				'require-node-api-error',
				'no-restricted-globals',
				'no-restricted-imports',
				'no-deprecated-workflow-functions',
				'no-dangerous-functions',
				'no-silent-error-swallowing',
				'webhook-lifecycle-complete', // webhookMethods are code, not in the description
				'no-dead-files',
				'node-registration-complete',
				'no-unsafe-connection-type-cast',
				'node-connection-type-literal', // inputs/outputs are written as the values the editor gets
			].map((r) => `@n8n/community-nodes/${r}`),
		),
);
const isDescriptionRule = (id) =>
	(id.startsWith('n8n-nodes-base/') || id.startsWith('@n8n/community-nodes/')) && !CODE_RULES.has(id);

// ---------------------------------------------------------------------------------------------
// The classes, from the sources: every .ts file of this repository that is required is transpiled
// in memory with tsconfig.json's options.
const ts = require('typescript');
const tsconfig = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const { options: compilerOptions } = ts.convertCompilerOptionsFromJson(tsconfig.config.compilerOptions, root);
require.extensions['.ts'] = (module, filename) => {
	if (path.relative(root, filename).split(path.sep).includes('node_modules')) throw new Error(`not ours: ${filename}`);
	const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
		compilerOptions: { ...compilerOptions, declaration: false, sourceMap: false, inlineSourceMap: true },
		fileName: filename,
	});
	module._compile(outputText, filename);
};
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// package.json names the built files; the source of dist/x/y.js is x/y.ts (as n8n's plugin maps it).
const sourceOf = (distFile) => distFile.replace(/^(\.\/)?dist\//, '').replace(/\.js$/, '.ts');
const loadClasses = (distFiles) =>
	distFiles.map((file) => {
		const source = sourceOf(file);
		let module;
		try {
			module = require(path.join(root, source));
		} catch (error) {
			throw new Error(`lint:editor could not evaluate ${source} (it lints what the sources evaluate to)`, {
				cause: error,
			});
		}
		const exported = Object.values(module).filter((v) => typeof v === 'function');
		if (exported.length !== 1) throw new Error(`${source}: expected one exported class, found ${exported.length}`);
		return { source, Class: exported[0], instance: new exported[0]() };
	});

// ---------------------------------------------------------------------------------------------
// The writer: literal TypeScript, one key a line, plain keys, and for every line the parameter and
// field it belongs to (`where`), to map a finding's line back.
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInline = (v) =>
	v === null ||
	['string', 'number', 'boolean'].includes(typeof v) ||
	(Array.isArray(v) && v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x))) ||
	(isPlainObject(v) && Object.keys(v).length === 0);
const inline = (v) =>
	Array.isArray(v)
		? `[${v.map(inline).join(', ')}]`
		: isPlainObject(v)
			? '{}'
			: typeof v === 'number' && !Number.isFinite(v)
				? String(v)
				: JSON.stringify(v);
const keyText = (k) => (IDENTIFIER.test(k) ? k : JSON.stringify(k));

/** What the elements of an array are: parameters, options of an options/multiOptions, sections. */
function elementKindOf(owner, ownerKind, key) {
	if ((ownerKind === 'root' || ownerKind === 'credential') && key === 'properties') return 'param';
	if (ownerKind === 'param' && key === 'options')
		return (
			{ options: 'option', multiOptions: 'option', collection: 'param', fixedCollection: 'section' }[owner.type] ?? null
		);
	if (ownerKind === 'section' && key === 'values') return 'param';
	return null;
}

/** Labels for sibling elements: name (a param, a section) or value (an option), told apart by displayOptions if need be. */
function labels(items, kind) {
	const base = items.map((it) => String(kind === 'option' ? (it.value ?? it.name) : it.name));
	const show = (it) => {
		const parts = Object.entries(it.displayOptions?.show ?? {}).map(([k, v]) => `${k}=${[].concat(v).join('|')}`);
		parts.push(...Object.entries(it.displayOptions?.hide ?? {}).map(([k, v]) => `${k}!=${[].concat(v).join('|')}`));
		return parts.length ? ` {${parts.join(', ')}}` : '';
	};
	const withShow = base.map((b, i) => (base.filter((x) => x === b).length > 1 ? b + show(items[i]) : b));
	return withShow.map((b, i) => (withShow.filter((x) => x === b).length > 1 ? `${b} #${i + 1}` : b));
}

class Writer {
	lines = [];
	where = [];
	/** Every element met, with its kind and path, for our own rules. */
	elements = [];
	line(text, where) {
		this.lines.push(text);
		this.where.push(where);
	}
	/** `head` then the value, over as many lines as it needs; `path` is the element it is in, `key` the field. */
	value(depth, head, value, path, key, tail, kind = null) {
		const pad = '\t'.repeat(depth);
		const where = { path, key };
		if (isInline(value)) return this.line(`${pad}${head}${inline(value)}${tail}`, where);
		if (Array.isArray(value)) {
			this.line(`${pad}${head}[`, where);
			const names = kind ? labels(value, kind) : [];
			value.forEach((item, i) => {
				if (kind && isPlainObject(item)) this.element(depth + 1, item, [...path, names[i]], kind);
				else this.value(depth + 1, '', item, path, `${key}[${i}]`, ',');
			});
			return this.line(`${pad}]${tail}`, where);
		}
		if (isPlainObject(value)) {
			this.line(`${pad}${head}{`, where);
			this.fields(depth + 1, value, path, key, null);
			return this.line(`${pad}}${tail}`, where);
		}
		// A function (credential authenticate, a class's methods) is code, not something shown.
		this.line(`${pad}// ${head}(${typeof value}, not written out)`, where);
	}
	fields(depth, obj, path, keyPrefix, ownerKind) {
		for (const [k, v] of Object.entries(obj)) {
			if (v === undefined || typeof v === 'function') continue;
			const key = keyPrefix ? `${keyPrefix}.${k}` : k;
			const childKind = ownerKind ? elementKindOf(obj, ownerKind, k) : null;
			this.value(depth, `${keyText(k)}: `, v, path, key, ',', childKind);
		}
	}
	element(depth, item, path, kind) {
		this.elements.push({ item, path, kind });
		this.line(`${'\t'.repeat(depth)}{`, { path, key: null });
		this.fields(depth + 1, item, path, null, kind);
		this.line(`${'\t'.repeat(depth)}},`, { path, key: null });
	}
}

function nodeFile({ Class, instance }) {
	const w = new Writer();
	w.line(`import type { INodeType, INodeTypeDescription } from 'n8n-workflow';`, { path: [], key: null });
	w.line('', { path: [], key: null });
	w.line(`export class ${Class.name} implements INodeType {`, { path: [], key: null });
	w.line(`\tdescription: INodeTypeDescription = {`, { path: [], key: null });
	w.fields(2, instance.description, [], null, 'root');
	w.line(`\t};`, { path: [], key: null });
	w.line(`}`, { path: [], key: null });
	return w;
}

function credentialFile({ Class, instance }) {
	const w = new Writer();
	const types = { icon: 'Icon', properties: 'INodeProperties[]', test: 'ICredentialTestRequest' };
	w.line(`import type { ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';`, {
		path: [],
		key: null,
	});
	w.line('', { path: [], key: null });
	w.line(`export class ${Class.name} implements ICredentialType {`, { path: [], key: null });
	for (const [k, v] of Object.entries(instance)) {
		if (v === undefined || typeof v === 'function') continue;
		w.value(
			1,
			`${keyText(k)}${types[k] ? `: ${types[k]}` : ''} = `,
			v,
			[],
			k,
			';',
			elementKindOf(instance, 'credential', k),
		);
	}
	w.line(`}`, { path: [], key: null });
	return w;
}

/** The credential's fields as parameters, under nodes/ where n8n's node-param-* rules run. */
function credentialFieldsFile({ instance }) {
	const w = new Writer();
	w.line(`import type { INodeProperties } from 'n8n-workflow';`, { path: [], key: null });
	w.line('', { path: [], key: null });
	w.value(
		0,
		'export const properties: INodeProperties[] = ',
		instance.properties ?? [],
		[],
		'properties',
		';',
		'param',
	);
	return w;
}

// ---------------------------------------------------------------------------------------------
const nodes = loadClasses(pkg.n8n?.nodes ?? []);
const credentials = loadClasses(pkg.n8n?.credentials ?? []);

// The temporary package: the generated files where the real ones are (rules look at file names and
// at icons, package.json and credentials relative to them), the package.json, the icons.
// realpath: ESLint reports real paths (macOS's tmpdir is behind a symlink).
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lint-editor-')));
const files = []; // { file (relative to tmp), writer, group, view }
const add = (file, writer, group, view = '') => {
	fs.mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
	fs.writeFileSync(path.join(tmp, file), writer.lines.join('\n') + '\n');
	files.push({ file, writer, group, view });
};
const CREDENTIAL_FIELDS_DIR = 'nodes/__credentialFields__';
try {
	fs.copyFileSync(path.join(root, 'package.json'), path.join(tmp, 'package.json'));
	for (const dir of ['icons']) {
		if (fs.existsSync(path.join(root, dir))) fs.symlinkSync(path.join(root, dir), path.join(tmp, dir), 'junction');
	}
	for (const n of nodes) add(n.source, nodeFile(n), `${n.instance.description.displayName} (${n.source})`);
	for (const c of credentials) {
		const group = `${c.instance.displayName} (${c.source})`;
		add(c.source, credentialFile(c), group);
		add(`${CREDENTIAL_FIELDS_DIR}/${c.Class.name}.ts`, credentialFieldsFile(c), group, 'as parameters');
	}

	const { ESLint } = require('eslint');
	const { config } = require('@n8n/node-cli/eslint');
	const eslint = new ESLint({
		cwd: tmp,
		overrideConfigFile: true,
		overrideConfig: [
			...config.map((c) =>
				c.rules
					? { ...c, rules: Object.fromEntries(Object.entries(c.rules).filter(([id]) => isDescriptionRule(id))) }
					: c,
			),
			// node-cli turns off its credential twin (cred-class-field-type-options-password-missing);
			// the community rule credential-password-field judges the credential's secret fields instead.
			{
				files: [`${CREDENTIAL_FIELDS_DIR}/**`],
				rules: { 'n8n-nodes-base/node-param-type-options-password-missing': 'off' },
			},
		],
		warnIgnored: true,
	});
	const results = await eslint.lintFiles(files.map((f) => f.file));

	// Findings: { group, where, text, rule, severity, view, order } (order: file, then line).
	const findings = [];
	const whereText = ({ path: p, key }) => [p.join(' > '), key].filter(Boolean).join(': ') || '(the class)';
	for (const result of results) {
		const fileIndex = files.findIndex((x) => path.join(tmp, x.file) === result.filePath);
		const f = files[fileIndex];
		for (const m of result.messages) {
			const order = fileIndex * 1e6 + m.line;
			if (m.fatal || !m.ruleId) {
				// The writer wrote something that does not parse: a bug here, not in the description.
				findings.push({
					group: f.group,
					where: `${f.file}:${m.line}`,
					text: m.message,
					rule: 'parse',
					severity: 2,
					order,
				});
				continue;
			}
			const where = whereText(f.writer.where[m.line - 1] ?? { path: [], key: null });
			findings.push({
				group: f.group,
				where,
				text: m.message,
				rule: m.ruleId,
				severity: m.severity,
				view: f.view,
				order,
			});
		}
	}
	// Our rules, over the elements of each node and of the credential's fields (their own view).
	for (const [fileIndex, f] of files.entries()) {
		if (f.file.endsWith('.credentials.ts')) continue;
		for (const { item, path: p, kind } of f.writer.elements) {
			for (const rule of OWN_RULES) {
				if (!rule.kinds.includes(kind) || (rule.when && !rule.when(item))) continue;
				const text = rule.check(item[rule.field]);
				if (!text) continue;
				const where = whereText({ path: p, key: rule.field });
				const said = findings.some(
					(x) => x.group === f.group && x.where === where && (rule.sameAs ?? []).includes(x.rule),
				);
				const line = f.writer.where.findIndex((w) => w.path === p && w.key === rule.field) + 1;
				if (!said)
					findings.push({
						group: f.group,
						where,
						text,
						rule: `own/${rule.id}`,
						severity: 2,
						view: f.view,
						order: fileIndex * 1e6 + line,
					});
			}
		}
	}

	// The trigger's first screen, counted with n8n's display rules (count-controls.mjs).
	for (const n of nodes) {
		const { description } = n.instance;
		if (!description.polling) continue;
		for (const row of countControls(description).filter((r) => r.shown > TRIGGER_MOST_SHOWN))
			findings.push({
				group: `${description.displayName} (${n.source})`,
				where: row.case,
				text: `shows ${row.shown} controls (${row.controls.join(', ')}), at most ${TRIGGER_MOST_SHOWN} as n8n's Gmail Trigger`,
				rule: 'own/trigger-at-most-5-shown',
				severity: 2,
				order: Number.MAX_SAFE_INTEGER,
			});
	}
	if (process.argv.includes('--count')) for (const n of nodes) printTable([n.instance.description]);

	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	const groups = [...new Set(files.map((f) => f.group))];
	for (const group of groups) {
		const list = findings.filter((x) => x.group === group).sort((a, b) => a.order - b.order);
		if (!list.length) continue;
		console.log(`\n${group}`);
		for (const x of list)
			console.log(
				`  ${x.severity === 2 ? 'error' : 'warn '}  ${x.where}${x.view ? ` (${x.view})` : ''}  ${x.text.replace(/\s+/g, ' ')}  [${x.rule}]`,
			);
	}
	const errors = findings.filter((x) => x.severity === 2).length;
	const warnings = findings.length - errors;
	console.log(
		`\nlint:editor: ${nodes.length} node(s), ${credentials.length} credential(s), as the editor shows them: ` +
			`${errors} error(s), ${warnings} warning(s) (${seconds.toFixed(1)} s)`,
	);
	process.exitCode = errors ? 1 : 0;
} finally {
	if (process.argv.includes('--keep')) console.log(`generated package kept: ${tmp}`);
	else fs.rmSync(tmp, { recursive: true, force: true });
}
