/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a virtual clock's timers, in a test */
/**
 * How many polls a set takes to be read whole, at n8n's real 30 s budget, in simulated time: the
 * planner (trigger/pollPlan.ts) over the real request scheduler and the real listing reader
 * (paging.ts), each request answered after L ms of a virtual clock. What it must meet is the
 * formula the README states: one poll reads n = ⌊8 × (0.8 × B − (s + 1) × L) / (r × L)⌋ entries
 * that each need r requests, s of them one after another; a set of N is read whole every
 * K = ⌈N / n⌉ polls (and one poll more for lists whose size was never seen).
 */
import { readListing, type Page } from '../../nodes/PartnerAccountInquiry/shared/core/flow/paging';
import { RequestScheduler } from '../../nodes/PartnerAccountInquiry/shared/core/flow/scheduler';
import {
	dueOrder,
	listCost,
	readWithinBudget,
	typicalPages,
	type EntryCost,
	type Pace,
} from '../../nodes/PartnerAccountInquiry/trigger/pollPlan';

/** The share of a poll's budget the plan gives its reads (pollPlan.ts). */
const PLANNED_SHARE = 0.8;

const WIDTH = 8;
const PAGE = 50;

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Settles `promise` while moving the virtual clock. */
async function settleVirtually<T>(promise: Promise<T>): Promise<T> {
	let outcome: { value: T } | undefined;
	void promise.then((value) => (outcome = { value }));
	while (!outcome) await jest.advanceTimersByTimeAsync(5);
	return outcome.value;
}

/** The README's formula: entries one poll reads, each needing r requests, s of them in turn. */
function perPoll(budgetMs: number, latencyMs: number, r: number, s: number): number {
	return Math.floor((WIDTH * (PLANNED_SHARE * budgetMs - (s + 1) * latencyMs)) / (r * latencyMs));
}

interface Subject {
	key: string;
	/** 0 for a quota subject (one request); a list's pages otherwise. */
	pages: number;
	readAt: number;
	known?: number;
	baseline?: boolean;
	unchanged?: boolean;
}

/** One poll over `subjects`, as trigger/poll.ts plans it; returns the keys read whole and the one too large. */
async function poll(subjects: Subject[], turn: number, latencyMs: number, shared: number, solo: number, pace?: Pace) {
	const scheduler = new RequestScheduler({ width: WIDTH, isRateLimited: () => false, sleep, now: () => Date.now() });
	const byKey = new Map(subjects.map((s) => [s.key, s]));
	const due = dueOrder(
		subjects.map((s) => s.key),
		(key) => (byKey.get(key) as Subject).readAt,
		() => false,
	);
	// A list never read is estimated at the median size of those read, as trigger/poll.ts does.
	const typical = typicalPages(subjects.flatMap((s) => (s.known === undefined ? [] : [s.known])));
	const costs: EntryCost[] = due.map((key) => {
		const s = byKey.get(key) as Subject;
		if (s.pages === 0) return { key, requests: 1, steps: 1 };
		const pages = s.known ?? typical;
		return listCost(key, pages, pages > 1 && !s.unchanged ? 2 : 1, WIDTH);
	});
	let started = 0;
	const reads = await settleVirtually(
		readWithinBudget(
			costs,
			{
				width: WIDTH,
				pace,
				sharedBudgetMs: shared,
				soloBudgetMs: solo,
				readAll: false,
				now: () => Date.now(),
				deadline: (ms) => {
					const controller = new AbortController();
					setTimeout(() => controller.abort(new Error('budget')), ms);
					return controller.signal;
				},
				measured: () => ({ ...scheduler.stats, width: scheduler.currentWidth }),
			},
			async (key, signal, priority) => {
				started++;
				const s = byKey.get(key) as Subject;
				if (s.pages === 0) return await scheduler.run(() => sleep(latencyMs), { signal, priority });
				await readListing<string>({
					pageSize: PAGE,
					scheduler,
					signal,
					priority,
					keyOf: (item) => item,
					// A list read before is as saved: its first read holds.
					settled: s.baseline ? () => true : undefined,
					fetchPage: async (n) => {
						await sleep(latencyMs);
						s.known = s.pages;
						const items = Array.from({ length: PAGE }, (_, i) => `${key}-${n}-${i}`);
						return {
							items,
							totalCount: s.pages * PAGE,
							totalPageNumber: s.pages,
							currentPageNumber: n,
						} as Page<string>;
					},
				});
			},
		),
	);
	// An entry too large even alone goes to the back of the set, as the poll records its failed read.
	if (reads.tooLarge) (byKey.get(reads.tooLarge) as Subject).readAt = turn;
	for (const [key, outcome] of reads.outcomes) {
		const s = byKey.get(key) as Subject;
		s.readAt = turn;
		if (outcome.ok) {
			s.unchanged = s.baseline === true;
			s.baseline = true;
		}
	}
	return {
		read: [...reads.outcomes.keys()],
		tooLarge: reads.tooLarge,
		pace: reads.pace,
		cut: started - reads.outcomes.size,
	};
}

