/**
 * The paging planner and reader: framework-free, with the page fetcher injected. Return All reads
 * page 1, learns totalPageNumber, then reads the rest through the execution's request scheduler,
 * keeping at most the scheduler's width of pages asked for at a time. Each page is checked as it
 * arrives (pageChecks.ts); items come out in API order, every beneficiary exactly once. The first
 * failure ends the listing at once and drops its pages not yet started.
 *
 * Whole at one moment. Pages are addressed by number and the API has no snapshot, so a
 * beneficiary unbound on an early page while a later one is bound shifts the pages in between
 * without changing any count: a single read would return one gone beneficiary and miss one that
 * stayed. No check within one read can see that, so a listing of more than one page is read
 * again and returned only when two reads in a row agree page for page; a single page is one
 * answer, one moment, and is read once. A caller that already holds the list as it was (the
 * trigger, its saved state) may accept a first read equal to it without a second (`settled`): such
 * a read changes nothing for it, so it cannot make it report a change that did not happen. A read
 * that does not add up (counts, page numbers, a page served twice) is read again once. A listing
 * that keeps changing fails after MAX_READS.
 *
 * An entry repeated on another page of the same read (identical in every field: the listing's
 * exactly-once key) is either the mark of pages that shifted while they were read or a repeat in
 * the data; one read cannot tell, so such a read is returned only when the next read agrees with
 * it page for page. An entry repeated within one page is one answer's data.
 *
 * Two reads agree when each page holds the same entries, in whatever order within the page (a
 * gateway may list entries that sort alike in another order at each request). With a limit, what
 * must agree are the pages asked for: a list that grows or shrinks beyond them (its total count)
 * does not make them disagree.
 */
import { ListingChangedError } from '../errors';
import { sha256Base64 } from '../sha256';
import { checkFirstPage, checkPage, pageContent, type Seen } from './pageChecks';
import type { RequestScheduler } from './scheduler';
import { settle } from './settle';

export interface Page<T> {
	items: T[];
	totalCount: number;
	totalPageNumber: number;
	currentPageNumber: number;
	/** What the fetcher keeps of the answer beside its items (its proof, say); passed through untouched. */
	evidence?: unknown;
}

/** Reads of one listing at most (a read that does not add up is read again once, MAX_UNFIT_READS). */
export const MAX_READS = 4;
/** Reads that do not add up (counts, page numbers, a beneficiary twice) before the listing fails. */
const MAX_UNFIT_READS = 2;

export interface ReadListingOptions<T> {
	/** One attempt at one page (the scheduler retries it). */
	fetchPage: (pageNumber: number, signal: AbortSignal) => Promise<Page<T>>;
	pageSize: number;
	/** Stop after this many items; undefined reads everything. */
	limit?: number;
	/** Identity of an entry for the exactly-once check: equal keys on two pages of one read are a repeat. */
	keyOf: (item: T) => string;
	/**
	 * The execution's scheduler, shared with every other request of the execution: it decides
	 * width, pacing and retries. At most its width of pages is asked for at a time.
	 */
	scheduler: RequestScheduler;
	/** Ends the listing at once (its item is no longer wanted). */
	signal?: AbortSignal;
	/** Its pages' place among the requests waiting (the scheduler's priority: lower first). */
	priority?: number;
	/** The most each page's request pauses in all while refused for traffic (RETRY_POLICY's by default). */
	rateLimitWaitMs?: number;
	/**
	 * Whether a first read that adds up is what the caller already had: then it is returned without
	 * a confirming read. Called once, with the first read's items in API order.
	 */
	settled?: (items: T[]) => boolean;
}

export interface Listing<T> {
	/** In API order, exactly once, at most `limit`. */
	items: T[];
	/** The pages the items came from, in order (the last one may hold more than the limit kept). */
	pages: Array<Page<T>>;
	stats: ListingStats;
}

export interface ListingStats {
	/** Attempts sent, retries included. */
	requests: number;
	/** Attempts that failed and were tried again. */
	retries: number;
	rereads: number;
	peakConcurrency: number;
}

/** Pages to read for a listing of `totalCount` items, given a limit. */
function planPages(totalCount: number, totalPageNumber: number, pageSize: number, limit?: number): number {
	if (limit === undefined) return totalPageNumber;
	const wanted = Math.min(limit, totalCount);
	return Math.min(totalPageNumber, Math.ceil(wanted / pageSize));
}

export async function readListing<T>(options: ReadListingOptions<T>): Promise<Listing<T>> {
	const stats: ListingStats = { requests: 0, retries: 0, rereads: 0, peakConcurrency: 0 };
	let previous: Reading<T> | undefined;
	/** Why the last read could not be returned: it did not add up, or differed from the read before. */
	let lastFinding: ListingChangedError | undefined;
	let unfit = 0;
	for (let read = 1; read <= MAX_READS; read++) {
		if (read > 1) stats.rereads++;
		const outcome = await settle(readOnce(options, options.scheduler, stats));
		if (!outcome.ok) {
			if (!(outcome.error instanceof ListingChangedError)) throw outcome.error;
			// A second read that does not add up either fails at once: a gateway that serves pages
			// that never fit together (ignoring pageNumber, say) is not read four times over.
			if (++unfit === MAX_UNFIT_READS) throw outcome.error;
			lastFinding = outcome.error;
			previous = undefined;
			continue;
		}
		const reading = outcome.value;
		if (reading.pages.length <= 1) return { ...reading, stats };
		if (read === 1 && reading.repeat === undefined && options.settled?.(reading.items)) return { ...reading, stats };
		// Only a read to be compared with another is digested (not one the caller settled).
		reading.digests = reading.pages.map((page) => pageDigest(page.items, options.keyOf));
		if (previous) {
			const difference = firstDifference(previous, reading, options.limit !== undefined);
			if (difference === undefined) return { ...reading, stats };
			lastFinding = new ListingChangedError(difference, previous.pages.length, reading.pages.length);
		} else if (reading.repeat !== undefined) {
			lastFinding = new ListingChangedError(reading.repeat, reading.pages[0].totalCount, reading.items.length);
		}
		previous = reading;
	}
	throw (lastFinding as ListingChangedError).afterReads(MAX_READS);
}

