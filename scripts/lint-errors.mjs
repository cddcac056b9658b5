#!/usr/bin/env node
/**
 * node scripts/lint-errors.mjs [--list] [--json] [--root <dir>]
 *
 * Lists every error text the package can raise and fails on texts that break the rules below.
 * `--list` prints the whole inventory (file:line, kind, length, text); by default only the failures
 * and a one-line summary are printed. `--json` prints { rows, failures, summary } instead. Exits 1 on
 * any failure.
 *
 * WHAT IS READ (statically, with the TypeScript compiler API and the type checker, nothing is run
 * except the pure, import-free shared/core/api/fields.ts, see below):
 *   - `new <PartnerError subclass>(...)`: each class's constructor is followed through its `super(...)`
 *     calls down to PartnerError(message, hint, detail), so a subclass's fixed texts and default
 *     parameters (ValidationError's default hint, TransientError's hints, ...) are read with the call's
 *     arguments (an argument that is `undefined` takes the parameter's default);
 *   - `new NodeOperationError(node, message, { description })`, `new NodeApiError(node, _, { message,
 *     description })` and plain `new Error(message)` (n8n shows it as a NodeOperationError);
 *   - assignments to `.hint`, `.detail`, `.message` and `.description` (trigger/failureReports.ts);
 *   - the credential Test's `{ status: 'Error', message }` (shown by n8n under "Couldn't connect with
 *     these settings", so it is checked as a description);
 *   - the result-code table (RESULT_CODES in resultCodes.ts): for each code, the title and action
 *     explainCode makes of its row and the detail explainResult adds for its status.
 * An error has three texts: its message (n8n's title), its detail (what exactly) and its hint (one
 * way out); n8n's description is the detail then the hint (errorMapping.ts). Details and hints are
 * both descriptions to the rules below.
 * A text is evaluated, not just read: string constants, `const`s, object literals (RETRY_POLICY,
 * NUMBER_OPTIONS, KEY_FIELD_LABEL), conditionals (both branches unless the condition is known),
 * destructuring, and calls of the package's own functions that return text (hintFor, explain ...).
 * When a text uses a parameter of the function it is built in (checkWholeNumber's `label`, listed's
 * `hint`), the function's call sites are followed (up to 3 levels) and each call's arguments are put
 * in. A parameter whose type is a union of string literals (KeyField) takes each value. Calls of
 * fields.ts's exported functions with literal arguments (labelOf('pageSize')) are run for real; a
 * text passed through redaction.ts (redactText, which hides secrets and masks account numbers) is
 * read as the text itself.
 * Whatever is still unknown is shown as `…` and the row names what it stands for
 * (`… = label, shown(field, value)`); a length counts `…` as one character, so it is a minimum.
 *
 * Each row is located at its longest literal piece (where the words to fix are) and, when the error
 * is made elsewhere, says where: "(raised at keys.ts:34 called from ...)".
 *
 * WHAT IT CANNOT SEE: values known only at run time (a gateway's resultMessage, an account ID, the
 * text of a caught error), texts built by array joins or loops (the list of failing entries of a
 * watched set, explainResult's text for an undocumented code), errors re-thrown as they came (their
 * text is counted where it is made), and texts made in functions that are only called through a
 * callback (map, settle). A text that is nothing but such a value is counted as opaque and not listed.
 * A variant is kept for every branch it cannot decide, so a few listed texts combine branches that
 * never meet at run time. Response-body names without a field row (totalCount, availableQuota,
 * responseId) are not wire names here: no table of the code lists them.
 *
 * THE RULES (each failure names one):
 *   wire-name  An API field or header name in a message's first line (the title n8n shows in the
 *              error's header), or a message built from a field row's `name` (or `responseField`,
 *              `header`, `onlyWith.field`) instead of its `label`, when statically visible. In a hint
 *              (n8n's description) a wire name may appear only as the API's name: in backticks (n8n
 *              renders `x` as code in a description, NodeErrorView's prepareDescription), directly in
 *              single quotes ('x', as n8n's UX guidelines write parameter names) or inside a
 *              double-quoted span ("keyVersion=<version>", a header value as sent). The names come
 *              from the code, never a hand list: every field row of fields.ts (its `name`,
 *              `responseField`, `header`, `onlyWith.field`), the parameter names of its LABELS and
 *              NUMBER_OPTIONS tables, the request/response shapes (BeneficiaryListRequest, QuotaRequest,
 *              ApiResult), the signed headers (SIGNED_HEADER_NAMES) and the headers read by name
 *              (headerValue(headers, 'response-time')). A name that is a plain word (currency, limit,
 *              Signature) cannot be told from prose and is left out; header names match in any case.
 *   regex      A regular expression in a message or hint (`^[A-Z0-9]{0,34}$`, `\d`, `[a-z]`, `{2,30}`),
 *              or a text built from a RegExp or its `.source`. Say it in words (the row's pattern.text).
 *   length     A message's first line longer than MESSAGE_LIMIT characters. n8n's own headlines are
 *              42 to 69 characters (NodeApiError's STATUS_CODE_MESSAGES, UNKNOWN_ERROR_MESSAGE 52);
 *              the one longer one (503, 113) carries advice that belongs in a description. NodeErrorView
 *              shows the message as one medium-weight header line and appends " [item N]" when there are
 *              several items; the UX guidelines ask for "what happened" there and "how to get unstuck"
 *              in the description. 80 leaves room for a value or two. Hints have no limit (listed only).
 *   repeat     The same text twice in one error: the message's first line inside its detail or hint,
 *              the detail inside the hint, or a run of REPEAT_WORDS words shared by any two of them.
 *   env        An environment variable in a text: a Cloud user cannot set one (the names of
 *              @n8n/config's settings, any N8N_*, NODE_*, *_PROXY, process.env, $env). Put self-hosted
 *              settings in the docs and say in the hint what the user can do in the editor.
 *   bug-link   "Report this as a bug" (report a bug, open an issue ...) without the repository's issues
 *              link (package.json's repository URL + /issues) in the same error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name) => {
	const index = argv.indexOf(name);
	return index >= 0 ? argv[index + 1] : undefined;
};
const LIST = argv.includes('--list');
const JSON_OUT = argv.includes('--json');
const ROOT = path.resolve(option('--root') ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
// The package's own TypeScript (and @n8n/config), else the ones next to this script (a --root fixture).
const requires = [createRequire(path.join(ROOT, 'package.json')), createRequire(import.meta.url)];
const resolveFrom = (id) => {
	for (const r of requires) {
		try {
			return r.resolve(id);
		} catch {
			/* next */
		}
	}
	return undefined;
};
const ts = createRequire(resolveFrom('typescript'))('typescript');

export const MESSAGE_LIMIT = 80;
export const REPEAT_WORDS = 6;
const MAX_VARIANTS = 16;
const MAX_CONTEXTS = 24;
const MAX_CALL_DEPTH = 5;
const MAX_SITE_LEVELS = 3;

const NODE_DIR = 'nodes/PartnerAccountInquiry';
const FILES = {
	fields: `${NODE_DIR}/shared/core/api/fields.ts`,
	errors: `${NODE_DIR}/shared/core/errors.ts`,
	resultCodes: `${NODE_DIR}/shared/core/api/resultCodes.ts`,
	validation: `${NODE_DIR}/shared/core/api/validation.ts`,
	signRequest: `${NODE_DIR}/shared/core/signing/signRequest.ts`,
	/** Its functions hide secrets and mask account numbers in a text: the text passes through them. */
	redaction: `${NODE_DIR}/shared/core/redaction.ts`,
};
const WIRE_SHAPES = [
	[FILES.validation, 'BeneficiaryListRequest'],
	[FILES.validation, 'QuotaRequest'],
	[FILES.resultCodes, 'ApiResult'],
];

// ---------------------------------------------------------------- program

