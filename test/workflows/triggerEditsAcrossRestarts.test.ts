/**
 * What the fourth hostile review of the request-keyed state found (issue 39), kept as regressions,
 * with the attacks that held: a threshold edit, a back-off saved by the poll that met the U where
 * every poll is saved; one customer to a set holding it after a burst, and lines reordered.
 */
import type { Beneficiary } from '../../sandbox/data';
import { useSimulator } from '../support/helpers';
import type { N8nPoll } from '../support/n8nApp';
import { itemsOf, later, U, payeeLike, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, requestsFor } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'Process failed' } as const;
const empty = () => sim().beneficiaries('CUST_EMPTY');
const payee = (id: string, more: Partial<Beneficiary> = {}) => payeeLike(sim, id, more);
const events = (poll: N8nPoll | undefined) =>
	itemsOf(poll).map((item) => `${String(item.event)} ${String(item.referenceBeneficiaryId ?? item.beneficiaryNick)}`);

describe('the quota threshold view', () => {
	it('held: the same threshold edit on a state this release wrote alerts once', async () => {
		const below = ['quotaBelowThreshold'];
		const n8n = app(quotaTrigger('one', below, { threshold: 20000 }), 'durable');
		expect(itemsOf(await n8n.activate())).toHaveLength(1);
		for (let i = 0; i < 3; i++) expect(itemsOf(await n8n.poll())).toEqual([]);
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: FAIL, times: 1 });
		expect((await n8n.poll()).error).toBeDefined();
		await n8n.update(quotaTrigger('one', below, { threshold: 15000 }));
		const alerts = [...itemsOf(await n8n.poll()), ...itemsOf(await n8n.poll())];
		expect(alerts.map((item) => [item.event, item.threshold])).toEqual([['quotaBelowThreshold', 15000]]);
	});
});

describe('a status U back-off across a restart where every poll is saved (durable cursors)', () => {
	it('the back-off is saved by the poll that met the U, so a restart right after its report asks nothing early', async () => {
		const n8n = app(quotaTrigger('one', ['quotaChanged']), 'durable');
		await n8n.activate();
		for (let i = 0; i < 3; i++) expect(itemsOf(await n8n.poll())).toEqual([]);
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: U, times: 1 });
		// The poll that met the U saves its back-off (quiet); the next reports it, reading nothing.
		expect((await n8n.poll()).error).toBeUndefined();
		const asked = requestsFor(sim, 'U-1001');
		expect((await n8n.poll()).error?.description).toMatch(/stops asking this question/);
		later(1);
		await n8n.restart();
		await n8n.poll();
		expect(requestsFor(sim, 'U-1001')).toBe(asked);
	});
});

describe('attacks that held', () => {
	it('one customer -> a set holding it on another line after a burst of 600 Added: each once, nothing new', async () => {
		const one = customerTrigger('one', ['beneficiaryAdded'], 'CUST_EMPTY');
		const n8n = app(one, 'scheduler');
		await n8n.activate();
		empty().push(...Array.from({ length: 600 }, (_, i) => payee(`W-${i}`)));
		const seen = events(await n8n.poll());
		// The same request, now named "line 2" of a set of two: what it holds is its own still.
		const set = { ...one, customerIds: '# the treasury customers\nCUST_EMPTY\nCUST_SMALL' };
		await n8n.update(set as never);
		for (let i = 0; i < 3; i++) seen.push(...events(await n8n.poll()));
		expect(seen).toHaveLength(600);
		expect(new Set(seen).size).toBe(600);
	});

	it('lines reordered in a set keep every baseline: a payee bound meanwhile is reported once', async () => {
		const rows = (ids: string[]) => ({ events: ['beneficiaryAdded'], options: {}, customerIds: ids.join('\n') });
		const n8n = app(rows(['CUST_SMALL', 'CUST_EMPTY']) as never, 'scheduler');
		await n8n.activate();
		empty().push(payee('R-1'));
		await n8n.update(rows(['CUST_EMPTY', 'CUST_SMALL']) as never);
		const seen = [...events(await n8n.poll()), ...events(await n8n.poll())];
		expect(seen).toEqual(['beneficiaryAdded REF-R-1']);
	});
});
