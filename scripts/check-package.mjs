#!/usr/bin/env node
/**
 * node scripts/check-package.mjs <package.tgz> [--source <dir>]
 *
 * Runs on the packed tarball of this repository what n8n's verification runs on a published
 * package, as far as it can run before publishing, plus the package.json rules of n8n's
 * verification guidelines. Prints one "ok ..." / "FAIL ..." (or "skip ...") line per check and
 * exits 1 if any check failed. `npm run check:package` packs into a temporary folder and runs this.
 *
 * What n8n's scanner (@n8n/scan-community-package, `analyzePackageByName` in scanner/scanner.mjs)
 * does with a published name@version, and where each step is here:
 *  1. registry metadata: the version must carry an npm provenance attestation whose predicate is
 *     https://slsa.dev/provenance/v1 (provenance.mjs)                          -> skip (needs the
 *     published version; the publish workflow makes it, see docs/publishing.md)
 *  2. the attestation's source repository and commit (github.com only) are downloaded, and the
 *     folder whose package.json has the package's name is linted with SOURCE_FILE_PATTERNS
 *     (package.json, {nodes,credentials}/**\/*.{js,ts,json})                   -> run here on the
 *     source folder (default: this repository), with the scanner's own analyzePackage(); the
 *     download itself is skipped, the repository URL it would come from is checked instead
 *  3. the tarball is unpacked and **\/*.js plus package.json are linted        -> run here on the
 *     unpacked tarball, with the scanner's own analyzePackage()
 * Both lints use the scanner's exported buildScanConfig(): @n8n/eslint-plugin-community-nodes'
 * "recommended" rules, no-console, eslint-plugin-n8n-nodes-base's community (package.json),
 * credentials and nodes rulesets (.ts only), inline eslint-disable comments ignored. A run fails on
 * any error; warnings do not fail it (listed here as "warn" lines). Nothing is reimplemented: the
 * scanner module is imported from the pinned package, so its rules and verdict are the scanner's.
 *
 * The scanner comes from the npm registry, pinned (SCANNER_VERSION), never from this repository's
 * devDependencies: run through npm exec it costs only check:package its install (about 220 MB,
 * some 17 s cold, cached by npm afterwards), while as a devDependency every `npm ci` (CI, test:n8n)
 * would carry it and its TypeScript 7 and second ESLint tree, and package-lock.json would change.
 * `--ignore-scripts` is needed: eslint-plugin-n8n-nodes-base's preinstall runs `npx only-allow
 * pnpm`, which waits on a prompt (or fails) under npm; the scanner needs no install script.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SCANNER = '@n8n/scan-community-package';
const SCANNER_VERSION = '0.32.0';
const REEXEC_MARK = 'CHECK_PACKAGE_SCANNER_REEXEC';

const scriptPath = fileURLToPath(import.meta.url);
const repoRoot = path.resolve(path.dirname(scriptPath), '..');

// ---- arguments ----
const argv = process.argv.slice(2);
let tarball;
let sourceDir = repoRoot;
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '--source') sourceDir = path.resolve(argv[++i] ?? '');
	else if (!tarball) tarball = path.resolve(argv[i]);
	else usage(`unexpected argument ${argv[i]}`);
}
if (!tarball) usage('no tarball given');
if (!fs.existsSync(tarball)) usage(`no such file: ${tarball}`);
function usage(message) {
	console.error(`check-package: ${message}\nusage: node scripts/check-package.mjs <package.tgz> [--source <dir>]`);
	process.exit(2);
}

// ---- the scanner: found where npm exec put it, else run again under npm exec ----
function scannerDirFrom(candidate) {
	try {
		const pkg = JSON.parse(fs.readFileSync(path.join(candidate, 'package.json'), 'utf8'));
		return pkg.name === SCANNER && pkg.version === SCANNER_VERSION ? candidate : null;
	} catch {
		return null;
	}
}
function locateScanner() {
	if (process.env.N8N_SCANNER_DIR) return scannerDirFrom(path.resolve(process.env.N8N_SCANNER_DIR));
	// npm exec --package=... puts the package's bin (scanner/cli.mjs) on PATH.
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		const bin = path.join(dir, 'scan-community-package');
		if (!fs.existsSync(bin)) continue;
		const found = scannerDirFrom(path.resolve(path.dirname(fs.realpathSync(bin)), '..'));
		if (found) return found;
	}
	try {
		const pj = createRequire(path.join(repoRoot, 'package.json')).resolve(`${SCANNER}/package.json`);
		return scannerDirFrom(path.dirname(pj));
	} catch {
		return null;
	}
}
const scannerDir = locateScanner();
if (!scannerDir) {
	if (process.env[REEXEC_MARK]) {
		console.log(`FAIL ${SCANNER}@${SCANNER_VERSION} could not be loaded (npm exec ran, but it is not on PATH)`);
		process.exit(1);
	}
	const r = spawnSync(
		'npm',
		[
			'exec',
			'--yes',
			'--ignore-scripts',
			'--loglevel=error',
			`--package=${SCANNER}@${SCANNER_VERSION}`,
			'--',
			'node',
			scriptPath,
			...argv,
		],
		{ stdio: 'inherit', env: { ...process.env, [REEXEC_MARK]: '1' } },
	);
	process.exit(r.status ?? 1);
}

const scannerRequire = createRequire(path.join(scannerDir, 'scanner', 'scanner.mjs'));
// The scanner makes a temporary folder when it is imported; have tmp remove it at exit.
(await import(pathToFileURL(scannerRequire.resolve('tmp')).href)).default.setGracefulCleanup();
const scanner = await import(pathToFileURL(path.join(scannerDir, 'scanner', 'scanner.mjs')).href);
const { ESLint } = await import(pathToFileURL(scannerRequire.resolve('eslint')).href);
const glob = (await import(pathToFileURL(scannerRequire.resolve('fast-glob')).href)).default;

// ---- reporting ----
let failed = 0;
let passed = 0;
const ok = (what) => {
	passed++;
	console.log(`ok   ${what}`);
};
const fail = (what, details = []) => {
	failed++;
	console.log(`FAIL ${what}`);
	for (const d of [].concat(details))
		for (const line of String(d).split('\n')) if (line.trim()) console.log(`       ${line}`);
};
const check = (cond, what, details) => (cond ? ok(what) : fail(what, details));
const skip = (what) => console.log(`skip ${what}`);

// ---- unpack the tarball as the scanner does (tar -xzf --strip-components=1) ----
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'check-package-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const pkgDir = path.join(work, 'package');
fs.mkdirSync(pkgDir);
const untar = spawnSync('tar', ['-xzf', tarball, '-C', pkgDir, '--strip-components=1'], { encoding: 'utf8' });
if (untar.status !== 0) {
	fail(`unpack ${path.basename(tarball)}`, untar.stderr);
	process.exit(1);
}
const files = glob.sync('**/*', { cwd: pkgDir, dot: true }).sort();
const has = (p) => files.includes(path.posix.normalize(p));
let pkg;
try {
	pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
} catch (error) {
	fail('the tarball has a readable package.json', error.message);
	process.exit(1);
}
console.log(`check-package: ${pkg.name}@${pkg.version} (${files.length} files) with ${SCANNER}@${SCANNER_VERSION}`);

