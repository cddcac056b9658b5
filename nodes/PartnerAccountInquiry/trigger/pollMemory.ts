/**
 * What a poll knows of the polls before it, beyond the static data it was given. Framework-free.
 *
 * n8n does not save every poll's static data, and which ones depends on the setup: the default
 * poller saves a poll that emits and the one it runs at activation; 2.x's poll scheduler gives each
 * poll a fresh copy of what was saved and saves a poll that emits, and its durable cursors every
 * poll but one that throws and an activation's that emits nothing. The node does not ask n8n which;
 * it looks at what comes back:
 *
 * - Every poll that writes leaves a record beside its state: its run of states (`born`, and `run`:
 *   which activation of the node), how many polls wrote it, whether the poll emitted nothing
 *   (`quiet`) and whether it was the poll n8n runs at an activation or a start (`activation`).
 * - This process remembers the last data it wrote per trigger node. A poll given older data than
 *   that (a poll n8n did not save) carries on from the remembered data, and its own write saves it
 *   where n8n saves this poll. Only an n8n restart (or another main, or the memory bound) loses it.
 * - Between two runs the higher `run` wins: an activation counts one more than any run the node
 *   saw, so a run a deactivation left behind never overrides a newer activation, whatever the clock.
 * - An activation writes its run to the workflow's global static data too, which n8n's activator
 *   saves on every setup: a poll whose data is of an older run knows the activation's poll was not
 *   saved (durable cursors: a testing poll) and takes a fresh baseline, as the activation did.
 * - The write of a quiet poll that was no activation's, come back in a fresh copy, proves that
 *   every poll is saved here (an activation's poll proves nothing: every setup saves it, or none).
 *   The record says so (`everyPollSaved`), across restarts too, until a write is seen lost. The
 *   state holds every earlier poll's finding (`whole`, which quotaState.ts needs to alert exactly
 *   once) when it is the last this process wrote, or after a restart when its record says so.
 */
import { createHash, randomBytes } from 'node:crypto';

import { isRecord, type StateReading } from './savedState';

export const POLL_RECORD_VERSION = 1;

export interface PollRecord {
	version: typeof POLL_RECORD_VERSION;
	/** Random, made when a node's data starts anew (an activation): names this run of writes. */
	born: string;
	/** Which activation of the node this run is (records written before it had none: read as 0). */
	run: number;
	/** The polls that wrote this run so far. */
	polls: number;
	/** When the last of them wrote (epoch ms; informational: no decision reads the clock). */
	at: number;
	/** Whether it emitted nothing (records written before it had none: read as false). */
	quiet: boolean;
	/** Whether a quiet poll's write was seen saved, with no write lost since (none: false). */
	everyPollSaved: boolean;
	/** Written by the poll n8n runs at an activation or a start (none: false). */
	activation?: boolean;
}

/**
 * The node's static data this module carries: the state and the record (and what 0.1.0 and 0.2.0
 * kept beside one subject's state, dropped once carried into it: watchState.ts).
 */
export const NODE_DATA_KEYS = ['state', 'pollRecord', 'unknownBackoff', 'listUnsettled'] as const;
export type NodeData = Partial<Record<(typeof NODE_DATA_KEYS)[number], unknown>>;

/** More polls than a run can count (one a second for 34,000 years): a record claiming more is damage. */
const MAX_POLLS = 2 ** 40;
const whole = (n: unknown, max = Number.MAX_SAFE_INTEGER): n is number =>
	typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= max;

/** The saved poll record; none is what a release before it saved (carried on, as not known to be whole). */
export function readPollRecord(saved: unknown): StateReading<PollRecord> {
	if (saved === undefined || saved === null) return {};
	if (
		!isRecord(saved) ||
		saved.version !== POLL_RECORD_VERSION ||
		typeof saved.born !== 'string' ||
		!whole(saved.polls, MAX_POLLS) ||
		saved.polls < 1 ||
		!(saved.run === undefined || whole(saved.run, MAX_POLLS)) ||
		!whole(saved.at) ||
		!(saved.quiet === undefined || typeof saved.quiet === 'boolean') ||
		!(saved.everyPollSaved === undefined || typeof saved.everyPollSaved === 'boolean') ||
		!(saved.activation === undefined || typeof saved.activation === 'boolean')
	) {
		return { problem: 'its poll record is not of the expected shape' };
	}
	const { born, polls, at } = saved;
	const run = (saved.run as number | undefined) ?? 0;
	const [quiet, everyPollSaved] = [saved.quiet === true, saved.everyPollSaved === true];
	const activation = saved.activation === true ? { activation: true } : {};
	return { state: { version: POLL_RECORD_VERSION, born, run, polls, at, quiet, everyPollSaved, ...activation } };
}