const configPath = path.join(ROOT, 'tsconfig.json');
const config = ts.readConfigFile(configPath, ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
const program = ts.createProgram(
	parsed.fileNames.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
	parsed.options,
);
const checker = program.getTypeChecker();
const projectFiles = program
	.getSourceFiles()
	.filter(
		(sf) =>
			!sf.isDeclarationFile &&
			!path.relative(ROOT, sf.fileName).startsWith('..') &&
			!sf.fileName.includes('node_modules'),
	);
const sourceOf = (rel) => program.getSourceFile(path.join(ROOT, rel));

const rel = (node) => path.relative(ROOT, node.getSourceFile().fileName).split(path.sep).join('/');
const lineOf = (node) => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
const loc = (node) => `${rel(node)}:${lineOf(node)}`;
const isProjectNode = (node) => projectFiles.includes(node.getSourceFile());

function walk(node, visit) {
	if (!node) return;
	visit(node);
	ts.forEachChild(node, (child) => walk(child, visit));
}

function symbolOf(node) {
	let symbol =
		node.parent && ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
			? checker.getShorthandAssignmentValueSymbol(node.parent)
			: checker.getSymbolAtLocation(node);
	if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
	return symbol;
}
const declOf = (symbol) => symbol?.valueDeclaration ?? symbol?.declarations?.[0];

const isFunctionLike = (node) =>
	ts.isFunctionDeclaration(node) ||
	ts.isFunctionExpression(node) ||
	ts.isArrowFunction(node) ||
	ts.isMethodDeclaration(node) ||
	ts.isConstructorDeclaration(node) ||
	ts.isGetAccessorDeclaration(node);
function enclosingFunction(node) {
	for (let at = node.parent; at; at = at.parent) if (isFunctionLike(at)) return at;
	return undefined;
}
function unwrap(node) {
	while (
		node &&
		(ts.isParenthesizedExpression(node) ||
			ts.isAsExpression(node) ||
			ts.isNonNullExpression(node) ||
			ts.isSatisfiesExpression?.(node) ||
			ts.isTypeAssertionExpression(node))
	)
		node = node.expression;
	return node;
}
const propName = (name) =>
	name &&
	(ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name))
		? name.text
		: undefined;

/** The function a call or `new` reaches, when it is one of the package's own. */
function calleeFunction(expression) {
	const symbol = symbolOf(ts.isPropertyAccessExpression(expression) ? expression.name : expression);
	const decl = declOf(symbol);
	if (!decl || !isProjectNode(decl)) return undefined;
	if (ts.isVariableDeclaration(decl) && decl.initializer) {
		const init = unwrap(decl.initializer);
		return isFunctionLike(init) ? init : undefined;
	}
	if (ts.isClassDeclaration(decl)) return decl;
	return isFunctionLike(decl) && decl.body ? decl : undefined;
}

/** Every call of each of the package's functions: function node -> call expressions. */
const callsOf = new Map();
for (const sf of projectFiles) {
	walk(sf, (node) => {
		if (!ts.isCallExpression(node) && !ts.isNewExpression(node)) return;
		if (node.expression.kind === ts.SyntaxKind.SuperKeyword) return;
		const fn = calleeFunction(node.expression);
		if (!fn || ts.isClassDeclaration(fn)) return;
		if (!callsOf.has(fn)) callsOf.set(fn, []);
		callsOf.get(fn).push(node);
	});
}

// ---------------------------------------------------------------- wire names

const isPlainWord = (name) => /^[a-z]+$/.test(name) || /^[A-Z][a-z]+$/.test(name);

function collectWireNames() {
	const found = new Map(); // name -> where it comes from
	const add = (name, from) => {
		if (typeof name === 'string' && name && !found.has(name)) found.set(name, from);
	};
	const fields = sourceOf(FILES.fields);
	walk(fields, (node) => {
		if (ts.isObjectLiteralExpression(node)) {
			const props = new Map(
				node.properties.filter(ts.isPropertyAssignment).map((p) => [propName(p.name), unwrap(p.initializer)]),
			);
			const text = (key) =>
				props.get(key) && ts.isStringLiteralLike(props.get(key)) ? props.get(key).text : undefined;
			if (text('name') !== undefined && text('label') !== undefined) {
				add(text('name'), 'field row name');
				add(text('responseField'), 'field row responseField');
				add(text('header'), 'field row header');
				const only = props.get('onlyWith');
				if (only && ts.isObjectLiteralExpression(only)) {
					for (const p of only.properties)
						if (ts.isPropertyAssignment(p) && propName(p.name) === 'field' && ts.isStringLiteralLike(p.initializer))
							add(p.initializer.text, 'field row onlyWith.field');
				}
			}
		}
		if (ts.isVariableDeclaration(node) && ['LABELS', 'NUMBER_OPTIONS'].includes(node.name.getText())) {
			const object = unwrap(node.initializer);
			if (object && ts.isObjectLiteralExpression(object))
				for (const p of object.properties)
					if (ts.isPropertyAssignment(p)) add(propName(p.name), `${node.name.getText()} key`);
		}
	});
	for (const [file, name] of WIRE_SHAPES) {
		walk(sourceOf(file), (node) => {
			if (ts.isInterfaceDeclaration(node) && node.name.text === name)
				for (const member of node.members)
					if (ts.isPropertySignature(member)) add(propName(member.name), `${name} field`);
		});
	}
	walk(sourceOf(FILES.signRequest), (node) => {
		if (ts.isVariableDeclaration(node) && node.name.getText() === 'SIGNED_HEADER_NAMES') {
			const array = unwrap(node.initializer);
			if (array && ts.isArrayLiteralExpression(array))
				for (const e of array.elements) if (ts.isStringLiteralLike(e)) add(e.text, 'signed header');
		}
	});
	// Headers read by name: a call of a function named like *header* with a literal argument.
	for (const sf of projectFiles) {
		walk(sf, (node) => {
			if (!ts.isCallExpression(node)) return;
			const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
			if (!ts.isIdentifier(callee) || !/header/i.test(callee.text)) return;
			for (const a of node.arguments)
				if (ts.isStringLiteralLike(a) && /^[A-Za-z][\w-]*-[\w-]+$/.test(a.text)) add(a.text, 'header read');
		});
	}
	const names = [];
	const skipped = [];
	for (const [name, from] of found) (isPlainWord(name) ? skipped : names).push({ name, from });
	return { names, skipped };
}
const WIRE = collectWireNames();
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WIRE_MATCHERS = WIRE.names.map(({ name, from }) => ({
	name,
	from,
	re: new RegExp(`(?<![A-Za-z0-9_-])${escapeRe(name)}(?![A-Za-z0-9_-])`, name.includes('-') ? 'gi' : 'g'),
}));

/** Properties that hold a wire name: name/responseField/header of a field row, and onlyWith.field. */
function isWireProperty(symbol) {
	for (const decl of symbol?.declarations ?? []) {
		if (!ts.isPropertySignature(decl) || rel(decl) !== FILES.fields) continue;
		const name = propName(decl.name);
		const owner = decl.parent;
		if (ts.isInterfaceDeclaration(owner) && owner.members.some((m) => propName(m.name) === 'label')) {
			if (['name', 'responseField', 'header'].includes(name)) return true;
		}
		if (ts.isTypeLiteralNode(owner) && name === 'field' && ts.isPropertySignature(owner.parent)) return true;
	}
	return false;
}

// ---------------------------------------------------------------- env names, issues link

