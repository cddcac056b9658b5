// npm run docs:screenshot [-- out.png]: docs/node-parameters.png (Get Many Beneficiaries run once in the
// real 2.x editor, SCREENSHOT_LINE=1 for 1.x) and, with the default output, docs/example-<name>.png
// for each example imported through the editor's Import from File, then pasted onto an empty canvas
// (every node must arrive). SCREENSHOT_EXAMPLES=0 skips the examples, or names the files to picture.
// Beside the pictures, example-pictures.json records for each example pictured the sha256 of the
// bytes imported: test/examples.test.ts fails when an example pictured in examples/README.md no
// longer matches it (rerun with SCREENSHOT_EXAMPLES=examples/<file>.json after changing one).
// Headless Debian Chromium (installed with a CJK font by apt-get when missing), playwright-core
// installed once into the cache; every request that is not for the local n8n is aborted.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { SCREENSHOT } from '../n8n-app/workflows.mjs';
import { CACHE, ROOT, must, run, say, setPrefix, workDir } from '../n8n-app/harness.mjs';
import { ensureApp, installTarball, pack } from '../n8n-app/install.mjs';
import { SMOKE_CREDENTIAL, cliMust, credentials, n8nEnv, rest, startN8n, startSimulator } from '../n8n-app/n8n.mjs';

