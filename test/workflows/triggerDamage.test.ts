/**
 * Damage stays where it is (issue 54): one entry's saved record, unreported failure episode or
 * state damaged (an edit, an import) starts THAT entry anew, with one warning in n8n's log naming
 * it, while every other entry of the set carries on from its saved state: its events reported
 * once, none lost, none repeated. Through n8n's engine against the simulator, under each way n8n
 * saves a poll, for a set of customers and a set of quota subjects (test/support/watchShapes.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { N8nPoll, N8nSaving } from '../support/n8nApp';
import { useSimulator } from '../support/helpers';
import { itemsOf, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, SAVINGS, bindPayee } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' } as const;

/**
 * One family's set (the helpers' set shape: the watched subject first, a second entry beside it):
 * how to change each entry in the simulator, and how an emitted item names its entry.
 */
interface SetUnderTest {
	parameters: () => INodeParameters;
	/** The entry left alone in static data, changed in the gateway. */
	healthy: string;
	/** The entry whose saved data is damaged. */
	damaged: string;
	change: (entry: string, step: number) => void;
	/** The entry's next read fails (a business failure, F). */
	failOnce: (entry: string) => void;
	/** What an item says: its entry, and what changed in it. */
	show: (item: IDataObject) => string;
}

const bind = (customerId: string, ref: string) => bindPayee(sim, customerId, ref);

const SETS: Record<'customers' | 'quota subjects', SetUnderTest> = {
	customers: {
		parameters: () => customerTrigger('set', ['beneficiaryAdded', 'beneficiaryRemoved']),
		healthy: 'CUST_SMALL',
		damaged: 'CUST_EMPTY',
		change: (customerId, step) => bind(customerId, `REF-${customerId}-${step}`),
		failOnce: (customerId) =>
			sim().addFault({ fault: 'answer', operation: 'list', customerId, answer: FAIL, times: 1 }),
		// Each payee bound names its customer in its reference ID (REF-CUST_SMALL-0).
		show: (item) => `${String(item.event)} ${String(item.referenceBeneficiaryId)}`,
	},
	'quota subjects': {
		parameters: () => quotaTrigger('set', ['quotaChanged']),
		healthy: 'U-1001',
		damaged: 'U-B1',
		change: (id, step) => sim().setQuota('USER_ID', id, String(100 * (step + 1))),
		failOnce: (accumulationId) =>
			sim().addFault({ fault: 'answer', operation: 'quota', accumulationId, answer: FAIL, times: 1 }),
		show: (item) => `${String(item.event)} ${String(item.quotaAccumulationId)} ${String(item.availableQuotaAmount)}`,
	},
};

/** What the `step`-th change of `entry` is reported as. */
const reported = (set: SetUnderTest, entry: string, step: number): string =>
	set === SETS.customers ? `beneficiaryAdded REF-${entry}-${step}` : `quotaChanged ${entry} ${step + 1}`;

/** Each damage, to the damaged entry's saved data (`key` its key in the set's state). */
const DAMAGES: Record<
	string,
	(state: { entries: Record<string, IDataObject>; ended: IDataObject }, key: string) => void
> = {
	// (A record's hints, its read time or page count, are repaired instead: credentialTestAndDamageAttacks.test.ts.)
	'its record (a list)': ({ entries }, key) => void (entries[key] = [] as unknown as IDataObject),
	'its record (a failure episode of no known kind)': ({ entries }, key) =>
		void (entries[key].failure = { reason: 'edited', kind: 'odd', told: [] }),
	'its record (not an object)': ({ entries }, key) => void (entries[key] = 'garbage' as unknown as IDataObject),
	'its unreported failure episode': ({ ended }, key) => void (ended[key] = { reason: 'edited', episodes: 0 }),
	'its state (of an unknown version)': ({ entries }, key) => void ((entries[key].state as IDataObject).version = 99),
	'its state (not a state)': ({ entries }, key) => void (entries[key].state = [1, 2, 3] as unknown as IDataObject),
};

/**
 * The first poll that reads what n8n saved: under durable cursors the next poll (a fresh copy of the
 * saved row); elsewhere a quiet poll's writes live on in this process, so n8n restarts (the default
 * poller's activation poll at the start, or the scheduler's next poll).
 */
const pollSaved = async (n8n: ReturnType<typeof app>, saving: N8nSaving): Promise<N8nPoll> =>
	saving === 'durable' ? await n8n.poll() : ((await n8n.restart()) ?? (await n8n.poll()));

describe.each(Object.keys(SETS))('one damaged entry in a set of %s', (family) => {
	const set = SETS[family as keyof typeof SETS];
	const shown = (poll: N8nPoll) => itemsOf(poll).map(set.show);

	describe.each(SAVINGS)('n8n saving %s', (saving) => {
		it.each(Object.keys(DAMAGES).flatMap((damage) => [[damage, false] as const, [damage, true] as const]))(
			'%s (its next read failing: %s): that entry takes a fresh baseline with one warning; the other reports its change exactly once',
			async (damage, failing) => {
				const n8n = app(set.parameters(), saving);
				expect(shown(await n8n.activate())).toEqual([]);
				for (let i = 0; i < 2; i++) expect(shown(await n8n.poll())).toEqual([]);
				n8n.editSaved((data) => {
					const state = data.state as { entries: Record<string, IDataObject>; ended: IDataObject };
					const keys = Object.keys(state.entries);
					expect(keys).toHaveLength(2);
					DAMAGES[damage](state, keys[1]);
				});
				set.change(set.healthy, 0);
				set.change(set.damaged, 0); // taken into its fresh baseline, never reported
				if (failing) set.failOnce(set.damaged);
				const polls = [await pollSaved(n8n, saving)];
				for (let i = 0; i < 3; i++) polls.push(await n8n.poll());
				// A read that failed is reported once, as any failure; the damage is warned of once, not at every poll.
				expect(polls.filter((poll) => poll.error)).toHaveLength(failing ? 1 : 0);
				expect(polls.filter((poll) => !poll.error).flatMap(shown)).toEqual([reported(set, set.healthy, 0)]);
				expect(n8n.warnings).toEqual([expect.stringMatching(new RegExp(`${set.damaged}[^:]*: .*fresh baseline`))]);

				// The damaged entry carries on from its new baseline; the healthy one from where it was.
				set.change(set.damaged, 1);
				expect(shown(await n8n.poll())).toEqual([reported(set, set.damaged, 1)]);
				set.change(set.healthy, 1);
				expect(shown(await n8n.poll())).toEqual([reported(set, set.healthy, 1)]);
				for (let i = 0; i < 2; i++) expect(shown(await n8n.poll())).toEqual([]);
				expect(n8n.warnings).toHaveLength(1);
				// What is saved now holds both entries, whole.
				const saved = n8n.saved().state as { entries: Record<string, IDataObject> };
				expect(Object.keys(saved.entries)).toHaveLength(2);
				expect(Object.values(saved.entries).every((record) => typeof record.readAt === 'number')).toBe(true);
			},
		);
	});
});
