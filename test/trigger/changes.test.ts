import {
	baseline,
	comparedWith,
	readBeneficiaryState,
} from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryDiff';
import type { BeneficiaryState } from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryState';
import { quotaEvents, readQuotaState, type QuotaState } from '../../nodes/PartnerAccountInquiry/trigger/quotaState';

/** One event's outcome: whether it fired. */
const quotaEvent = (
	event: string,
	...rest: Parameters<typeof quotaEvents> extends [unknown, ...infer R] ? R : never
) => {
	const outcome = quotaEvents(new Set([event]), ...rest);
	return { ...outcome, fire: outcome.fired.length > 0 };
};
import { questionDigest } from '../../nodes/PartnerAccountInquiry/trigger/savedState';
import { readWatchState } from '../../nodes/PartnerAccountInquiry/trigger/watchState';
import type { BeneficiaryEvent } from '../../nodes/PartnerAccountInquiry/trigger/events';
import { createCustomers } from '../../sandbox/data';
import { diffBeneficiaries, SUMMARY_FIELDS } from '../support/beneficiaryDiff';

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
		const state = baseline('q', [ref('a'), ref('b', { bankName: 'X' }), ref('c')]);
		const { events } = diffBeneficiaries(state, [ref('d'), ref('b', { bankName: 'Y' }), ref('a')], ALL);
		// A removal carries the kept summary (no token): here its reference ID.
		expect(events.map((e) => [e.event, e.beneficiary.referenceBeneficiaryId])).toEqual([
			['beneficiaryAdded', 'ref-d'],
			['beneficiaryChanged', 'ref-b'],
			['beneficiaryRemoved', 'ref-c'],
		]);
		expect(events[1].changes).toEqual({ bankName: { before: null, after: 'Y' } });
	});

	it('a field that appears, or disappears, is a change; a new field elsewhere is not', () => {
		const state = baseline('q', [b('a'), b('b')]);
		const { events } = diffBeneficiaries(state, [b('a', { extra: 1 }), b('b')], ALL);
		expect(events.map((e) => e.beneficiary.beneficiaryToken)).toEqual(['a']);
		expect(events[0].changes).toEqual({ extra: { before: null, after: 1 } });
		const gone = diffBeneficiaries(baseline('q', [b('a', { extra: 1 })]), [b('a')], ALL).events;
		expect(gone[0].changes).toEqual({ extra: { before: null, after: null } });
	});

	it('names only the fields that changed in an entry kept from before a new field was seen elsewhere', () => {
		const first = baseline('q', [b('a'), b('b')]);
		// b gains a field; a is unchanged, so its entry (made when two fields were known) is kept.
		const second = diffBeneficiaries(first, [b('a'), b('b', { extra: 1 })], ALL).next;
		const { events } = diffBeneficiaries(second, [b('a', { status: 'FROZEN' }), b('b', { extra: 1 })], ALL);
		expect(events).toHaveLength(1);
		expect(events[0].changes).toEqual({ status: { before: 'ACTIVE', after: 'FROZEN' } });
	});

	it('keeps 10,000 beneficiaries in a small state (no objects): about 1.9 MB of JSON', () => {
		const all = createCustomers().get('CUST_BENCH')?.beneficiaries as unknown as Array<Record<string, unknown>>;
		const state = baseline('q', all);
		const bytes = Buffer.byteLength(JSON.stringify(state));
		const objects = Buffer.byteLength(JSON.stringify(all));
		expect(bytes).toBeLessThan(objects / 2);
		expect(bytes).toBeLessThan(2 * 1024 * 1024);
	});
});

