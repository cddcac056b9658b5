/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test */
/**
 * Whose account, at the edges (a hostile review of issues 47 and 48, through n8n's engine against
 * the simulator): a quota set's lines that name a customer's connected account (first field, any
 * shape; never taken for a method or a threshold; an empty one refused), the shipped many-accounts example fed a
 * trigger's customer line, and the credential Test against a gateway that drips its answer (bounded
 * by the Timeout's deadline). Each test failed before its fix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CredentialTestContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INodeCredentialTestResult,
	INodeParameters,
} from 'n8n-workflow';

import { PartnerAccountInquiry } from '../../nodes/PartnerAccountInquiry/PartnerAccountInquiry.node';
import { sandboxCredentials } from '../../sandbox/engine';
import { quota, setRefusal, useSimulator } from '../support/helpers';
import { useClock } from '../support/pollerApp';
import { appOf, SAVINGS } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);

const quotaRequests = () => sim().requests.filter((r) => r.path.includes('AvailableQuota'));
/** Each quota request as [accumulation ID, Connected-AccountId header] (undefined: your own account). */
const sentWith = () =>
	quotaRequests().map((r) => [String(JSON.parse(r.body).quotaAccumulationId), r.headers['connected-accountid']]);
/** Moves a quota of U-B<n> (USER_ID, USD): your own, or a connected account's own. */
const setQuota = (id: string, cents: string, account?: string) =>
	sim().setQuota('USER_ID', account ? `${account}/${id}` : id, cents);
/** Quotas pasted in Options > Quotas as Text (whose account first). */
const pasted = (text: string, events: string[]): INodeParameters => ({ events, options: { quotasText: text } });
/** The activation's refusal (its message and description), or undefined when it was not refused. */
const refusal = async (n8n: ReturnType<typeof app>) => {
	const { error } = await n8n.activate();
	return error && { message: error.message, description: error.description };
};
/** A refused quota set of one bad entry, the line `line` refused for `why`. */
const oneBad = (line: number, why: string) => ({
	message: `Quotas has 1 bad entry (line ${line})`,
	description: setRefusal(`line ${line}: ${why}`),
});

describe("a quota line's account is its first field, and never anything else", () => {
	describe.each(SAVINGS)('n8n saving %s', (saving) => {
		it('a line in the old order, its account last (`USER_ID, U-B1, USD, ACC_2`), Quota Changed only: refused before sending, never your own quota', async () => {
			// Read whose-first, the method would be the account and ACC_2 a threshold: the line is refused instead.
			const n8n = app(pasted('USER_ID, U-B1, USD, ACC_2', ['quotaChanged']), saving);
			expect(await refusal(n8n)).toEqual(
				oneBad(1, 'starts with the method USER_ID: start it with own or a Connected Account ID'),
			);
			expect(quotaRequests()).toHaveLength(0);
		});

		it('an account typed in the threshold column (`own, USER_ID, U-B1, USD, ACC_2`), Quota Changed only: refused, never dropped', async () => {
			const n8n = app(pasted('own, USER_ID, U-B1, USD, ACC_2', ['quotaChanged']), saving);
			expect(await refusal(n8n)).toEqual(oneBad(1, 'Threshold "ACC_2" is not a number of at least 0'));
			expect(quotaRequests()).toHaveLength(0);
		});
	});

	it.each([
		['ACC_2', 'ACC_2, USER_ID, U-B1, USD'],
		['a numeric account', '10005678, USER_ID, U-B1, USD, 2'],
	])('a line that starts with its account (%s) is read for that account, never your own', async (_, line) => {
		const n8n = app(pasted(line, ['quotaChanged']), 'durable');
		expect((await n8n.activate()).error).toBeUndefined();
		expect(sentWith()).toEqual([['U-B1', line.split(',')[0]]]);
	});

	it('the same for a BENEFICIARY line: its account last is refused; first, it is sent with its account', async () => {
		const old = app(pasted('BENEFICIARY, B-4001, USD, GOODS, ACC_2', ['quotaChanged']), 'durable');
		expect(await refusal(old)).toEqual({
			message: 'Quotas has 1 bad entry (line 1)',
			description: expect.stringMatching(/^line 1: starts with the method BENEFICIARY: /),
		});
		expect(quotaRequests()).toHaveLength(0);
		const n8n = app(pasted('ACC_2, BENEFICIARY, B-4001, USD, GOODS', ['quotaChanged']), 'durable');
		expect((await n8n.activate()).error).toBeUndefined();
		expect(sentWith()).toEqual([['B-4001', 'ACC_2']]);
	});

	it("pasted text from an expression whose line's account field came out empty (`, USER_ID, ...`): refused, as a row's empty expression is", async () => {
		// A row whose Connected Account ID expression gives nothing is refused (triggerSets.test.ts);
		// so is a line whose account the text's expression left empty: never read as your own U-B2.
		const fromEarlier = '';
		const text = `={{ "ACC_1, USER_ID, U-B1, USD\\n" + ${JSON.stringify(fromEarlier)} + ", USER_ID, U-B2, USD" }}`;
		const n8n = app(pasted(text, ['quotaChanged']), 'durable');
		expect(await refusal(n8n)).toEqual(oneBad(2, 'Connected Account ID is empty'));
		expect(quotaRequests()).toHaveLength(0);
	});
});

