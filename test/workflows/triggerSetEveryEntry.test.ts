/**
 * Every entry of a set is heard, through n8n's engine against the simulator: beyond the
 * event cap (the 501st alert on the next poll), beyond the poll budget (reported, not skipped at
 * every poll), and failing at activation (the activation refused, naming it; a change across a
 * restart reported once activated again).
 */
import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentials } from '../../sandbox/engine';
import { n8nApp, type N8nPoll } from '../support/n8nApp';
import { useSimulator } from '../support/helpers';
import {
	customerSet as customers,
	emitted,
	later,
	quotaSet as below,
	subjectRow as row,
	triggerOf,
	useClock,
} from '../support/pollerApp';

const { sim } = useSimulator();

useClock();
const trigger = triggerOf(sim);

describe('A set, beyond the event cap and the poll budget', () => {
	it('cap: 501 subjects already below at their baseline each alert once (the 501st on the next poll)', async () => {
		const ids = Array.from({ length: 501 }, (_, i) => `U-B${i}`);
		const poller = trigger(
			below(
				ids.map((id) => row(id)),
				1_000_000,
			),
			{},
		);
		const seen: unknown[] = [];
		for (let poll = 0; poll < 3; poll++) seen.push(...((await emitted(poller))?.map((e) => e.subject) ?? []));
		expect(new Set(seen).size).toBe(501);
		expect(seen).toHaveLength(501);
	});

	it('a list that never fits in the poll budget is reported, not skipped silently at every poll', async () => {
		const state: IDataObject = {};
		const ids = ['CUST_LARGE', 'CUST_SMALL'];
		expect(await emitted(trigger(customers(ids), state))).toBeNull();
		const list = sim().beneficiaries('CUST_LARGE');
		list.push({
			...list[0],
			referenceBeneficiaryId: 'REF-R25B',
			beneficiaryToken: Buffer.from('token:R25B').toString('base64'),
		});
		sim().setLatency(150);
		const outcomes: string[] = [];
		for (let poll = 0; poll < 6; poll++) {
			later(1);
			const r = await trigger(customers(ids), state, { activation: 'update', pollBudgetMs: 400 }).poll();
			outcomes.push(
				r.ok
					? r.items
						? r.items.map((i) => String(i.json.referenceBeneficiaryId)).join()
						: 'quiet'
					: `${r.error.message} | ${r.error.description}`,
			);
		}
		sim().setLatency(0);
		expect(outcomes.some((o) => o.includes('REF-R25B') || o.includes('CUST_LARGE'))).toBe(true);
	});
});

describe.each(['emit', 'scheduler'] as const)(
	'A set: an entry that cannot be read at activation refuses it, saving %s',
	(saving) => {
		/** A failed poll as n8n shows it: its title, then its description. */
		const shown = (error: Error & { description?: string }) => `error: ${error.message} | ${error.description}`;
		const subjects = (poll: N8nPoll | undefined) => {
			if (poll?.error) return [shown(poll.error)];
			return poll?.items?.map((i) => String(i.subject)) ?? [];
		};
		it('a subject that failed at activation refuses the activation, naming it; activated again, a change across a restart is reported', async () => {
			sim().addFault({
				fault: 'answer',
				operation: 'quota',
				accumulationId: 'U-B61',
				times: 1,
				answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
			});
			const app = n8nApp({
				parameters: { ...below([row('U-B60'), row('U-B61')]), events: ['quotaChanged'] },
				credentials: sandboxCredentials(sim().url),
				saving,
			});
			expect(subjects(await app.activate())).toEqual([
				expect.stringMatching(
					/^error: Not activated: 1 of 2 watched entries could not be read \| own USER_ID U-B61 USD \(row 2\): The API answered SYSTEM_ERROR: system error\. /,
				),
			]);
			// The baseline of every entry is taken by the activation poll, which n8n saves.
			expect(subjects(await app.activate())).toEqual([]);
			expect(subjects(await app.poll())).toEqual([]);
			sim().setQuota('USER_ID', 'U-B61', '7');
			const seen = [
				...subjects(await app.restart()),
				...subjects(await app.poll()),
				...subjects(await app.poll()),
				...subjects(await app.poll()),
			];
			expect(seen).toEqual(['own USER_ID U-B61 USD']);
		});
		it('a customer that failed at activation refuses the activation; activated again, a beneficiary bound across a restart is reported', async () => {
			sim().addFault({
				fault: 'answer',
				operation: 'list',
				customerId: 'CUST_EMPTY',
				times: 1,
				answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
			});
			const app = n8nApp({
				parameters: customers(['CUST_SMALL', 'CUST_EMPTY']),
				credentials: sandboxCredentials(sim().url),
				saving,
			});
			const refs = (poll: N8nPoll | undefined) =>
				poll?.error
					? [shown(poll.error)]
					: (poll?.items?.map((i) => String(i.referenceBeneficiaryId)) ?? []);
			expect(refs(await app.activate())).toEqual([
				expect.stringMatching(
					/^error: Not activated: 1 of 2 watched entries could not be read \| CUST_EMPTY beneficiaries \(line 2\): /,
				),
			]);
			expect(refs(await app.activate())).toEqual([]);
			expect(refs(await app.poll())).toEqual([]);
			const small = sim().beneficiaries('CUST_SMALL');
			sim()
				.beneficiaries('CUST_EMPTY')
				.push({
					...small[0],
					referenceBeneficiaryId: 'REF-R25E',
					beneficiaryToken: Buffer.from('token:R25E').toString('base64'),
				});
			const seen = [
				...refs(await app.restart()),
				...refs(await app.poll()),
				...refs(await app.poll()),
				...refs(await app.poll()),
			];
			expect(seen).toEqual(['REF-R25E']);
		});
	},
);