describe('one beneficiary, whatever its bank details', () => {
	const payee = (token: string, ref: string | undefined, fields: Record<string, unknown> = {}) =>
		b(token, { ...(ref ? { referenceBeneficiaryId: ref } : {}), bankAccountNo: `acct-${token}`, ...fields });

	it('a new token under the same reference ID is one change naming the bank fields, not a removal and an addition', () => {
		const state = baseline('q', [payee('t1', 'R1'), payee('t2', 'R2')]);
		const { events } = diffBeneficiaries(state, [payee('t1', 'R1'), payee('t9', 'R2')], ALL);
		expect(events.map((e) => e.event)).toEqual(['beneficiaryChanged']);
		expect(events[0].changes).toEqual({
			// Kept by their last four only: a token of two characters shows nothing.
			beneficiaryToken: { before: '****', after: 't9' },
			bankAccountNo: { before: '****t-t2', after: 'acct-t9' },
		});
	});

	it('without a reference ID a beneficiary is its token: new bank details are a removal and an addition', () => {
		const state = baseline('q', [payee('t1', undefined)]);
		const { events } = diffBeneficiaries(state, [payee('t2', undefined)], ALL);
		expect(events.map((e) => e.event)).toEqual(['beneficiaryAdded', 'beneficiaryRemoved']);
	});

	it('two beneficiaries under one reference ID are never merged: each is told apart by its token', () => {
		const state = baseline('q', [payee('t1', 'R'), payee('t2', 'R')]);
		expect(Object.keys(state.entries)).toHaveLength(2);
		expect(diffBeneficiaries(state, [payee('t1', 'R'), payee('t2', 'R')], ALL).events).toEqual([]);
		// A third under the same ID is one addition; the two known ones stay as they were.
		const { events } = diffBeneficiaries(state, [payee('t1', 'R'), payee('t2', 'R'), payee('t3', 'R')], ALL);
		expect(events.map((e) => [e.event, e.beneficiary.beneficiaryToken ?? null])).toEqual([['beneficiaryAdded', 't3']]);
	});

	it('a second beneficiary bound under a reference ID already in use is one addition; the first carries on', () => {
		const state = baseline('q', [payee('t1', 'R'), payee('u', 'U')]);
		const shared = diffBeneficiaries(state, [payee('t1', 'R'), payee('u', 'U'), payee('t2', 'R')], ALL);
		expect(shared.events.map((e) => [e.event, e.beneficiary.beneficiaryToken])).toEqual([['beneficiaryAdded', 't2']]);
		// And back: t2 goes, t1 is again the ID alone: one removal, t1 carried on without an event.
		const alone = diffBeneficiaries(shared.next, [payee('t1', 'R'), payee('u', 'U')], ALL);
		expect(alone.events.map((e) => e.event)).toEqual(['beneficiaryRemoved']);
		expect(alone.next.entries).toEqual(state.entries);
		expect(diffBeneficiaries(alone.next, [payee('t1', 'R'), payee('u', 'U')], ALL).events).toEqual([]);
	});

	it('a repeat that starts with new bank details for the first one is reported in full, not merged', () => {
		const state = baseline('q', [payee('t1', 'R')]);
		// t1 became t3 and t2 came, both under R: no entry carries on (no token matches R's).
		const { events } = diffBeneficiaries(state, [payee('t3', 'R'), payee('t2', 'R')], ALL);
		expect(events.map((e) => e.event).sort()).toEqual(['beneficiaryAdded', 'beneficiaryAdded', 'beneficiaryRemoved']);
	});

	it('the state keeps no bank details and no token, whatever the identity', () => {
		const text = JSON.stringify(baseline('q', [payee('tok-secret-1', 'R1'), payee('tok-secret-2', undefined)]));
		expect(text).not.toMatch(/tok-secret|acct-/);
	});
});

describe('a first read that holds the saved state (one read for a quiet poll)', () => {
	// The definition: the full diff finds no event of any kind and leaves the state exactly as it was.
	const holdsByDiff = (state: BeneficiaryState, list: Array<Record<string, unknown>>) => {
		const { events, next } = diffBeneficiaries(state, list, ALL);
		return events.length === 0 && JSON.stringify(next) === JSON.stringify(state);
	};
	const ref = (token: string, fields: Record<string, unknown> = {}) =>
		b(token, { referenceBeneficiaryId: `ref-${token}`, bankAccountNo: `0000${token}1234`, ...fields });
	const list = [ref('a'), ref('b', { nickname: 'B' }), b('c'), ref('a', { currency: 'EUR' }), { status: 'X' }];
	const state = baseline('q', list);
	const swap = <T>(xs: T[], i: number, j: number) => xs.map((x, k) => (k === i ? xs[j] : k === j ? xs[i] : x));
	// Saved by an earlier poll, before a column was added: its first entry is shorter than the columns.
	const full = baseline('q', [b('a'), b('b', { extra: 1 })]);
	const [first] = Object.keys(full.entries);
	const grown = { ...full, entries: { ...full.entries, [first]: baseline('q', [b('a')]).entries[first] } };
	it.each([
		['the same list', state, list, true],
		[
			'the same entries, fields in another order',
			state,
			list.map((x) => Object.fromEntries(Object.entries(x).reverse())),
			true,
		],
		[
			'a field it lacked, present as null',
			state,
			[list[0], list[1], { ...list[2], nickname: null }, ...list.slice(3)],
			true,
		],
		['a field no entry had, present as null', state, [{ ...list[0], bankName: null }, ...list.slice(1)], false],
		['one field changed', state, [ref('a', { status: 'INACTIVE' }), ...list.slice(1)], false],
		[
			'a new bank account with the same last four',
			state,
			[ref('a', { bankAccountNo: '99991234' }), ...list.slice(1)],
			false,
		],
		['a field added', state, [{ ...list[0], extra: 1 }, ...list.slice(1)], false],
		['one removed', state, list.slice(1), false],
		['one added', state, [...list, b('d')], false],
		['two entries swapped', state, swap(list, 0, 1), false],
		['two entries of one reference ID swapped', state, swap(list, 0, 3), false],
		['an entry repeated in place of another', state, [list[0], list[0], ...list.slice(2)], false],
		['the same list, a state whose first entry predates a column', grown, [b('a'), b('b', { extra: 1 })], false],
		['a list whose later entries bring fields', full, [b('a'), b('b', { extra: 1 })], true],
	])('%s: as the full diff says (%s)', (_, saved, current, expected) => {
		expect(holdsByDiff(saved, current)).toBe(expected);
		const compared = comparedWith(saved);
		expect(compared.settled(current)).toBe(expected);
		// A read that held is not compared again: its diff is known.
		const diff = compared.diff(current, ALL);
		expect(diff.events).toEqual(diffBeneficiaries(saved, current, ALL).events);
		if (expected) expect(diff.next).toBe(saved);
	});
});

