/** What a poll knows of earlier polls beyond what n8n gave it: n8n saves some polls, not others (docs/internals.md, Restarts). */
import { randomBytes } from 'node:crypto';

import { markOf, readPollRecord, writeOf, type PollRecord } from './pollRecord';
import { digest, isRecord } from './savedState';

export const NODE_DATA_KEYS = ['state', 'pollRecord'] as const;
export type NodeData = Partial<Record<(typeof NODE_DATA_KEYS)[number], unknown>>;

/**
 * What this process last wrote for a node (`record` absent: the run it has just started); `dropped`:
 * a damaged record's digest (one warning); `kept`: its last write in a poll that did not throw;
 * `base`: the write (writeOf) of another process, or before its activation, that its writes follow.
 */
type Remembered = {
	run: number;
	record?: PollRecord;
	data: NodeData;
	/** An emitting poll's write: what that poll started from (its record and data), for when n8n drops its items. */
	from?: { record?: PollRecord; data: NodeData };
	dropped?: string;
	kept?: PollRecord;
	base?: string;
};

/**
 * How a poll carries on: from `adopt` (newer than what n8n gave), or `fresh` (the last activation
 * was not saved: a new baseline in run `run`); `record` it follows (none: a new run); whether its
 * state holds every earlier poll's finding, and whether every poll is known to be saved.
 */
export type Carried = {
	adopt?: NodeData;
	fresh?: boolean;
	record?: PollRecord;
	run?: number;
	wholeHistory: boolean;
	everyPollSaved: boolean;
};

/**
 * What this process remembers at most, in entries kept (a watched entry, a beneficiary of its list:
 * about 200 bytes each, so about 64 MiB); the nodes least recently written are forgotten first (as
 * after a restart). Counted, not serialised: a write costs no more than n8n's own.
 */
const MEMORY_BUDGET_ENTRIES = 300_000;
const entriesOf = (value: unknown) => (isRecord(value) && isRecord(value.entries) ? Object.values(value.entries) : []);
/** A node's size: one, plus each watched entry and what its own state keeps (a list's beneficiaries). */
const sizeOf = ({ state }: NodeData) =>
	entriesOf(state).reduce((sum: number, entry) => sum + 1 + entriesOf(isRecord(entry) ? entry.state : 0).length, 1);

const unproven = { everyPollSaved: false };

/** What one n8n process remembers of the trigger nodes it polls: made once per process, with the node type. */
export class PollMemory {
	/** Its records name it: two mains may each write a run's n-th poll. */
	readonly writer = randomBytes(9).toString('base64url');
	private readonly remembered = new Map<string, Remembered & { size: number }>();
	private size = 0;
	/** Static data objects written into: a poll given one was not given a fresh copy. */
	private readonly writtenInto = new WeakSet<object>();
	/** n8n's default poller makes one context per activation and reuses it: a new context of such a node is an activation's. */
	private readonly contexts = new WeakSet<object>();
	private readonly reusing = new Set<string>();
	private readonly polling = new Set<string>();

	constructor(private readonly budget = MEMORY_BUDGET_ENTRIES) {}

	/** Whether `context` polls for `node` for the first time, and whether its contexts were seen reused (the default poller). */
	firstPollOf(context: object, node: string): { first: boolean; reused: boolean } {
		const first = !this.contexts.has(context);
		if (first) this.contexts.add(context);
		else this.reusing.add(node);
		return { first, reused: this.reusing.has(node) };
	}

	/** Runs `poll` unless a poll of `node` is in progress (then: null, nothing read or written). */
	async alone<T>(node: string, poll: () => Promise<T>): Promise<T | null> {
		if (this.polling.has(node)) return null;
		this.polling.add(node);
		try {
			return await poll();
		} finally {
			this.polling.delete(node);
		}
	}

	/** How a poll of `node` carries on from `saved` in `staticData`, given the last activation and write mark (global static data). */
	carryOn(
		node: string,
		saved: PollRecord | undefined,
		staticData: object,
		activated?: number,
		mark?: unknown,
	): Carried {
		const carried = this.follow(node, saved, staticData, mark);
		const run = carried.record?.run ?? carried.run ?? 0;
		// A newer activation than any data the poll has: its poll was not saved, and its baseline is lost.
		if (activated !== undefined && activated > run)
			return { fresh: true, run: activated, wholeHistory: false, ...unproven };
		return carried;
	}