/** Polls until every subject has its baseline; the number of polls it took. */
async function pollsToRead(
	subjects: Subject[],
	latencyMs: number,
	budgetMs: number,
	soloMs = budgetMs,
	limit = 50,
	cut: number[] = [],
) {
	let pace: Pace | undefined;
	for (let turn = 1; turn <= limit; turn++) {
		const result = await poll(subjects, turn, latencyMs, budgetMs, soloMs, pace);
		pace = result.pace;
		cut.push(result.cut);
		if (subjects.every((s) => s.baseline)) return turn;
	}
	return Infinity;
}

const quotaSubjects = (n: number): Subject[] =>
	Array.from({ length: n }, (_, i) => ({ key: `q${i}`, pages: 0, readAt: 0 }));
const customers = (n: number, pages: number): Subject[] =>
	Array.from({ length: n }, (_, i) => ({ key: `c${i}`, pages, readAt: 0 }));

describe('a set read within the polls the formula states, at n8n 30 s budget (simulated time)', () => {
	it.each([
		[1000, 180, 1],
		[1000, 400, Math.ceil(1000 / perPoll(30_000, 400, 1, 1))],
		[300, 1000, Math.ceil(300 / perPoll(30_000, 1000, 1, 1))],
	])('%i quota subjects at %i ms a request: every one read within %i polls', async (n, latency, expected) => {
		const subjects = quotaSubjects(n);
		// The first poll's estimate is the last polls' pace: as from the second poll of a trigger.
		const warm = await poll(quotaSubjects(WIDTH), 1, latency, 30_000, 30_000);
		expect(await pollsToRead(subjects, latency, 30_000, 30_000)).toBeLessThanOrEqual(expected);
		expect(warm.read).toHaveLength(WIDTH);
	});

	it.each([
		[300, 5, 200],
		[100, 5, 500],
	])(
		'%i customers of %i pages at %i ms a request: every baseline within the formula, plus one poll to learn their size',
		async (n, pages, latency) => {
			const subjects = customers(n, pages);
			const steps = 2 * (1 + Math.ceil((pages - 1) / WIDTH));
			const formula = Math.ceil(n / perPoll(30_000, latency, 2 * pages, steps)) + 1;
			const cut: number[] = [];
			const polls = await pollsToRead(subjects, latency, 30_000, 30_000, 50, cut);
			expect(polls).toBeLessThanOrEqual(formula);
			expect(cut.slice(1)).toEqual(cut.slice(1).map(() => 0));
			// Quiet polls after: each list read once (r = pages, s = 1 + ⌈(pages − 1) / 8⌉).
			const quiet = Math.ceil(n / perPoll(30_000, latency, pages, 1 + Math.ceil((pages - 1) / WIDTH)));
			for (const s of subjects) s.readAt = 0;
			let turns = 0;
			while (subjects.some((s) => s.readAt === 0)) {
				await poll(subjects, 100 + ++turns, latency, 30_000, 30_000);
				if (turns > quiet) break;
			}
			expect(turns).toBeLessThanOrEqual(quiet);
		},
	);

	it('the issue case: 40 customers of 5 pages at 100 ms under a 1.5 s budget get every baseline, none restarted forever', async () => {
		const subjects = customers(40, 5);
		const formula = Math.ceil(40 / perPoll(1500, 100, 10, 4)) + 1;
		const cut: number[] = [];
		expect(await pollsToRead(subjects, 100, 1500, 1500, 50, cut)).toBeLessThanOrEqual(formula);
		// It starts no more than it can finish: once the lists' sizes are known, no read is cut short.
		expect(cut.slice(1)).toEqual(cut.slice(1).map(() => 0));
	});
});

describe('a list too long to fit beside others', () => {
	it('gets a poll to itself, with the whole time n8n gives a poll; the others are read in the polls around it', async () => {
		const subjects = [...customers(20, 1), { key: 'long', pages: 400, readAt: 0 }];
		// Learn the long list's size first (its first page), as a trigger's first poll does.
		subjects[20].known = 400;
		const reads: string[][] = [];
		let pace: Pace | undefined;
		for (let turn = 1; turn <= 4 && !subjects.every((s) => s.baseline); turn++) {
			const result = await poll(subjects, turn, 200, 30_000, 300_000, pace);
			pace = result.pace;
			reads.push(result.read);
		}
		expect(subjects.every((s) => s.baseline)).toBe(true);
		expect(reads.filter((read) => read.includes('long'))).toEqual([['long']]);
	});

	it('one that does not fit even alone is named as too large; the others are still read', async () => {
		const subjects = [{ key: 'huge', pages: 2000, readAt: 0, known: 2000 }, ...customers(5, 1)];
		const first = await poll(subjects, 1, 200, 30_000, 30_000);
		expect(first.tooLarge).toBe('huge');
		const second = await poll(subjects, 2, 200, 30_000, 30_000, first.pace);
		expect(second.read.sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
	});
});