/** The key of the workflow's global static data that holds, per trigger node ID, its last activation's run. */
export const ACTIVATION_RUNS_KEY = 'partnerAccountInquiryRuns';

/** The run of the node's last activation, as the workflow's global static data holds it (none: undefined). */
export function activationRun(global: Record<string, unknown>, nodeId: string): number | undefined {
	const runs = global[ACTIVATION_RUNS_KEY];
	const run = isRecord(runs) ? runs[nodeId] : undefined;
	// Below the bound, so that the next activation's run (one more) is still one a record may hold.
	return whole(run, MAX_POLLS - 1) ? run : undefined;
}

/** Writes an activation's run for the node (one assignment of the key: n8n sees a write inside it only so). */
export function recordActivation(global: Record<string, unknown>, nodeId: string, run: number): void {
	const runs = global[ACTIVATION_RUNS_KEY];
	global[ACTIVATION_RUNS_KEY] = { ...(isRecord(runs) ? runs : {}), [nodeId]: run };
}

/**
 * Trigger node -> what this process last wrote for it (or, `record` absent, the run it has just
 * started). Bounded by bytes, the least recently written first: a state larger than
 * SHED_STATE_CHARS loses its state first (the record is kept), then whole entries go; a node
 * forgotten so carries on at its next poll as after a restart. 64 MiB hold about 200,000 quota
 * triggers, or 30 triggers of 10,000 beneficiaries beside thousands of quota triggers.
 */
interface Remembered {
	run: number;
	record?: PollRecord;
	data: NodeData;
	/** Its state was dropped for memory: carry on from the saved state, as after a restart. */
	shed: boolean;
	/** Its size in characters of JSON (an estimate of its bytes), plus the entry's own. */
	chars: number;
	/** The digest of a damaged poll record this process dropped for the node (one warning, not one a poll). */
	dropped?: string;
}

export interface Carried {
	/** The data to carry on from instead of what the poll was given (which is older), or undefined. */
	adopt?: NodeData;
	/** With `adopt`: keep the state the poll was given (the remembered one was dropped for memory). */
	keepState?: boolean;
	/** The node's last activation was not saved: take a fresh baseline (drop the data given) in run `run`. */
	fresh?: boolean;
	/** The record this poll follows (undefined: none, start a new run). */
	record?: PollRecord;
	/** With no record: the run to start. */
	run?: number;
	/** Whether the state carried on from holds every earlier poll's finding. */
	whole: boolean;
	/** What this poll's record says of it. */
	everyPollSaved: boolean;
}

const MEMORY_BUDGET_CHARS = 64 * 2 ** 20;
const SHED_STATE_CHARS = 4_096;
const ENTRY_CHARS = 300;
const sizeOf = (data: NodeData): number => ENTRY_CHARS + (JSON.stringify(data)?.length ?? 0);
const unproven = { everyPollSaved: false };

/**
 * What one n8n process remembers of the trigger nodes it polls: an object of the node type, which
 * n8n makes once per process (an n8n restart, or a test that plays one, makes a new one).
 */
export class PollMemory {
	private readonly remembered = new Map<string, Remembered>();
	private rememberedChars = 0;
	/** The static data objects this process wrote into: a poll given one of them was not given a fresh copy. */
	private readonly writtenInto = new WeakSet<object>();
	/** Poll contexts seen: n8n's default poller makes one per activation and reuses it for every poll of it. */
	private readonly contexts = new WeakSet<object>();

	constructor(private readonly budgetChars = MEMORY_BUDGET_CHARS) {}

	/** Whether `context` polls for the first time (its first poll is its activation's or n8n's start's). */
	firstPollOf(context: object): boolean {
		if (this.contexts.has(context)) return false;
		this.contexts.add(context);
		return true;
	}

	/**
	 * How a poll of `node` (workflow and node IDs) carries on, given the record in its static data
	 * (`staticData`, the object n8n gave it) and the run of the node's last activation in the
	 * workflow's global static data (`activated`; none: a release before it, or a damaged record).
	 */
	carryOn(node: string, saved: PollRecord | undefined, staticData: object, activated?: number): Carried {
		const carried = this.follow(node, saved, staticData);
		const run = carried.record?.run ?? carried.run ?? 0;
		// A newer activation than any data the poll has: its poll was not saved, and its baseline is lost.
		if (activated !== undefined && activated > run) return { fresh: true, run: activated, whole: false, ...unproven };
		return carried;
	}