function collectEnvNames() {
	const names = new Set();
	const pkgJson = resolveFrom('@n8n/config/package.json');
	const dir = pkgJson ? path.join(path.dirname(pkgJson), 'dist') : '';
	const visit = (d) => {
		if (!fs.existsSync(d)) return;
		for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
			const full = path.join(d, entry.name);
			if (entry.isDirectory()) visit(full);
			else if (entry.name.endsWith('.js'))
				for (const m of fs.readFileSync(full, 'utf8').matchAll(/Env\)?\(\s*['"]([A-Z][A-Z0-9_]*_[A-Z0-9_]+)['"]/g))
					names.add(m[1]);
		}
	};
	visit(dir);
	return names;
}
const ENV_NAMES = collectEnvNames();
const ENV_RE =
	/\b(?:N8N_[A-Z0-9_]+|NODE_[A-Z0-9_]+|(?:HTTPS?|NO|ALL)_PROXY)\b|process\.env|\$env\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const repoUrl = String(pkg.repository?.url ?? pkg.repository ?? '')
	.replace(/^git\+/, '')
	.replace(/\.git$/, '')
	.replace(/^git@github\.com:/, 'https://github.com/');
export const ISSUES_URL = repoUrl ? `${repoUrl}/issues` : undefined;
const BUG_RE =
	/\breport (?:this|it)(?: as a)? bug\b|\breport (?:a|the) bug\b|\bfile (?:a|an) (?:bug|issue)\b|\b(?:open|raise|create) (?:a|an) (?:github )?issue\b|\breport (?:this|it) (?:to|on) (?:the )?(?:maintainers|repository|github)\b/i;

// ---------------------------------------------------------------- fields.ts, run for real

let fieldsModule = {};
try {
	const source = fs.readFileSync(path.join(ROOT, FILES.fields), 'utf8');
	if (!/^\s*import\s/m.test(source)) {
		const js = ts.transpileModule(source, {
			compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
		}).outputText;
		fieldsModule = await import(`data:text/javascript;base64,${Buffer.from(js).toString('base64')}`);
	}
} catch {
	fieldsModule = {};
}

// ---------------------------------------------------------------- evaluation

/*
 * A text is a list of variants; a variant is parts ({ lit } or { hole }) plus the node it comes from.
 * A hole stands for a value known only at run time: `src` says which, `tags` whether it is a wire
 * name ('name') or a regular expression ('regex').
 */
const UNDEF = { parts: [], undef: true };
const litV = (value, origin) => ({
	parts: [{ lit: String(value), value, node: origin, w: String(value).length }],
	origin,
});
const shortText = (node) => {
	const text = node.getText().replace(/\s+/g, ' ');
	return text.length > 48 ? `${text.slice(0, 45)}...` : text;
};
const holeV = (node, tags = new Set()) => ({ parts: [{ hole: shortText(node), tags: new Set(tags) }], origin: node });

function joinParts(a, b) {
	const parts = [...a];
	for (const part of b) {
		const last = parts[parts.length - 1];
		if (part.lit !== undefined && last?.lit !== undefined) {
			// A row is located at its longest literal piece: where the words to fix are.
			const longer = (part.w ?? 0) > (last.w ?? 0) ? part : last;
			parts[parts.length - 1] = { lit: last.lit + part.lit, node: longer.node, w: longer.w };
		} else parts.push(part);
	}
	return parts;
}
function concat(left, right, origin) {
	const out = [];
	for (const a of left) for (const b of right) out.push({ parts: joinParts(a.parts, b.parts), origin });
	return out;
}
const render = (v) => v.parts.map((p) => (p.lit !== undefined ? p.lit : '…')).join('');
const isFullyLiteral = (v) => !v.undef && v.parts.every((p) => p.lit !== undefined);
const valueOf = (v) => (v.parts.length === 1 && 'value' in v.parts[0] ? v.parts[0].value : render(v));
const tagsOf = (vs) => new Set(vs.flatMap((v) => v.parts.flatMap((p) => (p.tags ? [...p.tags] : []))));

function dedupe(variants) {
	const seen = new Map();
	for (const v of variants) {
		const key = v.undef ? '\u0000undef' : render(v).replace(/…[.!?]+/g, '…');
		const had = seen.get(key);
		if (!had) seen.set(key, v);
		else if (!v.undef)
			had.parts.forEach((p, i) => {
				if (p.tags && v.parts[i]?.tags) for (const t of v.parts[i].tags) p.tags.add(t);
			});
	}
	return [...seen.values()];
}
function capped(variants, node) {
	const out = dedupe(variants);
	if (out.length <= MAX_VARIANTS) return out;
	return [holeV(node, tagsOf(out))];
}

const isRegExpType = (type) => {
	try {
		return checker.typeToString(checker.getNonNullableType(type)) === 'RegExp';
	} catch {
		return false;
	}
};
function isRegExp(node) {
	try {
		return isRegExpType(checker.getTypeAtLocation(node));
	} catch {
		return false;
	}
}

/** Tags of an expression from its type and symbol: a field row's name, a RegExp. */
function nodeTags(node) {
	const tags = new Set();
	const n = unwrap(node);
	if (isRegExp(n)) tags.add('regex');
	if (ts.isPropertyAccessExpression(n)) {
		if (isWireProperty(checker.getSymbolAtLocation(n.name))) tags.add('name');
		if (['source', 'toString'].includes(n.name.text) && isRegExp(n.expression)) tags.add('regex');
	}
	if (
		ts.isCallExpression(n) &&
		ts.isIdentifier(n.expression) &&
		n.expression.text === 'String' &&
		n.arguments.some(isRegExp)
	)
		tags.add('regex');
	if (ts.isIdentifier(n)) {
		const decl = declOf(symbolOf(n));
		if (decl && ts.isBindingElement(decl) && ts.isObjectBindingPattern(decl.parent)) {
			const key = propName(decl.propertyName ?? decl.name);
			const holder = decl.parent.parent;
			const source = ts.isVariableDeclaration(holder)
				? holder.initializer
				: ts.isParameter(holder)
					? holder.name
					: undefined;
			if (key && source) {
				const property = checker.getTypeAtLocation(source).getProperty(key);
				if (isWireProperty(property)) tags.add('name');
			}
		}
	}
	return tags;
}

const ROOT_CTX = { fn: undefined, args: undefined, depth: 0, stack: new Set(), probe: {} };
const mkCtx = (fn, args, caller, extra = {}) => ({
	fn,
	args,
	caller,
	depth: (caller?.depth ?? 0) + 1,
	stack: new Set([...(caller?.stack ?? []), fn]),
	probe: caller?.probe ?? {},
	overrides: caller?.overrides,
	...extra,
});
/** The context a declaration's initializer is evaluated in. */
function ctxFor(decl, ctx) {
	const fn = enclosingFunction(decl);
	if (!fn) return { ...ROOT_CTX, probe: ctx.probe, overrides: ctx.overrides };
	if (fn === ctx.fn) return ctx;
	return { fn, args: undefined, depth: ctx.depth, stack: ctx.stack, probe: {}, overrides: ctx.overrides };
}

let guard = 0;
function evaluate(node, ctx) {
	if (!node) return [UNDEF];
	if (++guard > 400) {
		guard--;
		return [holeV(node, nodeTags(node))];
	}
	try {
		return capped(evaluateInner(node, ctx), node);
	} finally {
		guard--;
	}
}

function evaluateInner(node, ctx) {
	if (ts.isStringLiteralLike(node)) return [litV(node.text, node)];
	if (ts.isNumericLiteral(node)) return [litV(Number(node.text), node)];
	if (node.kind === ts.SyntaxKind.TrueKeyword) return [litV(true, node)];
	if (node.kind === ts.SyntaxKind.FalseKeyword) return [litV(false, node)];
	if (node.kind === ts.SyntaxKind.NullKeyword) return [litV(null, node)];
	if (
		ts.isParenthesizedExpression(node) ||
		ts.isAsExpression(node) ||
		ts.isNonNullExpression(node) ||
		ts.isTypeAssertionExpression(node) ||
		ts.isSatisfiesExpression?.(node)
	)
		return evaluate(node.expression, ctx);
	if (ts.isTemplateExpression(node)) {
		let out = [litV(node.head.text, node)];
		for (const span of node.templateSpans) {
			// An undefined value in a template is a path the code guards against: dropped, not "undefined".
			const values = evaluate(span.expression, ctx);
			if (values.length === 0) return []; // a path that never happens
			let inner = values.filter((v) => !v.undef);
			if (inner.length === 0) inner = [holeV(span.expression, nodeTags(span.expression))];
			out = concat(concat(out, inner, node), [litV(span.literal.text, node)], node);
			if (out.length > MAX_VARIANTS) out = capped(out, node);
		}
		return out;
	}
	if (ts.isBinaryExpression(node)) {
		const op = node.operatorToken.kind;
		const arithmetic = {
			[ts.SyntaxKind.PlusToken]: (a, b) => a + b,
			[ts.SyntaxKind.MinusToken]: (a, b) => a - b,
			[ts.SyntaxKind.AsteriskToken]: (a, b) => a * b,
			[ts.SyntaxKind.SlashToken]: (a, b) => a / b,
		}[op];
		const numeric = op !== ts.SyntaxKind.PlusToken || (isNumeric(node.left) && isNumeric(node.right));
		if (arithmetic && numeric) {
			const a = constOf(evaluate(node.left, ctx));
			const b = constOf(evaluate(node.right, ctx));
			if (a.known && b.known && typeof a.value === 'number' && typeof b.value === 'number')
				return [litV(arithmetic(a.value, b.value), node)];
			return [holeV(node, nodeTags(node))];
		}
		if (op === ts.SyntaxKind.PlusToken) return concat(evaluate(node.left, ctx), evaluate(node.right, ctx), node);
		if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken) {
			const left = evaluate(node.left, ctx);
			const known = constOf(left);
			if (known.known) {
				const taken =
					op === ts.SyntaxKind.QuestionQuestionToken
						? known.value !== undefined && known.value !== null
						: Boolean(known.value);
				return taken ? left : evaluate(node.right, ctx);
			}
			return [...left.filter((v) => !v.undef), ...evaluate(node.right, ctx)];
		}
		const known = constCondition(node, ctx);
		if (known.known) return [litV(known.value, node)];
		return [holeV(node, nodeTags(node))];
	}
	if (ts.isConditionalExpression(node)) {
		const known = constCondition(node.condition, ctx);
		if (known.known) return evaluate(known.value ? node.whenTrue : node.whenFalse, ctx);
		return [...evaluate(node.whenTrue, ctx), ...evaluate(node.whenFalse, ctx)];
	}
	if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) {
		const known = constCondition(node, ctx);
		return known.known ? [litV(known.value, node)] : [holeV(node)];
	}
	if (ts.isIdentifier(node)) return evalIdentifier(node, ctx);
	if (ts.isPropertyAccessExpression(node)) return evalMember(node.expression, node.name.text, ctx, node);
	if (ts.isElementAccessExpression(node)) {
		const keys = evaluate(node.argumentExpression, ctx);
		if (keys.every(isFullyLiteral) && keys.length <= 6)
			return keys.flatMap((k) => evalMember(node.expression, String(valueOf(k)), ctx, node));
		return [holeV(node, nodeTags(node))];
	}
	if (ts.isCallExpression(node)) return evalCall(node, ctx);
	return [holeV(node, nodeTags(node))];
}

