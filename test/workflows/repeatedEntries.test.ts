/**
 * Lists the gateway may send that a naive reader takes for moving pages or for new payees, through
 * n8n's engine against the simulator, for the action node and the trigger alike (one rule for
 * both: core/api/identity.ts): one bank account listed more than once (CUST_TWICE), a reference
 * ID given, taken away or reused for another payee, a list growing beyond a Limit, and a state
 * saved by the previous release.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { activateTrigger, sandboxCredentials } from '../../sandbox/engine';
import { list, listedAs, useSimulator } from '../support/helpers';

const { sim } = useSimulator();
const TWICE = { customerId: 'CUST_TWICE' };
const EVENTS = ['beneficiaryAdded', 'beneficiaryChanged', 'beneficiaryRemoved'] as const;
type Event = (typeof EVENTS)[number];

/** A trigger for each event on the customer's list (`account.customerId`: its Customer ID, the trigger's one line). */
function watchers(account: IDataObject, staticData: Partial<Record<Event, IDataObject>> = {}) {
	return Object.fromEntries(
		EVENTS.map((event) => {
			const parameters = { events: [event], customerIds: String(account.customerId) } as INodeParameters;
			const poller = activateTrigger({
				parameters,
				credentials: sandboxCredentials(sim().url),
				staticData: (staticData[event] ??= {}),
			});
			return [event, poller];
		}),
	) as Record<Event, ReturnType<typeof activateTrigger>>;
}

/** Polls each watcher once: what each emitted, as [reference ID or nickname, changed fields]. */
async function pollAll(w: Record<Event, ReturnType<typeof activateTrigger>>) {
	const seen: Partial<Record<Event, unknown[]>> = {};
	for (const event of EVENTS) {
		const result = await w[event].poll();
		if (!result.ok) throw result.error;
		const items = result.items?.map(({ json }) => [
			json.referenceBeneficiaryId ?? json.beneficiaryNick,
			...(json.changes ? [Object.keys(json.changes as IDataObject).sort()] : []),
		]);
		if (items) seen[event] = items;
	}
	return seen;
}

describe('one bank account listed more than once (CUST_TWICE: two currencies on one page, bound again across pages)', () => {
	it('the action node returns every entry as the gateway listed it (read twice, the reads agreeing)', async () => {
		const expected = sim().beneficiaries('CUST_TWICE');
		const run = await list(sim(), { returnAll: true, ...TWICE });
		expect(run.json).toEqual(listedAs(expected, 'CUST_TWICE'));
		const tokens = expected.map((b) => b.beneficiaryToken);
		expect(new Set(tokens).size).toBe(expected.length - 3);
		expect(expected.filter((b) => !b.referenceBeneficiaryId)).toHaveLength(2);
	});

	it('the trigger records it, stays quiet while it stays, and reports a change of one entry once', async () => {
		const w = watchers(TWICE);
		expect(await pollAll(w)).toEqual({});
		expect(await pollAll(w)).toEqual({});
		const list = sim().beneficiaries('CUST_TWICE');
		list[3].status = 'FROZEN';
		list[10].beneficiaryNick = 'renamed JPY binding';
		expect(await pollAll(w)).toEqual({
			beneficiaryChanged: [
				[list[3].referenceBeneficiaryId, ['status']],
				['renamed JPY binding', ['beneficiaryNick']],
			],
		});
		expect(await pollAll(w)).toEqual({});
	});

	it('another currency bound for it is one Added; one entry unbound is one Removed', async () => {
		const w = watchers(TWICE);
		await pollAll(w);
		const again = sim().bindAgain('CUST_TWICE', 2, { currency: 'GBP', beneficiaryNick: 'third currency' });
		expect(await pollAll(w)).toEqual({ beneficiaryAdded: [[again.referenceBeneficiaryId]] });
		const [gone] = sim().beneficiaries('CUST_TWICE').splice(50, 1);
		expect(await pollAll(w)).toEqual({ beneficiaryRemoved: [[gone.referenceBeneficiaryId]] });
		expect(await pollAll(w)).toEqual({});
	});
});

