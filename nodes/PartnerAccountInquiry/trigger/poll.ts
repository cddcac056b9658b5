/** One poll, for one subject or a thousand: open the store once, run the phases (pollPhases.ts), emit every event found or report failures, commit once. */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { aboutAccount, PollBudgetError } from '../shared/core/errors';
import type { ListingSize } from '../shared/endpoints/beneficiaries';
import { toNodeError } from '../shared/errorMapping';
import { ApiSession } from '../shared/transport/session';
import { activationError, reportError, type Pending } from './failureReports';
import { waitsOut } from './failures';
import type { PollMemory } from './pollMemory';
import { pending, plan, settle, stateAfter, type PollData } from './pollPhases';
import {
	dueOrder,
	N8N_DEFAULT_POLL_BUDGET_MS,
	POLL_WIDTH,
	readWithinBudget,
	SHARED_BUDGET_MS,
	typicalPages,
} from './pollPlan';
import { nodeName, openStore, warn } from './store';
import { SAMPLE_ENTRIES, watchOf, type Watch } from './watch';
import type { Compared, WatchedEntry } from './watchedEntry';
import type { WatchState } from './watchState';

export async function pollTrigger(fn: IPollFunctions, memory: PollMemory): Promise<INodeExecutionData[][] | null> {
	try {
		const session = await ApiSession.open(fn, POLL_WIDTH);
		const watch = watchOf(fn, session);
		if (fn.getMode() === 'manual') {
			// "Fetch Test Event": one current item of each of the first entries; the saved state is not touched.
			const samples = await Promise.all(
				watch.entries.slice(0, SAMPLE_ENTRIES).map(async (entry) => {
					try {
						return await entry.sample(session);
					} catch (error) {
						throw aboutAccount(error, entry.label);
					}
				}),
			);
			const items = samples.flat();
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
	const now = Date.now();
	const before = loaded.state;
	const data = plan(before, loaded.wholeHistory, watch, now, (problem, outcome) => warn(fn, problem, outcome));
	const finish = (events: IDataObject[], report?: Pending[], pace = before.pace) => {
		commit(stateAfter(data, watch, { emitted: events.length, reported: report !== undefined, pace }));
		if (report) throw reportError(report, watch.entries.length, now);
		return events.length > 0 ? [events.map((json) => ({ json }))] : null;
	};
	// Reports due from earlier polls go first, by a poll that reads nothing: no n8n setup saves a poll
	// that throws, so what it read would be lost to a restart. Never two such polls in a row.
	const dueReports = pending(data, watch);
	if (dueReports.length > 0 && loaded.mayReport && before.last !== 'reported') return finish([], dueReports);

	const { reads, observed, endedAt } = await readDue(fn, session, watch, data, loaded, now);
	const tooLarge = (key: string) => {
		const size = observed.get(key);
		return new PollBudgetError(size?.totalCount, size?.totalPageNumber, reads.budgetMs);
	};
	if (loaded.activating) {
		const missing = watch.entries.filter((entry) => reads.outcomes.get(entry.key)?.ok !== true);
		if (missing.length > 0) {
			const failed = missing.map(({ key, label, where }) => {
				const outcome = reads.outcomes.get(key);
				return { label, where, error: outcome && !outcome.ok ? outcome.error : watch.many ? undefined : tooLarge(key) };
			});
			throw activationError(failed, watch.entries.length, reads.budgetMs);
		}
	}
	const pages = (key: string) => observed.get(key)?.totalPageNumber;
	const { found, events, live } = settle(data, watch, reads, tooLarge, pages, (key) => endedAt.get(key) ?? now);
	// A poll without events reports at once, unless every poll is saved here and it moved a state or
	// started a back-off (a report is never saved): then the next poll reports, and a restart loses neither.
	const report = pending(data, watch, live);
	const backingOff = [...live.keys()].some((key) => waitsOut(data.entries[key].failure, now));
	const keep = loaded.everyPollSaved && (backingOff || found.some((compared) => compared.moved()));
	if (report.length > 0 && loaded.mayReport && events.length === 0 && !keep) return finish([], report, reads.pace);
	return finish(events, undefined, reads.outcomes.size > 0 ? reads.pace : before.pace);
}

/** Read: the entries due (none waiting out a back-off), as many as fit in the budget, each compared as it arrives. */
async function readDue(
	fn: IPollFunctions,
	session: ApiSession,
	watch: Watch,
	data: PollData,
	loaded: { state: WatchState; activating: boolean },
	now: number,
) {
	const byKey = new Map(watch.entries.map((entry) => [entry.key, entry]));
	const { entries, saved } = data;
	const due = dueOrder(
		watch.entries.map((entry) => entry.key),
		(key) => entries[key].readAt,
		(key) => waitsOut(entries[key].failure, now),
	);
	const observed = new Map<string, ListingSize>();
	// When each read ended: a status U's wait runs from its answer, not from the poll's start.
	const endedAt = new Map<string, number>();
	const typical = typicalPages(Object.values(entries).flatMap(({ pages }) => (pages === undefined ? [] : [pages])));
	const n8nBudgetMs = (fn as Partial<{ getPollBudgetMs: () => number }>).getPollBudgetMs?.();
	const reads = await readWithinBudget<Compared>(
		due.map((key) => (byKey.get(key) as WatchedEntry).cost(entries[key], POLL_WIDTH, typical)),
		{
			width: POLL_WIDTH,
			pace: loaded.state.pace,
			sharedBudgetMs: Math.min(SHARED_BUDGET_MS, n8nBudgetMs ?? Number.POSITIVE_INFINITY),
			soloBudgetMs: n8nBudgetMs ?? N8N_DEFAULT_POLL_BUDGET_MS,
			readAll: loaded.activating,
			now: () => performance.now(),
			deadline: (ms) => AbortSignal.timeout(ms),
			measured: () => ({ ...session.scheduler.stats, width: session.scheduler.currentWidth }),
		},
		async (key, signal, priority) => {
			const entry = byKey.get(key) as WatchedEntry;
			const size: ListingSize = {};
			observed.set(key, size);
			try {
				const value = await entry.read(session, { signal, priority }, size);
				return entry.compare(saved.get(key), value, !entries[key].doubt);
			} finally {
				endedAt.set(key, Date.now());
			}
		},
	);
	return { reads, observed, endedAt };
}
