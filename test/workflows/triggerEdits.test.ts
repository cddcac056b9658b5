/**
 * What the trigger keeps belongs to the request it sends (issue 39, the fourth review's classes):
 * an edit that sends the same request keeps every baseline, held event, failure episode and
 * back-off; an empty filter is no new question; a back-off that starts inside a reported failure
 * is reported when it starts, and a different failure during a back-off too; the cap never
 * overflows its held queue. Each under every way n8n saves a poll, through n8n-core's poll context.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { QUOTA, useSimulator } from '../support/helpers';
import type { N8nPoll } from '../support/n8nApp';
import { count, itemsOf, later, U, payeeLike, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, requestsFor, SAVINGS } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'Process failed' } as const;
const empty = () => sim().beneficiaries('CUST_EMPTY');
const payee = (id: string, more: Partial<Beneficiary> = {}) => payeeLike(sim, id, more);
const refs = (poll: N8nPoll | undefined) => itemsOf(poll).map((item) => String(item.referenceBeneficiaryId));
/** CUST_EMPTY watched alone, for `events`, with `more` parameters. */
const emptyTrigger = (events: string[], more: IDataObject = {}) =>
	customerTrigger('one', events, 'CUST_EMPTY', more) as INodeParameters;

describe.each(SAVINGS)('n8n saving %s: an edit that sends the same request keeps what belongs to it', (saving) => {
	it('Beneficiary Removed added to the events: the baseline holds, nothing told again, a payee unbound is one Removed', async () => {
		const n8n = app(emptyTrigger(['beneficiaryAdded']), saving);
		await n8n.activate();
		empty().push(...Array.from({ length: 600 }, (_, i) => payee(`H-${i}`)));
		const seen = refs(await n8n.poll());
		expect(seen).toHaveLength(600);
		const edited = emptyTrigger(['beneficiaryAdded', 'beneficiaryRemoved']);
		for (const poll of [await n8n.update(edited), await n8n.poll()]) seen.push(...refs(poll));
		expect(seen).toHaveLength(600);
		expect(new Set(seen).size).toBe(600);
		empty().splice(0, 1);
		expect(refs(await n8n.poll())).toEqual(['REF-H-0']);
	});

	it('a failure that ended unreported (another entry had events) is reported once after an edit of the events', async () => {
		const set = (events: string[]) => customerTrigger('set', events, 'CUST_SMALL');
		const n8n = app(set(['beneficiaryAdded']), saving);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_EMPTY', answer: FAIL, times: 1 });
		sim().beneficiaries('CUST_SMALL').push(payee('F-1'));
		expect(refs(await n8n.poll())).toEqual(['REF-F-1']);
		await n8n.update(set(['beneficiaryAdded', 'beneficiaryRemoved']));
		const errors: string[] = [];
		for (let i = 0; i < 4; i++) {
			const poll = await n8n.poll();
			if (poll.error) errors.push(`${poll.error.message} | ${poll.error.description}`);
		}
		expect(errors).toHaveLength(1);
		// n8n's title counts the failed entries; its description names each.
		expect(errors[0]).toMatch(/^1 of 2 watched entries failed \| .*CUST_EMPTY/);
	});

	it('a status U back-off holds across an edit of the threshold and the events: no early request, no second report', async () => {
		const n8n = app(quotaTrigger('one', ['quotaChanged']), saving);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: U });
		expect((await n8n.poll()).error?.description).toMatch(/stops asking this question/);
		const asked = requestsFor(sim, 'U-1001');
		later(1);
		await n8n.update(quotaTrigger('one', ['quotaChanged', 'quotaBelowThreshold'], { threshold: 20000 }));
		later(1);
		const poll = await n8n.poll();
		expect(poll.error).toBeUndefined();
		expect(requestsFor(sim, 'U-1001')).toBe(asked);
	});

	it('a filter added and left empty is the same request: a payee bound before the edit is reported', async () => {
		const n8n = app(customerTrigger('one', ['beneficiaryAdded'], 'CUST_SMALL'), saving);
		await n8n.activate();
		sim().beneficiaries('CUST_SMALL').push(payee('E-1'));
		const withEmpty = { filters: { currencyList: [], beneficiaryNick: '' } };
		const edited = customerTrigger('one', ['beneficiaryAdded'], 'CUST_SMALL', withEmpty);
		const seen = [...refs(await n8n.update(edited)), ...refs(await n8n.poll())];
		expect(seen).toEqual(['REF-E-1']);
	});

	it('a quota row moved to a pasted line (OWN typed) is the same request: the baseline carries over', async () => {
		const row = quotaTrigger('one', ['quotaChanged']);
		const n8n = app(row, saving);
		await n8n.activate();
		sim().setQuota('USER_ID', 'U-1001', '300');
		const { quotaAccumulationMethod, quotaAccumulationId, currency } = QUOTA;
		const line = {
			events: ['quotaChanged'],
			options: { quotasText: `OWN, ${quotaAccumulationMethod}, ${quotaAccumulationId}, ${currency}, 10000` },
		};
		const seen = [...itemsOf(await n8n.update(line as unknown as INodeParameters)), ...itemsOf(await n8n.poll())];
		expect(seen.map((item) => [item.previousAmount, item.availableQuotaAmount])).toEqual([[12500, 3]]);
	});
});

