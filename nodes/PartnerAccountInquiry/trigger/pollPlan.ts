/**
 * Which entries a poll reads (framework-free): no more than it can finish within its budget, least
 * recently read first, so that every entry is read whole within a known number of polls. An entry
 * starts only while Graham's bound for a scheduler that never idles says it ends in time: (the
 * requests not yet answered) x (a request's time at the scheduler's width) + (the longest chain of
 * requests one entry makes in turn, plus one in flight) x (a round trip); the entry started first
 * goes first (the scheduler's priority). An entry too large beside others gets a poll to itself
 * with n8n's whole poll time (`soloBudgetMs`); only one that does not fit even then is a failure. A
 * set of one always has the poll to itself; the activation poll reads every entry.
 */
import { settle, type Settled } from '../shared/core/flow/settle';

/** Requests of a poll at once: one paced, rate-limit aware stream for every entry. */
export const POLL_WIDTH = 8;
/**
 * The longest entries read side by side take: half of n8n's shortest poll interval (a minute), so
 * that a poll ends well before the next is due; n8n 2.x's poll budget when it is shorter.
 */
export const SHARED_BUDGET_MS = 30_000;
/**
 * n8n-core's poll budget where n8n sets none of its own (1.x, the default poller, 2.x's activation
 * polls): an entry with the poll to itself, and the activation poll, have that long.
 */
export const N8N_DEFAULT_POLL_BUDGET_MS = 5 * 60_000;
/** The share of a budget the estimate may plan for: the rest absorbs a slower answer or a retry. */
const PLANNED_SHARE = 0.8;
/** Entries in progress at once at most, whatever the estimate says (memory: one list each). */
const MAX_IN_PROGRESS_PER_SLOT = 4;
/** The round trip assumed before any was measured. */
export const FIRST_ROUND_TRIP_MS = 500;

/** What a poll knows beforehand of reading one entry. */
export interface EntryCost {
	key: string;
	/** Requests its read is expected to make. */
	requests: number;
	/** Requests it must make one after another (a listing's first page before the others, say). */
	steps: number;
}

/** How fast requests went (saved with the state, so the next poll's first estimate is close): a round trip, and the time a request takes at the scheduler's width. */
export type Pace = { roundTripMs: number; msPerRequest: number };

/**
 * `width`: the scheduler's requests at once; `sharedBudgetMs`: the budget of entries read side by
 * side; `soloBudgetMs`: of an entry with the poll to itself, and of the activation poll (`readAll`:
 * every entry started); `deadline`: a signal aborted after `ms` (a virtual clock's in tests);
 * `measured`: what the scheduler measured so far (requests answered, their round trips, its width).
 */
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

/** Each entry read to its end (one cut short: absent), the one that had the poll to itself and was still cut short, the budget, the pace. */
export type PollReads<T> = { outcomes: Map<string, Settled<T>>; tooLarge?: string; budgetMs: number; pace: Pace };

/** Graham's bound for a read started now: what is outstanding plus its own requests, plus its chain. */
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
	// Requests started and not answered, entries started, entries in progress.
	let [outstanding, next, inProgress] = [0, 0, 0];
	const limit = solo ? 1 : width * MAX_IN_PROGRESS_PER_SLOT;
	// One listener on the budget, one controller per entry: hundreds of entries would otherwise
	// each add a listener to one signal.
	const running = new Set<AbortController>();
	const stop = () => running.forEach((controller) => controller.abort(budget.reason));
	budget.addEventListener('abort', stop, { once: true });

	/** How fast requests go, measured once answers come (before: the last polls'); a rate limit halves the width. */
	const pace = (): Pace => {
		const { timed, timedMs, width: now } = options.measured();
		if (timed === 0) return first;
		const roundTripMs = timedMs / timed;
		return { roundTripMs, msPerRequest: roundTripMs / Math.max(1, now) };
	};
	// The first entry is always started (one too large for the shared budget has the poll to itself).
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

/**
 * The pages a list of the set usually has, the estimate of one never read: the median of those
 * read, once there are a few (one odd list says little of the others), else one page.
 */
export function typicalPages(pages: number[]): number {
	const sorted = [...pages].sort((a, b) => a - b);
	return sorted.length >= 3 ? sorted[Math.floor(sorted.length / 2)] : 1;
}

/** What the planner estimates of a list of `pages` pages read `reads` times at `width` requests at once. */
export function listCost(key: string, pages: number, reads: number, width: number): EntryCost {
	const perRead = 1 + Math.ceil(Math.max(0, pages - 1) / width);
	return { key, requests: pages * reads, steps: perRead * reads };
}

/**
 * The entries due, in the order a poll reads them: least recently read first (`readAt`: the poll
 * count it was last read at, 0 never), the set's order among equals; `waiting` ones left out.
 */
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