setPrefix('screenshot');
const out = resolve(process.argv[2] ?? join(ROOT, 'docs/node-parameters.png'));
const listed = process.env.SCREENSHOT_EXAMPLES ?? (process.argv[2] ? '0' : '1');
const examples = listed === '1' ? readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.json')).map((f) => join(ROOT, 'examples', f)) : listed === '0' ? [] : listed.split(/\s+/).map((f) => resolve(f));
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const work = workDir('n8n-screenshot');
const apt = [...(existsSync(chromiumPath) ? [] : ['chromium']), ...(/wqy|noto sans cjk/i.test((await run('fc-list', [])).out) ? [] : ['fonts-wqy-zenhei'])];
if (apt.length) await must('bash', ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${apt.join(' ')}`], { timeout: 900_000 });
const playwright = join(CACHE, `playwright-core-${process.env.PLAYWRIGHT_CORE_VERSION ?? '1.65.1'}`);
if (!existsSync(join(playwright, 'node_modules/playwright-core'))) {
	mkdirSync(playwright, { recursive: true });
	writeFileSync(join(playwright, 'package.json'), '{ "private": true }');
	await must('npm', ['install', '--no-audit', '--no-fund', `playwright-core@${process.env.PLAYWRIGHT_CORE_VERSION ?? '1.65.1'}`], { cwd: playwright });
}
const { chromium } = createRequire(join(playwright, 'package.json'))('playwright-core');

await must('npm', ['run', 'build:dev', '--silent'], {});
const app = await ensureApp(process.env.SCREENSHOT_LINE ?? '2');
const user = join(work, 'user');
const sim = await startSimulator(join(work, 'simulator.log'));
const env = n8nEnv(app, user);
await installTarball(app, user, await pack(join(work, 'pack')), env);
await cliMust(app, env, ['import:credentials', `--input=${credentials(join(work, 'credentials.json'), [{ ...SMOKE_CREDENTIAL, url: sim.url }])}`]);
writeFileSync(join(work, 'screenshot-workflow.json'), JSON.stringify(SCREENSHOT));
await cliMust(app, env, ['import:workflow', `--input=${join(work, 'screenshot-workflow.json')}`]);
const n8n = await startN8n(app, env, join(work, 'n8n.log'));
await rest(n8n.url).signIn(); // sets up the owner
const browser = await chromium.launch({
	executablePath: chromiumPath, headless: true,
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1, locale: 'en-US', timezoneId: 'UTC' });
await context.route((url) => !url.href.startsWith(n8n.url) && !/^(data|blob)/.test(url.protocol), (route) => route.abort());
const page = await context.newPage();
let status = 0;
try {
	const login = await context.request.post(`${n8n.url}/rest/login`, { data: { emailOrLdapLoginId: 'owner@example.com', password: 'Smoke-Test-Pass-1' } });
	if (!login.ok()) throw new Error(`sign-in answered ${login.status()}`);
	await page.goto(`${n8n.url}/workflow/PaiScreenshot001/d1e2f3a4-0000-4000-8000-000000000002`, { waitUntil: 'domcontentloaded' });
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.waitFor({ state: 'visible', timeout: 30_000 }).catch(async () => {
		await page.keyboard.press('Escape');
		await page.locator('[data-test-id="canvas-node"][data-node-name="Get Many Beneficiaries"]').dblclick();
		await ndv.waitFor({ state: 'visible', timeout: 30_000 });
	});
	// Run the step once, so the output panel shows what the simulator answered.
	await ndv.locator('[data-test-id="node-execute-button"]').first().click();
	await ndv.getByText(/\d+ items?/).first().waitFor({ timeout: 60_000 }).catch(() => say('no item count appeared in the output panel'));
	await page.mouse.move(5, 895);
	await page.locator('.el-notification__closeBtn').evaluateAll((buttons) => buttons.forEach((b) => b.click())).catch(() => {});
	await page.waitForTimeout(1500);
	mkdirSync(dirname(out), { recursive: true });
	await page.screenshot({ path: out });
	say(`saved ${out}`);
	const digests = join(dirname(out), 'example-pictures.json');
	const recorded = existsSync(digests) ? JSON.parse(readFileSync(digests, 'utf8')) : {};
	for (const file of examples) {
		const name = basename(file, '.json');
		const bytes = readFileSync(file); // the bytes pictured are the bytes whose digest is recorded
		const json = bytes.toString('utf8');
		const expected = JSON.parse(json).nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote').length;
		await page.goto(`${n8n.url}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="workflow-import-input"]').setInputFiles({ name: basename(file), mimeType: 'application/json', buffer: bytes });
		await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 30_000 });
		await page.waitForTimeout(1500);
		const imported = await page.locator('[data-test-id="canvas-node"]').count();
		if (imported !== expected) throw new Error(`${name}: importing the file gave ${imported} nodes, expected ${expected}`);
		const flagged = await page.locator('[data-test-id="canvas-node"]:has([data-test-id="node-issues"])').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-node-name')));
		say(`${name}: ${imported} nodes, flagged by the editor: ${flagged.join(', ') || 'none'}`);
		await page.mouse.move(5, 895);
		// The whole workflow must be in the picture, legibly: every node and sticky note inside the canvas,
		// and no node or its name under the editor's own buttons and panels (zoomed out a step at a time until so).
		const unseen = () => page.evaluate(() => {
			const pane = document.querySelector('.vue-flow')?.getBoundingClientRect() ?? { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
			const nodes = [...document.querySelectorAll('.vue-flow__node')];
			const outside = nodes.filter((n) => {
				const r = n.getBoundingClientRect();
				return r.left < pane.left || r.top < pane.top || r.right > pane.right || r.bottom > pane.bottom;
			}).map((n) => `${n.querySelector('[data-node-name]')?.getAttribute('data-node-name') ?? n.getAttribute('data-id')} outside the view`);
			const hittable = document.head.appendChild(document.createElement('style')); // node names take no pointer events
			hittable.textContent = '.vue-flow__node, .vue-flow__node * { pointer-events: auto !important }';
			const covered = nodes.filter((n) => n.querySelector('[data-test-id="canvas-node"]')).flatMap((n) => {
				const parts = [n, ...[...n.querySelectorAll('*')].filter((e) => !e.childElementCount && e.textContent.trim() && e.checkVisibility({ opacityProperty: true, visibilityProperty: true }))];
				return parts.flatMap((e) => {
					const r = e.getBoundingClientRect();
					if (!r.width || !r.height) return [];
					const points = [[0.5, 0.5], [0.05, 0.1], [0.95, 0.1], [0.05, 0.9], [0.95, 0.9]];
					const hit = points.map(([x, y]) => document.elementFromPoint(r.left + r.width * x, r.top + r.height * y)).find((h) => !h?.closest('.vue-flow__node, .vue-flow__edges, .vue-flow__edge'));
					if (hit === undefined) return [];
					const what = hit ? `${hit.tagName.toLowerCase()}${hit.getAttribute('data-test-id') ? `[${hit.getAttribute('data-test-id')}]` : ''}.${[...hit.classList].join('.')}` : 'nothing';
					return [`${n.querySelector('[data-node-name]')?.getAttribute('data-node-name')}${e === n ? '' : ` ("${e.textContent.trim()}")`} under ${what}`];
				});
			});
			hittable.remove();
			return [...outside, ...covered];
		});
		for (let step = 0, now; step < 3 && (now = await unseen()).length; step++) {
			say(`${name}: zooming out a step (${now.join(', ')})`);
			await page.keyboard.press('-');
			await page.waitForTimeout(800);
		}
		const unseenNow = await unseen();
		if (unseenNow.length) throw new Error(`${name}: not all of the workflow can be seen: ${unseenNow.join(', ')}`);
		const picture = join(dirname(out), `example-${name}.png`);
		await page.screenshot({ path: picture });
		// Pasted onto an empty canvas, as a person copying the JSON does: every node (sticky notes are no canvas nodes) must arrive.
		await page.goto(`${n8n.url}/workflow/new`, { waitUntil: 'domcontentloaded' });
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
		if (pasted !== expected) throw new Error(`${name}: pasting the JSON gave ${pasted} nodes, expected ${expected}`);
		recorded[basename(file)] = { picture: relative(ROOT, picture).split('\\').join('/'), sha256: createHash('sha256').update(bytes).digest('hex') };
		writeFileSync(digests, `${JSON.stringify(Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b))), null, '\t')}\n`);
		say(`${name}: saved example-${name}.png, its digest in ${relative(ROOT, digests)}; pasting the JSON gave all ${pasted} nodes`);
	}
} catch (error) {
	await page.screenshot({ path: join(work, 'failure.png') }).catch(() => {});
	say(`failed (the page as it was: ${work}/failure.png; logs in ${work}): ${error.message}`);
	status = 1;
} finally {
	await browser.close();
	await n8n.stop();
	await sim.proc.stop();
}
process.exit(status);
