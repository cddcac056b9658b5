/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only simulator, not in the published package */
/**
 * The request gate: how many requests are in flight, how long an answer waits before it leaves
 * (the injected latency), and holdUntilInFlight's gate, which holds answers until enough
 * requests are in flight at once.
 */
import type { HeldAnswers, HoldOptions, LoggedRequest } from './types';

/** The gate of holdUntilInFlight while it is armed: the answers it holds and what opens it. */
interface Gate {
	count: number;
	holds: (request: LoggedRequest) => boolean;
	held: Array<() => void>;
	mostInFlight: number;
	/** Lets every held answer go; `failure` says why the count was not reached. */
	open: (failure?: string) => void;
}

export class RequestGate {
	inFlight = 0;
	private gate: Gate | undefined;

	constructor(public latencyMs = 0) {}

	/** Counts a request in; returns how many are in flight now. */
	enter(): number {
		return ++this.inFlight;
	}

	leave(): void {
		this.inFlight--;
	}

	/** Holds this answer while a gate is armed and picks it; the request that makes the gate's count opens it. */
	async pass(entry: LoggedRequest): Promise<void> {
		const armed = this.gate;
		if (!armed) return;
		armed.mostInFlight = Math.max(armed.mostInFlight, this.inFlight);
		if (this.inFlight >= armed.count) return armed.open();
		if (armed.holds(entry)) await new Promise<void>((release) => armed.held.push(release));
	}

	/** Simulator.holdUntilInFlight. */
	hold(count: number, { holds = () => true, timeoutMs = 5_000 }: HoldOptions = {}): HeldAnswers {
		this.gate?.open('another gate replaced it');
		let settle: (failure?: string) => void = () => undefined;
		const reached = new Promise<void>((resolve, reject) => {
			settle = (failure) => (failure === undefined ? resolve() : reject(new Error(failure)));
		});
		// A gate released on purpose, and never awaited, is no unhandled rejection.
		reached.catch(() => undefined);
		const timer = setTimeout(
			() => armed.open(`${count} requests were not in flight at once within ${timeoutMs} ms`),
			timeoutMs,
		);
		timer.unref();
		const armed: Gate = {
			count,
			holds,
			held: [],
			mostInFlight: this.inFlight,
			open: (failure) => {
				clearTimeout(timer);
				if (this.gate === armed) this.gate = undefined;
				for (const release of armed.held.splice(0)) release();
				settle(
					failure &&
						`holdUntilInFlight(${count}): ${failure}; at most ${armed.mostInFlight} were in flight at once, and the held answers went`,
				);
			},
		};
		this.gate = armed;
		return { reached, release: () => armed.open('released before the count was reached') };
	}

	/** Lets the held answers go (the simulator was reset or closed), saying why. */
	open(why: string): void {
		this.gate?.open(why);
	}

	/**
	 * Waits until the answer to a request that arrived at `arrival` (performance.now() time) may
	 * leave: the answer is made (and signed) on arrival and leaves `latencyMs` after it, so the
	 * injected latency is the whole round trip the client sees, not latency plus the simulator's work.
	 */
	async leaveAfterLatency(arrival: number): Promise<void> {
		if (this.latencyMs > 0) await delayUntil(arrival + this.latencyMs);
	}
}

/**
 * Waits until `due` (performance.now() time). A plain setTimeout overshoots by a millisecond or
 * two, which over 200 pages would be blamed on the client: the timer wakes a little early and the
 * last stretch yields to the event loop until the exact moment.
 */
async function delayUntil(due: number): Promise<void> {
	const early = due - performance.now() - 2;
	if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
	while (performance.now() < due) await new Promise((resolve) => setImmediate(resolve));
}