// ---- 1. the scanner's ESLint passes ----
async function scan(dir, patterns, label) {
	const result = await scanner.analyzePackage(dir, patterns);
	const noFiles = result.message === 'No files found to analyze';
	check(result.passed && !noFiles, `scanner lint, ${label}`, result.details ?? result.message);
	// The verdict above is the scanner's; this second pass only lists what it does not fail on.
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: await scanner.buildScanConfig(),
	});
	const targets = glob.sync(patterns, {
		cwd: dir,
		absolute: true,
		ignore: ['node_modules/**', '**/package-lock.json'],
	});
	const results = targets.length ? await eslint.lintFiles(targets) : [];
	for (const r of results)
		for (const m of r.messages)
			if (m.severity === 1) console.log(`warn ${path.relative(dir, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`);
}
skip('provenance attestation on the registry (the scanner checks the published version; see docs/publishing.md)');
skip('download of the attested source from GitHub (the source folder below is linted instead)');
await scan(pkgDir, ['**/*.js', 'package.json'], 'tarball (**/*.js, package.json)');
await scan(
	sourceDir,
	scanner.SOURCE_FILE_PATTERNS,
	`source ${path.relative(process.cwd(), sourceDir) || '.'} (${scanner.SOURCE_FILE_PATTERNS.join(', ')})`,
);
let sourceName;
try {
	sourceName = JSON.parse(fs.readFileSync(path.join(sourceDir, 'package.json'), 'utf8')).name;
} catch {}
check(
	sourceName === pkg.name,
	`the source folder's package.json is named ${pkg.name} (the scanner finds the package root in the source by name)`,
	`source package.json name: ${sourceName}`,
);

