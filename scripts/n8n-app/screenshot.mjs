// Drives the real n8n editor in headless Chromium and saves a PNG of the node's panel.
// Started by screenshot.sh, which sets: PLAYWRIGHT_DIR (where playwright-core is installed),
// CHROMIUM, N8N_URL, WORKFLOW_ID, NODE_ID, NODE_NAME, OUT, DEBUG_DIR, and optionally EXAMPLES
// (workflow files to import through the editor's Import from File) and EXAMPLES_OUT_DIR.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

const env = (name) => {
	const value = process.env[name];
	if (!value) throw new Error(`${name} is not set`);
	return value;
};
const require = createRequire(join(env('PLAYWRIGHT_DIR'), 'package.json'));
const { chromium } = require('playwright-core');

const base = env('N8N_URL');
const owner = { email: 'owner@example.com', firstName: 'Demo', lastName: 'Owner', password: 'Screenshot-Pass-1' };
const log = (text) => console.log(`[screenshot] ${text}`);

const browser = await chromium.launch({
	executablePath: env('CHROMIUM'),
	headless: true,
	args: [
		'--headless',
		'--no-sandbox',
		'--disable-gpu',
		'--disable-quic',
		'--no-first-run',
		'--disable-background-networking',
		'--disable-component-update',
		'--disable-sync',
		'--disable-dev-shm-usage',
	],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1, locale: 'en-US', timezoneId: 'UTC' });
const page = await context.newPage();
// Everything the editor asks for outside this n8n fails at once instead of waiting on a closed network.
await context.route(
	(url) => !url.href.startsWith(base) && !url.protocol.startsWith('data') && !url.protocol.startsWith('blob'),
	(route) => route.abort(),
);

try {
	// The owner account, through the REST API; the answer's cookie signs the browser in.
	const setup = await context.request.post(`${base}/rest/owner/setup`, { data: owner });
	if (!setup.ok()) {
		log(`owner setup answered ${setup.status()}; signing in instead`);
		const login = await context.request.post(`${base}/rest/login`, { data: { emailOrLdapLoginId: owner.email, password: owner.password } });
		if (!login.ok()) throw new Error(`sign-in failed: ${login.status()} ${await login.text()}`);
	}

	const nodeName = env('NODE_NAME');
	await page.goto(`${base}/workflow/${env('WORKFLOW_ID')}/${env('NODE_ID')}`, { waitUntil: 'domcontentloaded' });
	const ndv = page.locator('[data-test-id="ndv"]');
	try {
		await ndv.waitFor({ state: 'visible', timeout: 30_000 });
	} catch {
		log('the node URL did not open the panel; double-clicking the node');
		await page.keyboard.press('Escape');
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`).dblclick();
		await ndv.waitFor({ state: 'visible', timeout: 30_000 });
	}
	log('node panel open');

	// Run the step once, so the output panel shows what the simulator answered.
	const execute = ndv.locator('[data-test-id="node-execute-button"]');
	if (await execute.count()) {
		await execute.first().click();
		await ndv.getByText(/\d+ items?/).first().waitFor({ timeout: 60_000 }).catch(() => log('no item count appeared in the output panel'));
		await page.waitForTimeout(1000);
	}
	// Notifications and tooltips out of the way.
	await page.mouse.move(5, 895);
	await page.locator('.el-notification__closeBtn').evaluateAll((buttons) => buttons.forEach((b) => b.click())).catch(() => {});
	await page.waitForTimeout(500);
	await page.screenshot({ path: env('OUT') });
	log(`saved ${env('OUT')}`);

	// Each example, imported the way a person does it (Import from File), as a picture of its canvas.
	for (const file of (process.env.EXAMPLES ?? '').split(/\s+/).filter(Boolean)) {
		const name = basename(file, '.json');
		await page.goto(`${base}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="workflow-import-input"]').setInputFiles(file);
		await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 30_000 });
		await page.waitForTimeout(1500);
		const flagged = await page
			.locator('[data-test-id="canvas-node"]:has([data-test-id="node-issues"])')
			.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-node-name')));
		const ours = await page.locator('[data-test-id="canvas-node"][data-node-type^="n8n-nodes-partner-account-inquiry."]').count();
		log(`${name}: ${await page.locator('[data-test-id="canvas-node"]').count()} nodes (${ours} of this package), flagged by the editor: ${flagged.join(', ') || 'none'}`);
		const target = join(env('EXAMPLES_OUT_DIR'), `example-${name}.png`);
		await page.mouse.move(5, 895);
		await page.screenshot({ path: target });
		log(`saved ${target}`);

		// Pasting the file's JSON onto an empty canvas, as a person copying it from the repository does.
		const json = readFileSync(file, 'utf8');
		// Sticky notes are drawn, but not as canvas nodes.
		const expected = JSON.parse(json).nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote').length;
		await page.goto(`${base}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="canvas-wrapper"], [data-test-id="canvas"]').first().waitFor({ timeout: 30_000 });
		await page.waitForTimeout(1000);
		await page.evaluate((text) => {
			const data = new DataTransfer();
			data.setData('text/plain', text);
			document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
		}, json);
		await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 30_000 });
		await page.waitForTimeout(1000);
		const pasted = await page.locator('[data-test-id="canvas-node"]').count();
		if (pasted !== expected) throw new Error(`${name}: pasting the JSON gave ${pasted} nodes on the canvas, expected ${expected}`);
		log(`${name}: pasting the JSON gave all ${pasted} nodes`);
	}
} catch (error) {
	const debug = join(env('DEBUG_DIR'), 'failure.png');
	await page.screenshot({ path: debug }).catch(() => {});
	log(`failed (page as it was: ${debug}): ${error.message}`);
	process.exitCode = 1;
} finally {
	await browser.close();
}
