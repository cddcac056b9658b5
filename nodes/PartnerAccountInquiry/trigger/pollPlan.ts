/** Which entries a poll reads: least recently read first, while Graham's bound says each ends within the budget (docs/internals.md). */
import { REQUEST_WIDTH } from '../shared/core/flow/scheduler';
import { settle, type Settled } from '../shared/core/flow/settle';

/** Requests of a poll at once: one paced, rate-limit aware stream for every entry. */
export const POLL_WIDTH = REQUEST_WIDTH;
/** Half of n8n's shortest poll interval, so that a poll ends well before the next is due. */
export const SHARED_BUDGET_MS = 30_000;
/** n8n-core's poll budget where n8n sets none (1.x, the default poller, 2.x's activation polls). */
export const N8N_DEFAULT_POLL_BUDGET_MS = 5 * 60_000;
/** The share of a budget the estimate may plan for: the rest absorbs a slower answer or a retry. */
const PLANNED_SHARE = 0.8;
/** Entries in progress at once at most (memory: one list each). */
const MAX_IN_PROGRESS_PER_SLOT = 4;
export const FIRST_ROUND_TRIP_MS = 500;

/** Reading one entry: the requests it makes, and how many of them one after another (a list's first page first). */
export type EntryCost = { key: string; requests: number; steps: number };

/** How fast requests went (saved with the state for the next poll's first estimate). */
export type Pace = { roundTripMs: number; msPerRequest: number };

/** `soloBudgetMs`: of an entry with the poll to itself and of the activation poll (`readAll`); `deadline`: a virtual clock's in tests. */
export interface PlanOptions {
	width: number;
	pace?: Pace;
	sharedBudgetMs: number;
	soloBudgetMs: number;
	readAll: boolean;
	now: () => number;
	deadline: (ms: number) => AbortSignal;
	measured: () => { timed: number; timedMs: number; width: number };
}

/** Each entry read to its end (one cut short: absent), the one too large even alone, the budget, the pace. */
export type PollReads<T> = { outcomes: Map<string, Settled<T>>; tooLarge?: string; budgetMs: number; pace: Pace };

function finishEstimate(outstanding: number, cost: EntryCost, pace: Pace): number {
	return (outstanding + cost.requests) * pace.msPerRequest + (cost.steps + 1) * pace.roundTripMs;
}

/** Reads `due`, in order, as many as fit; `read` gets each entry's signal (aborted at the budget's end) and its priority. */
export async function readWithinBudget<T>(
	due: readonly EntryCost[],
	options: PlanOptions,
	read: (key: string, signal: AbortSignal, priority: number) => Promise<T>,
): Promise<PollReads<T>> {
	const { width, readAll, now } = options;
	const first = options.pace ?? { roundTripMs: FIRST_ROUND_TRIP_MS, msPerRequest: FIRST_ROUND_TRIP_MS / width };
	const solo =
		!readAll &&
		due.length > 0 &&
		(due.length === 1 || finishEstimate(0, due[0], first) > PLANNED_SHARE * options.sharedBudgetMs);
	const budgetMs = readAll || solo ? options.soloBudgetMs : options.sharedBudgetMs;
	const outcomes = new Map<string, Settled<T>>();
	const budget = options.deadline(Math.max(1, budgetMs));
	const started = now();
	let [outstanding, next, inProgress] = [0, 0, 0];
	const limit = solo ? 1 : width * MAX_IN_PROGRESS_PER_SLOT;
	// One listener on the budget, not one per entry.
	const running = new Set<AbortController>();
	const stop = () => running.forEach((controller) => controller.abort(budget.reason));
	budget.addEventListener('abort', stop, { once: true });

	const pace = (): Pace => {
		const { timed, timedMs, width: now } = options.measured();
		if (timed === 0) return first;
		const roundTripMs = timedMs / timed;
		return { roundTripMs, msPerRequest: roundTripMs / Math.max(1, now) };
	};
	const fits = (cost: EntryCost) =>
		readAll || next === 0 || now() - started + finishEstimate(outstanding, cost, pace()) <= PLANNED_SHARE * budgetMs;

	await new Promise<void>((resolve) => {
		const startMore = () => {
			while (next < due.length && !budget.aborted && inProgress < limit && (next === 0 || !solo)) {
				const cost = due[next];
				if (!fits(cost)) break;
				const priority = next++;
				inProgress++;
				outstanding += cost.requests;
				const controller = new AbortController();
				running.add(controller);
				void settle(read(cost.key, controller.signal, priority)).then((outcome) => {
					running.delete(controller);
					inProgress--;
					outstanding -= cost.requests;
					if (!budget.aborted) outcomes.set(cost.key, outcome);
					startMore();
				});
			}
			if (inProgress === 0) resolve();
		};
		startMore();
	});
	budget.removeEventListener('abort', stop);
	const tooLarge = solo && !outcomes.has(due[0].key) ? due[0].key : undefined;
	return { outcomes, tooLarge, budgetMs, pace: pace() };
}

/** The estimate of a list never read: the median pages of those read, once there are a few, else one. */
export function typicalPages(pages: number[]): number {
	const sorted = [...pages].sort((a, b) => a - b);
	return sorted.length >= 3 ? sorted[Math.floor(sorted.length / 2)] : 1;
}

export function listCost(key: string, pages: number, reads: number, width: number): EntryCost {
	const perRead = 1 + Math.ceil(Math.max(0, pages - 1) / width);
	return { key, requests: pages * reads, steps: perRead * reads };
}

/** The entries due: least recently read first (`readAt`, 0 never), the set's order among equals; `waiting` ones out. */
export function dueOrder(
	keys: readonly string[],
	readAt: (key: string) => number,
	waiting: (key: string) => boolean,
): string[] {
	return keys
		.map((key, i) => ({ key, i, at: readAt(key) }))
		.filter(({ key }) => !waiting(key))
		.sort((a, b) => a.at - b.at || a.i - b.i)
		.map(({ key }) => key);
}