// ---- 2. n8n's guidelines for package.json ----
// Name: the rule n8n-node itself applies (node-cli utils/validation.js validateNodeName).
const nameRule = /^(@[a-z0-9]+(?:-[a-z0-9]+)*\/)?n8n-nodes-[a-z0-9]+(?:-[a-z0-9]+)*$/;
check(nameRule.test(pkg.name ?? ''), 'name starts with n8n-nodes- or @scope/n8n-nodes-', `name: ${pkg.name}`);
check(
	Array.isArray(pkg.keywords) && pkg.keywords.includes('n8n-community-node-package'),
	'keywords include n8n-community-node-package',
);
check(pkg.license === 'MIT', 'license is MIT', `license: ${pkg.license}`);
const licenseFile = files.find((f) => /^licen[cs]e(\.md|\.txt)?$/i.test(f));
check(
	!!licenseFile &&
		/MIT License|Permission is hereby granted, free of charge/.test(
			fs.readFileSync(path.join(pkgDir, licenseFile), 'utf8'),
		),
	'the tarball has an MIT LICENSE file',
	licenseFile ? `${licenseFile} does not read as MIT` : 'no LICENSE file',
);
check(
	files.some((f) => /^readme(\.md)?$/i.test(f)),
	'the tarball has a README',
);

const runtime = ['dependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies'].flatMap(
	(field) => (Object.keys(pkg[field] ?? {}).length || (Array.isArray(pkg[field]) && pkg[field].length) ? [field] : []),
);
check(
	runtime.length === 0,
	'no runtime dependencies',
	runtime.map((f) => `${f}: ${JSON.stringify(pkg[f])}`),
);

const n8n = pkg.n8n ?? {};
check(Number.isInteger(n8n.n8nNodesApiVersion), 'n8n.n8nNodesApiVersion is set');
const listed = [];
for (const kind of ['nodes', 'credentials']) {
	const list = n8n[kind];
	if (!Array.isArray(list) || list.length === 0) {
		if (kind === 'nodes') fail('n8n.nodes lists at least one node');
		continue;
	}
	const missing = list.filter((p) => !has(p));
	listed.push(...list.map((p) => path.posix.normalize(p)));
	check(
		missing.length === 0,
		`n8n.${kind}: all ${list.length} paths are in the tarball`,
		missing.map((p) => `missing: ${p}`),
	);
}
const unlisted = files.filter((f) => /\.(node|credentials)\.js$/.test(f) && !listed.includes(f));
check(unlisted.length === 0, 'every built *.node.js / *.credentials.js is listed in package.json n8n', unlisted);

