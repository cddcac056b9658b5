/**
 * What a poll knows of the polls before it, beyond the static data n8n gave it (framework-free).
 * n8n saves some polls and not others, by setup (docs/internals.md, Restarts): this process
 * remembers what it last wrote per node (pollRecord.ts: what each write leaves) and carries on from
 * it when given an older copy; a quiet poll's write come back fresh without its global mark proves
 * every poll is saved, and then the state holds every earlier poll's finding (`wholeHistory`).
 */
import { randomBytes } from 'node:crypto';

import { markOf, readPollRecord, writeOf, type PollRecord } from './pollRecord';
import { digest } from './savedState';

/** The node's static data this process carries: the state and the poll record. */
export const NODE_DATA_KEYS = ['state', 'pollRecord'] as const;
export type NodeData = Partial<Record<(typeof NODE_DATA_KEYS)[number], unknown>>;

/** What this process last wrote for a node (`record` absent: the run it has just started). */
interface Remembered {
	run: number;
	record?: PollRecord;
	data: NodeData;
	/** The digest of a damaged poll record this process dropped for the node (one warning, not one a poll). */
	dropped?: string;
	/** The record of its last write in a poll that did not throw (n8n's copy may come back from it). */
	kept?: PollRecord;
	/** The write (writeOf) of another process, or before the run's activation, that this process's writes carry on from. */
	base?: string;
}

export interface Carried {
	/** The data to carry on from instead of what the poll was given (which is older), or undefined. */
	adopt?: NodeData;
	/** The node's last activation was not saved: take a fresh baseline (drop the data given) in run `run`. */
	fresh?: boolean;
	/** The record this poll follows (undefined: none, start a new run). */
	record?: PollRecord;
	/** With no record: the run to start. */
	run?: number;
	/** Whether the state carried on from holds every earlier poll's finding. */
	wholeHistory: boolean;
	/** What this poll's record says of it. */
	everyPollSaved: boolean;
}

/**
 * Trigger nodes remembered at most, the least recently written forgotten first (as after a
 * restart). A node's entry holds the state it last wrote: one more copy of what n8n holds of an
 * active workflow (the same object under n8n's default poller).
 */
const MAX_REMEMBERED_NODES = 1000;
const unproven = { everyPollSaved: false };

/** What one n8n process remembers of the trigger nodes it polls: made once per process, with the node type. */
export class PollMemory {
	/** This process, as its records name their writer: two mains may each write a run's n-th poll. */
	readonly writer = randomBytes(9).toString('base64url');
	private readonly remembered = new Map<string, Remembered>();
	/** The static data objects this process wrote into: a poll given one of them was not given a fresh copy. */
	private readonly writtenInto = new WeakSet<object>();
	/** Poll contexts seen: n8n's default poller makes one per activation and reuses it for every poll of it. */
	private readonly contexts = new WeakSet<object>();
	/** Nodes whose poll context was seen polling twice (the default poller): a new context of theirs is an activation's. */
	private readonly reusing = new Set<string>();
	/** Nodes with a poll in progress: a poll that overlaps it (a cron tick before it ended) does nothing. */
	private readonly polling = new Set<string>();

	constructor(private readonly maxNodes = MAX_REMEMBERED_NODES) {}

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

