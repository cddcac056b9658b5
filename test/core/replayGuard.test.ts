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