describe.each(SAVINGS)('n8n saving %s: failure stages, each reported once', (saving) => {
	it('PROCESS_FAIL twice (reported once), then U: the back-off is reported when it starts, then silence until its time', async () => {
		const n8n = app(quotaTrigger('one', ['quotaChanged']), saving);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: FAIL, times: 2 });
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: U });
		const errors: string[] = [];
		for (let minute = 0; minute < 10; minute++) {
			const poll = await n8n.poll();
			if (poll.error) errors.push(`${minute}: ${poll.error.description ?? poll.error.message}`);
			later(1);
		}
		// Where every poll is known saved (durable cursors), the poll that met the U saves the back-off and the next reports it.
		const start = saving === 'durable' ? /^3: .*stops asking this question/ : /^2: .*stops asking this question/;
		expect(errors).toEqual([expect.stringMatching(/^0: /), expect.stringMatching(start)]);
	});

	it('a different failure during a back-off is reported (once), and the back-off goes on silently after', async () => {
		const n8n = app(quotaTrigger('one', ['quotaChanged']), saving);
		await n8n.activate();
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: U, times: 1 });
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: FAIL, times: 2 });
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: U });
		const errors: string[] = [];
		for (let minute = 0; minute < 30; minute++) {
			const poll = await n8n.poll();
			if (poll.error) errors.push(`${minute}: ${poll.error.message}`);
			later(1);
		}
		// U at 0 (reported), PROCESS_FAIL at 5 (reported) and 6, U at 7 (the back-off goes on: silent).
		expect(errors).toEqual([expect.stringMatching(/^0: /), expect.stringMatching(/^5: .*PROCESS_FAIL/)]);
	});
});

describe.each(SAVINGS)('n8n saving %s: the cap never overflows the held queue', (saving) => {
	it("2,500 events, an untagged payee's bank change across the cut (its Added the 500th, its Removed the 501st): every event once, nothing discarded", async () => {
		const n8n = app(emptyTrigger(['beneficiaryAdded', 'beneficiaryRemoved']), saving);
		const untagged = payee('P', { beneficiaryNick: 'Untagged P' });
		delete (untagged as Partial<Beneficiary>).referenceBeneficiaryId;
		empty().push(untagged);
		await n8n.activate();
		// In one poll: 499 bound, then P's new bank details (a new token, the same nickname: its Added
		// the 500th event, its Removed the 501st), then 1,999 bound: 2,500 events.
		const changed = { ...untagged, beneficiaryToken: Buffer.from('token:P-new').toString('base64') };
		empty().splice(0, 1, ...Array.from({ length: 499 }, (_, i) => payee(`C-${i}`)), changed);
		empty().push(...Array.from({ length: 1999 }, (_, i) => payee(`D-${i}`)));
		const items: IDataObject[] = [];
		for (let i = 0; i < 7; i++) items.push(...itemsOf(await n8n.poll()));
		expect(n8n.warnings).toEqual([]);
		expect(items).toHaveLength(2500);
		const added = items.filter((item) => item.event === 'beneficiaryAdded');
		expect(new Set(added.map((item) => item.referenceBeneficiaryId ?? item.beneficiaryNick)).size).toBe(2499);
		const removed = items.findIndex((item) => item.event === 'beneficiaryRemoved');
		expect(items[removed - 1]).toMatchObject({ event: 'beneficiaryAdded', beneficiaryNick: 'Untagged P' });
		expect(removed).toBe(500);
		expect(count(await n8n.poll())).toBe(0);
	});
});
