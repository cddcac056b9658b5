/**
 * One poll, for one subject or a thousand: open the store once (store.ts: the state and how far to
 * trust it), read the entries that fit (pollPlan.ts) through one request scheduler, compare each as
 * it arrives, emit what changed or report failures (failures.ts), and commit once. An entry's
 * state moves only past what is emitted or held (beyond the cap); a failed read leaves it. A poll
 * emits or throws: a report due from earlier polls is thrown by the next poll before it reads,
 * never by two in a row.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { PollBudgetError } from '../shared/core/errors';
import { maskBankDetails } from '../shared/core/masking';
import type { ListingSize } from '../shared/endpoints/beneficiaries';
import { toNodeError } from '../shared/errorMapping';
import { ApiSession } from '../shared/transport/session';
import { MAX_EVENTS_PER_POLL, pairedRemoval } from './beneficiaryDiff';
import { nodeName, openStore, warn } from './store';
import {
	activationError,
	backoffProblem,
	endedUnreported,
	failureAfter,
	reportError,
	dueStage,
	told,
	waitsOut,
	type Pending,
} from './failures';
import type { PollMemory } from './pollMemory';
import { dueOrder, readWithinBudget, typicalPages } from './pollPlan';
import { changeEvent, type TriggerEvent } from './events';
import { watchOf, type Watch } from './watch';
import type { WatchedEntry } from './watchedEntry';
import {
	MAX_HELD_EVENTS,
	emptyState,
	type EndedFailure,
	type EntryRecord,
	type HeldEvent,
	type WatchState,
} from './watchState';

/** Requests of a poll at once: one paced, rate-limit aware stream for every entry. */
export const POLL_WIDTH = 8;
/**
 * The longest entries read side by side take: half of n8n's shortest poll interval (a minute), so
 * that a poll ends well before the next is due; n8n 2.x's poll budget when it is shorter.
 */
export const SHARED_BUDGET_MS = 30_000;
/** An entry with the poll to itself, and the activation poll, where n8n gives no budget: n8n-core's own default. */
const SOLO_BUDGET_MS = 5 * 60_000;

export async function pollTrigger(fn: IPollFunctions, memory: PollMemory): Promise<INodeExecutionData[][] | null> {
	try {
		const session = await ApiSession.open(fn, POLL_WIDTH);
		const watch = watchOf(fn, session);
		if (fn.getMode() === 'manual') {
			// "Fetch Test Event": a small sample of real current data; the saved state is not touched.
			const items = await watch.entries[0].sample(session);
			return items.length > 0 ? [items.map((json) => ({ json }))] : null;
		}
		// One poll of a node at a time: a cron tick that comes while one still runs does nothing.
		return await memory.alone(nodeName(fn), async () => await pollWatch(fn, memory, session, watch));
	} catch (error) {
		// Nothing from a failed poll is emitted; the next successful poll emits what this one missed.
		throw toNodeError(fn.getNode(), error, 0);
	}
}

