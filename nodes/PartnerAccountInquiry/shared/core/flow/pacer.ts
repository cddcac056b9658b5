/**
 * Spacing of the request scheduler's requests: at most one per (fastest round trip seen) / (width).
 *
 * One event loop handles every answer. When answers arrive in a burst, each waits for the
 * others' handling (signing, n8n's HTTP helper, verifying, parsing), and the requests stay in
 * lockstep; spread over the round trip, they arrive one by one. The fastest round trip is the
 * one least inflated by such waits. Only first attempts are paced: a retry leaves after its own
 * backoff.
 */
export class Pacer {
	private fastest = Infinity;
	private last = -Infinity;

	constructor(private readonly now: () => number) {}

	/** The round trip of one successful attempt, in ms. */
	observe(roundTripMs: number): void {
		if (roundTripMs > 0) this.fastest = Math.min(this.fastest, roundTripMs);
	}

	/** When the next request is due at this width (-Infinity: at once). */
	dueAt(width: number): number {
		return Number.isFinite(this.fastest) ? this.last + this.fastest / width : -Infinity;
	}

	/** How long to wait before the next request: never more than one spacing, 0 if the clock went back. */
	wait(width: number): number {
		const now = this.now();
		if (!Number.isFinite(this.fastest) || now < this.last) return 0;
		return Math.max(0, Math.min(this.dueAt(width) - now, this.fastest / width));
	}

	/** A request is going out now. */
	sent(): void {
		this.last = this.now();
	}
}