describe('entries that sort alike, listed in another order at each request', () => {
	it('the confirming read returns the unchanged list (pages compared whatever their order), never refuses it', async () => {
		const expected = listedAs(sim().beneficiaries('CUST_TWICE'), 'CUST_TWICE');
		// CUST_TWICE's entries 3 and 4 (one bank account, USD and EUR) swap places at every other page 1.
		sim().addFault({ fault: 'swapOrder', customerId: 'CUST_TWICE', pageNumber: 1, position: 2, every: 2 });
		const run = await list(sim(), { returnAll: true, ...TWICE });
		expect(run.error?.message).toBeUndefined();
		expect(sim().requests).toHaveLength(4);
		expect(new Set(run.json.map((b) => JSON.stringify(b)))).toEqual(new Set(expected.map((b) => JSON.stringify(b))));
	});

	it('the trigger reports nothing for it', async () => {
		sim().addFault({ fault: 'swapOrder', customerId: 'CUST_TWICE', pageNumber: 1, position: 2, every: 2 });
		const w = watchers(TWICE);
		expect(await pollAll(w)).toEqual({});
		expect(await pollAll(w)).toEqual({});
	});
});

describe('reference IDs given, taken away and reused', () => {
	it('a token-only beneficiary given a reference ID, and one losing its ID, are one Beneficiary Changed each', async () => {
		const w = watchers(TWICE);
		await pollAll(w);
		const given = sim().setReference('CUST_TWICE', 9, 'REF-GIVEN-LATER');
		expect(await pollAll(w)).toEqual({ beneficiaryChanged: [['REF-GIVEN-LATER', ['referenceBeneficiaryId']]] });
		sim().setReference('CUST_TWICE', 20, undefined);
		const lost = sim().beneficiaries('CUST_TWICE')[20];
		expect(await pollAll(w)).toEqual({ beneficiaryChanged: [[lost.beneficiaryNick, ['referenceBeneficiaryId']]] });
		expect(given.referenceBeneficiaryId).toBe('REF-GIVEN-LATER');
	});

	it('a reference ID reused for another payee: the new payee Added, the old one Removed, no Changed', async () => {
		const w = watchers({ customerId: 'CUST_SMALL' });
		await pollAll(w);
		const before = { ...sim().beneficiaries('CUST_SMALL')[1] };
		const stranger = sim().reuseReference('CUST_SMALL', 1);
		expect(stranger.referenceBeneficiaryId).toBe(before.referenceBeneficiaryId);
		expect(await pollAll(w)).toEqual({
			beneficiaryAdded: [[before.referenceBeneficiaryId]],
			beneficiaryRemoved: [[before.referenceBeneficiaryId]],
		});
	});

	it('new bank details under the same name stay one Beneficiary Changed', async () => {
		const w = watchers({ customerId: 'CUST_SMALL' });
		await pollAll(w);
		const ref = sim().beneficiaries('CUST_SMALL')[1].referenceBeneficiaryId;
		sim().changeBankDetails('CUST_SMALL', ref);
		const seen = await pollAll(w);
		expect(Object.keys(seen)).toEqual(['beneficiaryChanged']);
		expect(seen.beneficiaryChanged).toEqual([[ref, expect.arrayContaining(['bankAccountNo', 'beneficiaryToken'])]]);
	});
});

describe('a list growing beyond a Limit', () => {
	it('the pages the Limit reads are returned when they agree, though the list grows at every request', async () => {
		const first = sim().beneficiaries('CUST_LARGE').slice(0, 60);
		sim().addFault({ fault: 'growTail', customerId: 'CUST_LARGE' });
		const run = await list(sim(), { returnAll: false, limit: 60, customerId: 'CUST_LARGE' });
		expect(run.json).toEqual(listedAs(first, 'CUST_LARGE'));
		// Pages 1 and 2, read twice: the second read agrees with the first on those pages.
		expect(sim().requests).toHaveLength(4);
	});
});