describe('reading a saved state back', () => {
	const good = baseline('q', [b('a')]);
	it('carries on from a state of this version and question; another question or kind is a problem (a warning)', () => {
		expect(readBeneficiaryState(JSON.parse(JSON.stringify(good)), 'q')).toEqual({ state: good });
		expect(readBeneficiaryState(good, 'other')).toEqual({ problem: 'it was saved for another question' });
		expect(readBeneficiaryState(undefined, 'q')).toEqual({});
		const quota = quotaEvent('quotaChanged', undefined, 'q', 1, 0, true).next;
		expect(readBeneficiaryState(quota, 'q')).toEqual({ problem: 'it is of no known kind' });
	});
	it.each([
		['an older format', { ...good, version: 3 }, /unknown version \(3\)/],
		['a list', [1, 2], /a list/],
		['a string', 'state', /string/],
		['no question', { ...good, question: 7 }, /another question/],
		['fields not names', { ...good, fields: [1] }, /entries/],
		['an entry not packed', { ...good, entries: { x: { a: 1 } } }, /entries/],
		['an entry too short', { ...good, entries: { x: ['abc'] } }, /entries/],
		['a future version', { ...good, version: 9 }, /unknown version \(9\)/],
		// A hostile review: a version that is text was quoted whole into n8n's log (an IBAN, say).
		[
			'a version that is text',
			{ ...good, version: 'DE89370400440532013000' },
			/^it has an unknown version \(string\)$/,
		],
	])('reports %s as a problem rather than failing later', (_, saved, problem) => {
		const reading = readBeneficiaryState(saved, 'q');
		expect(reading.state).toBeUndefined();
		expect(reading.problem).toMatch(problem);
	});
	it("the trigger's state of an unknown version names no saved value but a number", () => {
		const iban = 'DE89370400440532013000';
		expect(readWatchState({ kind: 'watch', version: iban }, 'beneficiaries').problem).toBe(
			'it has an unknown version (string)',
		);
		expect(readWatchState({ kind: 'watch', version: 2 }, 'quota').problem).toBe('it has an unknown version (2)');
		expect(readWatchState({ kind: 'watch', version: 6016133192681 }, 'quota').problem).toBe(
			'it has an unknown version (number)',
		);
	});
	it('a quota state is checked field by field', () => {
		const state = quotaEvent('quotaBelowThreshold', undefined, 'q', 5, 10, true).next;
		expect(readQuotaState({ ...state }, 'q')).toEqual({ state });
		for (const broken of [{ amount: 'x' }, { below: 1 }, { threshold: undefined }, { amount: Infinity }]) {
			expect(readQuotaState({ ...state, ...broken }, 'q').problem).toMatch(/quota fields/);
		}
	});
	it('an entry has one value per summary field', () => {
		expect(Object.values(good.entries)[0]).toHaveLength(1 + SUMMARY_FIELDS.length);
	});
});

describe('quotaEvent', () => {
	const q = questionDigest({ a: 1 });
	const run = (amounts: number[], start?: QuotaState, whole = () => true) => {
		let state = start;
		return amounts.map((amount) => {
			const r = quotaEvent('quotaBelowThreshold', state, q, amount, 100, state ? whole() : true);
			state = r.next;
			return r.fire;
		});
	};
	it('fires below the threshold once per crossing, and on a first poll that finds it below', () => {
		expect(run([150, 40, 30, 100, 99, 120, 99])).toEqual([false, true, false, false, true, false, true]);
		expect(run([40, 30])).toEqual([true, false]);
	});
	it('when the state may miss a re-arming (after a restart), a quota still below fires again: at least once', () => {
		const fell = quotaEvent('quotaBelowThreshold', undefined, q, 40, 100, true).next;
		expect(quotaEvent('quotaBelowThreshold', fell, q, 30, 100, true).fire).toBe(false);
		expect(quotaEvent('quotaBelowThreshold', fell, q, 30, 100, false).fire).toBe(true);
		expect(quotaEvent('quotaBelowThreshold', fell, q, 130, 100, false).fire).toBe(false);
	});
	it('quotaChanged fires on every different amount and never on the baseline', () => {
		const state = quotaEvent('quotaChanged', undefined, q, 1, 0, true);
		expect(state.fire).toBe(false);
		expect(quotaEvent('quotaChanged', state.next, q, 2, 0, true)).toMatchObject({ fire: true, previousAmount: 1 });
		expect(quotaEvent('quotaChanged', state.next, q, 1, 0, false).fire).toBe(false);
		expect(questionDigest({ a: 1, b: [1, 2] })).toBe(questionDigest({ b: [1, 2], a: 1 }));
	});
});
