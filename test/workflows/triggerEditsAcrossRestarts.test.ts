/**
 * What the fourth hostile review of the request-keyed state found (issue 39), kept as regressions,
 * with the attacks that held: a 0.3.0 state migrated again after an edit and a restart (its keys
 * tried in every form the events could have had), a held change under the events picked now, the
 * threshold a migrated quota alert was judged by, a back-off saved by the poll that met the U where
 * every poll is saved; Watch One to a set of one and rows reordered with events held.
 */
import type { IDataObject } from 'n8n-workflow';

import { readCredentials } from '../../nodes/PartnerAccountInquiry/shared/transport/credentialSettings';
import { questionDigest } from '../../nodes/PartnerAccountInquiry/trigger/savedState';
import { sandboxCredentials } from '../../sandbox/engine';
import type { Beneficiary } from '../../sandbox/data';
import { useSimulator } from '../support/helpers';
import type { N8nPoll } from '../support/n8nApp';
import { itemsOf, later, U, payeeLike, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, requestsFor } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'Process failed' } as const;
const small = () => sim().beneficiaries('CUST_SMALL');
const empty = () => sim().beneficiaries('CUST_EMPTY');
const payee = (id: string, more: Partial<Beneficiary> = {}) => payeeLike(sim, id, more);
const events = (poll: N8nPoll | undefined) =>
	itemsOf(poll).map((item) => `${String(item.event)} ${String(item.referenceBeneficiaryId ?? item.beneficiaryNick)}`);

/** The key 0.3.0 gave a Watch One customer entry (its events, raw filters and customer in it). */
function legacyCustomerKey(eventsPicked: string[], customerId: string): string {
	const { clientId, baseUrl } = readCredentials(sandboxCredentials(sim().url));
	return questionDigest({ events: [...eventsPicked].sort(), filters: {}, customerId, clientId, baseUrl });
}

/** The state as 0.3.0 saved it (version 2, its one entry under `legacyKey`, failures as `reported`). */
function as030(node: IDataObject, legacyKey: string): void {
	const state = node.state as IDataObject & { entries: Record<string, IDataObject>; held: IDataObject[] };
	const [[key, record]] = Object.entries(state.entries);
	const own = record.state as IDataObject | undefined;
	const entry: IDataObject = { ...record, ...(own ? { state: { ...own, question: legacyKey } } : {}) };
	delete entry.doubt;
	state.entries = { [legacyKey]: entry };
	state.held = state.held.map((event) => (event.key === key ? { ...event, key: legacyKey } : event));
	state.version = 2;
}

describe('0.3.0 states: the migration lives in memory until a poll emits (2.x scheduler without durable cursors)', () => {
	const before = ['beneficiaryAdded', 'beneficiaryRemoved'];

	it('held: upgraded and restarted, no edit: a payee unbound around the restart is reported', async () => {
		const n8n = app(customerTrigger('one', before, 'CUST_SMALL'), 'scheduler');
		await n8n.activate();
		n8n.editSaved((node) => as030(node, legacyCustomerKey(before, 'CUST_SMALL')));
		await n8n.restart();
		expect(itemsOf(await n8n.poll())).toEqual([]);
		const gone = small().splice(1, 1)[0];
		await n8n.restart();
		expect(events(await n8n.poll())).toEqual([`beneficiaryRemoved ${gone.referenceBeneficiaryId}`]);
		expect(n8n.warnings).toEqual([]);
	});

	it('upgraded, an event added (the same request), restarted before the migration was saved: the baseline 0.3.0 saved holds, a payee unbound is reported', async () => {
		const n8n = app(customerTrigger('one', before, 'CUST_SMALL'), 'scheduler');
		await n8n.activate();
		n8n.editSaved((node) => as030(node, legacyCustomerKey(before, 'CUST_SMALL')));
		await n8n.restart();
		expect(itemsOf(await n8n.poll())).toEqual([]);
		await n8n.update(customerTrigger('one', [...before, 'beneficiaryChanged'], 'CUST_SMALL'));
		expect(itemsOf(await n8n.poll())).toEqual([]);
		const gone = small().splice(1, 1)[0];
		await n8n.restart();
		const seen = [...events(await n8n.poll()), ...events(await n8n.poll())];
		expect(seen).toEqual([`beneficiaryRemoved ${gone.referenceBeneficiaryId}`]);
	});
});