interface Reading<T> {
	items: T[];
	pages: Array<Page<T>>;
	/** A digest of each page's items, in order: what two reads are compared by (set once it is to be compared). */
	digests: string[];
	/** Where an entry came back on a second page, if one did: to be confirmed by the next read. */
	repeat?: string;
}

/** Where two reads of the same listing differ, or undefined when they agree page for page. */
function firstDifference<T>(before: Reading<T>, after: Reading<T>, limited: boolean): string | undefined {
	if (!limited && before.pages[0].totalCount !== after.pages[0].totalCount) {
		return `it held ${before.pages[0].totalCount} beneficiaries at one read and ${after.pages[0].totalCount} at the next`;
	}
	const n = before.digests.findIndex((digest, i) => digest !== after.digests[i]);
	if (n >= 0)
		return `page ${n + 1} was not the same at two reads in a row (a beneficiary was bound, unbound or changed)`;
	if (before.digests.length !== after.digests.length) {
		return `it filled ${before.digests.length} pages at one read and ${after.digests.length} at the next`;
	}
	return undefined;
}

/** A page's digest, whatever the order of its entries (pageChecks.ts pageContent). */
const pageDigest = <T>(items: T[], keyOf: (item: T) => string): string => sha256Base64(pageContent(items.map(keyOf)));

async function readOnce<T>(
	options: ReadListingOptions<T>,
	scheduler: RequestScheduler,
	stats: ListingStats,
): Promise<Reading<T>> {
	const controller = new AbortController();
	const outer = options.signal;
	if (outer?.aborted) throw outer.reason;
	const forwardAbort = () => controller.abort(outer?.reason);
	outer?.addEventListener('abort', forwardAbort, { once: true });
	try {
		return await readPages(options, scheduler, stats, controller);
	} finally {
		// A listing may be read up to MAX_READS times for one item: each read's listener goes with it.
		outer?.removeEventListener('abort', forwardAbort);
	}
}

async function readPages<T>(
	options: ReadListingOptions<T>,
	scheduler: RequestScheduler,
	stats: ListingStats,
	controller: AbortController,
): Promise<Reading<T>> {
	let active = 0;
	const fetch = async (pageNumber: number): Promise<Page<T>> => {
		let started = false;
		try {
			return await scheduler.run((signal) => options.fetchPage(pageNumber, signal), {
				signal: controller.signal,
				priority: options.priority,
				rateLimitWaitMs: options.rateLimitWaitMs,
				onStart: () => {
					started = true;
					stats.peakConcurrency = Math.max(stats.peakConcurrency, ++active);
				},
				onAttempt: () => stats.requests++,
				onRetry: () => stats.retries++,
			});
		} finally {
			if (started) active--;
		}
	};
	const first = await fetch(1);
	const pageSize = checkFirstPage(first, options.pageSize);
	const pagesToRead = planPages(first.totalCount, first.totalPageNumber, pageSize, options.limit);
	const pages = new Map<number, Page<T>>();
	const seen: Seen = { keys: new Map(), pages: new Map() };
	// Each page is checked as it arrives, so a listing that does not add up fails on the page that shows it.
	const accept = (n: number, page: Page<T>) => {
		checkPage(options, first, pageSize, n, page, seen);
		pages.set(n, page);
	};
	if (pagesToRead >= 1) accept(1, first);
	await readRest(2, pagesToRead, scheduler.maxWidth, fetch, accept, controller);
	const read: Array<Page<T>> = [];
	const items: T[] = [];
	for (let n = 1; n <= pagesToRead; n++) {
		const page = pages.get(n) as Page<T>;
		read.push(page);
		items.push(...page.items);
	}
	const kept = options.limit === undefined ? items : items.slice(0, options.limit);
	return { items: kept, pages: read, digests: [], repeat: seen.repeat };
}

/**
 * Asks for pages `from`..`to`, at most `window` at a time (so a huge page count is never queued
 * at once), handing each to `accept` (which may refuse it). On the first failure it asks for
 * nothing more, aborts the pages asked for and fails at once.
 */
function readRest<T>(
	from: number,
	to: number,
	window: number,
	fetch: (pageNumber: number) => Promise<Page<T>>,
	accept: (pageNumber: number, page: Page<T>) => void,
	controller: AbortController,
): Promise<void> {
	return new Promise((resolve, reject) => {
		let next = from;
		let pending = 0;
		let failed = false;
		const askMore = () => {
			while (!failed && pending < window && next <= to) {
				const pageNumber = next++;
				pending++;
				fetch(pageNumber)
					.then((page) => {
						if (!failed) accept(pageNumber, page);
					})
					.then(
						() => {
							pending--;
							if (failed) return;
							if (next > to && pending === 0) resolve();
							else askMore();
						},
						(error: unknown) => {
							pending--;
							if (failed) return;
							failed = true;
							controller.abort(error);
							reject(error);
						},
					);
			}
			if (!failed && next > to && pending === 0) resolve();
		};
		askMore();
	});
}
