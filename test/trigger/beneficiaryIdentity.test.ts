import { baseline } from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryDiff';
import type { BeneficiaryState } from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryState';
import type { BeneficiaryEvent } from '../../nodes/PartnerAccountInquiry/trigger/events';
import { digest } from '../../nodes/PartnerAccountInquiry/trigger/savedState';
import { createCustomers } from '../../sandbox/data';
import { diffBeneficiaries } from '../support/beneficiaryDiff';

type Item = Record<string, unknown>;

const ALL = new Set<BeneficiaryEvent>(['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged']);
const BANK = ['beneficiaryToken', 'bankAccountNo', 'bankAccountIBAN'];

/** A payee: its reference ID (or none), its bank account (which its token enciphers) and its name. */
function payee(ref: string | undefined, account: string, fields: Item = {}): Item {
	return {
		beneficiaryToken: `tok(${account})`,
		...(ref === undefined ? {} : { referenceBeneficiaryId: ref }),
		beneficiaryNick: `nick ${ref ?? account}`,
		status: 'ACTIVE',
		accountName: `Holder of ${ref ?? account}`,
		currency: 'USD',
		bankAccountNo: account,
		...fields,
	};
}

/** The events of a diff as [event, reference ID or token, changed field names]. */
function summary(state: BeneficiaryState, list: Item[]) {
	const { events, next } = diffBeneficiaries(state, list, ALL);
	return {
		next,
		seen: events.map(({ event, beneficiary, changes }) => [
			event,
			beneficiary.referenceBeneficiaryId ?? beneficiary.beneficiaryToken,
			...(changes ? [Object.keys(changes).sort()] : []),
		]),
	};
}

/** Two texts whose `chars`-character digests collide (a birthday search). */
function collidingTexts(prefix: string, chars: number): [string, string] {
	const seen = new Map<string, string>();
	for (let i = 0; ; i++) {
		const text = `${prefix}${i}`;
		const d = digest(JSON.stringify(text), chars);
		const earlier = seen.get(d);
		if (earlier !== undefined) return [earlier, text];
		seen.set(d, text);
	}
}

describe('one beneficiary listed more than once', () => {
	// Bound twice: the same reference ID and token, once per currency.
	const usd = payee('R1', '111');
	const eur = { ...payee('R1', '111'), currency: 'EUR', beneficiaryNick: 'R1 in EUR' };
	const other = payee('R2', '222');

	it('is two entries: nothing to report while both stay, one change or one removal when one of them does', () => {
		const state = baseline('q', [usd, eur, other]);
		expect(Object.keys(state.entries)).toHaveLength(3);
		expect(summary(state, [usd, eur, other]).seen).toEqual([]);
		expect(summary(state, [usd, { ...eur, status: 'FROZEN' }, other]).seen).toEqual([
			['beneficiaryChanged', 'R1', ['status']],
		]);
		const removed = diffBeneficiaries(state, [usd, other], ALL).events;
		expect(removed.map((e) => [e.event, e.beneficiary.currency])).toEqual([['beneficiaryRemoved', 'EUR']]);
		expect(summary(state, [eur, usd, other]).seen).toEqual([]);
	});

	it('a third entry of it is one addition', () => {
		const state = baseline('q', [usd, eur]);
		const gbp = { ...usd, currency: 'GBP' };
		expect(summary(state, [usd, eur, gbp]).seen).toEqual([['beneficiaryAdded', 'R1']]);
	});

	it('entries identical in every field are interchangeable, never a removal and an addition', () => {
		const state = baseline('q', [usd, usd, other]);
		expect(summary(state, [usd, other, usd]).seen).toEqual([]);
		expect(summary(state, [usd, other]).seen).toEqual([['beneficiaryRemoved', 'R1']]);
	});
});

