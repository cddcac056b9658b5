import type { IDataObject } from 'n8n-workflow';

import type { N8nPoll } from '../support/n8nApp';
import { useSimulator } from '../support/helpers';
import { later, useClock } from '../support/pollerApp';
import { appOf, customerTrigger, quotaTrigger, watchedRecord } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' } as const;
const small = () => sim().beneficiaries('CUST_SMALL');
const show = (p: N8nPoll | undefined) =>
	p === undefined
		? 'none'
		: p.error
			? `error: ${p.error.message}`
			: (p.items ?? []).map((i) => `${i.event}:${i.subject ?? i.referenceBeneficiaryId}`);

describe('edit of an active workflow (default poller)', () => {
	it('A: a failure still unreported is thrown by the edit activation poll: the edit deactivates the workflow', async () => {
		const n8n = app(quotaTrigger('set', ['quotaChanged']), 'emit');
		expect(show(await n8n.activate())).toEqual([]);
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-B1', answer: FAIL, times: 1 });
		sim().setQuota('USER_ID', 'U-1001', '5');
		expect(show(await n8n.poll())).toEqual(['quotaChanged:USER_ID U-1001 USD']);
		// The user edits the workflow (here: the same parameters, saved again).
		const edit = await n8n.update(quotaTrigger('set', ['quotaChanged']));
		expect(show(edit)).toEqual([]);
	});

	it('B: an entry of a set failing at the edit activation poll: docs say its baseline waits; the edit fails', async () => {
		const n8n = app(quotaTrigger('set', ['quotaChanged']), 'emit');
		expect(show(await n8n.activate())).toEqual([]);
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-B1', answer: FAIL, times: 1 });
		const edit = await n8n.update(quotaTrigger('set', ['quotaChanged']));
		expect(show(edit)).toEqual([]);
	});
});

describe('A2: the edit that fails loses a held event', () => {
	it('a Quota Changed held by the edit poll report is lost when the user activates again', async () => {
		const n8n = app(quotaTrigger('set', ['quotaChanged']), 'emit');
		expect(show(await n8n.activate())).toEqual([]);
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-B1', answer: FAIL, times: 1 });
		sim().setQuota('USER_ID', 'U-1001', '5');
		expect(show(await n8n.poll())).toEqual(['quotaChanged:USER_ID U-1001 USD']);
		sim().setQuota('USER_ID', 'U-1001', '7');
		const edit = await n8n.update(quotaTrigger('set', ['quotaChanged']));
		const seen = [show(edit)];
		// n8n leaves a workflow whose edit failed to activate inactive: the user activates it again.
		if (edit?.error) seen.push(show(await n8n.activate()));
		seen.push(show(await n8n.poll()), show(await n8n.poll()));
		expect(seen.flat()).toContain('quotaChanged:USER_ID U-1001 USD');
	});
});

describe('C: durable cursors, a re-arm seen only by a report poll', () => {
	it('quota recovers at a poll that reports, n8n restarts, quota falls again: Below must alert', async () => {
		const n8n = app(quotaTrigger('set', ['quotaBelowThreshold']), 'durable');
		expect(show(await n8n.activate())).toEqual([]);
		for (let i = 0; i < 3; i++) expect(show(await n8n.poll())).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '100'); // 1.00 < 10000
		expect(show(await n8n.poll())).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
		expect(show(await n8n.poll())).toEqual([]);
		// Recovers at the poll where the other subject fails: that poll moved a state, so the report
		// waits for the next poll, which reads nothing (what a poll that throws read would be lost).
		sim().setQuota('USER_ID', 'U-1001', '9000000');
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-B1', answer: FAIL, times: 1 });
		expect(show(await n8n.poll())).toEqual([]);
		expect(show(await n8n.poll())).toMatch(/^error: .*U-B1/);
		await n8n.restart();
		sim().setQuota('USER_ID', 'U-1001', '100'); // a new crossing
		// The report, not saved by any n8n setup, may be repeated once after the restart (documented).
		const seen = [show(await n8n.poll()), show(await n8n.poll()), show(await n8n.poll())].flat();
		expect(seen.filter((o) => !String(o).startsWith('error'))).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
	});
});