describe('held events and the events picked', () => {
	it('a bank change held behind the cap, then Bank Details Changed unpicked with Beneficiary Changed still picked: it comes as Beneficiary Changed', async () => {
		const all = ['beneficiaryAdded', 'beneficiaryBankDetailsChanged', 'beneficiaryChanged'];
		const n8n = app(customerTrigger('one', all, 'CUST_EMPTY'), 'emit');
		await n8n.activate();
		empty().push(...Array.from({ length: 1100 }, (_, i) => payee(`H-${i}`)));
		expect(itemsOf(await n8n.poll())).toHaveLength(500);
		sim().changeBankDetails('CUST_EMPTY', 'REF-H-0');
		// 600 held and the bank change found after them: 500 emitted, 100 Added and the bank change held.
		const second = events(await n8n.poll());
		expect(second).toHaveLength(500);
		expect(second.every((event) => event.startsWith('beneficiaryAdded'))).toBe(true);
		const seen = events(
			await n8n.update(customerTrigger('one', ['beneficiaryAdded', 'beneficiaryChanged'], 'CUST_EMPTY')),
		);
		for (let i = 0; i < 3; i++) seen.push(...events(await n8n.poll()));
		expect(seen.filter((event) => !event.startsWith('beneficiaryAdded'))).toEqual(['beneficiaryChanged REF-H-0']);
	});
});

/** The key 0.3.0 gave the Watch One quota subject U-1001 (its events and threshold in it). */
function legacyQuotaKey(eventsPicked: string[], threshold: number): string {
	const { clientId, baseUrl } = readCredentials(sandboxCredentials(sim().url));
	const request = { quotaAccumulationMethod: 'USER_ID', quotaAccumulationId: 'U-1001', currency: 'USD' };
	const legacy = { events: [...eventsPicked].sort(), request, threshold, connectedAccountId: '' };
	return questionDigest({ ...legacy, clientId, baseUrl });
}
/** As as030, the quota state as 0.3.0 kept it: no threshold recorded. */
function quotaAs030(node: IDataObject, legacyKey: string): void {
	as030(node, legacyKey);
	const record = Object.values((node.state as { entries: Record<string, IDataObject> }).entries)[0];
	delete (record.state as IDataObject).threshold;
}

describe('the quota threshold view', () => {
	it('a 0.3.0 state (alerted at 20,000) whose first read fails, then the threshold lowered to 15,000 (12,500 still below): one alert for the new threshold', async () => {
		const below = ['quotaBelowThreshold'];
		const n8n = app(quotaTrigger('one', below, { threshold: 20000 }), 'durable');
		expect(itemsOf(await n8n.activate())).toHaveLength(1);
		// Two scheduled polls: every poll is known saved (0.3.0 kept that knowledge in its poll record too).
		for (let i = 0; i < 3; i++) expect(itemsOf(await n8n.poll())).toEqual([]);
		n8n.editSaved((node) => quotaAs030(node, legacyQuotaKey(below, 20000)));
		await n8n.restart();
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: FAIL, times: 1 });
		expect((await n8n.poll()).error?.message).toMatch(/PROCESS_FAIL|Process failed/);
		await n8n.update(quotaTrigger('one', below, { threshold: 15000 }));
		const alerts = [...itemsOf(await n8n.poll()), ...itemsOf(await n8n.poll())];
		expect(n8n.warnings).toEqual([]);
		expect(alerts.map((item) => [item.event, item.threshold])).toEqual([['quotaBelowThreshold', 15000]]);
	});

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
	it('Watch One -> a set of one with 100 Added held behind the cap: they follow once, nothing new', async () => {
		const one = customerTrigger('one', ['beneficiaryAdded'], 'CUST_EMPTY');
		const n8n = app(one, 'scheduler');
		await n8n.activate();
		empty().push(...Array.from({ length: 600 }, (_, i) => payee(`W-${i}`)));
		const seen = events(await n8n.poll());
		const set = { ...one, watch: 'many', options: {}, customers: { customer: [{ customerId: 'CUST_EMPTY' }] } };
		await n8n.update(set as never);
		for (let i = 0; i < 3; i++) seen.push(...events(await n8n.poll()));
		expect(seen).toHaveLength(600);
		expect(new Set(seen).size).toBe(600);
	});

	it('rows reordered in a set keep every baseline: a payee bound meanwhile is reported once', async () => {
		const rows = (ids: string[]) => ({
			triggerOn: 'beneficiaries',
			events: ['beneficiaryAdded'],
			watch: 'many',
			options: {},
			customers: { customer: ids.map((customerId) => ({ customerId })) },
		});
		const n8n = app(rows(['CUST_SMALL', 'CUST_EMPTY']) as never, 'scheduler');
		await n8n.activate();
		empty().push(payee('R-1'));
		await n8n.update(rows(['CUST_EMPTY', 'CUST_SMALL']) as never);
		const seen = [...events(await n8n.poll()), ...events(await n8n.poll())];
		expect(seen).toEqual(['beneficiaryAdded REF-R-1']);
	});
});