describe('what is the same entry', () => {
	it('an entry with neither token nor reference ID, its fields listed in another order, is no event', () => {
		const entry = { beneficiaryNick: 'cash desk', status: 'ACTIVE', accountName: 'Petty', currency: 'USD' };
		const reordered = { currency: 'USD', accountName: 'Petty', status: 'ACTIVE', beneficiaryNick: 'cash desk' };
		expect(summary(baseline('q', [entry]), [reordered]).seen).toEqual([]);
	});

	it('a field present as null is the field absent: no Changed when it comes or goes', () => {
		const withNull = payee('R1', '111', { bankAccountIBAN: null });
		const without = payee('R1', '111');
		expect(summary(baseline('q', [withNull]), [without]).seen).toEqual([]);
		expect(summary(baseline('q', [without]), [withNull]).seen).toEqual([]);
		expect(
			summary(baseline('q', [withNull]), [payee('R1', '111', { bankAccountIBAN: 'GB29NWBK60161331926819' })]).seen,
		).toEqual([['beneficiaryChanged', 'R1', ['bankAccountIBAN']]]);
	});

	it('an empty reference ID is none: such an entry given an ID is one Changed', () => {
		const before = payee(undefined, '111', { referenceBeneficiaryId: '' });
		const other = payee('R2', '222');
		const state = baseline('q', [before, other]);
		expect(summary(state, [{ ...before, referenceBeneficiaryId: 'REF-GIVEN' }, other]).seen).toEqual([
			['beneficiaryChanged', 'REF-GIVEN', ['referenceBeneficiaryId']],
		]);
	});
});

describe('repeated reference IDs without tokens', () => {
	const noToken = (currency: string, fields: Item = {}) => {
		const entry = payee('R', '123', { currency, ...fields });
		delete entry.beneficiaryToken;
		return entry;
	};

	it('a change of one of them is one change, not a removal and an addition', () => {
		const state = baseline('q', [noToken('USD'), noToken('EUR')]);
		expect(summary(state, [noToken('USD'), noToken('EUR', { beneficiaryNick: 'renamed' })]).seen).toEqual([
			['beneficiaryChanged', 'R', ['beneficiaryNick']],
		]);
		// Both changed, each most like its own entry.
		const both = [noToken('USD', { status: 'FROZEN' }), noToken('EUR', { beneficiaryNick: 'renamed' })];
		expect(summary(state, both).seen).toEqual([
			['beneficiaryChanged', 'R', ['status']],
			['beneficiaryChanged', 'R', ['beneficiaryNick']],
		]);
	});
});

describe('entries of one reference ID that both changed', () => {
	const usd = payee('R1', '111', { currency: 'USD', beneficiaryNick: 'a' });
	const eur = payee('R1', '111', { currency: 'EUR', beneficiaryNick: 'b' });

	it('each is matched by its currency (one binding per currency), not by a nickname the other had', () => {
		const state = baseline('q', [usd, eur]);
		const list = [
			{ ...usd, beneficiaryNick: 'b', status: 'FROZEN' },
			{ ...eur, beneficiaryNick: 'c', status: 'FROZEN' },
		];
		expect(summary(state, list).seen).toEqual([
			['beneficiaryChanged', 'R1', ['beneficiaryNick', 'status']],
			['beneficiaryChanged', 'R1', ['beneficiaryNick', 'status']],
		]);
	});

	it('when two matches fit equally well, none is guessed, and no worse one is taken instead', () => {
		// One currency; A and B differ in nickname and bank name.
		const a = payee('R1', '111', { beneficiaryNick: 'a', bankName: 'K' });
		const b = payee('R1', '111', { beneficiaryNick: 'b', bankName: 'L' });
		const state = baseline('q', [a, b]);
		// X is as like A as B (two fields each); Y is most like A, but less than X is like either.
		const x = { ...a, beneficiaryNick: 'x', bankName: 'M' };
		const y = { ...a, beneficiaryNick: 'y', status: 'FROZEN', relationType: 'SAME_NAME' };
		expect(summary(state, [x, y]).seen.map(([event]) => event)).toEqual([
			'beneficiaryAdded',
			'beneficiaryAdded',
			'beneficiaryRemoved',
			'beneficiaryRemoved',
		]);
	});
});