function isText(node) {
	try {
		return Boolean(node && checker.getTypeAtLocation(node).flags & ts.TypeFlags.String);
	} catch {
		return false;
	}
}
function isNumeric(node) {
	try {
		const type = checker.getTypeAtLocation(node);
		const types = type.isUnion() ? type.types : [type];
		return types.every((t) => t.flags & (ts.TypeFlags.NumberLike | ts.TypeFlags.Undefined | ts.TypeFlags.Null));
	} catch {
		return false;
	}
}

/** A single known value (literal, undefined), or unknown. */
function constOf(variants) {
	if (variants.length !== 1) return { known: false };
	const [v] = variants;
	if (v.undef) return { known: true, value: undefined };
	if (isFullyLiteral(v)) return { known: true, value: valueOf(v) };
	return { known: false };
}
function constCondition(node, ctx) {
	node = unwrap(node);
	if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) {
		const inner = constCondition(node.operand, ctx);
		return inner.known ? { known: true, value: !inner.value } : inner;
	}
	if (ts.isBinaryExpression(node)) {
		const op = node.operatorToken.kind;
		const eq = [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken].includes(op);
		const ne = [ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(op);
		if (eq || ne) {
			const a = constOf(evaluate(node.left, ctx));
			const b = constOf(evaluate(node.right, ctx));
			if (!a.known || !b.known) return { known: false };
			const same =
				op === ts.SyntaxKind.EqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken
					? a.value == b.value
					: a.value === b.value;
			return { known: true, value: eq ? same : !same };
		}
		if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken) {
			const a = constCondition(node.left, ctx);
			const b = constCondition(node.right, ctx);
			if (op === ts.SyntaxKind.AmpersandAmpersandToken) {
				if (a.known && !a.value) return { known: true, value: false };
				if (a.known && b.known) return { known: true, value: Boolean(b.value) };
			} else {
				if (a.known && a.value) return { known: true, value: true };
				if (a.known && b.known) return { known: true, value: Boolean(b.value) };
			}
			return { known: false };
		}
		if (op === ts.SyntaxKind.GreaterThanToken || op === ts.SyntaxKind.LessThanToken) {
			const a = constOf(evaluate(node.left, ctx));
			const b = constOf(evaluate(node.right, ctx));
			if (!a.known || !b.known) return { known: false };
			return { known: true, value: op === ts.SyntaxKind.GreaterThanToken ? a.value > b.value : a.value < b.value };
		}
		return { known: false };
	}
	if (
		ts.isIdentifier(node) ||
		ts.isPropertyAccessExpression(node) ||
		ts.isStringLiteralLike(node) ||
		ts.isNumericLiteral(node)
	) {
		const c = constOf(evaluate(node, ctx));
		return c.known ? { known: true, value: Boolean(c.value) && c.value !== 0 } : c;
	}
	if (node.kind === ts.SyntaxKind.TrueKeyword) return { known: true, value: true };
	if (node.kind === ts.SyntaxKind.FalseKeyword) return { known: true, value: false };
	return { known: false };
}

/** A parameter's type as a short union of string literals (KeyField), else undefined. */
function literalUnion(node) {
	const type = checker.getTypeAtLocation(node);
	const members = type.isUnion() ? type.types : [type];
	const values = members.filter((t) => t.isStringLiteral()).map((t) => t.value);
	const rest = members.filter((t) => !t.isStringLiteral() && !(t.flags & ts.TypeFlags.Undefined));
	return values.length > 0 && values.length <= 6 && rest.length === 0 ? values : undefined;
}

function evalParam(decl, ctx, at) {
	const fn = decl.parent;
	if (ctx.fn === fn && ctx.args) {
		if (decl.dotDotDotToken || !ts.isIdentifier(decl.name)) return [holeV(at, nodeTags(at))];
		const index = fn.parameters.indexOf(decl);
		if (index < ctx.args.length) {
			const given = evaluate(ctx.args[index], ctx.caller);
			// An argument that is `undefined` takes the parameter's default.
			if (decl.initializer && given.some((v) => v.undef))
				return [...given.filter((v) => !v.undef), ...evaluate(decl.initializer, ctx)];
			return given;
		}
		if (decl.initializer) return evaluate(decl.initializer, ctx);
		return [UNDEF];
	}
	if (ctx.fn === fn) ctx.probe.unbound = true;
	const union = literalUnion(at);
	if (union) return union.map((value) => litV(value, at));
	return [holeV(at, nodeTags(at))];
}

