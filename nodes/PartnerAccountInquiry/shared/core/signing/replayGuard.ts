/**
 * Replays within the freshness window. A signed answer recorded and served again while its
 * response-time is still within the tolerance verifies; the listing's answer carries a
 * `responseId` that the service makes unique, so an answer whose (client ID, responseId) was
 * already accepted is refused, whatever Base URL it came through (one gateway has many spellings:
 * 127.0.0.1 and localhost, a proxy and the gateway behind it). The quota answer carries no
 * responseId: nothing to check there (docs/api.md, Replays).
 *
 * How long: the memory is the process's, and so are its workflows. One credential may accept an
 * answer under 2 s of tolerance and another, of the same client, under 300 s: an answer forgotten
 * when the first one's window closed could be replayed to a workflow of the second. So each answer
 * is remembered until no credential at all could still accept it: its response-time plus the
 * longest tolerance a credential may set (RETENTION_MS, the API's 86,400 s), never the tolerance of
 * the credential that first accepted it.
 *
 * Memory: one entry per accepted answer of the last day, at most MAX_REMEMBERED. Each is forgotten
 * as soon as it is past that retention, whatever order the answers came in. An entry is a SHA-256
 * digest of the client ID and the responseId (whatever their length), a time and its
 * place in a heap: about 175 bytes, so some 17 MB at the cap. Past the cap the entry closest to
 * going stale (the oldest response-time; the earliest accepted among equals) is forgotten first:
 * its replay would pass only if still within the tolerance of the credential it is replayed to,
 * that is after 100,000 other answers within that tolerance (over 300 per second for the default
 * 300 s). In queue mode each worker remembers its own answers.
 */
import { NUMBER_OPTIONS } from '../api/fields';
import { ResponseVerificationError } from '../errors';
import { sha256Base64 } from '../sha256';

const MAX_REMEMBERED = 100_000;
/** How long after its response-time an answer is remembered: the longest tolerance any credential may set. */
const RETENTION_MS = NUMBER_OPTIONS.responseTimeToleranceSeconds.max * 1000;

interface Entry {
	key: string;
	/** The time (ms) after which no credential could accept the answer any more. */
	staleAfter: number;
	/** Acceptance order: among entries stale at the same time, the earliest accepted goes first. */
	serial: number;
}

export class ReplayGuard {
	/** Digest of (client ID, responseId) -> its entry. */
	private readonly seen = new Map<string, Entry>();
	/** The same entries as a binary min-heap by (staleAfter, serial): the next to go stale on top. */
	private readonly byStaleness: Entry[] = [];
	private serial = 0;

	constructor(
		private readonly capacity = MAX_REMEMBERED,
		private readonly retentionMs = RETENTION_MS,
	) {}

	/**
	 * Accepts a fresh, verified answer's responseId once: throws when the same client was already
	 * given an answer with it that is still remembered, through any Base URL.
	 * `responseTimeMs` is the answer's verified response-time; it is remembered until that plus the
	 * retention, whatever the tolerance of the credential that accepted it.
	 */
	accept(clientId: string, responseId: string, responseTimeMs: number, nowMs: number): void {
		this.forgetStale(nowMs);
		const staleAfterMs = responseTimeMs + this.retentionMs;
		const key = sha256Base64(JSON.stringify([clientId, responseId]));
		if (this.seen.has(key)) {
			throw new ResponseVerificationError(
				'replayed-response',
				'The same signed answer came back a second time (a replay)',
				'Check the Base URL and any proxy or cache in between.',
				`Its \`responseId\` is ${JSON.stringify(responseId.slice(0, 40))}; a genuine gateway gives every answer its own, so nothing from this one was used.`,
			);
		}
		const entry: Entry = { key, staleAfter: staleAfterMs, serial: this.serial++ };
		this.seen.set(key, entry);
		this.push(entry);
		while (this.seen.size > this.capacity) this.seen.delete(this.pop().key);
	}

	get size(): number {
		return this.seen.size;
	}

	/**
	 * Drops every entry that no credential could accept any more, whatever order they came in. One
	 * that is stale only after now is kept: the freshness check still accepts an answer at exactly
	 * its limit.
	 */
	private forgetStale(nowMs: number): void {
		while (this.byStaleness.length > 0 && this.byStaleness[0].staleAfter < nowMs) this.seen.delete(this.pop().key);
	}

	private static before(a: Entry, b: Entry): boolean {
		return a.staleAfter < b.staleAfter || (a.staleAfter === b.staleAfter && a.serial < b.serial);
	}

	private push(entry: Entry): void {
		const heap = this.byStaleness;
		let index = heap.push(entry) - 1;
		while (index > 0) {
			const parent = (index - 1) >> 1;
			if (!ReplayGuard.before(heap[index], heap[parent])) break;
			[heap[index], heap[parent]] = [heap[parent], heap[index]];
			index = parent;
		}
	}

	private pop(): Entry {
		const heap = this.byStaleness;
		const top = heap[0];
		const last = heap.pop() as Entry;
		if (heap.length > 0) {
			heap[0] = last;
			let index = 0;
			for (;;) {
				const left = 2 * index + 1;
				const right = left + 1;
				let first = index;
				if (left < heap.length && ReplayGuard.before(heap[left], heap[first])) first = left;
				if (right < heap.length && ReplayGuard.before(heap[right], heap[first])) first = right;
				if (first === index) break;
				[heap[index], heap[first]] = [heap[first], heap[index]];
				index = first;
			}
		}
		return top;
	}
}

/**
 * The process's one memory of accepted answers. The credential's Test (credentialTest.ts) passes
 * its answer through it, as a run does, so an answer already accepted (by an earlier Test, or by a
 * run once the session reads this same memory) is refused as a replay.
 */
export const PROCESS_REPLAY_GUARD = new ReplayGuard();
