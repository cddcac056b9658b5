/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only demo */
/**
 * `npm run demo`: builds the package, starts the gateway simulator on a free port and runs
 * workflows through n8n's real execution engine with the built node and credential (dist/).
 */
import { join } from 'node:path';

import type { ICredentialType, IDataObject, INodeParameters, INodeType } from 'n8n-workflow';

import { runNode, sandboxCredentials } from '../sandbox/engine';
import { startSimulator, type Simulator } from '../sandbox/server';

const dist = join(__dirname, '..', '..', 'dist');
/* eslint-disable-next-line @typescript-eslint/no-require-imports */
const { PartnerAccountInquiry } = require(join(dist, 'nodes/PartnerAccountInquiry/PartnerAccountInquiry.node.js'));
/* eslint-disable-next-line @typescript-eslint/no-require-imports */
const { PartnerAccountInquiryApi } = require(join(dist, 'credentials/PartnerAccountInquiryApi.credentials.js'));

const out = (text = '') => process.stdout.write(`${text}\n`);
let failures = 0;

async function run(sim: Simulator, title: string, parameters: INodeParameters): Promise<IDataObject[]> {
	const started = Date.now();
	const before = sim.requests.length;
	const result = await runNode({
		parameters,
		credentials: sandboxCredentials(sim.url),
		nodeType: new PartnerAccountInquiry() as INodeType,
		credentialType: new PartnerAccountInquiryApi() as ICredentialType,
	});
	const requests = sim.requests.length - before;
	out(`\n## ${title}`);
	if (result.status !== 'success') {
		failures++;
		out(`  FAILED: ${result.error?.message ?? result.status}`);
		return [];
	}
	out(
		`  ${result.json.length} item(s), ${requests} signed request(s), every response verified, ${Date.now() - started} ms`,
	);
	return result.json;
}

/** Terminal columns: CJK and other wide characters take two. */
function width(text: string): number {
	let n = 0;
	for (const ch of text)
		n += /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/.test(ch)
			? 2
			: 1;
	return n;
}

function table(rows: IDataObject[], columns: string[], max = 5): void {
	const shown = rows.slice(0, max).map((row) => columns.map((c) => String(row[c] ?? '')));
	const widths = columns.map((c, i) => Math.max(c.length, ...shown.map((r) => width(r[i]))));
	const line = (cells: string[]) =>
		`  | ${cells.map((cell, i) => cell + ' '.repeat(widths[i] - width(cell))).join(' | ')} |`;
	out(line(columns));
	out(`  |${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
	for (const r of shown) out(line(r));
	if (rows.length > max) out(`  ... and ${rows.length - max} more`);
}

async function main(): Promise<void> {
	const sim = await startSimulator();
	out(`Gateway simulator on ${sim.url}; running workflows through n8n-core's WorkflowExecute.`);
	try {
		const all = await run(
			sim,
			'Every beneficiary of CUST_LARGE (Return All, 7 pages, read twice to confirm the list is whole; Simplify off)',
			{
				operation: 'listBeneficiaries',
				returnAll: true,
				customerId: 'CUST_LARGE',
				simplify: false,
			},
		);
		const tokens = new Set(all.map((b) => b.beneficiaryToken));
		out(`  distinct beneficiaries: ${tokens.size} (duplicates: ${all.length - tokens.size})`);
		if (all.length !== 320 || tokens.size !== 320) failures++;
		table(all, ['whoseAccount', 'referenceBeneficiaryId', 'beneficiaryNick', 'currency', 'assetType', 'relationType']);

		const usdBank = await run(sim, 'Filtered: USD bank accounts of CUST_LARGE (simplified, bank details masked)', {
			operation: 'listBeneficiaries',
			returnAll: true,
			filters: { currencyList: ['USD'], assetType: 'BANK_ACCOUNT' },
			customerId: 'CUST_LARGE',
		});
		table(usdBank, ['whoseAccount', 'referenceBeneficiaryId', 'accountName', 'currency', 'bankAccountNo', 'bankAccountIBAN'], 4);

		const named = await run(sim, 'Filtered: account name contains "深圳" (CUST_SMALL)', {
			operation: 'listBeneficiaries',
			returnAll: false,
			limit: 10,
			filters: { accountName: '深圳' },
			customerId: 'CUST_SMALL',
		});
		table(named, ['referenceBeneficiaryId', 'accountName', 'currency']);

		const quotas: IDataObject[] = [];
		for (const [title, parameters] of [
			[
				'Quota by user ID U-1001 (USD)',
				{ quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD' },
			],
			[
				'Quota by beneficiary B-4001, trade type GOODS (USD)',
				{ quotaAccumulationMethod: 'BENEFICIARY', quotaAccumulationId: 'B-4001', currency: 'USD', tradeType: 'GOODS' },
			],
			[
				'Quota by receiving account RA-JPY (JPY, no minor unit)',
				{ quotaAccumulationMethod: 'RECEIVING_ACCOUNT', quotaAccumulationId: 'RA-JPY', currency: 'JPY' },
			],
			[
				"A managed customer's quota: user U-2001 of connected account ACC_0002 (USD)",
				{ connectedAccountId: 'ACC_0002', quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-2001', currency: 'USD' },
			],
		] as const) {
			quotas.push(...(await run(sim, title, { operation: 'getAvailableQuota', ...parameters })));
		}
		out('\n## Available quota');
		table(
			quotas.map((q) => ({
				...q,
				currency: (q.availableQuota as IDataObject)?.currency,
				value: (q.availableQuota as IDataObject)?.value,
			})),
			['whoseAccount', 'quotaAccumulationMethod', 'quotaAccumulationId', 'tradeType', 'currency', 'value', 'availableQuotaAmount'],
		);
	} finally {
		await sim.close();
	}
	out(failures === 0 ? '\nDemo finished: all workflows succeeded.' : `\nDemo finished with ${failures} failure(s).`);
	process.exitCode = failures === 0 ? 0 : 1;
}

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
