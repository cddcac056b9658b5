import { NUMBER_OPTIONS } from '../../nodes/PartnerAccountInquiry/shared/core/api/fields';
import { ResponseVerificationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { ReplayGuard } from '../../nodes/PartnerAccountInquiry/shared/core/signing/replayGuard';
import { thrown } from '../fixtures/thrown';

/** How many answers the guard remembers, and for how long (replayGuard.ts: the longest tolerance). */
const MAX_REMEMBERED = 100_000;
const RETENTION_MS = 86_400_000;

/** A guard that remembers each answer WINDOW ms after its response-time (the default is RETENTION_MS). */
const WINDOW = 300_000;
const windowed = (capacity = MAX_REMEMBERED) => new ReplayGuard(capacity, WINDOW);

describe('ReplayGuard: a responseId is accepted once while it is remembered', () => {
	it('refuses the same responseId for the same client while it is remembered', () => {
		const guard = windowed();
		guard.accept('client-1', 'R1', 1_000, 1_000);
		const error = thrown(() => guard.accept('client-1', 'R1', 1_000, 2_000));
		expect(error).toBeInstanceOf(ResponseVerificationError);
		expect((error as ResponseVerificationError).reason).toBe('replayed-response');
		expect((error as Error).message).toBe('The same signed answer came back a second time (a replay)');
		expect((error as ResponseVerificationError).detail).toMatch(/^Its `responseId` is "R1";/);
	});

	it('accepts another responseId, and the same one for another client; not the same one through another Base URL', () => {
		const guard = windowed();
		guard.accept('client-1', 'R1', 0, 0);
		expect(() => guard.accept('client-1', 'R2', 0, 0)).not.toThrow();
		expect(() => guard.accept('client-2', 'R1', 0, 0)).not.toThrow();
		// The same answer through another spelling of the gateway (localhost, a proxy) is the same answer.
		expect(thrown(() => guard.accept('client-1', 'R1', 0, 0))).toBeInstanceOf(ResponseVerificationError);
	});

	it('still refuses a replay at the very last moment it is remembered', () => {
		const guard = windowed();
		guard.accept('client-1', 'R1', 0, 0);
		expect(thrown(() => guard.accept('client-1', 'R1', WINDOW, WINDOW))).toBeInstanceOf(ResponseVerificationError);
	});

	it('forgets an answer once it is past its retention', () => {
		const guard = windowed();
		guard.accept('client-1', 'R1', 0, 0);
		expect(guard.size).toBe(1);
		expect(() => guard.accept('client-1', 'R2', WINDOW + 1, WINDOW + 1)).not.toThrow();
		expect(guard.size).toBe(1);
	});

	it('holds at most its capacity, forgetting the oldest first', () => {
		const guard = windowed(3);
		for (const id of ['R1', 'R2', 'R3', 'R4']) guard.accept('c', id, 0, 0);
		expect(guard.size).toBe(3);
		expect(() => guard.accept('c', 'R1', 0, 0)).not.toThrow();
		expect(thrown(() => guard.accept('c', 'R4', 0, 0))).toBeInstanceOf(ResponseVerificationError);
	});
});

describe('ReplayGuard: remembered as long as any credential of the process could accept the answer', () => {
	it('the retention is the longest tolerance a credential may set (86,400 s), not the tolerance that first accepted it', () => {
		expect(RETENTION_MS).toBe(NUMBER_OPTIONS.responseTimeToleranceSeconds.max * 1000);
		expect(RETENTION_MS).toBe(86_400_000);
	});

	it('an answer first accepted under a 2 s tolerance is refused when replayed later to a credential of 300 s', () => {
		const guard = new ReplayGuard();
		guard.accept('client-1', 'R1', 0, 1_000);
		// 3.2 s on: stale for the 2 s credential, still fresh for a 300 s one.
		expect(thrown(() => guard.accept('client-1', 'R1', 0, 3_200))).toBeInstanceOf(ResponseVerificationError);
		// Even at the longest tolerance's limit.
		expect(thrown(() => guard.accept('client-1', 'R1', 0, RETENTION_MS))).toBeInstanceOf(ResponseVerificationError);
	});

	it('forgets it once no credential could accept it any more', () => {
		const guard = new ReplayGuard();
		guard.accept('client-1', 'R1', 0, 0);
		guard.accept('client-1', 'R2', RETENTION_MS + 1, RETENTION_MS + 1);
		expect(guard.size).toBe(1);
		expect(() => guard.accept('client-1', 'R1', RETENTION_MS + 2, RETENTION_MS + 2)).not.toThrow();
	});
});

describe('ReplayGuard: each answer is forgotten when it is past its retention, whatever the order', () => {
	it('answers accepted in any order of response-time are forgotten exactly when each goes stale', () => {
		const guard = windowed();
		const responseTimes = [900, 100, 700, 300, 500, 200, 800, 400, 600];
		responseTimes.forEach((time, i) => guard.accept('c', `R${i}`, time, time));
		const probes = [150, 250, 450, 650, 850, 950];
		for (const at of probes) {
			const now = at + WINDOW;
			guard.accept('probe', `P${at}`, now, now);
			const alive = responseTimes.filter((time) => time + WINDOW >= now).length;
			expect(guard.size).toBe(alive + probes.filter((t) => t <= at).length);
		}
	});

	it('past the cap, the entry closest to going stale is forgotten first', () => {
		const guard = windowed(3);
		guard.accept('c', 'late', 2 * WINDOW, 0);
		guard.accept('c', 'soon', 0, 0);
		guard.accept('c', 'middle', WINDOW, 0);
		guard.accept('c', 'new', WINDOW, 0);
		expect(guard.size).toBe(3);
		expect(() => guard.accept('c', 'soon', 0, 1)).not.toThrow();
		for (const id of ['late', 'middle'])
			expect(thrown(() => guard.accept('c', id, 2 * WINDOW, 1))).toBeInstanceOf(ResponseVerificationError);
	});
});
