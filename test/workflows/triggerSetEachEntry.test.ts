/**
 * A set compares each entry as its read arrives, through n8n's engine against the simulator:
 * 575 events of three customers in one poll, in the set's order, each item its own customer's; one entry held while
 * another failed; a list changing while its first read is served beside one that holds.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { useSimulator } from '../support/helpers';
import { customerSet, emitted, listRequests, refs, triggerOf, useClock } from '../support/pollerApp';

const { sim } = useSimulator();
useClock();
const trigger = triggerOf(sim);

const bound = (model: Beneficiary, label: string): Beneficiary => ({
	...model,
	referenceBeneficiaryId: `REF-${label}`,
	beneficiaryToken: Buffer.from(`token:${label}`).toString('base64'),
	beneficiaryNick: `Nick ${label}`,
});

describe('A set, each entry compared as its read arrives', () => {
	const owner = new Map<string, string>();
	const mark = (customerId: string) => {
		for (const b of sim().beneficiaries(customerId)) owner.set(b.referenceBeneficiaryId, customerId);
	};

	it("575 events of three customers: all in one poll, each once, in the set's order, each item its own customer's", async () => {
		const ids = ['CUST_LARGE', 'CUST_FIVE', 'CUST_SMALL'];
		const state: IDataObject = {};
		const poller = trigger(customerSet(ids, 'beneficiaryChanged'), state);
		expect(await emitted(poller)).toBeNull();
		for (const id of ids) {
			mark(id);
			for (const b of sim().beneficiaries(id)) b.beneficiaryNick = `${b.beneficiaryNick} (renamed)`;
		}
		const polls: IDataObject[][] = [];
		for (let i = 0; i < 2; i++) polls.push((await emitted(poller)) ?? []);
		expect(polls.map((p) => p.length)).toEqual([575, 0]);
		const all = polls.flat();
		const whose = all.map((i) => i.whoseAccount);
		expect(whose.slice(0, 320).every((c) => c === 'CUST_LARGE')).toBe(true);
		expect(whose.slice(320, 570).every((c) => c === 'CUST_FIVE')).toBe(true);
		expect(whose.slice(570).every((c) => c === 'CUST_SMALL')).toBe(true);
		for (const item of all) expect(owner.get(String(item.referenceBeneficiaryId))).toBe(item.whoseAccount);
		expect(new Set(all.map((i) => `${String(i.whoseAccount)} ${String(i.referenceBeneficiaryId)}`)).size).toBe(575);
	});

	it('one customer held (one read) while another failed; the failed one reports its change once when it reads again', async () => {
		const ids = ['CUST_LARGE', 'CUST_FIVE'];
		const state: IDataObject = {};
		const poller = trigger(customerSet(ids, 'beneficiaryAdded'), state);
		expect(await emitted(poller)).toBeNull();
		const five = sim().beneficiaries('CUST_FIVE');
		five.push(bound(five[0], 'FIVE-NEW'));
		sim().addFault({
			fault: 'answer',
			operation: 'list',
			customerId: 'CUST_FIVE',
			times: 1,
			answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
		});
		const before = listRequests(sim(), 'CUST_LARGE');
		const failed = await poller.poll();
		expect(failed.ok).toBe(false);
		expect(listRequests(sim(), 'CUST_LARGE') - before).toBe(7);
		const items = await emitted(poller);
		expect(items?.map((i) => [i.whoseAccount, i.referenceBeneficiaryId])).toEqual([['CUST_FIVE', 'REF-FIVE-NEW']]);
		expect(await emitted(poller)).toBeNull();
	});

	it('a list that changes while its first read is served, beside one that holds: its addition is reported once', async () => {
		const ids = ['CUST_LARGE', 'CUST_FIVE'];
		const poller = trigger(customerSet(ids, 'beneficiaryAdded'), {});
		expect(await emitted(poller)).toBeNull();
		// After page 1 of CUST_LARGE is answered, its first beneficiary is unbound and another bound at the end.
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 1, times: 1 });
		const seen: string[] = [];
		for (let i = 0; i < 3; i++) seen.push(...refs(await emitted(poller)));
		expect(seen).toEqual([expect.stringMatching(/^REF-SWAPPED-IN-/)]);
	});
});
