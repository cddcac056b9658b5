/**
 * The paging planner and reader: framework-free, with the page fetcher, the pause and the
 * rate-limit test injected. Return All reads page 1, learns totalPageNumber, then reads the
 * rest through a bounded pool whose width halves when the gateway says
 * REQUEST_TRAFFIC_EXCEED_LIMIT and grows back by one after a full round of successes. Items come
 * out in API order, every beneficiary exactly once; a listing that changes while it is read is
 * read once more, then refused with the counts.
 */
import { ListingChangedError } from '../errors';
import { Pacer } from './pacer';
import { RETRY_POLICY, withRetries } from './retry';
import { settle } from './settle';

export interface Page<T> {
	items: T[];
	totalCount: number;
	totalPageNumber: number;
	currentPageNumber: number;
}

export interface ReadListingOptions<T> {
	fetchPage: (pageNumber: number, signal: AbortSignal) => Promise<Page<T>>;
	pageSize: number;
	/** Stop after this many items; undefined reads everything. */
	limit?: number;
	/** Upper bound of concurrent page requests after page 1 (1 = one after another). */
	concurrency: number;
	/** Identity of an item for the exactly-once check. */
	keyOf: (item: T) => string;
	isRateLimited: (error: unknown) => boolean;
	/** Failures worth another try of the page (rate limits always are); only rate limits narrow the pool. */
	isRetryable?: (error: unknown) => boolean;
	sleep: (ms: number) => Promise<void>;
	/** First pause before a retry of a page (RETRY_POLICY's by default), doubled on each repeat for the same page. */
	rateLimitBackoffMs?: number;
	/** How many times one page is retried (one budget for every retryable failure; RETRY_POLICY's by default). */
	rateLimitRetries?: number;
	random?: () => number;
	/**
	 * A monotonic clock in ms. With it, the pool paces its requests (see Pacer); without it, a
	 * request goes out as soon as a place in the pool is free.
	 */
	now?: () => number;
}

export interface ListingStats {
	requests: number;
	rateLimited: number;
	rereads: number;
	peakConcurrency: number;
}

/** Pages to read for a listing of `totalCount` items, given a limit. */
export function planPages(totalCount: number, totalPageNumber: number, pageSize: number, limit?: number): number {
	if (limit === undefined) return totalPageNumber;
	const wanted = Math.min(limit, totalCount);
	return Math.min(totalPageNumber, Math.ceil(wanted / pageSize));
}

export async function readListing<T>(options: ReadListingOptions<T>): Promise<{ items: T[]; stats: ListingStats }> {
	const stats: ListingStats = { requests: 0, rateLimited: 0, rereads: 0, peakConcurrency: 0 };
	const first = await settle(readOnce(options, stats));
	if (first.ok) return { items: first.value, stats };
	if (!(first.error instanceof ListingChangedError)) throw first.error;
	stats.rereads++;
	return { items: await readOnce(options, stats), stats };
}

async function readOnce<T>(options: ReadListingOptions<T>, stats: ListingStats): Promise<T[]> {
	const controller = new AbortController();
	const pacer = options.now ? new Pacer(options.now) : undefined;
	const first = await fetchWithBackoff(options, 1, controller.signal, stats, { pacer });
	const pageSize = checkFirstPage(first, options.pageSize);
	const pagesToRead = planPages(first.totalCount, first.totalPageNumber, pageSize, options.limit);
	const pages = new Map<number, Page<T>>();
	const seen = new Map<string, number>();
	// Each page is checked as it arrives, so a listing that does not add up fails on the page that shows it.
	const accept = (n: number, page: Page<T>) => {
		checkPage(options, first, pageSize, n, page, seen);
		pages.set(n, page);
	};
	if (pagesToRead >= 1) accept(1, first);
	const rest = Array.from({ length: Math.max(0, pagesToRead - 1) }, (_, i) => i + 2);
	await runPool(options, rest, accept, controller, stats, pacer);
	const items: T[] = [];
	for (let n = 1; n <= pagesToRead; n++) items.push(...(pages.get(n) as Page<T>).items);
	return options.limit === undefined ? items : items.slice(0, options.limit);
}

/**
 * Runs `pageNumbers` through the adaptive pool, handing each page to `accept` (which may refuse
 * it). On the first failure it starts nothing new, aborts the pages in flight and fails at once.
 */