function evalIdentifier(node, ctx) {
	if (node.text === 'undefined') return [UNDEF];
	const symbol = symbolOf(node);
	if (ctx.overrides?.has(symbol)) return ctx.overrides.get(symbol);
	const decl = declOf(symbol);
	if (!decl || !isProjectNode(decl)) return [holeV(node, nodeTags(node))];
	if (ts.isParameter(decl)) return evalParam(decl, ctx, node);
	if (ts.isVariableDeclaration(decl) && decl.initializer && ts.isIdentifier(decl.name)) {
		const isConst = (decl.parent.flags & ts.NodeFlags.Const) !== 0;
		if (!isConst) return [holeV(node, nodeTags(node))];
		const inner = ctxFor(decl, ctx);
		const out = evaluate(decl.initializer, inner);
		if (out.every((v) => !v.undef && !isFullyLiteral(v) && v.parts.length === 1))
			return [holeV(node, new Set([...tagsOf(out), ...nodeTags(node)]))];
		return out;
	}
	if (ts.isBindingElement(decl) && ts.isObjectBindingPattern(decl.parent)) {
		const key = propName(decl.propertyName ?? decl.name);
		const holder = decl.parent.parent;
		if (key && ts.isVariableDeclaration(holder) && holder.initializer) {
			const out = evalMember(holder.initializer, key, ctxFor(holder, ctx), node);
			return out.map((v) =>
				v.parts.length === 1 && v.parts[0].hole ? holeV(node, new Set([...v.parts[0].tags, ...nodeTags(node)])) : v,
			);
		}
		return [holeV(node, nodeTags(node))];
	}
	return [holeV(node, nodeTags(node))];
}

/** A member of an object literal that the literal does not have: a text on that path is never made. */
const IMPOSSIBLE = { impossible: true };

/** The object literal an expression stands for, with the context to evaluate its members in. */
function resolveObject(expr, ctx, depth = 0) {
	expr = unwrap(expr);
	if (!expr || depth > 8) return undefined;
	if (ts.isObjectLiteralExpression(expr)) return { node: expr, ctx };
	if (ts.isIdentifier(expr)) {
		const symbol = symbolOf(expr);
		if (ctx.overrides?.has(symbol)) {
			const o = ctx.overrides.get(symbol);
			return o.objectNode ? { node: o.objectNode, ctx: ROOT_CTX } : undefined;
		}
		if (expr.text === 'undefined') return undefined;
		const decl = declOf(symbol);
		if (!decl || !isProjectNode(decl)) return undefined;
		if (ts.isVariableDeclaration(decl) && decl.initializer && decl.parent.flags & ts.NodeFlags.Const)
			return resolveObject(decl.initializer, ctxFor(decl, ctx), depth + 1);
		if (ts.isParameter(decl) && ctx.fn === decl.parent && ctx.args) {
			const index = decl.parent.parameters.indexOf(decl);
			if (index < ctx.args.length) return resolveObject(ctx.args[index], ctx.caller, depth + 1);
			if (decl.initializer) return resolveObject(decl.initializer, ctx, depth + 1);
		}
		return undefined;
	}
	if (ts.isPropertyAccessExpression(expr) || ts.isElementAccessExpression(expr)) {
		let key;
		if (ts.isPropertyAccessExpression(expr)) key = expr.name.text;
		else {
			const c = constOf(evaluate(expr.argumentExpression, ctx));
			if (!c.known) return undefined;
			key = String(c.value);
		}
		const owner = resolveObject(expr.expression, ctx, depth + 1);
		if (!owner || owner === IMPOSSIBLE) return owner;
		const member = findMember(owner.node, key);
		if (!member && !ts.isElementAccessExpression(expr)) return IMPOSSIBLE;
		if (member && ts.isPropertyAssignment(member)) return resolveObject(member.initializer, owner.ctx, depth + 1);
		if (member && ts.isShorthandPropertyAssignment(member)) return resolveObject(member.name, owner.ctx, depth + 1);
	}
	return undefined;
}
function findMember(object, key) {
	for (let i = object.properties.length - 1; i >= 0; i--) {
		const p = object.properties[i];
		if (ts.isSpreadAssignment(p)) return 'spread';
		if ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && propName(p.name) === key) return p;
	}
	return undefined;
}

function evalMember(objectExpr, key, ctx, at) {
	const tags = nodeTags(at);
	try {
		const property = checker.getTypeAtLocation(objectExpr).getProperty(key);
		if (isWireProperty(property)) tags.add('name');
		if (property && isRegExpType(checker.getTypeOfSymbol(property))) tags.add('regex');
		if (['source', 'toString'].includes(key) && isRegExp(objectExpr)) tags.add('regex');
	} catch {
		/* no type */
	}
	const owner = resolveObject(objectExpr, ctx);
	if (owner === IMPOSSIBLE) return [];
	const array = arrayOf(objectExpr, ctx);
	if (array && key === 'length') return [litV(array.length, at)];
	if (array && /^\d+$/.test(key)) return array[Number(key)] === undefined ? [UNDEF] : [litV(array[Number(key)], at)];
	if (owner) {
		const member = findMember(owner.node, key);
		if (member && member !== 'spread') {
			const value = ts.isPropertyAssignment(member) ? member.initializer : member.name;
			const out = evaluate(value, owner.ctx);
			return out.map((v) =>
				v.parts.length === 1 && v.parts[0].hole ? holeV(at, new Set([...v.parts[0].tags, ...tags])) : v,
			);
		}
		if (!member) return [UNDEF];
	}
	if (key === 'length') {
		const values = evaluate(objectExpr, ctx);
		if (values.every(isFullyLiteral)) return values.map((v) => litV(Array.from(render(v)).length, at));
	}
	return [holeV(at, tags)];
}

/** Whether a function returns text only (literals, templates, other such calls): then its text is read. */
const textFunctions = new Map();
function returnsText(fn) {
	if (textFunctions.has(fn)) return textFunctions.get(fn);
	textFunctions.set(fn, false); // a cycle is not text
	const returns = returnExpressions(fn);
	const result = returns.length > 0 && returns.every(isTextExpression);
	textFunctions.set(fn, result);
	return result;
}
function isTextExpression(e) {
	{
		e = unwrap(e);
		if (!e) return true;
		if (ts.isStringLiteralLike(e) || ts.isTemplateExpression(e)) return true;
		if (ts.isIdentifier(e) && e.text === 'undefined') return true;
		if (ts.isConditionalExpression(e)) return isTextExpression(e.whenTrue) && isTextExpression(e.whenFalse);
		if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken)
			return isTextExpression(e.left) || isTextExpression(e.right);
		if (ts.isCallExpression(e)) {
			const callee = calleeFunction(e.expression);
			return Boolean(callee && !ts.isClassDeclaration(callee) && returnsText(callee));
		}
		return false;
	}
}
function returnExpressions(fn) {
	if (!fn.body) return [];
	if (!ts.isBlock(fn.body)) return [fn.body];
	const out = [];
	const visit = (node) => {
		if (isFunctionLike(node) && node !== fn) return;
		if (ts.isReturnStatement(node)) out.push(node.expression);
		ts.forEachChild(node, visit);
	};
	ts.forEachChild(fn.body, visit);
	return out;
}

/** The literal values of an array expression (a const array literal, or a slice of one), else undefined. */
function arrayOf(expr, ctx, depth = 0) {
	expr = unwrap(expr);
	if (!expr || depth > 6) return undefined;
	if (ts.isArrayLiteralExpression(expr)) {
		const values = [];
		for (const element of expr.elements) {
			if (ts.isSpreadElement(element)) return undefined;
			const c = constOf(evaluate(element, ctx));
			if (!c.known) return undefined;
			values.push(c.value);
		}
		return values;
	}
	if (ts.isIdentifier(expr)) {
		const decl = declOf(symbolOf(expr));
		if (
			decl &&
			ts.isVariableDeclaration(decl) &&
			decl.initializer &&
			decl.parent.flags & ts.NodeFlags.Const &&
			isProjectNode(decl)
		)
			return arrayOf(decl.initializer, ctxFor(decl, ctx), depth + 1);
		return undefined;
	}
	if (
		ts.isCallExpression(expr) &&
		ts.isPropertyAccessExpression(expr.expression) &&
		expr.expression.name.text === 'slice'
	) {
		const base = arrayOf(expr.expression.expression, ctx, depth + 1);
		const args = expr.arguments.map((a) => constOf(evaluate(a, ctx)));
		if (base && args.every((a) => a.known)) return base.slice(...args.map((a) => a.value));
	}
	return undefined;
}