describe('D: held items and Mask Bank Details', () => {
	const bind600 = () => {
		const template = small()[0];
		const bound = Array.from({ length: 600 }, (_, i) => ({
			...template,
			referenceBeneficiaryId: `REF-M-${i}`,
			bankAccountNo: `62220000${String(100000 + i)}`,
			beneficiaryToken: Buffer.from(`token:M-${i}`).toString('base64'),
		}));
		small().push(...bound);
		return bound;
	};
	it('D1: masking turned on (an edit that keeps every baseline) while items are held: held items emitted unmasked', async () => {
		const off = customerTrigger('one', ['beneficiaryAdded'], 'CUST_SMALL', { maskBankDetails: false });
		const n8n = app(off, 'emit');
		await n8n.activate();
		const bound = bind600();
		expect((await n8n.poll()).items).toHaveLength(500);
		const on = customerTrigger('one', ['beneficiaryAdded'], 'CUST_SMALL', { maskBankDetails: true });
		const edit = await n8n.update(on);
		const items = [...(edit?.items ?? []), ...((await n8n.poll()).items ?? [])];
		expect(items).toHaveLength(100);
		expect(items.filter((i) => i.bankAccountNo === bound[599].bankAccountNo)).toEqual([]);
	});
	it('D2: masking off: the saved static data holds whole bank account numbers (docs: no beneficiary objects, no secrets)', async () => {
		const off = customerTrigger('one', ['beneficiaryAdded'], 'CUST_SMALL', { maskBankDetails: false });
		const n8n = app(off, 'durable');
		await n8n.activate();
		await n8n.poll();
		const bound = bind600();
		expect((await n8n.poll()).items).toHaveLength(500);
		expect(JSON.stringify(n8n.saved()).includes(String(bound[599].bankAccountNo))).toBe(false);
	});
});

describe('E: Bank Details Changed picked alone', () => {
	it.each(['emit', 'durable'] as const)(
		'E1 (%s): a vetted reference ID now pays another account under another name: one Bank Details Changed',
		async (saving) => {
			const n8n = app(customerTrigger('one', ['beneficiaryBankDetailsChanged']), saving);
			await n8n.activate();
			await n8n.poll();
			const stranger = sim().reuseReference('CUST_SMALL', 4);
			const seen = [show(await n8n.poll()), show(await n8n.poll())].flat();
			expect(seen).toEqual([`beneficiaryBankDetailsChanged:${stranger.referenceBeneficiaryId}`]);
		},
	);
});

describe('C2: durable cursors, a beneficiary first seen by a report poll', () => {
	it('bound at a poll that reports (another customer failed), n8n restarts, unbound: Removed must be reported', async () => {
		const n8n = app(customerTrigger('set', ['beneficiaryRemoved']), 'durable');
		await n8n.activate();
		for (let i = 0; i < 2; i++) expect(show(await n8n.poll())).toEqual([]);
		const token = Buffer.from('token:C2').toString('base64');
		small().push({ ...small()[0], referenceBeneficiaryId: 'REF-C2', beneficiaryToken: token });
		sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_EMPTY', answer: FAIL, times: 1 });
		expect(show(await n8n.poll())).toEqual([]); // REF-C2 first seen: the report waits
		expect(show(await n8n.poll())).toMatch(/^error: .*CUST_EMPTY/);
		await n8n.restart();
		small().pop();
		const seen = [show(await n8n.poll()), show(await n8n.poll()), show(await n8n.poll())].flat();
		expect(seen.filter((o) => !String(o).startsWith('error'))).toEqual(['beneficiaryRemoved:REF-C2']);
	});
	it('control: the same without the failure is reported', async () => {
		const n8n = app(customerTrigger('set', ['beneficiaryRemoved']), 'durable');
		await n8n.activate();
		for (let i = 0; i < 2; i++) expect(show(await n8n.poll())).toEqual([]);
		const token = Buffer.from('token:C2').toString('base64');
		small().push({ ...small()[0], referenceBeneficiaryId: 'REF-C2', beneficiaryToken: token });
		expect(show(await n8n.poll())).toEqual([]);
		await n8n.restart();
		small().pop();
		const seen = [show(await n8n.poll()), show(await n8n.poll())].flat();
		expect(seen).toEqual(['beneficiaryRemoved:REF-C2']);
	});
});

describe('C control', () => {
	it('durable: quota recovers at a quiet poll, restart, falls again: alerts', async () => {
		const n8n = app(quotaTrigger('set', ['quotaBelowThreshold']), 'durable');
		expect(show(await n8n.activate())).toEqual([]);
		for (let i = 0; i < 3; i++) expect(show(await n8n.poll())).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '100');
		expect(show(await n8n.poll())).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
		expect(show(await n8n.poll())).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '9000000');
		expect(show(await n8n.poll())).toEqual([]);
		await n8n.restart();
		sim().setQuota('USER_ID', 'U-1001', '100');
		// The report, not saved by any n8n setup, may be repeated once after the restart (documented).
		const seen = [show(await n8n.poll()), show(await n8n.poll()), show(await n8n.poll())].flat();
		expect(seen.filter((o) => !String(o).startsWith('error'))).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
	});
});