describe("examples/many-accounts-quota-check.json with a customer's line of the trigger", () => {
	type ExampleNode = { name: string; parameters: IDataObject };
	const example = JSON.parse(
		readFileSync(join(__dirname, '../../examples/many-accounts-quota-check.json'), 'utf8'),
	) as { nodes: ExampleNode[] };
	const node = (name: string) => example.nodes.find((n) => n.name === name) as ExampleNode;
	const assignment = (name: string, field: string) =>
		String(
			((node(name).parameters.assignments as IDataObject).assignments as Array<{ name: string; value: string }>).find(
				(a) => a.name === field,
			)?.value,
		);
	/**
	 * An n8n expression of the example ("={{ ... }}") evaluated over `$json`, as the Edit Fields node
	 * does; `$('One item per quota').item.json` is `line`.
	 */
	const evaluate = (expression: string, $json: IDataObject, line: IDataObject = {}): unknown =>
		// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- the example's own expression text, evaluated as n8n would
		new Function('$json', '$', `return (${expression.replace(/^=\{\{/, '').replace(/\}\}\s*$/, '')});`)($json, () => ({
			item: { json: line },
		}));

	it.each([
		["a line naming a customer's connected account", 'ACC_2, USER_ID, U-B1, USD, 2', [['U-B1', 'ACC_2']], /^$/],
		['a line in the old order (the method first, no account)', 'USER_ID, U-B1, USD, 2', [], /: not checked, /],
	])("%s is never reported with your own account's quota", async (_, line, sent, said) => {
		// ACC_2's U-B1 holds 500.00, well above the floor 2; your own U-B1 holds 1.01, below it.
		setQuota('U-B1', '50000', 'ACC_2');
		const quotas = evaluate(assignment('Read each line', 'quota'), { quotas: line }) as IDataObject[];
		expect(quotas).toHaveLength(1);
		const run = await quota(sim(), node('Get Available Quota').parameters as INodeParameters, {
			items: quotas,
			continueOnFail: true,
		});
		// The message's line for this quota, from its answer and the line it came from.
		const attention = String(evaluate(assignment('What needs attention', 'attention'), run.json[0], quotas[0]));
		// Either the quota is ACC_2's, or the line is refused: nothing is read for your own account.
		expect(sentWith().filter(([, account]) => account === undefined)).toEqual([]);
		expect(attention).not.toContain('1.01');
		expect(sentWith()).toEqual(sent);
		expect(attention).toMatch(said);
	});
});

describe('the credential Test (n8n-core CredentialTestContext)', () => {
	async function credentialTest(overrides: ICredentialDataDecryptedObject = {}): Promise<INodeCredentialTestResult> {
		const fn = new PartnerAccountInquiry().methods?.credentialTest?.partnerAccountInquiryApiTest;
		if (!fn) throw new Error('no credential test');
		return await fn.call(new CredentialTestContext(), {
			id: 'cred-1',
			name: 'Partner Account Inquiry API account',
			type: 'partnerAccountInquiryApi',
			data: { ...sandboxCredentials(sim().url), ...overrides },
		});
	}

	it('a gateway that drips its answer (a byte every 200 ms): Test ends within its own 30 s timeout and a margin', async () => {
		sim().addFault({ fault: 'drip' });
		const outcome = await Promise.race([
			credentialTest().then((result) => result.status),
			new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 40 s'), 40_000)),
		]);
		expect(outcome).toBe('Error');
	}, 60_000);
});