function runPool<T>(
	options: ReadListingOptions<T>,
	pageNumbers: number[],
	accept: (pageNumber: number, page: Page<T>) => void,
	controller: AbortController,
	stats: ListingStats,
	pacer: Pacer | undefined,
): Promise<void> {
	const max = Math.max(1, Math.floor(options.concurrency));
	let width = max;
	let successesAtWidth = 0;
	let active = 0;
	let failed = false;
	const queue = [...pageNumbers];
	const onRateLimited = () => {
		width = Math.max(1, Math.floor(width / 2));
		successesAtWidth = 0;
	};
	let wakeFor = Infinity; // the due time of the earliest pacing pause pending
	return new Promise((resolve, reject) => {
		const pauseUntil = (due: number, wait: number) => {
			if (due >= wakeFor) return; // an earlier pause is pending, and will pump
			wakeFor = due;
			const wake = () => {
				if (wakeFor === due) wakeFor = Infinity;
				pump(due);
			};
			void options.sleep(wait).then(wake, wake);
		};
		/** `wokeFor`: the due time whose pause just ended; a request due by then goes, whatever the clock says. */
		const pump = (wokeFor = -Infinity) => {
			if (failed) return;
			if (queue.length === 0 && active === 0) {
				resolve();
				return;
			}
			while (active < width && queue.length > 0) {
				if (pacer && pacer.dueAt(width) > wokeFor) {
					const wait = pacer.wait(width);
					if (wait >= 1) {
						pauseUntil(pacer.dueAt(width), wait);
						return;
					}
				}
				pacer?.sent();
				const pageNumber = queue.shift() as number;
				active++;
				stats.peakConcurrency = Math.max(stats.peakConcurrency, active);
				fetchWithBackoff(options, pageNumber, controller.signal, stats, { pacer, onRateLimited })
					.then((page) => {
						if (failed) return;
						accept(pageNumber, page);
						if (++successesAtWidth >= width && width < max) {
							width++;
							successesAtWidth = 0;
						}
					})
					.catch((error: unknown) => {
						if (failed) return;
						failed = true;
						controller.abort();
						reject(error);
					})
					.finally(() => {
						active--;
						pump();
					});
			}
		};
		pump();
	});
}

/** One page through the one retry policy; a rate limit also narrows the pool. */
async function fetchWithBackoff<T>(
	options: ReadListingOptions<T>,
	pageNumber: number,
	signal: AbortSignal,
	stats: ListingStats,
	{ pacer, onRateLimited }: { pacer?: Pacer; onRateLimited?: () => void },
): Promise<Page<T>> {
	return await withRetries(
		async () => {
			stats.requests++;
			const started = options.now?.();
			const page = await options.fetchPage(pageNumber, signal);
			// The round trip of this attempt alone: backoff pauses are not the gateway's.
			if (pacer && started !== undefined) pacer.observe((options.now?.() ?? started) - started);
			return page;
		},
		{
			retries: options.rateLimitRetries ?? RETRY_POLICY.retries,
			baseDelayMs: options.rateLimitBackoffMs ?? RETRY_POLICY.baseDelayMs,
			isRetryable: (error) => options.isRateLimited(error) || (options.isRetryable?.(error) ?? false),
			sleep: options.sleep,
			random: options.random,
			signal,
			onRetry: (error) => {
				if (!options.isRateLimited(error)) return;
				stats.rateLimited++;
				onRateLimited?.();
			},
		},
	);
}

/**
 * Page 1 must add up before its totalPageNumber decides how many requests go out. Returns the
 * page size the gateway really serves: a gateway with a lower page cap than the size asked for
 * (it fills page 1 with fewer items, and counts its pages by that cap) is followed, not refused.
 */
function checkFirstPage<T>(first: Page<T>, pageSize: number): number {
	const { totalCount, totalPageNumber } = first;
	const served = first.items.length;
	if (served > 0 && served < pageSize && served < totalCount && totalPageNumber === Math.ceil(totalCount / served)) {
		return served;
	}
	const expectedPages = Math.ceil(totalCount / pageSize);
	if (totalPageNumber !== expectedPages && !(totalCount === 0 && totalPageNumber <= 1)) {
		throw new ListingChangedError(
			`page 1 reports ${totalCount} beneficiaries in ${totalPageNumber} pages, but ${totalCount} at ${pageSize} a page make ${expectedPages}`,
			expectedPages,
			totalPageNumber,
		);
	}
	return pageSize;
}

/** Page `n` agrees with page 1 and holds what it should; no beneficiary came back twice so far. */
function checkPage<T>(
	options: ReadListingOptions<T>,
	first: Page<T>,
	pageSize: number,
	n: number,
	page: Page<T>,
	seen: Map<string, number>,
): void {
	const { totalCount, totalPageNumber } = first;
	if (page.totalCount !== totalCount) {
		throw new ListingChangedError(
			`page 1 reported ${totalCount} beneficiaries, page ${n} reported ${page.totalCount}`,
			totalCount,
			page.totalCount,
		);
	}
	if (page.currentPageNumber !== n) {
		throw new ListingChangedError(
			`page ${n} was asked for but page ${page.currentPageNumber} came back`,
			n,
			page.currentPageNumber,
		);
	}
	const expectedOnPage = n < totalPageNumber ? pageSize : totalCount - (totalPageNumber - 1) * pageSize;
	if (page.items.length !== expectedOnPage) {
		throw new ListingChangedError(
			`page ${n} holds ${page.items.length} beneficiaries where ${expectedOnPage} were due`,
			expectedOnPage,
			page.items.length,
		);
	}
	for (const item of page.items) {
		const key = options.keyOf(item);
		const earlier = seen.get(key);
		if (earlier !== undefined) {
			throw new ListingChangedError(
				`the same beneficiary came back on page ${Math.min(earlier, n)} and on page ${Math.max(earlier, n)} (the pages shifted)`,
				totalCount,
				seen.size + 1,
			);
		}
		seen.set(key, n);
	}
}