describe('F: overlapping polls of the default poller (a poll longer than the poll interval)', () => {
	it.each(['one', 'set'] as const)(
		'F1 (%s): a beneficiary bound once, two overlapping polls: emitted twice',
		async (shape) => {
			const n8n = app(customerTrigger(shape, ['beneficiaryAdded']), 'emit');
			await n8n.activate();
			const token = Buffer.from('token:F1').toString('base64');
			small().push({ ...small()[0], referenceBeneficiaryId: 'REF-F1', beneficiaryToken: token });
			sim().setLatency(300);
			const [a, b] = await Promise.all([n8n.poll(), n8n.poll()]);
			sim().setLatency(0);
			const seen = [show(a), show(b), show(await n8n.poll())].flat();
			expect(seen).toEqual(['beneficiaryAdded:REF-F1']);
		},
	);
});

describe('G4: durable, a baseline taken by a report poll', () => {
	it('customer added by an edit fails once while another has an event; the poll that first reads it reports: baseline never committed', async () => {
		const one = { triggerOn: 'beneficiaries', events: ['beneficiaryAdded'], watch: 'many', options: {} };
		const n8n = app({ ...one, customers: { customer: [{ customerId: 'CUST_SMALL' }] } } as never, 'durable');
		await n8n.activate();
		expect(show(await n8n.poll())).toEqual([]);
		sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_EMPTY', answer: FAIL, times: 1 });
		await n8n.update({
			...one,
			customers: { customer: [{ customerId: 'CUST_SMALL' }, { customerId: 'CUST_EMPTY' }] },
		} as never);
		small().push({
			...small()[0],
			referenceBeneficiaryId: 'REF-G4A',
			beneficiaryToken: Buffer.from('token:G4A').toString('base64'),
		});
		expect(show(await n8n.poll())).toEqual(['beneficiaryAdded:REF-G4A']); // CUST_EMPTY failed: its report waits
		expect(show(await n8n.poll())).toMatch(/^error: .*CUST_EMPTY/); // a poll that reads nothing
		expect(show(await n8n.poll())).toEqual([]); // CUST_EMPTY's baseline, saved
		sim()
			.beneficiaries('CUST_EMPTY')
			.push({
				...small()[0],
				referenceBeneficiaryId: 'REF-G4',
				beneficiaryToken: Buffer.from('token:G4').toString('base64'),
			});
		await n8n.restart();
		const seen = [show(await n8n.poll()), show(await n8n.poll()), show(await n8n.poll())].flat();
		expect(seen.filter((o) => !String(o).startsWith('error'))).toEqual(['beneficiaryAdded:REF-G4']);
	});
});

describe('H: default poller, two saves of the workflow in a row forge the proof that every poll is saved', () => {
	it.each(['one', 'set'] as const)(
		'H1 (%s): re-armed at a quiet poll, n8n restarts with the quota below again: no alert',
		async (shape) => {
			const params = quotaTrigger(shape, ['quotaBelowThreshold']);
			const n8n = app(params, 'emit');
			sim().setQuota('USER_ID', 'U-1001', '100'); // 1.00 < 10000
			expect(show(await n8n.activate())).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
			expect(show(await n8n.update(params))).toEqual([]); // saved twice (Ctrl+S, Ctrl+S)
			expect(show(await n8n.update(params))).toEqual([]);
			sim().setQuota('USER_ID', 'U-1001', '9000000');
			expect(show(await n8n.poll())).toEqual([]); // recovered: re-armed (a quiet poll: not saved on this poller)
			sim().setQuota('USER_ID', 'U-1001', '100'); // below again: a new crossing
			const seen = [show(await n8n.restart()), show(await n8n.poll())].flat();
			expect(seen).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
		},
	);
	it('H0 control: one save only', async () => {
		const params = quotaTrigger('one', ['quotaBelowThreshold']);
		const n8n = app(params, 'emit');
		sim().setQuota('USER_ID', 'U-1001', '100');
		expect(show(await n8n.activate())).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
		expect(show(await n8n.update(params))).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '9000000');
		expect(show(await n8n.poll())).toEqual([]);
		sim().setQuota('USER_ID', 'U-1001', '100');
		const seen = [show(await n8n.restart()), show(await n8n.poll())].flat();
		expect(seen).toEqual(['quotaBelowThreshold:USER_ID U-1001 USD']);
	});
});

