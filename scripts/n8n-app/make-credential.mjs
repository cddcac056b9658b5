// Writes the credential file that `n8n import:credentials --input=<file>` reads: one
// "Partner Account Inquiry API" credential pointing at the local gateway simulator and, given a
// third argument, an OpenAI credential pointing at the local fake model (fake-openai.mjs).
//
//   node scripts/n8n-app/make-credential.mjs <simulator base URL> <output file> [fake OpenAI base URL]
//
// The keys are the simulator's demo keys from sandbox/keys (public on purpose). The data is
// plain JSON here; n8n encrypts it with N8N_ENCRYPTION_KEY while importing.
import { readFileSync, writeFileSync } from 'node:fs';

const [baseUrl, output, openAiUrl] = process.argv.slice(2);
if (!baseUrl || !output) {
	console.error('usage: make-credential.mjs <simulator base URL> <output file>');
	process.exit(2);
}
const key = (name) => readFileSync(new URL(`../../sandbox/keys/${name}`, import.meta.url), 'utf8');

const CREDENTIAL_ID = 'PaiSmokeCred0001';
const CREDENTIAL_NAME = 'Partner Account Inquiry API account';

writeFileSync(
	output,
	JSON.stringify(
		[
			{
				id: CREDENTIAL_ID,
				name: CREDENTIAL_NAME,
				type: 'partnerAccountInquiryApi',
				data: {
					environment: 'custom',
					baseUrl,
					clientId: 'SANDBOX_CLIENT_0001',
					privateKey: key('demo-partner-private.pem'),
					servicePublicKey: key('gateway-public.pem'),
					keyVersion: '1',
				},
			},
			...(openAiUrl
				? [{ id: 'PaiSmokeOpenAi01', name: 'Local fake OpenAI', type: 'openAiApi', data: { apiKey: 'sk-local-fake-key', url: openAiUrl } }]
				: []),
		],
		null,
		2,
	),
);