	private follow(node: string, saved: PollRecord | undefined, staticData: object, mark: unknown): Carried {
		const mine = this.remembered.get(node);
		// A restart (or this node forgotten): the saved data, whole if every poll is saved.
		const proven = saved?.everyPollSaved === true;
		const restart = { record: saved, wholeHistory: proven, everyPollSaved: proven };
		if (!mine) return restart;
		const last = mine.record;
		if (saved && last && writeOf(saved) === writeOf(last)) {
			// Its last write came back in a fresh copy: saved. A quiet poll's, saved without its global mark, proves every poll is.
			const fresh = !this.writtenInto.has(staticData);
			const everyPollSaved = fresh && ((last.quiet && mark !== markOf(last)) || saved.everyPollSaved);
			return { record: saved, wholeHistory: true, everyPollSaved };
		}
		// Neither its write nor what its writes follow: another main wrote since, so its memory is older (as after a restart).
		const ours =
			last !== undefined && saved?.by === this.writer && saved.born === last.born && saved.polls < last.polls;
		if (saved && !ours && writeOf(saved) !== mine.base) {
			this.forget(node);
			return restart;
		}
		// A run this process started (an activation) and has not written yet: nothing saved is of it.
		if (!last) return { adopt: mine.data, run: mine.run, wholeHistory: true, ...unproven };
		// Its last write emitted and was not saved: n8n dropped that poll and its items (2.x's scheduler:
		// a poll past its timeout or its lease, a failed commit; n8n then means the next poll to read the
		// same window again). Carry on from what that poll started from, so its events are found again.
		if (mine.from) return { adopt: mine.from.data, record: mine.from.record, run: mine.run, wholeHistory: true, ...unproven };
		// Its write was not saved: carry on from it. If only polls that threw were lost (never saved), what the record proved holds.
		const thrownOnly = saved !== undefined && mine.kept !== undefined && writeOf(saved) === writeOf(mine.kept);
		const everyPollSaved = thrownOnly && saved.everyPollSaved;
		return { adopt: mine.data, record: last, wholeHistory: true, everyPollSaved };
	}

	/** This process wrote `data` for `node`, following `followed`, given `given` by n8n; the poll then threw (`threw`). */
	rememberWritten(
		node: string,
		staticData: object,
		data: NodeData & { pollRecord: PollRecord },
		{
			threw = false,
			followed,
			given,
			dropped,
			from,
		}: { threw?: boolean; followed?: PollRecord; given?: PollRecord; dropped?: string; from?: NodeData } = {},
	): void {
		const mine = this.remembered.get(node);
		const kept = !threw ? data.pollRecord : mine?.record ? mine.kept : followed;
		const record = data.pollRecord;
		// What n8n gave, also where this poll started anew from it: n8n giving it again is no other main's write.
		const base = mine ? mine.base : given && writeOf(given);
		const emitted = isRecord(data.state) && data.state.last === 'emitted';
		this.remember(node, { run: record.run, record, kept, data: { ...data }, dropped, base, ...(emitted && from ? { from: { record: followed, data: from } } : {}) });
		this.writtenInto.add(staticData);
	}

	/** A damaged record's digest, and whether it is news: where no quiet poll is saved it comes back at every poll (one warning). */
	damagedRecord(node: string, saved: unknown): { digest: string; news: boolean } {
		const seen = digest(JSON.stringify(saved) ?? '', 16);
		return { digest: seen, news: this.remembered.get(node)?.dropped !== seen };
	}

	/** A user's activation of `node`: a new run, one more than any seen (saved, remembered, the last activation's). */
	startRun(node: string, staticData: NodeData, activated = 0): number {
		const mine = this.remembered.get(node);
		const saved = readPollRecord(staticData.pollRecord).state;
		const run = Math.max(saved?.run ?? 0, mine?.run ?? 0, activated) + 1;
		this.remember(node, { run, data: {}, base: saved && writeOf(saved) });
		return run;
	}

	private forget(node: string): void {
		this.size -= this.remembered.get(node)?.size ?? 0;
		this.remembered.delete(node);
	}

	private remember(node: string, entry: Remembered): void {
		const dropped = entry.dropped ?? this.remembered.get(node)?.dropped;
		this.forget(node);
		const size = sizeOf(entry.data);
		this.remembered.set(node, { ...entry, dropped, size });
		this.size += size;
		for (const oldest of this.remembered.keys()) {
			if (this.size <= this.budget || oldest === node) return;
			this.forget(oldest);
		}
	}
}