function evalCall(node, ctx) {
	const callee = node.expression;
	const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
	if (ts.isPropertyAccessExpression(callee) && ['join', 'at', 'slice'].includes(name)) {
		const array = arrayOf(callee.expression, ctx);
		const args = node.arguments.map((a) => constOf(evaluate(a, ctx)));
		if (array && args.every((a) => a.known)) {
			if (name === 'join') return [litV(array.join(args.length ? args[0].value : ','), node)];
			if (name === 'at')
				return array.at(args[0]?.value ?? 0) === undefined ? [UNDEF] : [litV(array.at(args[0].value), node)];
		}
	}
	if (ts.isIdentifier(callee) && name === 'String' && node.arguments.length === 1) {
		const out = evaluate(node.arguments[0], ctx);
		return out.map((v) => (v.undef ? litV('undefined', node) : v));
	}
	if (ts.isPropertyAccessExpression(callee) && name === 'toString' && node.arguments.length === 0)
		return evaluate(callee.expression, ctx);
	if (ts.isPropertyAccessExpression(callee) && callee.expression.getText() === 'JSON' && name === 'stringify') {
		const out = evaluate(node.arguments[0], ctx);
		if (out.every(isFullyLiteral)) return out.map((v) => litV(JSON.stringify(valueOf(v)), node));
		return [holeV(node, tagsOf(out))];
	}
	const fn = calleeFunction(callee);
	if (
		fn &&
		!ts.isClassDeclaration(fn) &&
		rel(fn) === FILES.redaction &&
		node.arguments.length > 0 &&
		isText(fn.parameters[0]) &&
		isText(node)
	) {
		return evaluate(node.arguments[0], ctx);
	}
	if (fn && !ts.isClassDeclaration(fn)) {
		// fields.ts is pure and import-free: its exported helpers are run on literal arguments.
		if (rel(fn) === FILES.fields && ts.isIdentifier(callee) && typeof fieldsModule[name] === 'function') {
			const args = node.arguments.map((a) => evaluate(a, ctx));
			if (args.every((a) => a.length === 1 && isFullyLiteral(a[0]))) {
				try {
					const result = fieldsModule[name](...args.map((a) => valueOf(a[0])));
					if (typeof result === 'string' || typeof result === 'number') return [litV(result, node)];
				} catch {
					/* not evaluable */
				}
			}
		}
		if (ctx.depth < MAX_CALL_DEPTH && !ctx.stack.has(fn) && returnsText(fn)) {
			const inner = mkCtx(fn, node.arguments, ctx, { probe: {} });
			return returnExpressions(fn).flatMap((e) => (e ? evaluate(e, inner) : [UNDEF]));
		}
	}
	return [holeV(node, nodeTags(node))];
}

// ---------------------------------------------------------------- where errors are made

function classDeclOf(expression) {
	const decl = declOf(symbolOf(expression));
	return decl && ts.isClassDeclaration(decl) ? decl : undefined;
}
function baseClassOf(cls) {
	const clause = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword);
	return clause ? classDeclOf(clause.types[0].expression) : undefined;
}
const PARTNER_ERROR = (() => {
	let found;
	walk(sourceOf(FILES.errors), (node) => {
		if (ts.isClassDeclaration(node) && node.name?.text === 'PartnerError') found = node;
	});
	if (!found) throw new Error(`PartnerError not found in ${FILES.errors}`);
	return found;
})();
function isPartnerClass(cls) {
	for (let at = cls, n = 0; at && n < 20; at = baseClassOf(at), n++) if (at === PARTNER_ERROR) return true;
	return false;
}
const constructorOf = (cls) => cls.members.find((m) => ts.isConstructorDeclaration(m) && m.body);

const NO_TEXTS = { message: [], hint: [], detail: [] };

/** The message, hint and detail a `new Cls(args)` makes, following each constructor's super(...) call. */
function classTexts(cls, args, ctx, level = 0) {
	const ctor = constructorOf(cls);
	if (cls === PARTNER_ERROR) {
		const c = mkCtx(ctor, args, ctx);
		const param = (i) => (ctor.parameters[i] ? evalParam(ctor.parameters[i], c, ctor.parameters[i].name) : []);
		return { message: param(0), hint: param(1), detail: param(2) };
	}
	const base = baseClassOf(cls);
	if (!base || level > 20) return NO_TEXTS;
	if (!ctor) return classTexts(base, args, ctx, level + 1);
	const c = mkCtx(ctor, args, ctx);
	let superCall;
	walk(ctor.body, (node) => {
		if (!superCall && ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword)
			superCall = node;
	});
	return superCall ? classTexts(base, superCall.arguments, c, level + 1) : NO_TEXTS;
}

function optionsMember(node, key, ctx) {
	if (!node) return [];
	const owner = resolveObject(node, ctx);
	if (!owner || owner === IMPOSSIBLE) return [];
	const member = findMember(owner.node, key);
	if (!member || member === 'spread') return [];
	return evaluate(ts.isPropertyAssignment(member) ? member.initializer : member.name, owner.ctx);
}

const N8N_ERRORS = new Set(['NodeOperationError', 'NodeApiError']);
const isStringish = (node) => {
	const type = checker.getTypeAtLocation(node);
	return type.isUnion()
		? type.types.every((t) => t.flags & ts.TypeFlags.StringLike)
		: Boolean(type.flags & ts.TypeFlags.StringLike);
};

/** Every place an error text is made: { node, what, compute(ctx) -> { message, hint, detail } }. */
function collectSites() {
	const sites = [];
	for (const sf of projectFiles) {
		walk(sf, (node) => {
			if (ts.isNewExpression(node)) {
				const cls = classDeclOf(node.expression);
				if (cls && isProjectNode(cls) && isPartnerClass(cls)) {
					sites.push({ node, what: cls.name.text, compute: (ctx) => classTexts(cls, node.arguments ?? [], ctx) });
					return;
				}
				const name = node.expression.getText();
				const args = node.arguments ?? [];
				if (N8N_ERRORS.has(name)) {
					if (name === 'NodeOperationError')
						sites.push({
							node,
							what: name,
							compute: (ctx) => ({
								message: args[1] && isStringish(args[1]) ? evaluate(args[1], ctx) : [],
								hint: optionsMember(args[2], 'description', ctx),
								detail: [],
							}),
						});
					else
						sites.push({
							node,
							what: name,
							compute: (ctx) => ({
								message: optionsMember(args[2], 'message', ctx),
								hint: optionsMember(args[2], 'description', ctx),
								detail: [],
							}),
						});
					return;
				}
				if (name === 'Error' && args[0])
					sites.push({
						node,
						what: 'Error',
						compute: (ctx) => ({ message: evaluate(args[0], ctx), hint: [], detail: [] }),
					});
				return;
			}
			if (
				ts.isBinaryExpression(node) &&
				[ts.SyntaxKind.EqualsToken, ts.SyntaxKind.PlusEqualsToken].includes(node.operatorToken.kind) &&
				ts.isPropertyAccessExpression(node.left) &&
				['hint', 'detail', 'message', 'description'].includes(node.left.name.text)
			) {
				const key = node.left.name.text;
				const append = node.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken;
				sites.push({
					node,
					what: `${append ? 'appended to' : 'assigned to'} .${key}`,
					compute: (ctx) => {
						const value = evaluate(node.right, ctx);
						if (key === 'message') return { ...NO_TEXTS, message: value };
						return key === 'detail' ? { ...NO_TEXTS, detail: value } : { ...NO_TEXTS, hint: value };
					},
				});
				return;
			}
			if (ts.isObjectLiteralExpression(node)) {
				const status = findMember(node, 'status');
				const message = findMember(node, 'message');
				if (
					status &&
					message &&
					status !== 'spread' &&
					ts.isPropertyAssignment(status) &&
					ts.isStringLiteralLike(status.initializer) &&
					status.initializer.text === 'Error' &&
					ts.isPropertyAssignment(message)
				)
					sites.push({
						node,
						what: 'credential test',
						kind: 'test',
						compute: (ctx) => ({ ...NO_TEXTS, message: evaluate(message.initializer, ctx) }),
					});
			}
		});
	}
	return sites;
}