describe('I: rate-limited gateway during a set poll', () => {
	it.each(['emit', 'durable'] as const)(
		'I1 (%s): every 3rd request refused: each change once, no failure',
		async (saving) => {
			const ids = Array.from({ length: 24 }, (_, i) => `U-B${200 + i}`);
			const rows = ids.map((id) => ({
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: id,
				currency: 'USD',
				threshold: '',
			}));
			const params = {
				triggerOn: 'quota',
				events: ['quotaChanged'],
				watch: 'many',
				threshold: 1,
				subjects: { subject: rows },
			};
			const n8n = app(params as never, saving);
			expect(show(await n8n.activate())).toEqual([]);
			sim().addFault({ fault: 'rateLimit', every: 3 });
			ids.forEach((id, i) => sim().setQuota('USER_ID', id, String(500 + i)));
			const seen = [show(await n8n.poll()), show(await n8n.poll()), show(await n8n.poll())].flat();
			expect([...seen].sort()).toEqual(ids.map((id) => `quotaChanged:USER_ID ${id} USD`).sort());
		},
	);
	it('I2: customer set, every 3rd request refused: each change once', async () => {
		const n8n = app(
			{
				triggerOn: 'beneficiaries',
				events: ['beneficiaryAdded', 'beneficiaryRemoved'],
				watch: 'many',
				options: {},
				customers: {
					customer: [{ customerId: 'CUST_LARGE' }, { customerId: 'CUST_SMALL' }, { customerId: 'CUST_EMPTY' }],
				},
			} as never,
			'scheduler',
		);
		expect(show(await n8n.activate())).toEqual([]);
		sim().addFault({ fault: 'rateLimit', every: 3 });
		const [gone] = sim().beneficiaries('CUST_LARGE').splice(40, 1);
		const seen = [show(await n8n.poll()), show(await n8n.poll()), show(await n8n.poll())].flat();
		expect(seen).toEqual([`beneficiaryRemoved:${gone.referenceBeneficiaryId}`]);
	});
});

describe('J: held events, a report, a restart', () => {
	it.each(['emit', 'scheduler', 'durable'] as const)(
		'J1 (%s): 600 bound; 500 emitted, 100 held; next poll reports; restart: the 100 once',
		async (saving) => {
			const n8n = app(customerTrigger('set', ['beneficiaryAdded']), saving);
			await n8n.activate();
			await n8n.poll();
			const template = small()[0];
			small().push(
				...Array.from({ length: 600 }, (_, i) => ({
					...template,
					referenceBeneficiaryId: `REF-J-${i}`,
					beneficiaryToken: Buffer.from(`token:J-${i}`).toString('base64'),
				})),
			);
			sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_EMPTY', answer: FAIL, times: 1 });
			const refs: string[] = [];
			const take = (p: N8nPoll | undefined) =>
				refs.push(...(p?.items ?? []).map((i) => String(i.referenceBeneficiaryId)));
			take(await n8n.poll());
			const second = await n8n.poll();
			take(second);
			take(await n8n.restart());
			for (let i = 0; i < 3; i++) take(await n8n.poll());
			expect(refs.length).toBe(600);
			expect(new Set(refs).size).toBe(600);
		},
	);
	it('J2 (emit): held items of an entry removed from the set, then put back: not emitted from the old find', async () => {
		const both = customerTrigger('set', ['beneficiaryAdded']);
		const n8n = app(both, 'emit');
		await n8n.activate();
		const template = small()[0];
		small().push(
			...Array.from({ length: 600 }, (_, i) => ({
				...template,
				referenceBeneficiaryId: `REF-J2-${i}`,
				beneficiaryToken: Buffer.from(`token:J2-${i}`).toString('base64'),
			})),
		);
		expect((await n8n.poll()).items).toHaveLength(500);
		const onlyEmpty = { ...both, customers: { customer: [{ customerId: 'CUST_EMPTY' }] } };
		expect(show(await n8n.update(onlyEmpty as never))).toEqual([]);
		expect(show(await n8n.update(both))).toEqual([]);
		expect(show(await n8n.poll())).toEqual([]);
	});
});

export const unused = [later, customerTrigger, watchedRecord, small, {} as IDataObject];