	private follow(node: string, saved: PollRecord | undefined, staticData: object): Carried {
		const mine = this.remembered.get(node);
		// An n8n restart (or this node forgotten for memory): the saved data, whole if its record says every
		// poll is saved (which a restart does not change).
		const proven = saved?.everyPollSaved === true;
		if (!mine) return { record: saved, whole: proven, everyPollSaved: proven };
		const last = mine.record;
		// A run this process started (an activation) and has not written yet: nothing saved is of it.
		if (!last) return { adopt: mine.data, run: mine.run, whole: true, ...unproven };
		if (saved?.born === last.born) {
			if (saved.polls === last.polls) {
				// The last write of this process came back, in a copy of its own (not the object it wrote
				// into): it was saved. A quiet poll's (not an activation's) proves every poll is saved here.
				const fresh = !this.writtenInto.has(staticData);
				const everyPollSaved = fresh && ((last.quiet && !last.activation) || saved.everyPollSaved);
				return { record: saved, whole: true, everyPollSaved };
			}
			// Written since by another process (another main): carry on from it.
			if (saved.polls > last.polls) return { record: saved, whole: false, ...unproven };
		} else if (saved && saved.run >= last.run) {
			// Another run, at least as new, that this process did not write: another process's activation.
			return { record: saved, whole: false, ...unproven };
		}
		// A write of this process was not saved (or an older run's data is what n8n gave): carry on from it.
		return { adopt: mine.data, keepState: mine.shed, record: last, whole: !mine.shed, ...unproven };
	}

	/**
	 * This process wrote `data` (its record included) into `staticData` for `node`, carrying on as
	 * `carried`, having dropped the damaged record `dropped` (a digest).
	 */
	rememberWritten(
		node: string,
		staticData: object,
		carried: Carried,
		data: NodeData & { pollRecord: PollRecord },
		dropped?: string,
	): void {
		this.remember(node, { run: data.pollRecord.run, record: data.pollRecord, data: { ...data }, shed: false, dropped });
		this.writtenInto.add(staticData);
	}

	/**
	 * The digest of a damaged poll record, and whether this process has not dropped it for `node`
	 * already: where n8n saves no quiet poll, the damaged copy comes back at every poll, and is
	 * dropped at every poll, with one warning.
	 */
	damagedRecord(node: string, saved: unknown): { digest: string; news: boolean } {
		const digest = createHash('sha256')
			.update(JSON.stringify(saved) ?? '')
			.digest('base64url');
		return { digest, news: this.remembered.get(node)?.dropped !== digest };
	}

	/**
	 * A user's activation of `node`, whose static data held `previous` as its poll record: what this
	 * process wrote before is no state to carry on from, and the new run (returned, for
	 * recordActivation) counts one more than any run seen (the saved one, the one remembered, the
	 * last activation's in the global static data, `activated`).
	 */
	startRun(node: string, previous: unknown, activated = 0): number {
		const mine = this.remembered.get(node);
		const run = Math.max(readPollRecord(previous).state?.run ?? 0, mine?.run ?? 0, activated) + 1;
		this.remember(node, { run, data: {}, shed: false });
		return run;
	}

	private forget(node: string): void {
		const entry = this.remembered.get(node);
		if (!entry) return;
		this.rememberedChars -= entry.chars;
		this.remembered.delete(node);
	}

	private remember(node: string, entry: Omit<Remembered, 'chars'>): void {
		const dropped = entry.dropped ?? this.remembered.get(node)?.dropped;
		this.forget(node);
		const chars = sizeOf(entry.data);
		this.remembered.set(node, { ...entry, dropped, chars });
		this.rememberedChars += chars;
		for (const pass of ['shed', 'drop'] as const) {
			for (const [key, other] of this.remembered) {
				if (this.rememberedChars <= this.budgetChars) return;
				if (key === node) continue;
				if (pass === 'drop') this.forget(key);
				else if (!other.shed && other.data.state !== undefined && other.chars > SHED_STATE_CHARS) {
					const data = { ...other.data, state: undefined };
					const less = sizeOf(data);
					this.rememberedChars -= other.chars - less;
					this.remembered.set(key, { ...other, data, shed: true, chars: less });
				}
			}
		}
	}
}

/** The record of a poll that writes after `carried`: whether it emitted nothing, and was an activation's. */
export function nextRecord(carried: Carried, quiet: boolean, nowMs: number, activation = false): PollRecord {
	const previous = carried.record;
	const run = previous ? previous.run + (previous.polls >= MAX_POLLS ? 1 : 0) : (carried.run ?? 1);
	const carries = previous !== undefined && run === previous.run;
	return {
		version: POLL_RECORD_VERSION,
		born: carries ? previous.born : randomBytes(9).toString('base64url'),
		run,
		polls: carries ? previous.polls + 1 : 1,
		at: nowMs,
		quiet,
		everyPollSaved: carries && carried.everyPollSaved,
		...(activation ? { activation } : {}),
	};
}
