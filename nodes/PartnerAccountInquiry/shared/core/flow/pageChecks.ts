/**
 * Whether the pages of one read add up (framework-free, for paging.ts): page 1's counts before
 * they decide how many requests go out, then each page as it arrives, against page 1 and against
 * the pages already read. A page that does not add up is a ListingChangedError: the read is not
 * used, and paging.ts reads again.
 */
import { ListingChangedError } from '../errors';
import type { Page, ReadListingOptions } from './paging';

/**
 * Page 1 must add up before its totalPageNumber decides how many requests go out. Returns the
 * page size the gateway really serves: a gateway with a lower page cap than the size asked for
 * (it fills page 1 with fewer items, and counts its pages by that cap) is followed, not refused.
 */
export function checkFirstPage<T>(first: Page<T>, pageSize: number): number {
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

/** What one read has seen so far: the page of each entry's key and of each page's digest, and the first repeat. */
/** What a page holds, whatever the order of its entries (their exactly-once keys). */
export const pageContent = (keys: string[]): string => [...keys].sort().join('\n');

export interface Seen {
	keys: Map<string, number>;
	pages: Map<string, number>;
	repeat?: string;
}

/**
 * Page `n` agrees with page 1 and holds what it should, and is not a page already served. An
 * entry already seen on another page is noted as the read's repeat (see the top of this file).
 */
export function checkPage<T>(
	options: ReadListingOptions<T>,
	first: Page<T>,
	pageSize: number,
	n: number,
	page: Page<T>,
	seen: Seen,
): void {
	const { totalCount, totalPageNumber } = first;
	// A limited read is about the pages it asks for: the count only matters on the list's last page.
	const beforeTheEnd = options.limit !== undefined && n < Math.min(totalPageNumber, page.totalPageNumber);
	if (page.totalCount !== totalCount && !beforeTheEnd) {
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
	const keys = page.items.map((item) => options.keyOf(item));
	// In any order: a gateway may list entries that sort alike in another order at each request.
	const pageKey = pageContent(keys);
	const samePage = seen.pages.get(pageKey);
	if (keys.length > 1 && samePage !== undefined) {
		// A gateway that ignores the page number serves one page for all: no repeat in the data looks like that.
		throw new ListingChangedError(
			`page ${n} came back identical to page ${samePage}`,
			totalCount,
			seen.keys.size + keys.length,
		);
	}
	seen.pages.set(pageKey, n);
	for (const key of keys) {
		const earlier = seen.keys.get(key);
		if (earlier !== undefined && earlier !== n && seen.repeat === undefined) {
			seen.repeat = `the same beneficiary came back on page ${Math.min(earlier, n)} and on page ${Math.max(earlier, n)} (the pages shifted, or the gateway lists it twice)`;
		}
		if (earlier === undefined) seen.keys.set(key, n);
	}
}