	/**
	 * How a poll of `node` carries on, given the record `saved` in `staticData` (the object n8n gave
	 * it), and from the global static data the node's last activation and the mark of its last write.
	 */
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
		// An n8n restart (or this node forgotten for memory: the same): the saved data, whole if its
		// record says every poll is saved (which a restart does not change).
		const proven = saved?.everyPollSaved === true;
		const restart = { record: saved, wholeHistory: proven, everyPollSaved: proven };
		if (!mine) return restart;
		const last = mine.record;
		if (saved && last && writeOf(saved) === writeOf(last)) {
			// The last write of this process came back, in a copy of its own (not the object it wrote
			// into): it was saved. A quiet poll's, saved without its global mark, proves every poll is.
			const fresh = !this.writtenInto.has(staticData);
			const everyPollSaved = fresh && ((last.quiet && mark !== markOf(last)) || saved.everyPollSaved);
			return { record: saved, wholeHistory: true, everyPollSaved };
		}
		// Neither one of this process's writes nor what they carry on from (what n8n had at its
		// activation, a refused one's too): another process wrote it since (another main, while it
		// led). What this process remembers is older: as after a restart.
		const ours =
			last !== undefined && saved?.by === this.writer && saved.born === last.born && saved.polls < last.polls;
		if (saved && !ours && writeOf(saved) !== mine.base) {
			this.remembered.delete(node);
			return restart;
		}
		// A run this process started (an activation) and has not written yet: nothing saved is of it.
		if (!last) return { adopt: mine.data, run: mine.run, wholeHistory: true, ...unproven };
		// A write of this process was not saved (or the data before its activation is what n8n gave):
		// carry on from it. Lost were only writes of polls that threw (no n8n setup saves one) when the
		// data given is the last write of a poll that did not: that keeps what its record proved.
		const thrownOnly = saved !== undefined && mine.kept !== undefined && writeOf(saved) === writeOf(mine.kept);
		const everyPollSaved = thrownOnly && saved.everyPollSaved;
		return { adopt: mine.data, record: last, wholeHistory: true, everyPollSaved };
	}

	/**
	 * This process wrote `data` (its record included) into `staticData` for `node`, following the
	 * record `followed` (none: a fresh start), given the record `given` in n8n's copy, in a poll that
	 * then threw (`threw`), having dropped the damaged record `dropped` (a digest).
	 */
	rememberWritten(
		node: string,
		staticData: object,
		data: NodeData & { pollRecord: PollRecord },
		{
			threw = false,
			followed,
			given,
			dropped,
		}: { threw?: boolean; followed?: PollRecord; given?: PollRecord; dropped?: string } = {},
	): void {
		const mine = this.remembered.get(node);
		const kept = !threw ? data.pollRecord : mine?.record ? mine.kept : followed;
		const record = data.pollRecord;
		// What n8n gave, also where this poll started anew from it: n8n giving it again is no other main's write.
		const base = mine ? mine.base : given && writeOf(given);
		this.remember(node, { run: record.run, record, kept, data: { ...data }, dropped, base });
		this.writtenInto.add(staticData);
	}

	/**
	 * The digest of a damaged poll record, and whether this process has not dropped it for `node`
	 * already: where n8n saves no quiet poll, the damaged copy comes back at every poll, and is
	 * dropped at every poll, with one warning.
	 */
	damagedRecord(node: string, saved: unknown): { digest: string; news: boolean } {
		const seen = digest(JSON.stringify(saved) ?? '', 16);
		return { digest: seen, news: this.remembered.get(node)?.dropped !== seen };
	}

	/**
	 * A user's activation of `node`, given `staticData` (n8n's copy): what this process wrote before is
	 * no state to carry on from. Returns the new run (for recordActivation), one more than any run
	 * seen (the saved one, the one remembered, the last activation's in the global static data).
	 */
	startRun(node: string, staticData: NodeData, activated = 0): number {
		const mine = this.remembered.get(node);
		const saved = readPollRecord(staticData.pollRecord).state;
		const run = Math.max(saved?.run ?? 0, mine?.run ?? 0, activated) + 1;
		this.remember(node, { run, data: {}, base: saved && writeOf(saved) });
		return run;
	}

	/** Remembers `entry` as the node's newest; over the bound, the node least recently written is forgotten. */
	private remember(node: string, entry: Remembered): void {
		const dropped = entry.dropped ?? this.remembered.get(node)?.dropped;
		this.remembered.delete(node);
		this.remembered.set(node, { ...entry, dropped });
		const [oldest] = this.remembered.keys();
		if (this.remembered.size > this.maxNodes) this.remembered.delete(oldest);
	}
}
