/**
 * n8n dropping a poll (issue 54): 2.x's scheduler drops a poll that runs past its timeout or its
 * lease, or whose execution fails to start, and keeps nothing of it, neither its items nor its
 * writes (durable cursors: the cursor and the execution commit together, or not at all). Its events
 * must come at the next poll, once. The case a loaded 2.41.1 met live: a list torn while read (one
 * payee unbound, one bound), the emitting poll dropped, then polls and a restart: no Removed ever.
 * Through n8n's engine against the simulator; the real app's drop: scripts/n8n-app/crash.mjs.
 */
import type { IDataObject } from 'n8n-workflow';

import type { N8nPoll } from '../support/n8nApp';
import { useSimulator } from '../support/helpers';
import { itemsOf, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, bindPayee } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const DROPPING = ['scheduler', 'durable'] as const;

const show = (poll: N8nPoll | undefined): string[] =>
	poll === undefined
		? []
		: poll.error
			? [`error: ${poll.error.message}`]
			: itemsOf(poll).map(
					(item: IDataObject) => `${String(item.event)} ${String(item.referenceBeneficiaryId ?? item.quotaAccumulationId)}`,
				);

const bind = (customerId: string, ref: string) => bindPayee(sim, customerId, ref);
const unbind = (customerId: string, ref: string) => {
	const list = sim().beneficiaries(customerId);
	list.splice(
		list.findIndex((b) => b.referenceBeneficiaryId === ref),
		1,
	);
};

describe.each(DROPPING)('n8n saving %s drops an emitting poll', (saving) => {
	const EVENTS = ['beneficiaryAdded', 'beneficiaryRemoved'];

	it('a payee unbound and one bound: both told at the next poll, once, and never again', async () => {
		const n8n = app(customerTrigger('set', EVENTS, 'CUST_SMALL'), saving);
		expect(show(await n8n.activate())).toEqual([]);
		for (let i = 0; i < 2; i++) expect(show(await n8n.poll())).toEqual([]);
		unbind('CUST_SMALL', 'REF-SML-00002');
		bind('CUST_SMALL', 'REF-DROPPED-1');
		await n8n.pollDropped();
		const seen = show(await n8n.poll());
		for (let i = 0; i < 3; i++) seen.push(...show(await n8n.poll()));
		expect(seen.sort()).toEqual(['beneficiaryAdded REF-DROPPED-1', 'beneficiaryRemoved REF-SML-00002']);
	});

	it('two polls dropped in a row, then a restart: told once, after the restart', async () => {
		const n8n = app(customerTrigger('set', EVENTS, 'CUST_SMALL'), saving);
		expect(show(await n8n.activate())).toEqual([]);
		for (let i = 0; i < 2; i++) expect(show(await n8n.poll())).toEqual([]);
		unbind('CUST_SMALL', 'REF-SML-00003');
		await n8n.pollDropped();
		await n8n.pollDropped();
		const seen = show(await n8n.restart());
		for (let i = 0; i < 3; i++) seen.push(...show(await n8n.poll()));
		expect(seen).toEqual(['beneficiaryRemoved REF-SML-00003']);
	});

	it('a quota falling below its threshold, its alert dropped: alerted at the next poll, once', async () => {
		const n8n = app(quotaTrigger('set', ['quotaBelowThreshold'], { threshold: 10000 }), saving);
		expect(show(await n8n.activate())).toEqual([]);
		for (let i = 0; i < 2; i++) expect(show(await n8n.poll())).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '100');
		await n8n.pollDropped();
		const seen = show(await n8n.poll());
		for (let i = 0; i < 3; i++) seen.push(...show(await n8n.poll()));
		expect(seen).toEqual(['quotaBelowThreshold U-1001']);
	});

	it('a quiet poll dropped changes nothing: a later change is told once', async () => {
		const n8n = app(customerTrigger('set', EVENTS, 'CUST_SMALL'), saving);
		expect(show(await n8n.activate())).toEqual([]);
		await n8n.pollDropped();
		expect(show(await n8n.poll())).toEqual([]);
		bind('CUST_SMALL', 'REF-DROPPED-2');
		const seen = show(await n8n.poll());
		for (let i = 0; i < 2; i++) seen.push(...show(await n8n.poll()));
		expect(seen).toEqual(['beneficiaryAdded REF-DROPPED-2']);
	});
});
