// Checks what a person sees in the running n8n app (`n8n start`), through its REST API:
// the editor is served the node and credential types and their icons, and the credential's
// Test button (POST /rest/credentials/test) reaches the simulator and explains a rejection.
//
//   node scripts/n8n-app/check-app.mjs <n8n base URL> <simulator base URL>
//
// Signs in as the owner (setting it up on a fresh instance). Prints "ok ..."/"FAIL ..."
// lines and exits 1 on any failure.
import { readFileSync } from 'node:fs';
import { restClient } from './rest.mjs';

const [base, simulatorUrl] = process.argv.slice(2);
const key = (name) => readFileSync(new URL(`../../sandbox/keys/${name}`, import.meta.url), 'utf8');
const PACKAGE = 'n8n-nodes-partner-account-inquiry';
const { call, signIn } = restClient(base);
let failed = 0;

async function step(title, fn) {
	try {
		console.log(`ok   ${title}: ${await fn()}`);
	} catch (error) {
		failed++;
		console.log(`FAIL ${title}: ${error.message}`);
	}
}
function check(condition, message) {
	if (!condition) throw new Error(message);
}

const credential = (data) => ({
	credentials: {
		id: 'PaiSmokeCred0001',
		name: 'Partner Account Inquiry API account',
		type: 'partnerAccountInquiryApi',
		data: {
			environment: 'custom',
			baseUrl: simulatorUrl,
			clientId: 'SANDBOX_CLIENT_0001',
			privateKey: key('demo-partner-private.pem'),
			servicePublicKey: key('gateway-public.pem'),
			keyVersion: '1',
			...data,
		},
	},
});

// The owner is set up by whoever comes first (the Install through Settings > Community nodes).
await step('owner signed in through the REST API', signIn);

await step('the editor is served the three node types and their icons', async () => {
	const res = await call('GET', '/types/nodes.json');
	check(res.status === 200 && Array.isArray(res.json), `GET /types/nodes.json answered ${res.status}`);
	const found = [];
	for (const name of [`${PACKAGE}.partnerAccountInquiry`, `${PACKAGE}.partnerAccountInquiryTool`, `${PACKAGE}.partnerAccountInquiryTrigger`]) {
		const type = res.json.find((t) => t.name === name);
		check(type, `${name} is missing from /types/nodes.json`);
		for (const icon of Object.values(type.iconUrl ?? {})) {
			const got = await call('GET', `/${icon}`);
			check(got.status === 200 && got.type.includes('svg') && got.text.includes('<svg'), `icon /${icon} answered ${got.status} ${got.type}`);
		}
		found.push(`${name.slice(PACKAGE.length + 1)} (${Object.keys(type.iconUrl ?? {}).join('/')} icons)`);
	}
	return found.join(', ');
});

await step('the editor is served the credential type and its icons', async () => {
	const res = await call('GET', '/types/credentials.json');
	check(res.status === 200 && Array.isArray(res.json), `GET /types/credentials.json answered ${res.status}`);
	const type = res.json.find((t) => t.name === 'partnerAccountInquiryApi');
	check(type, 'partnerAccountInquiryApi is missing from /types/credentials.json');
	// n8n appends its own fields (allowed domains) to credentials that sign requests themselves.
	const names = type.properties.map((p) => p.name);
	const fields = names.slice(0, 7).join(', ');
	check(
		fields === 'environment, baseUrl, clientId, privateKey, servicePublicKey, keyVersion, responseTimeToleranceSeconds',
		`the credential's fields are ${names.join(', ')}`,
	);
	for (const icon of Object.values(type.iconUrl ?? {})) {
		const got = await call('GET', `/${icon}`);
		check(got.status === 200 && got.text.includes('<svg'), `icon /${icon} answered ${got.status}`);
	}
	const added = names.slice(7);
	return `"${type.displayName}" with fields ${fields}${added.length ? ` (n8n adds ${added.join(', ')})` : ''}`;
});

await step('credential Test succeeds with the right values', async () => {
	const res = await call('POST', '/rest/credentials/test', credential({}));
	check(res.status === 200, `POST /rest/credentials/test answered ${res.status}: ${res.text.slice(0, 200)}`);
	const { status, message } = res.json.data ?? res.json;
	check(status === 'OK', `the test says ${status}: ${message}`);
	return `${status}${message ? `: ${message}` : ''}`;
});

for (const [title, data, code] of [
	['credential Test explains an unknown Client ID', { clientId: 'NOT_A_CLIENT_0001' }, 'INVALID_CLIENT'],
	["credential Test explains a Private Key the gateway doesn't know", { privateKey: key('gateway-private.pem') }, 'INVALID_SIGNATURE'],
]) {
	await step(title, async () => {
		const res = await call('POST', '/rest/credentials/test', credential(data));
		check(res.status === 200, `POST /rest/credentials/test answered ${res.status}: ${res.text.slice(0, 200)}`);
		const { status, message } = res.json.data ?? res.json;
		check(status === 'Error' && String(message).includes(code), `the test says ${status}: ${message}`);
		return `Error: ${message}`;
	});
}

process.exit(failed ? 1 : 0);
