/**
 * Replays within the freshness window. A signed answer recorded and served again while its
 * response-time is still within the tolerance verifies; the listing's answer carries a
 * `responseId` that the service makes unique, so an answer whose (client ID, responseId) was
 * already accepted is refused. The quota answer carries no responseId: nothing to check there
 * (docs/api.md, Replays).
 *
 * Memory: one entry per accepted answer, kept only while it could still pass the freshness check
 * (the tolerance, either way, after its response-time), and at most MAX_REMEMBERED entries. An
 * entry is a SHA-256 digest of the gateway, the client ID and the responseId (whatever their
 * length) and a time: about 150 bytes, so some 15 MB at the cap. Past the cap the oldest are forgotten first, so a
 * replay of an answer older than the most recent 100,000 would pass. The memory is the process's:
 * in queue mode each worker remembers its own answers.
 */
import { createHash } from 'node:crypto';

import { ResponseVerificationError } from '../errors';

export const MAX_REMEMBERED = 100_000;

export class ReplayGuard {
	/** Digest of (gateway, client ID, responseId) -> the time (ms) after which the answer is stale anyway; in insertion order. */
	private readonly seen = new Map<string, number>();

	constructor(private readonly capacity = MAX_REMEMBERED) {}

	/**
	 * Accepts a fresh, verified answer's responseId once: throws when the same client of the same
	 * gateway (base URL) was already given an answer with it that is still within the window. `staleAfterMs` is when this answer
	 * stops passing the freshness check (its response-time plus the tolerance).
	 */
	accept(gateway: string, clientId: string, responseId: string, staleAfterMs: number, nowMs: number): void {
		this.forgetStale(nowMs);
		const key = createHash('sha256')
			.update(JSON.stringify([gateway, clientId, responseId]))
			.digest('base64');
		if (this.seen.has(key)) {
			throw new ResponseVerificationError(
				'replayed-response',
				`The gateway's answer ${JSON.stringify(responseId.slice(0, 40))} was already received once: the same signed answer came back again (a replay)`,
				'A genuine gateway gives every answer its own responseId. Something between n8n and the gateway (a proxy or cache) served a recorded answer again, so nothing from it was used. Check the Base URL and any proxy in between.',
			);
		}
		this.seen.set(key, staleAfterMs);
		while (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value as string);
	}

	get size(): number {
		return this.seen.size;
	}

	/** Drops the entries that could no longer pass the freshness check. */
	private forgetStale(nowMs: number): void {
		// Entries are mostly in time order; stop at the first one still current (a few out-of-order
		// ones are dropped at a later call, or by the cap). One that is stale only after now is kept:
		// the freshness check still accepts an answer at exactly its limit.
		for (const [key, staleAfter] of this.seen) {
			if (staleAfter >= nowMs) break;
			this.seen.delete(key);
		}
	}
}