// Icons the built nodes and credentials point at ('file:...' relative to the .js file).
const brokenIcons = [];
for (const f of files.filter((x) => /\.(node|credentials)\.js$/.test(x))) {
	const src = fs.readFileSync(path.join(pkgDir, f), 'utf8');
	for (const [, ref] of src.matchAll(/['"]file:([^'"]+)['"]/g)) {
		const target = path.posix.join(path.posix.dirname(f), ref);
		if (!has(target)) brokenIcons.push(`${f}: file:${ref} (${target})`);
	}
}
check(brokenIcons.length === 0, 'every file: icon the built nodes and credentials name is in the tarball', brokenIcons);

// Repository, homepage, bugs, author: present and pointing at one public GitHub repository (the
// provenance statement records the GitHub repository the workflow ran in, npm refuses a
// provenance publish whose repository.url differs, and n8n checks the npm link leads to it).
const ghRepo = (url) => {
	const m = /^(?:git\+)?https:\/\/github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?(?:[/#?].*)?$/.exec(
		url ?? '',
	);
	return m ? `${m[1]}/${m[2]}`.toLowerCase() : null;
};
const repoUrl = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
const repo = ghRepo(repoUrl);
check(
	typeof pkg.repository === 'object' &&
		pkg.repository.type === 'git' &&
		/^git\+https:\/\/github\.com\//.test(repoUrl ?? '') &&
		!!repo,
	'repository is { type: git, url: git+https://github.com/OWNER/REPO.git }',
	`repository: ${JSON.stringify(pkg.repository)}`,
);
check(
	/^https:\/\//.test(pkg.homepage ?? '') && (ghRepo(pkg.homepage) === null || ghRepo(pkg.homepage) === repo),
	'homepage is an https URL (on GitHub: the same repository)',
	`homepage: ${pkg.homepage}, repository: ${repo}`,
);
if (pkg.bugs !== undefined) {
	const bugsUrl = typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url;
	check(
		!bugsUrl || ghRepo(bugsUrl) === null || ghRepo(bugsUrl) === repo,
		'bugs points at the same repository',
		`bugs: ${bugsUrl}`,
	);
}
const expected =
	process.env.GITHUB_REPOSITORY?.toLowerCase() ??
	(() => {
		const r = spawnSync('git', ['-C', sourceDir, 'remote', 'get-url', 'origin'], { encoding: 'utf8' });
		const url = r.status === 0 ? r.stdout.trim() : '';
		const ssh = /^git@github\.com:([^/]+)\/(.+?)(?:\.git)?$/.exec(url);
		return ssh ? `${ssh[1]}/${ssh[2]}`.toLowerCase() : ghRepo(url);
	})();
if (expected)
	check(expected === repo, `repository.url is the repository this runs in (${expected})`, `repository.url: ${repo}`);
else skip('repository.url against the repository this runs in (no GITHUB_REPOSITORY, no GitHub origin remote)');
const author =
	typeof pkg.author === 'string'
		? { name: pkg.author.replace(/\s*[<(].*$/, ''), email: /<([^>]+)>/.exec(pkg.author)?.[1] }
		: (pkg.author ?? {});
check(
	!!author.name?.trim() && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(author.email ?? ''),
	'author has a name and an email (n8n matches the npm maintainer against the repository)',
	`author: ${JSON.stringify(pkg.author)}`,
);

// What ends up in the package: the built nodes, credentials and icons, and npm's own files.
// (`n8n-node dev` copies every *.png / *.svg of the repository into dist/, docs/ included.)
const extra = files.filter(
	(f) => !/^(package\.json|README\.md|LICEN[CS]E(\.md)?|dist\/(nodes|credentials|icons)\/.+)$/i.test(f),
);
check(
	extra.length === 0,
	'the tarball holds only dist/{nodes,credentials,icons}, README, LICENSE and package.json',
	extra
		.map((f) => `unexpected: ${f}`)
		.concat(extra.some((f) => f.startsWith('dist/')) ? ['(run npm run build: it empties dist/ first)'] : []),
);

console.log(
	failed ? `check-package: ${failed} of ${passed + failed} checks failed` : `check-package: all ${passed} checks ok`,
);
process.exit(failed ? 1 : 0);
