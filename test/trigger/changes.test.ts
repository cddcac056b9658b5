import {
	baseline,
	diffBeneficiaries,
	quotaEvent,
	questionDigest,
} from '../../nodes/PartnerAccountInquiry/trigger/changes';
import type { BeneficiaryEvent } from '../../nodes/PartnerAccountInquiry/trigger/events';
import { createCustomers } from '../../sandbox/data';

const identity = (b: Record<string, unknown>) => String(b.beneficiaryToken);
const ALL = new Set<BeneficiaryEvent>(['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged']);
const b = (token: string, fields: Record<string, unknown> = {}) => ({
	beneficiaryToken: token,
	status: 'ACTIVE',
	...fields,
});

describe('diffBeneficiaries', () => {
	it('finds additions, changes (naming the fields) and removals, in API order, removals last', () => {
		const ref = (token: string, fields: Record<string, unknown> = {}) =>
			b(token, { referenceBeneficiaryId: `ref-${token}`, ...fields });
		const state = baseline('q', [ref('a'), ref('b', { bankName: 'X' }), ref('c')], identity);
		const { events } = diffBeneficiaries(state, [ref('d'), ref('b', { bankName: 'Y' }), ref('a')], identity, ALL);
		// A removal carries the kept summary (no token): here its reference ID.
		expect(events.map((e) => [e.event, e.beneficiary.referenceBeneficiaryId])).toEqual([
			['beneficiaryAdded', 'ref-d'],
			['beneficiaryChanged', 'ref-b'],
			['beneficiaryRemoved', 'ref-c'],
		]);
		expect(events[1].changes).toEqual({ bankName: { before: null, after: 'Y' } });
	});

	it('a field that appears, or disappears, is a change; a new field elsewhere is not', () => {
		const state = baseline('q', [b('a'), b('b')], identity);
		const { events } = diffBeneficiaries(state, [b('a', { extra: 1 }), b('b')], identity, ALL);
		expect(events.map((e) => e.beneficiary.beneficiaryToken)).toEqual(['a']);
		expect(events[0].changes).toEqual({ extra: { before: null, after: 1 } });
		const gone = diffBeneficiaries(baseline('q', [b('a', { extra: 1 })], identity), [b('a')], identity, ALL).events;
		expect(gone[0].changes).toEqual({ extra: { before: null, after: null } });
	});

	it('names only the fields that changed in an entry kept from before a new field was seen elsewhere', () => {
		const first = baseline('q', [b('a'), b('b')], identity);
		// b gains a field; a is unchanged, so its entry (made when two fields were known) is kept.
		const second = diffBeneficiaries(first, [b('a'), b('b', { extra: 1 })], identity, ALL).next;
		const { events } = diffBeneficiaries(second, [b('a', { status: 'FROZEN' }), b('b', { extra: 1 })], identity, ALL);
		expect(events).toHaveLength(1);
		expect(events[0].changes).toEqual({ status: { before: 'ACTIVE', after: 'FROZEN' } });
	});

	it('moves the state forward only for what it emits (the cap), so nothing is lost or doubled', () => {
		const state = baseline('q', [], identity);
		const current = Array.from({ length: 7 }, (_, i) => b(`t${i}`));
		const first = diffBeneficiaries(state, current, identity, ALL, 3);
		const second = diffBeneficiaries(first.next, current, identity, ALL, 3);
		const third = diffBeneficiaries(second.next, current, identity, ALL, 3);
		const fourth = diffBeneficiaries(third.next, current, identity, ALL, 3);
		expect([first, second, third, fourth].map((r) => r.events.map((e) => e.beneficiary.beneficiaryToken))).toEqual([
			['t0', 't1', 't2'],
			['t3', 't4', 't5'],
			['t6'],
			[],
		]);
	});

	it('keeps 10,000 beneficiaries in a small state (no objects): about 1.5 MB of JSON', () => {
		const all = createCustomers().get('CUST_BENCH')?.beneficiaries as unknown as Array<Record<string, unknown>>;
		const state = baseline('q', all, identity);
		const bytes = Buffer.byteLength(JSON.stringify(state));
		const objects = Buffer.byteLength(JSON.stringify(all));
		expect(bytes).toBeLessThan(objects / 2);
		expect(bytes).toBeLessThan(1.8 * 1024 * 1024);
	});
});

describe('quotaEvent', () => {
	const q = questionDigest({ a: 1 });
	it('fires below the threshold once per crossing', () => {
		let state = quotaEvent('quotaBelowThreshold', undefined, q, 150, 100).next;
		const amounts = [40, 30, 100, 99, 120, 99];
		const fired = amounts.map((amount) => {
			const r = quotaEvent('quotaBelowThreshold', state, q, amount, 100);
			state = r.next;
			return r.fire;
		});
		expect(fired).toEqual([true, false, false, true, false, true]);
	});
	it('starts anew for another question', () => {
		const state = quotaEvent('quotaChanged', undefined, q, 1, 0).next;
		expect(quotaEvent('quotaChanged', state, questionDigest({ a: 2 }), 2, 0).fire).toBe(false);
		expect(questionDigest({ a: 1, b: [1, 2] })).toBe(questionDigest({ b: [1, 2], a: 1 }));
	});
});
