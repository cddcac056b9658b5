/**
 * The quiet poll's shortcut (trigger/beneficiaryDiff.ts comparedWith(...).settled: a first read
 * that holds) agrees with the full diff over random histories of a saved state, framework-free.
 */
import { baseline, comparedWith } from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryDiff';
import type { BeneficiaryState } from '../../nodes/PartnerAccountInquiry/trigger/beneficiaryState';
import type { BeneficiaryEvent } from '../../nodes/PartnerAccountInquiry/trigger/events';
import { diffBeneficiaries } from '../support/beneficiaryDiff';

describe('holdsState agrees with the full diff over random histories of a saved state', () => {
	const ALL = new Set<BeneficiaryEvent>(['beneficiaryAdded', 'beneficiaryRemoved', 'beneficiaryChanged']);
	let seed = 7;
	const rnd = () => {
		seed = (seed * 1103515245 + 12345) & 0x7fffffff;
		return seed / 0x7fffffff;
	};
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
	type B = Record<string, unknown>;
	const make = (): B => {
		const b: B = {};
		if (rnd() < 0.8) b.referenceBeneficiaryId = `R${Math.floor(rnd() * 4)}`;
		if (rnd() < 0.8) b.beneficiaryToken = `T${Math.floor(rnd() * 4)}`;
		if (rnd() < 0.7) b.accountName = pick(['N1', 'N2']);
		if (rnd() < 0.7) b.bankAccountNo = pick(['11112222', '33332222', '1234']);
		b.status = pick(['ACTIVE', 'INACTIVE', null]);
		if (rnd() < 0.5) b.currency = pick(['USD', 'EUR']);
		if (rnd() < 0.2) b[`x${Math.floor(rnd() * 3)}`] = pick([1, null, 'v']);
		return b;
	};
	const mutate = (list: B[]): B[] => {
		const out = list.map((x) => ({ ...x }));
		for (let j = Math.floor(rnd() * 3); j > 0; j--) {
			const r = rnd();
			const at = (n: number) => Math.floor(rnd() * n);
			if (r < 0.2 && out.length) out.splice(at(out.length), 1);
			else if (r < 0.4) out.splice(at(out.length + 1), 0, make());
			else if (r < 0.55 && out.length > 1) {
				const [a, c] = [at(out.length), at(out.length)];
				[out[a], out[c]] = [out[c], out[a]];
			} else if (r < 0.75 && out.length) {
				const a = out[at(out.length)];
				const f = pick(['status', 'accountName', 'bankAccountNo', 'currency', 'x0', 'x1', 'referenceBeneficiaryId']);
				if (rnd() < 0.3) delete a[f];
				else a[f] = pick([null, 'ACTIVE', 'N1', '11112222', 1, 'EUR']);
			} else if (out.length) out.splice(at(out.length), 0, { ...pick(out) });
		}
		return out;
	};
	it('a first read that holds would emit nothing and keep the state, through caps, event filters and saves', () => {
		const wrong: string[] = [];
		for (let run = 0; run < 2000; run++) {
			let list = Array.from({ length: 1 + Math.floor(rnd() * 6) }, make);
			let state: BeneficiaryState = JSON.parse(JSON.stringify(baseline('q', list)));
			for (let step = 0; step < 8; step++) {
				const next = rnd() < 0.4 ? list : mutate(list);
				const compared = comparedWith(state);
				const holds = compared.settled(next);
				const full = diffBeneficiaries(state, next, ALL);
				if (holds && full.events.length > 0) wrong.push(JSON.stringify({ state, next }));
				const wanted = rnd() < 0.5 ? ALL : new Set<BeneficiaryEvent>([pick([...ALL])]);
				state = JSON.parse(JSON.stringify(compared.diff(next, wanted).next));
				list = next;
			}
		}
		expect(wrong.slice(0, 2)).toEqual([]);
	});
});
