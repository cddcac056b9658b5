/**
 * What a poll emits and reports, for one subject alone and for one entry of a set, under each way
 * n8n saves a poll: every failure episode reported once (also one that ends while others have
 * events), events held back by the cap emitted as found, a list that changed while read, an
 * activation that cannot take every baseline.
 */
import type { IDataObject } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import type { N8nPoll } from '../support/n8nApp';
import { useSimulator } from '../support/helpers';
import { itemsOf, useClock } from '../support/pollerApp';
import { appOf, CELLS, customerTrigger, quotaTrigger, watchedRecord } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' } as const;
const small = () => sim().beneficiaries('CUST_SMALL');
const refs = (poll: N8nPoll | undefined) => (poll?.items ?? []).map((item) => String(item.referenceBeneficiaryId));

describe.each(CELLS)('failure episodes, %s subject, n8n saving %s', (shape, saving) => {
	it('an episode that starts and ends between polls with events elsewhere is still reported, once; every event once', async () => {
		const n8n = app(quotaTrigger(shape, ['quotaChanged']), saving);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: FAIL, times: 1 });
		const failures: string[] = [];
		const amounts: unknown[] = [];
		for (let poll = 0; poll < 5; poll++) {
			// In a set, the other subject changes at the first two polls: those polls have events.
			if (shape === 'set' && poll < 2) sim().setQuota('USER_ID', 'U-B1', String(1000 + poll));
			const result = await n8n.poll();
			// n8n's title, then its description.
			if (result.error) failures.push(`${result.error.message} | ${result.error.description}`);
			amounts.push(...(result.items ?? []).map((item) => item.availableQuotaAmount));
		}
		expect(failures).toEqual([expect.stringMatching(/PROCESS_FAIL/)]);
		if (shape === 'set') {
			expect(failures[0]).toMatch(/^1 of 2 watched entries failed \| own USER_ID U-1001 USD \(row 1\): .*PROCESS_FAIL/);
			expect(amounts).toEqual([10, 10.01]);
		} else {
			expect(amounts).toEqual([]);
		}
		expect(watchedRecord(n8n.saved()).failure).toBeUndefined();
	});

	it('an activation whose poll cannot read an entry is refused, naming it; activated again once it can, it works', async () => {
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: FAIL, times: 1 });
		const n8n = app(quotaTrigger(shape, ['quotaChanged']), saving);
		const refused = await n8n.activate();
		expect(refused.error?.message).toMatch(
			shape === 'one' ? /^own USER_ID U-1001 USD: .*PROCESS_FAIL/ : /^Not activated: 1 of 2 watched entries could not be read$/,
		);
		// A set's refusal names the entry in n8n's description.
		if (shape === 'set')
			expect(refused.error?.description).toMatch(/^own USER_ID U-1001 USD \(row 1\): .*PROCESS_FAIL/);
		expect((await n8n.activate()).error).toBeUndefined();
		sim().setQuota('USER_ID', 'U-1001', '5');
		expect((await n8n.poll()).items?.map((item) => item.availableQuotaAmount)).toEqual([0.05]);
	});

	it('a list that changed while read: quiet twice, reported once at the 3rd poll in a row, its change reported once when whole', async () => {
		const n8n = app(customerTrigger(shape, ['beneficiaryRemoved'], 'CUST_LARGE'), saving);
		await n8n.activate();
		await n8n.poll(); // saved on every setup: the baseline (durable cursors do not commit the activation's)
		const entryState = () => JSON.stringify(watchedRecord(n8n.saved()).state);
		const saved = entryState();
		// Every read of page 3 sees another beneficiary in place of the 11th: 4 reads a poll, 5 polls.
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 20 });
		const listed = () =>
			sim()
				.beneficiaries('CUST_LARGE')
				.map((b) => b.referenceBeneficiaryId);
		const before = listed();
		const outcomes: string[] = [];
		for (let poll = 1; poll <= 5; poll++) {
			const result = await n8n.poll();
			outcomes.push(result.error ? 'failed' : String(result.items?.length ?? 'quiet'));
			if (result.error)
				expect(`${result.error.message} ${result.error.description}`).toMatch(
					/changed while it was being read.*the last 3 polls/,
				);
			expect(entryState()).toBe(saved);
		}
		expect(outcomes).toEqual(['quiet', 'quiet', 'failed', 'quiet', 'quiet']);
		const gone = before.filter((ref) => !listed().includes(ref));
		expect(gone.length).toBeGreaterThan(0);
		expect(refs(await n8n.poll())).toEqual(gone);
		expect(refs(await n8n.poll())).toEqual([]);
	});
});

describe.each(CELLS)('a burst, %s subject, n8n saving %s', (shape, saving) => {
	it('600 bound at once: all 600 in one poll; 50 of them unbound before the next: 50 Removed; each once', async () => {
		const n8n = app(customerTrigger(shape, ['beneficiaryAdded', 'beneficiaryRemoved']), saving);
		await n8n.activate();
		const template = small()[0];
		const bound = Array.from({ length: 600 }, (_, i) => ({
			...template,
			referenceBeneficiaryId: `REF-HELD-${i}`,
			beneficiaryToken: Buffer.from(`token:HELD-${i}`).toString('base64'),
		}));
		small().push(...bound);
		const first = await n8n.poll();
		expect(first.items).toHaveLength(600);
		small().splice(small().length - 50, 50);
		const second = await n8n.poll();
		const added = [...(first.items ?? []), ...(second.items ?? [])].filter((item) => item.event === 'beneficiaryAdded');
		const removed = (second.items ?? []).filter((item) => item.event === 'beneficiaryRemoved');
		expect(added.map((item) => item.referenceBeneficiaryId)).toEqual(bound.map((b) => b.referenceBeneficiaryId));
		expect(removed.map((item) => item.referenceBeneficiaryId)).toEqual(
			bound.slice(550).map((b) => b.referenceBeneficiaryId),
		);
		expect(added.every((item) => item.whoseAccount === 'CUST_SMALL')).toBe(true);
		expect(itemsOf(await n8n.poll())).toEqual([]);
	});
});

describe('a list that changed while read, reported at the 3rd poll in a row', () => {
	it('"the 3rd poll in a row": a poll that failed otherwise breaks the row', async () => {
		const state: IDataObject = {};
		const removed = activateTrigger({
			parameters: { events: ['beneficiaryRemoved'], customerIds: 'CUST_LARGE' },
			credentials: sandboxCredentials(sim().url),
			staticData: state,
		});
		expect((await removed.poll()).ok).toBe(true);
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 4 });
		expect(await removed.poll()).toEqual({ ok: true, items: null });
		sim().addFault({
			fault: 'answer',
			operation: 'list',
			answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
			times: 1,
		});
		expect((await removed.poll()).ok).toBe(false);
		sim().clearFaults();
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10, times: 8 });
		expect(await removed.poll()).toEqual({ ok: true, items: null });
		const second = await removed.poll();
		expect(second.ok ? 'quiet' : second.error.description).toBe('quiet');
	});
});