/** Contexts for a function's parameters: one per call site (and its callers' when it passes theirs on). */
function callContexts(fn, level = 0) {
	const calls = callsOf.get(fn) ?? [];
	const out = [];
	for (const call of calls) {
		const caller = enclosingFunction(call);
		let callerCtxs = [{ ...ROOT_CTX, fn: caller, probe: {}, via: [] }];
		if (caller && level < MAX_SITE_LEVELS && usesParameters(call.arguments ?? [], caller)) {
			const upper = callContexts(caller, level + 1);
			if (upper.length) callerCtxs = upper;
		}
		for (const c of callerCtxs) {
			out.push({
				fn,
				args: call.arguments ?? [],
				caller: c,
				depth: 0,
				stack: new Set([fn]),
				probe: {},
				via: [...(c.via ?? []), loc(call)],
			});
			if (out.length >= MAX_CONTEXTS) return out;
		}
	}
	return out;
}
function usesParameters(nodes, fn) {
	let uses = false;
	for (const n of nodes)
		walk(n, (node) => {
			if (ts.isIdentifier(node)) {
				const decl = declOf(symbolOf(node));
				if (decl && ts.isParameter(decl) && decl.parent === fn) uses = true;
			}
		});
	return uses;
}

// ---------------------------------------------------------------- the inventory

const rows = new Map(); // key -> row
let opaque = 0;
const errors = []; // { site, via, message: row[], detail: row[], hint: row[] }

function toRow(v, kind, site, via, what) {
	if (v.undef) return undefined;
	const text = render(v);
	const hasWords = v.parts.some((p) => p.lit !== undefined && /[A-Za-z]{2}/.test(p.lit));
	const tagged = v.parts.some((p) => p.tags?.size);
	if (!hasWords && !tagged) {
		opaque++;
		return undefined;
	}
	const longest = v.parts.filter((p) => p.lit !== undefined && p.node).sort((a, b) => (b.w ?? 0) - (a.w ?? 0))[0];
	const origin = longest?.node ?? v.origin ?? site;
	const where = loc(origin);
	const key = `${kind}\u0000${where}\u0000${text.replace(/…[.!?]+/g, '…')}`;
	let row = rows.get(key);
	if (!row) {
		row = {
			kind,
			where,
			text,
			parts: v.parts,
			holes: v.parts.filter((p) => p.hole).map((p) => p.hole),
			sites: new Set(),
			what: new Set(),
		};
		rows.set(key, row);
	}
	row.sites.add([loc(site), ...via].join(' <- '));
	row.what.add(what);
	return row;
}

function addError(site, ctx, texts) {
	const kind = site.kind ?? 'message';
	const message = texts.message.map((v) => toRow(v, kind, site.node, ctx.via ?? [], site.what)).filter(Boolean);
	const rowsOf = (texts, as) =>
		(texts ?? [])
			.map((v) => toRow(v, kind === 'test' ? 'test' : as, site.node, ctx.via ?? [], site.what))
			.filter(Boolean);
	const hint = rowsOf(texts.hint, 'hint');
	const detail = rowsOf(texts.detail, 'detail');
	errors.push({
		site: loc(site.node),
		via: ctx.via ?? [],
		message: [...new Set(message)],
		detail: [...new Set(detail)],
		hint: [...new Set(hint)],
	});
}

for (const site of collectSites()) {
	const fn = enclosingFunction(site.node);
	const probe = {};
	const base = { fn, args: undefined, caller: ROOT_CTX, depth: 0, stack: new Set(), probe, via: [] };
	const first = site.compute(base);
	const contexts = probe.unbound && fn ? callContexts(fn) : [];
	if (contexts.length === 0) addError(site, base, first);
	else for (const ctx of contexts) addError(site, ctx, site.compute(ctx));
}

// The result-code table: for each documented code, the title and action explainCode makes of its row,
// and the detail explainResult adds for the row's status (resultCodes.ts).
(function resultCodeTable() {
	const sf = sourceOf(FILES.resultCodes);
	let table;
	let explainCode;
	let explain;
	walk(sf, (node) => {
		if (ts.isVariableDeclaration(node) && node.name.getText() === 'RESULT_CODES') table = unwrap(node.initializer);
		if (ts.isFunctionDeclaration(node) && node.name?.text === 'explainCode') explainCode = node;
		if (ts.isFunctionDeclaration(node) && node.name?.text === 'explainResult') explain = node;
	});
	if (!table || !ts.isObjectLiteralExpression(table) || !explainCode || explainCode.parameters.length < 2) return;
	const returned = returnExpressions(explainCode)
		.map(unwrap)
		.find((e) => e && ts.isObjectLiteralExpression(e));
	if (!returned) return;
	const [codeParam, infoParam] = explainCode.parameters;
	let statusSym;
	let detailInit;
	walk(explain, (node) => {
		if (ts.isVariableDeclaration(node) && node.name.getText() === 'status') statusSym = symbolOf(node.name);
		if (ts.isVariableDeclaration(node) && node.name.getText() === 'detail') detailInit = node.initializer;
	});
	for (const p of table.properties) {
		if (!ts.isPropertyAssignment(p) || !ts.isObjectLiteralExpression(p.initializer)) continue;
		const code = propName(p.name);
		const status = findMember(p.initializer, 'status');
		const statusValue =
			status && ts.isPropertyAssignment(status) && ts.isStringLiteralLike(status.initializer)
				? status.initializer.text
				: '';
		if (statusValue === 'S') continue;
		const overrides = new Map([
			[symbolOf(codeParam.name), [litV(code, p)]],
			[symbolOf(infoParam.name), Object.assign([holeV(p)], { objectNode: p.initializer })],
		]);
		if (statusSym) overrides.set(statusSym, [litV(statusValue, p)]);
		const ctx = { ...ROOT_CTX, overrides, probe: {} };
		const member = (key) => {
			const m = findMember(returned, key);
			return m && m !== 'spread' && ts.isPropertyAssignment(m) ? evaluate(m.initializer, ctx) : [];
		};
		const located = (variants) => variants.map((v) => ({ ...v, origin: p }));
		addError(
			{ node: p, what: 'result code', kind: 'message' },
			{ via: [] },
			{
				message: located(member('title')),
				hint: located(member('action')),
				detail: detailInit ? located(evaluate(detailInit, ctx)) : [],
			},
		);
	}
})();

// ---------------------------------------------------------------- the rules

const failures = [];
const fail = (rule, row, detail, extra = {}) =>
	failures.push({ rule, where: row.where, kind: row.kind, detail, text: row.text, sites: [...row.sites], ...extra });

