// npm run dev:n8n: the n8n that `npm run dev -- --external-n8n` talks to (npm run dev's own
// `npx n8n@latest` needs the newest release to install, and Node 24). The 2.x app of the test
// cache (N8N_DEV_LINE=1 for 1.x), user folder ${N8N_DEV_USER_FOLDER:-~/.n8n-node-cli} (n8n-node
// dev's), hot reload on, http://localhost:${N8N_PORT:-5678}. The node appears as
// CUSTOM.partnerAccountInquiry (a linked folder, not an installed package).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LINES, PACKAGE, freePort, say, setPrefix } from '../n8n-app/harness.mjs';
import { ensureApp } from '../n8n-app/install.mjs';

setPrefix('dev:n8n');
const app = await ensureApp(process.env.N8N_DEV_LINE ?? '2');
const user = process.env.N8N_DEV_USER_FOLDER ?? join(homedir(), '.n8n-node-cli');
if (!existsSync(join(user, '.n8n/custom/node_modules', PACKAGE))) say(`note: start 'npm run dev -- --external-n8n' too (it links the package into ${user}/.n8n/custom)`);
const port = process.env.N8N_PORT ?? '5678';
say(`n8n ${app.version}, user folder ${user}, http://localhost:${port}`);
spawn(app.bin, ['start'], {
	stdio: 'inherit',
	env: {
		...app.env, ...LINES[app.line].vars, N8N_USER_FOLDER: user, N8N_DEV_RELOAD: 'true', N8N_PORT: port, N8N_RUNNERS_BROKER_PORT: process.env.N8N_RUNNERS_BROKER_PORT ?? String(await freePort()),
		N8N_DIAGNOSTICS_ENABLED: 'false', N8N_VERSION_NOTIFICATIONS_ENABLED: 'false', N8N_SECURE_COOKIE: 'false',
	},
}).on('close', (code) => process.exit(code ?? 1));
