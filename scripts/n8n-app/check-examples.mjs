// Checks the example workflows against the real n8n app they were imported into.
//
//   node scripts/n8n-app/check-examples.mjs <app dir> <nodes.json> <workflows.json> <credential id> <example.json>...
//
// <nodes.json> is what `n8n export:nodes` wrote (every node type the app loaded, the community
// package's included); <workflows.json> is what `n8n export:workflow --all` wrote after the
// import. For every example: each node's type and typeVersion exist in the app, no parameter is
// unknown or hidden for its settings, the editor would flag no parameter issue (n8n-workflow's
// own NodeHelpers, as the editor uses them), connections name real nodes, and the app resolved
// the credential, referenced by name only, to the imported one.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

const [appDir, nodesFile, workflowsFile, credentialId, ...exampleFiles] = process.argv.slice(2);
const requireFromApp = createRequire(join(appDir, 'node_modules', 'n8n', 'package.json'));
const { NodeHelpers } = requireFromApp('n8n-workflow');

const nodeTypes = JSON.parse(readFileSync(nodesFile, 'utf8'));
const exported = JSON.parse(readFileSync(workflowsFile, 'utf8'));
const CREDENTIAL_TYPE = 'partnerAccountInquiryApi';
const PACKAGE_PREFIX = 'n8n-nodes-partner-account-inquiry.';

function describe(type, version) {
	return nodeTypes.find((d) => d.name === type && (Array.isArray(d.version) ? d.version.includes(version) : d.version === version));
}

let failed = 0;
for (const file of exampleFiles) {
	const problems = [];
	const example = JSON.parse(readFileSync(file, 'utf8'));
	const names = new Set(example.nodes.map((n) => n.name));
	let ours = 0;
	for (const node of example.nodes) {
		const description = describe(node.type, node.typeVersion);
		if (!description) {
			problems.push(`node "${node.name}": ${node.type} version ${node.typeVersion} is not in the app`);
			continue;
		}
		if (node.type.startsWith(PACKAGE_PREFIX)) {
			ours++;
			if (!node.credentials?.[CREDENTIAL_TYPE]?.name) problems.push(`node "${node.name}" does not name a ${CREDENTIAL_TYPE} credential`);
		}
		const parameters = NodeHelpers.getNodeParameters(description.properties, node.parameters, true, false, node, description) ?? {};
		for (const key of Object.keys(node.parameters ?? {})) {
			if (!(key in parameters)) problems.push(`node "${node.name}": parameter "${key}" is unknown or hidden for these settings`);
		}
		const issues = NodeHelpers.getNodeParametersIssues(description.properties, { ...node, parameters }, description);
		if (issues) problems.push(`node "${node.name}": the editor would flag ${JSON.stringify(issues.parameters ?? issues)}`);
	}
	if (ours === 0) problems.push('uses no Partner Account Inquiry node');
	for (const [source, outputs] of Object.entries(example.connections ?? {})) {
		if (!names.has(source)) problems.push(`connection from unknown node "${source}"`);
		for (const targets of Object.values(outputs).flat()) {
			for (const target of targets ?? []) if (!names.has(target.node)) problems.push(`connection to unknown node "${target.node}"`);
		}
	}
	const imported = exported.filter((w) => w.name === example.name);
	if (imported.length !== 1) {
		problems.push(`the app holds ${imported.length} workflows named "${example.name}" after the import`);
	} else {
		for (const node of imported[0].nodes) {
			const ref = node.credentials?.[CREDENTIAL_TYPE];
			if (ref && ref.id !== credentialId) problems.push(`node "${node.name}": the credential was not resolved by name (id ${JSON.stringify(ref.id)})`);
		}
	}
	if (problems.length) {
		failed++;
		console.log(`FAIL example ${basename(file)}:\n  - ${problems.join('\n  - ')}`);
	} else {
		console.log(`ok   example ${basename(file)}: imported as "${example.name}" (id ${imported[0].id}), ${example.nodes.length} nodes known to n8n, no parameter issues, credential resolved by name`);
	}
}
process.exit(failed ? 1 : 0);
