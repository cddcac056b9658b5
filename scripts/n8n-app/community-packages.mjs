// The package installed and upgraded as a person does it in the editor's Settings > Community
// nodes, through the same REST calls the editor makes, in a running n8n app (1.x and 2.x):
//
//   node scripts/n8n-app/community-packages.mjs install <n8n URL> <version>
//     Signs in (setting up the owner on a fresh instance), then POST /rest/community-packages
//     {name, version}: the Install button. n8n fetches the package from its npm registry,
//     unpacks it and loads it without a restart.
//   node scripts/n8n-app/community-packages.mjs update <n8n URL> <version>
//     PATCH /rest/community-packages {name, version}: the Update button.
//   node scripts/n8n-app/community-packages.mjs installed <n8n URL> <version>
//     GET /rest/community-packages: the package is listed at <version> and loaded.
//   node scripts/n8n-app/community-packages.mjs refused <n8n URL> <version> <text>
//     The Install button is refused with an error containing <text> (an n8n setting forbids it).
//
// Prints one "ok ..." or "FAIL ..." line and exits 1 on failure.
import { restClient } from './rest.mjs';

const [command, base, version, expected] = process.argv.slice(2);
const PACKAGE = 'n8n-nodes-partner-account-inquiry';
const NODE_TYPES = ['partnerAccountInquiry', 'partnerAccountInquiryTrigger'].map((n) => `${PACKAGE}.${n}`);
// An install runs npm pack and npm install in n8n before it answers.
const { call, signIn } = restClient(base, 240_000);

/** What n8n answered about the package: its version and node types, or why it is not right. */
function describe(pkg, action) {
	if (!pkg || pkg.packageName !== PACKAGE) throw new Error(`${action} answered no record of ${PACKAGE}: ${JSON.stringify(pkg).slice(0, 300)}`);
	if (pkg.installedVersion !== version) throw new Error(`${action} installed ${pkg.installedVersion}, not ${version}`);
	const types = (pkg.installedNodes ?? []).map((n) => n.type);
	const missing = NODE_TYPES.filter((t) => !types.includes(t));
	if (missing.length) throw new Error(`${action} loaded ${types.join(', ') || 'no node'}; missing ${missing.join(', ')}`);
	if (pkg.failedLoading) throw new Error(`n8n lists ${PACKAGE}@${version} as failed to load`);
	return `${PACKAGE}@${pkg.installedVersion} with ${types.map((t) => t.slice(PACKAGE.length + 1)).join(', ')}`;
}

const commands = {
	async install() {
		const res = await call('POST', '/rest/community-packages', { name: PACKAGE, version });
		if (res.status !== 200) throw new Error(`POST /rest/community-packages answered ${res.status}: ${res.text.slice(0, 400)}`);
		return `Install (POST /rest/community-packages) fetched and loaded ${describe(res.data, 'Install')}, no restart`;
	},
	async update() {
		const res = await call('PATCH', '/rest/community-packages', { name: PACKAGE, version });
		if (res.status !== 200) throw new Error(`PATCH /rest/community-packages answered ${res.status}: ${res.text.slice(0, 400)}`);
		return `Update (PATCH /rest/community-packages) fetched and loaded ${describe(res.data, 'Update')}`;
	},
	async installed() {
		const res = await call('GET', '/rest/community-packages');
		if (res.status !== 200 || !Array.isArray(res.data)) throw new Error(`GET /rest/community-packages answered ${res.status}: ${res.text.slice(0, 300)}`);
		return `Settings > Community nodes lists ${describe(res.data.find((p) => p.packageName === PACKAGE), 'the list')}, loaded`;
	},
	async refused() {
		const res = await call('POST', '/rest/community-packages', { name: PACKAGE, version });
		if (res.status === 200) throw new Error(`Install succeeded; expected a refusal containing "${expected}"`);
		if (!res.text.includes(expected)) throw new Error(`Install was refused (${res.status}) without "${expected}": ${res.text.slice(0, 300)}`);
		return `Install refused (${res.status}): "${(res.data?.message ?? res.text).slice(0, 160)}"`;
	},
};

try {
	if (!commands[command] || !base || !version) throw new Error(`usage: community-packages.mjs ${Object.keys(commands).join('|')} <n8n URL> <version> [text]`);
	await signIn();
	console.log(`ok   ${await commands[command]()}`);
} catch (error) {
	console.log(`FAIL community package ${command} ${version}: ${error.message}`);
	process.exit(1);
}