describe('a reference ID given, taken away, or reused', () => {
	it('a token-only beneficiary given a reference ID later is one change', () => {
		const state = baseline('q', [payee(undefined, '555')]);
		const { seen, next } = summary(state, [
			payee('R5', '555', { beneficiaryNick: 'nick 555', accountName: 'Holder of 555' }),
		]);
		expect(seen).toEqual([['beneficiaryChanged', 'R5', ['referenceBeneficiaryId']]]);
		expect(summary(next, [payee(undefined, '555')]).seen).toEqual([
			['beneficiaryChanged', 'tok(555)', ['referenceBeneficiaryId']],
		]);
	});

	it('a reference ID reused for another payee (another name and other bank details) is a removal and an addition', () => {
		const state = baseline('q', [payee('R', '111')]);
		const stranger = payee('R', '999', { accountName: 'Someone Else Ltd' });
		expect(summary(state, [stranger]).seen).toEqual([
			['beneficiaryAdded', 'R'],
			['beneficiaryRemoved', 'R'],
		]);
	});

	it('new bank details under the same name, or a new name on the same bank details, is one change', () => {
		const state = baseline('q', [payee('R', '111')]);
		expect(summary(state, [payee('R', '999')]).seen).toEqual([
			['beneficiaryChanged', 'R', ['bankAccountNo', 'beneficiaryToken']],
		]);
		expect(summary(state, [payee('R', '111', { accountName: 'Renamed Ltd' })]).seen).toEqual([
			['beneficiaryChanged', 'R', ['accountName']],
		]);
	});

	it('a new reference ID is another beneficiary: a removal and an addition', () => {
		const state = baseline('q', [payee('R', '111')]);
		expect(summary(state, [payee('S', '111', { accountName: 'Holder of R', beneficiaryNick: 'nick R' })]).seen).toEqual(
			[
				['beneficiaryAdded', 'S'],
				['beneficiaryRemoved', 'R'],
			],
		);
	});
});

describe('digest collisions never merge two payees', () => {
	it('two tokens whose 3-character digests collide stay apart (the previous release merged them)', () => {
		const [a, b] = collidingTexts('token-', 3);
		// R listed once with token a; then R with new bank details and, bound again, with token b.
		const state = baseline('q', [payee('R', '111', { beneficiaryToken: a })]);
		const { seen } = summary(state, [
			payee('R', '112', { beneficiaryToken: `${a}-new` }),
			payee('R', '113', { beneficiaryToken: b }),
		]);
		expect(seen).toEqual([
			['beneficiaryAdded', 'R'],
			['beneficiaryAdded', 'R'],
			['beneficiaryRemoved', 'R'],
		]);
	});

	it('a nickname change whose short digests collide names no bank field', () => {
		const [n1, n2] = collidingTexts('nick-', 3);
		const state = baseline('q', [payee('R', '111', { beneficiaryNick: n1 })]);
		const { seen } = summary(state, [payee('R', '111', { beneficiaryNick: n2 })]);
		expect(seen).toHaveLength(1);
		expect(seen[0][0]).toBe('beneficiaryChanged');
		expect(seen[0][2]).toContain('beneficiaryNick');
		for (const field of [...BANK, 'accountName']) expect(seen[0][2]).not.toContain(field);
	});

	it("keeps 10,000 beneficiaries near the previous release (about 1.9 MB with the bank details' last four; the objects are 4.4 MB)", () => {
		const all = createCustomers().get('CUST_BENCH')?.beneficiaries as unknown as Item[];
		const bytes = Buffer.byteLength(JSON.stringify(baseline('q', all)));
		expect(bytes).toBeLessThan(2 * 1024 * 1024);
	});
});