async function pollWatch(fn: IPollFunctions, memory: PollMemory, session: ApiSession, watch: Watch) {
	const { loaded, commit } = openStore(fn, memory, watch);
	const one = watch.many ? undefined : watch.entries[0];
	const now = Date.now();
	const before = loaded.state;
	const turn = before.turn + 1;
	const byKey = new Map(watch.entries.map((entry) => [entry.key, entry]));
	// Entries no longer watched are dropped with what they held; new ones start without a state (their baseline).
	const entries: Record<string, EntryRecord> = {};
	const ended: Record<string, EndedFailure> = {};
	const saved = new Map<string, unknown>();
	for (const entry of watch.entries) {
		const record: EntryRecord = { ...(before.entries[entry.key] ?? { readAt: 0 }) };
		// A state that may lack a finding a lost write held (a re-armed alert) stays in doubt until read.
		if (!loaded.whole) record.doubt = true;
		entries[entry.key] = record;
		if (before.ended[entry.key]) ended[entry.key] = before.ended[entry.key];
		const own = record.state === undefined ? {} : entry.readState(record.state);
		const named = (problem: string) => (one ? problem : `${entry.label}: ${problem}`);
		if (own.problem) warn(fn, named(own.problem), 'its entry records a fresh baseline and reports no change');
		saved.set(entry.key, own.state);
		// A back-off the API could not have asked for (edited, a clock stepped back): dropped with its episode, asked at once.
		const damage = record.failure && backoffProblem(record.failure, now);
		if (damage) warn(fn, named(damage), 'the back-off is started anew and this poll asks at once');
		if (damage) delete record.failure;
	}
	// Events held back before a deactivation were found while active: they follow (for entries still watched).
	// Held events as the events picked now have them: one no longer picked is not emitted (the state
	// moved past it); a change held as Bank Details Changed is a Beneficiary Changed without it.
	const asPicked = ({ key, json }: HeldEvent): HeldEvent[] => {
		const changed = json.changes ? Object.keys(json.changes) : undefined;
		const event = changed ? changeEvent(changed, watch.events) : (json.event as TriggerEvent);
		return byKey.has(key) && event && watch.events.has(event) ? [{ key, json: { ...json, event } }] : [];
	};
	const held = [...loaded.setAside, ...before.held].flatMap(asPicked);
	const pendingOf = (live?: Map<string, unknown>): Pending[] =>
		watch.entries.flatMap(({ key, label, where }) => {
			const failure = entries[key].failure;
			const going = dueStage(failure) ? failure : undefined;
			return going || ended[key] ? [{ label, where, failure: going, ended: ended[key], error: live?.get(key) }] : [];
		});
	/** Writes the state after this poll; a report marks every episode reported and throws. */
	const finish = (queue: HeldEvent[], emitted: HeldEvent[], report?: Pending[], pace = before.pace) => {
		for (const record of report ? Object.values(entries) : []) {
			if (record.failure) record.failure = told(record.failure);
		}
		const last = report ? 'reported' : emitted.length > 0 ? 'emitted' : 'quiet';
		const held = queue.slice(emitted.length);
		const state: WatchState = { ...emptyState(watch.family), turn, entries, held, ended: report ? {} : ended, last };
		if (pace) state.pace = pace;
		commit(state);
		if (report) throw reportError(report, watch.entries.length, now);
		return emitted.length > 0 ? [emitted.map(({ json }) => ({ json }))] : null;
	};
	// Reports due from earlier polls go first, by a poll that reads nothing: no n8n setup saves a poll
	// that throws, so what it read would be lost to a restart. Never two such polls in a row.
	const dueReports = pendingOf();
	if (dueReports.length > 0 && loaded.mayReport && before.last !== 'reported') return finish(held, [], dueReports);

	const due = dueOrder(
		watch.entries.map((entry) => entry.key),
		(key) => entries[key].readAt,
		(key) => waitsOut(entries[key].failure, now),
	);
	const observed = new Map<string, ListingSize>();
	const typical = typicalPages(Object.values(entries).flatMap(({ pages }) => (pages === undefined ? [] : [pages])));
	const n8nBudgetMs = (fn as Partial<{ getPollBudgetMs: () => number }>).getPollBudgetMs?.();
	const reads = await readWithinBudget(
		due.map((key) => (byKey.get(key) as WatchedEntry).cost(entries[key], POLL_WIDTH, typical)),
		{
			width: POLL_WIDTH,
			pace: before.pace,
			sharedBudgetMs: Math.min(SHARED_BUDGET_MS, n8nBudgetMs ?? Number.POSITIVE_INFINITY),
			soloBudgetMs: n8nBudgetMs ?? SOLO_BUDGET_MS,
			readAll: loaded.activating,
			now: () => performance.now(),
			deadline: (ms) => AbortSignal.timeout(ms),
			measured: () => ({ ...session.scheduler.stats, width: session.scheduler.currentWidth }),
		},
		async (key, signal, priority) => {
			const entry = byKey.get(key) as WatchedEntry;
			const size: ListingSize = {};
			observed.set(key, size);
			const value = await entry.read(session, { signal, priority }, size);
			// Compared as it arrives, while other requests are out; the cap is applied below, in the set's order.
			const sure = !entries[key].doubt;
			return { value, sure, compared: entry.compare(saved.get(key), value, Number.POSITIVE_INFINITY, sure) };
		},
	);
	const tooLarge = (key: string) => {
		const size = observed.get(key);
		return new PollBudgetError(size?.totalCount, size?.totalPageNumber, reads.budgetMs);
	};
	if (loaded.activating) {
		const missing = watch.entries.filter((entry) => reads.outcomes.get(entry.key)?.ok !== true);
		if (missing.length > 0) {
			const failed = missing.map(({ key, label, where }) => {
				const outcome = reads.outcomes.get(key);
				return { label, where, error: outcome && !outcome.ok ? outcome.error : one ? tooLarge(key) : undefined };
			});
			throw activationError(failed, watch.entries.length, reads.budgetMs);
		}
	}

	const live = new Map<string, unknown>();
	type Read = { value: unknown; sure: boolean; compared: ReturnType<WatchedEntry['compare']> };
	const found: Array<Read & { entry: WatchedEntry }> = [];
	for (const entry of watch.entries) {
		const record = entries[entry.key];
		const pages = observed.get(entry.key)?.totalPageNumber;
		if (pages !== undefined) record.pages = pages;
		const outcome =
			reads.tooLarge === entry.key ? { ok: false as const, error: tooLarge(entry.key) } : reads.outcomes.get(entry.key);
		if (!outcome) continue;
		record.readAt = turn;
		if (outcome.ok) {
			const left = endedUnreported(record.failure, ended[entry.key], now);
			if (left) ended[entry.key] = left;
			delete record.failure;
			delete record.doubt;
			found.push({ entry, ...outcome.value });
		} else {
			record.failure = failureAfter(record.failure, outcome.error, entry.key, now);
			live.set(entry.key, outcome.error);
		}
	}

	// Events in the order found (held ones first), the state moving past each: at most the cap now,
	// the rest held as found, their bank details masked (the state never keeps them whole); what does
	// not fit in the held queue either stays in its entry's list.
	// One place fewer than the queue holds: the cut may move back by one (a bank change never parted).
	let room = MAX_EVENTS_PER_POLL - 1 + MAX_HELD_EVENTS - held.length;
	const queue: HeldEvent[] = [...held];
	for (const { entry, value, sure, compared } of found) {
		const record = entries[entry.key];
		const { events, next } =
			compared.events.length <= room ? compared : entry.compare(saved.get(entry.key), value, room, sure);
		room -= events.length;
		if (next === undefined) delete record.state;
		else record.state = next;
		record.held = compared.held;
		queue.push(...events.map((json) => ({ key: entry.key, json })));
	}
	// A poll without events reports what it found at once: its reads still moved their entries (a
	// baseline, a quota's move), which this process carries on. Unless every poll is saved here and
	// it moved a state or started a back-off (a report is never saved): then the next poll reports,
	// reading nothing, and a restart loses neither.
	const pending = pendingOf(live);
	const backingOff = [...live.keys()].some((key) => waitsOut(entries[key].failure, now));
	const keep = loaded.everyPollSaved && (backingOff || found.some(({ compared }) => compared.moved()));
	if (pending.length > 0 && loaded.mayReport && queue.length === 0 && !keep) {
		return finish(held, [], pending, reads.pace);
	}
	// The cap never parts a bank change without a reference ID (an Added and its Removed, side by side).
	const [last, next] = [queue[MAX_EVENTS_PER_POLL - 1], queue[MAX_EVENTS_PER_POLL]];
	const cut = MAX_EVENTS_PER_POLL - (next && pairedRemoval(last, next) ? 1 : 0);
	const emitted = queue.slice(0, cut);
	const stay = queue
		.slice(cut)
		.map((event, i) => (i + cut < held.length ? event : { ...event, json: maskBankDetails(event.json) }));
	return finish([...emitted, ...stay], emitted, undefined, reads.outcomes.size > 0 ? reads.pace : before.pace);
}