/** The text with, for each hole, its span: [start, end, tags]. */
function layout(row) {
	let text = '';
	const holes = [];
	for (const p of row.parts) {
		if (p.lit !== undefined) text += p.lit;
		else {
			holes.push({ at: text.length, src: p.hole, tags: p.tags });
			text += '…';
		}
	}
	return { text, holes };
}
const firstLine = (text) => text.split('\n')[0];
const QUOTES = { '`': '`', "'": "'", '"': '"', '“': '”', '‘': '’' };
function quoted(text, start, end) {
	const before = text[start - 1];
	if (before in QUOTES && text[end] === QUOTES[before]) return true;
	// Inside a backtick span (n8n renders it as code in a description) or a double-quoted one (a quoted
	// header value such as "algorithm=RSA256, keyVersion=<version>"): single quotes must enclose the
	// name directly, as they double as apostrophes.
	const inside = (q) => (text.slice(0, start).split(q).length - 1) % 2 === 1 && text.indexOf(q, end) >= 0;
	return inside('`') || inside('"');
}
const REGEX_RE =
	/\^\[|\[[^\]\s]*[A-Za-z0-9]-[A-Za-z0-9][^\]\s]*\]|\{\d+(?:,\d*)?\}|\\[dDwWsSbB]|\(\?[:=!<]|[\])}*+?]\$(?![A-Za-z0-9{])|\.\*|\.\+(?![A-Za-z0-9])/;

for (const row of rows.values()) {
	const { text, holes } = layout(row);
	const isMessage = row.kind === 'message';
	const head = isMessage ? firstLine(text) : text;
	// wire-name
	for (const m of WIRE_MATCHERS) {
		for (const hit of text.matchAll(m.re)) {
			const start = hit.index;
			const end = start + hit[0].length;
			if (isMessage && start < head.length)
				fail('wire-name', row, `${hit[0]} (${m.from}) in the message; use its display name`);
			else if (!quoted(text, start, end))
				fail(
					'wire-name',
					row,
					`${hit[0]} (${m.from}) unquoted in the ${row.kind}; quote it as the API's name or use its display name`,
				);
		}
	}
	for (const h of holes.filter((h) => h.tags.has('name'))) {
		if (isMessage && h.at < head.length)
			fail('wire-name', row, `built from a field row's name (${h.src}); use its label`);
		else if (!quoted(text, h.at, h.at + 1))
			fail('wire-name', row, `built from a field row's name (${h.src}) unquoted; use its label or quote it`);
	}
	// regex
	const regex = text.match(REGEX_RE);
	if (regex) fail('regex', row, `regular expression ${JSON.stringify(regex[0])}; say it in words`);
	for (const h of holes.filter((h) => h.tags.has('regex')))
		fail('regex', row, `built from a regular expression (${h.src})`);
	// length
	if (isMessage && Array.from(head).length > MESSAGE_LIMIT)
		fail('length', row, `first line ${Array.from(head).length} > ${MESSAGE_LIMIT} characters`);
	// env
	for (const hit of text.matchAll(ENV_RE)) {
		const name = hit[0];
		const isEnv = /^(?:N8N_|NODE_)|_PROXY$|process\.env|\$env/i.test(name) || ENV_NAMES.has(name);
		if (isEnv) fail('env', row, `environment variable ${name}, which a Cloud user cannot set`);
	}
}

const words = (text) =>
	text
		.toLowerCase()
		.replace(/…/g, ' \u2026 ')
		.split(/[^a-z0-9\u2026'-]+/)
		.filter(Boolean);
function sharedRun(a, b) {
	const wa = words(a);
	const wb = words(b);
	let best = [];
	for (let i = 0; i < wa.length; i++)
		for (let j = 0; j < wb.length; j++) {
			let k = 0;
			while (i + k < wa.length && j + k < wb.length && wa[i + k] === wb[j + k]) k++;
			if (k > best.length) best = wa.slice(i, i + k);
		}
	return best.filter((w) => w !== '\u2026').length >= REPEAT_WORDS ? best.join(' ') : undefined;
}
const reported = new Set();
const once = (key) => (reported.has(key) ? false : (reported.add(key), true));
const norm = (s) => words(s).join(' ');
/** `a` (a message's first line, or a detail) inside `b`, or a run of REPEAT_WORDS words in both. */
function repeatIn(row, a, other, b) {
	if (words(a).filter((w) => w !== '\u2026').length >= 3 && norm(b).includes(norm(a))) {
		if (once(`repeat\u0000${row.where}\u0000${other.where}\u0000${row.text}`))
			fail('repeat', row, `the ${row.kind} is repeated in its ${other.kind} (${other.where})`, {
				repeatedIn: other.text,
			});
		return;
	}
	const run = sharedRun(a, b);
	if (run && once(`repeat\u0000${row.where}\u0000${other.where}\u0000${row.text}`))
		fail('repeat', row, `"${run}" is in both the ${row.kind} and its ${other.kind} (${other.where})`, {
			repeatedIn: other.text,
		});
}
for (const error of errors) {
	for (const m of error.message) {
		const head = firstLine(layout(m).text);
		for (const other of [...error.detail, ...error.hint]) repeatIn(m, head, other, layout(other).text);
	}
	for (const d of error.detail) for (const h of error.hint) repeatIn(d, layout(d).text, h, layout(h).text);
	const all = [...error.message, ...error.detail, ...error.hint];
	for (const row of all) {
		if (!BUG_RE.test(row.text)) continue;
		const linked = ISSUES_URL && all.some((r) => r.text.includes(ISSUES_URL));
		if (!linked && once(`bug\u0000${row.where}\u0000${row.text}`))
			fail(
				'bug-link',
				row,
				`asks to report a bug without the issues link ${ISSUES_URL ?? '(package.json has no repository)'}`,
			);
	}
}

// ---------------------------------------------------------------- output

const RULES = ['wire-name', 'regex', 'length', 'repeat', 'env', 'bug-link'];
const sortedRows = [...rows.values()].sort(
	(a, b) => a.where.localeCompare(b.where, undefined, { numeric: true }) || a.kind.localeCompare(b.kind),
);
/** Where the error is made, when that is not where its text is (a subclass's text, a helper's). */
function raisedAt(row) {
	const [file, line] = row.where.split(':');
	const near = (s) =>
		!s.includes(' <- ') && s.split(':')[0] === file && Math.abs(Number(s.split(':')[1]) - Number(line)) <= 5;
	const sites = [...new Set(row.sites)].filter((s) => !near(s));
	if (sites.length === 0) return '';
	const short = (s) => s.replaceAll(`${NODE_DIR}/`, '').replaceAll(' <- ', ' called from ');
	return `   (raised at ${short(sites[0])}${sites.length > 1 ? ` and ${sites.length - 1} more` : ''})`;
}
const length = (row) => Array.from(row.kind === 'message' ? firstLine(layout(row).text) : layout(row).text).length;
const counts = Object.fromEntries(RULES.map((r) => [r, failures.filter((f) => f.rule === r).length]));
const byKind = (k) => sortedRows.filter((r) => r.kind === k).length;
const summary = {
	texts: sortedRows.length,
	messages: byKind('message'),
	details: byKind('detail'),
	hints: byKind('hint'),
	tests: byKind('test'),
	opaque,
	failures: failures.length,
	byRule: counts,
	messageLimit: MESSAGE_LIMIT,
	wireNames: WIRE.names.map((n) => n.name),
	plainWordsLeftOut: WIRE.skipped.map((n) => n.name),
};
const summaryLine =
	`lint-errors: ${summary.texts} texts (${summary.messages} messages, ${summary.details} details, ${summary.hints} hints, ${summary.tests} credential-test), ` +
	`${summary.failures} failures (${RULES.map((r) => `${r} ${counts[r]}`).join(', ')}); message limit ${MESSAGE_LIMIT}; ` +
	`${opaque} opaque texts not listed`;

if (JSON_OUT) {
	console.log(
		JSON.stringify(
			{
				rows: sortedRows.map((r) => ({
					where: r.where,
					kind: r.kind,
					length: length(r),
					text: r.text,
					holes: r.holes,
					sites: [...r.sites],
				})),
				failures,
				summary,
			},
			null,
			2,
		),
	);
} else {
	if (LIST) {
		console.log(
			`# Error texts of ${pkg.name}: file:line | kind | length | text   (… = a value known at run time; length counts it as 1)`,
		);
		console.log(`# wire names checked: ${summary.wireNames.join(', ')}`);
		console.log(`# plain words left out: ${summary.plainWordsLeftOut.join(', ')}`);
		for (const row of sortedRows) {
			const holes = row.holes.length ? `   [… = ${row.holes.join('; ')}]` : '';
			console.log(
				`${row.where}\t${row.kind}\t${length(row)}\t${row.text.replace(/\n/g, '\\n')}${holes}${raisedAt(row)}`,
			);
		}
		console.log('');
	}
	for (const f of failures.sort(
		(a, b) =>
			RULES.indexOf(a.rule) - RULES.indexOf(b.rule) || a.where.localeCompare(b.where, undefined, { numeric: true }),
	)) {
		console.log(`${f.where}\t${f.rule}\t${f.kind}: ${f.detail}${raisedAt(f)}`);
		console.log(`\t${f.text.replace(/\n/g, '\\n')}`);
	}
	console.log(summaryLine);
}
process.exitCode = failures.length ? 1 : 0;
