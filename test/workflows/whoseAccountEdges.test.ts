/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test */
/**
 * Whose account, at the edges (a hostile review of issues 47 and 48, through n8n's engine against
 * the simulator): a quota set's lines that name a customer's connected account (first field, any
 * shape, never taken for a threshold; an empty one refused), the shipped many-accounts example fed a
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
import { quota, useSimulator } from '../support/helpers';
import { itemsOf, useClock } from '../support/pollerApp';
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
const pasted = (text: string, events: string[]): INodeParameters => ({
	triggerOn: 'quota',
	events,
	watch: 'many',
	threshold: 100,
	subjectsEntry: 'text',
	subjectsText: text,
});

describe('a quota set line whose connected account is not read as one: your own quota watched instead', () => {
	describe.each(SAVINGS)('n8n saving %s', (saving) => {
		it("a line naming its account without the empty threshold before it (`USER_ID, U-B1, USD, ACC_2`), Quota Changed only: refused, or ACC_2's quota; never your own", async () => {
			// The threshold column is checked only when Quota Below Threshold is picked: with Quota
			// Changed alone, "ACC_2" in it is dropped without a word and your own U-B1 is watched.
			setQuota('U-B1', '70000', 'ACC_2');
			const n8n = app(pasted('USER_ID, U-B1, USD, ACC_2', ['quotaChanged']), saving);
			const activation = await n8n.activate();
			if (activation.error) {
				expect(quotaRequests()).toHaveLength(0); // refused before sending: right
				return;
			}
			expect(sentWith()).toEqual([['U-B1', 'ACC_2']]);
			// Your own U-B1 moves, ACC_2's does not: nothing may be reported for the line that named ACC_2.
			setQuota('U-B1', '7');
			expect(itemsOf(await n8n.poll())).toEqual([]);
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

	it('the same for a BENEFICIARY line (`BENEFICIARY, B-1, USD, GOODS, ACC_2`): refused, or sent with its account', async () => {
		const n8n = app(pasted('BENEFICIARY, B-4001, USD, GOODS, ACC_2', ['quotaChanged']), 'durable');
		const activation = await n8n.activate();
		if (activation.error) {
			expect(quotaRequests()).toHaveLength(0);
			return;
		}
		expect(sentWith()).toEqual([['B-4001', 'ACC_2']]);
	});

	it("pasted text from an expression whose line's account field came out empty (`..., , ` + nothing): refused, as a row's empty expression is", async () => {
		// A row whose Connected Account ID expression gives nothing is refused (triggerSets.test.ts);
		// the same account given by the text's expression is not: the line reads your own U-B2.
		const fromEarlier = '';
		const text = `={{ "ACC_1, USER_ID, U-B1, USD\\n" + ${JSON.stringify(fromEarlier)} + ", USER_ID, U-B2, USD" }}`;
		const n8n = app(pasted(text, ['quotaChanged']), 'durable');
		const activation = await n8n.activate();
		expect(activation.error).toBeDefined();
		expect(sentWith()).not.toContainEqual(['U-B2', undefined]);
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
	/** An n8n expression of the example ("={{ ... }}") evaluated over `$json`, as the Edit Fields node does. */
	const evaluate = (expression: string, $json: IDataObject): unknown =>
		// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- the example's own expression text, evaluated as n8n would
		new Function('$json', `return (${expression.replace(/^=\{\{/, '').replace(/\}\}$/, '')});`)($json);

	it("a line naming a customer's connected account is never reported with your own account's quota", async () => {
		// ACC_2's U-B1 holds 500.00, well above the floor 2; your own U-B1 holds 1.01, below it.
		setQuota('U-B1', '50000', 'ACC_2');
		const line = 'ACC_2, USER_ID, U-B1, USD, 2';
		const accounts = evaluate(assignment('Read each line', 'account'), { accounts: line }) as IDataObject[];
		const run = await quota(sim(), node('Get Available Quota').parameters as INodeParameters, {
			items: accounts,
			continueOnFail: true,
		});
		// Merge (combine by position, input 1 preferred), then the message's line for this account.
		const merged = { ...run.json[0], ...accounts[0] };
		const problem = String(evaluate(assignment('Name and state of each account', 'problem'), merged));
		const sent = sentWith();
		// Either the quota is ACC_2's, or the line is not answered with anything read for your own account.
		expect(sent.filter(([, account]) => account === undefined)).toEqual([]);
		expect(problem).not.toContain('1.01');
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
