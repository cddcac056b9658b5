import { ResponseVerificationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { ReplayGuard } from '../../nodes/PartnerAccountInquiry/shared/core/signing/replayGuard';
import { thrown } from '../fixtures/thrown';

const WINDOW = 300_000;
const GW = 'https://open-sea.worldfirst.com';

describe('ReplayGuard: a responseId is accepted once within the freshness window', () => {
	it('refuses the same responseId for the same client while it could still pass the freshness check', () => {
		const guard = new ReplayGuard();
		guard.accept(GW, 'client-1', 'R1', 1_000 + WINDOW, 1_000);
		const error = thrown(() => guard.accept(GW, 'client-1', 'R1', 1_000 + WINDOW, 2_000));
		expect(error).toBeInstanceOf(ResponseVerificationError);
		expect((error as ResponseVerificationError).reason).toBe('replayed-response');
		expect((error as Error).message).toMatch(/"R1" was already received once/);
	});

	it('accepts another responseId, and the same one for another client or another gateway', () => {
		const guard = new ReplayGuard();
		guard.accept(GW, 'client-1', 'R1', WINDOW, 0);
		expect(() => guard.accept(GW, 'client-1', 'R2', WINDOW, 0)).not.toThrow();
		expect(() => guard.accept(GW, 'client-2', 'R1', WINDOW, 0)).not.toThrow();
		expect(() => guard.accept('https://sandbox.example.com', 'client-1', 'R1', WINDOW, 0)).not.toThrow();
	});

	it('still refuses a replay at the very last moment the freshness check accepts', () => {
		const guard = new ReplayGuard();
		guard.accept(GW, 'client-1', 'R1', WINDOW, 0);
		expect(thrown(() => guard.accept(GW, 'client-1', 'R1', 2 * WINDOW, WINDOW))).toBeInstanceOf(
			ResponseVerificationError,
		);
	});

	it('forgets an answer once it is stale anyway (the freshness check refuses it by then)', () => {
		const guard = new ReplayGuard();
		guard.accept(GW, 'client-1', 'R1', WINDOW, 0);
		expect(guard.size).toBe(1);
		expect(() => guard.accept(GW, 'client-1', 'R2', 2 * WINDOW, WINDOW + 1)).not.toThrow();
		expect(guard.size).toBe(1);
	});

	it('holds at most its capacity, forgetting the oldest first', () => {
		const guard = new ReplayGuard(3);
		for (const id of ['R1', 'R2', 'R3', 'R4']) guard.accept(GW, 'c', id, WINDOW, 0);
		expect(guard.size).toBe(3);
		expect(() => guard.accept(GW, 'c', 'R1', WINDOW, 0)).not.toThrow();
		expect(thrown(() => guard.accept(GW, 'c', 'R4', WINDOW, 0))).toBeInstanceOf(ResponseVerificationError);
	});
});

describe('ReplayGuard: each answer is forgotten when it could no longer pass freshness, whatever the order', () => {
	it('an answer accepted under a long tolerance does not keep the short-lived ones accepted after it', () => {
		const guard = new ReplayGuard();
		guard.accept(GW, 'long', 'L1', 86_400_000, 0);
		for (let i = 0; i < 5; i++) guard.accept(GW, 'short', `S${i}`, 1_000 + i * 1_000 + WINDOW, 1_000 + i * 1_000);
		expect(guard.size).toBe(6);
		// Every short-lived answer is stale by now; the long one is not.
		guard.accept(GW, 'short', 'S9', 2 * WINDOW + 10_000, WINDOW + 10_000);
		expect(guard.size).toBe(2);
		expect(thrown(() => guard.accept(GW, 'long', 'L1', 86_400_000, WINDOW + 10_000))).toBeInstanceOf(
			ResponseVerificationError,
		);
		// A stale answer's responseId is accepted again (the freshness check would refuse a replay of it anyway).
		expect(() => guard.accept(GW, 'short', 'S0', 2 * WINDOW + 20_000, WINDOW + 20_000)).not.toThrow();
	});

	it('answers accepted in any order of staleness are forgotten exactly when each goes stale', () => {
		const guard = new ReplayGuard();
		const staleAfter = [900, 100, 700, 300, 500, 200, 800, 400, 600];
		staleAfter.forEach((time, i) => guard.accept(GW, 'c', `R${i}`, time, 0));
		for (const now of [150, 250, 450, 650, 850, 950]) {
			guard.accept(GW, 'probe', `P${now}`, Number.MAX_SAFE_INTEGER, now);
			const alive = staleAfter.filter((time) => time >= now).length;
			expect(guard.size).toBe(alive + [150, 250, 450, 650, 850, 950].filter((t) => t <= now).length);
		}
	});

	it('past the cap, the entry closest to going stale is forgotten first', () => {
		const guard = new ReplayGuard(3);
		guard.accept(GW, 'c', 'late', 3 * WINDOW, 0);
		guard.accept(GW, 'c', 'soon', WINDOW, 0);
		guard.accept(GW, 'c', 'middle', 2 * WINDOW, 0);
		guard.accept(GW, 'c', 'new', 2 * WINDOW, 0);
		expect(guard.size).toBe(3);
		expect(() => guard.accept(GW, 'c', 'soon', WINDOW, 1)).not.toThrow();
		for (const id of ['late', 'middle'])
			expect(thrown(() => guard.accept(GW, 'c', id, 3 * WINDOW, 1))).toBeInstanceOf(ResponseVerificationError);
	});
});
