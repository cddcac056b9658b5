/**
 * One watched entry (a quota subject or a customer's list) as a poll uses it, and what both kinds
 * share: the key of the request it sends, the entries of a set as entered.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { ListingSize } from '../shared/endpoints/beneficiaries';
import type { ApiSession, ReadOptions } from '../shared/transport/session';
import { entriesOfText, type SetParameters } from './enteredSet';
import type { EntryCost } from './pollPlan';
import { questionDigest, type StateReading } from './savedState';
import type { EntryRecord } from './watchState';

/**
 * One watched entry, for one poll: its key (the digest of the request it sends: keyOf), where it
 * was entered ('' for one subject), how a message names it (an account by its last four), its
 * cost (pollPlan.ts), read and comparison: its events and the state after them.
 */
export interface WatchedEntry {
	key: string;
	where: string;
	label: string;
	readState: (saved: unknown) => StateReading<unknown>;
	cost: (record: EntryRecord | undefined, width: number, typicalPages: number) => EntryCost;
	read: (session: ApiSession, options: ReadOptions, observed: ListingSize) => Promise<unknown>;
	compare: (saved: unknown, read: unknown, whole: boolean) => Compared;
	/** "Fetch Test Event": a few items of current data. */
	sample: (session: ApiSession) => Promise<IDataObject[]>;
}

/**
 * `unchanged`: the read was the saved state as it was (one read of a list); `moved`: the state moved
 * in a way a restart must not lose (a baseline, a re-armed alert, a list that changed).
 */
export type Compared = { events: IDataObject[]; next: unknown; unchanged: boolean; moved: () => boolean };

export type Context = { options: IDataObject; wanted: ReadonlySet<string>; many: boolean };

/**
 * An entry's key: the digest of the request the gateway is asked, as built and sent (what decides
 * whose data comes back: the quota subject or the customer and the filters set; the access token,
 * an OAuth token that authorises one user's data, only by a digest; the Client ID; the gateway).
 * Another request starts a fresh baseline; nothing else does: the events, the threshold, masking,
 * paging and the Timeout are how its answers are viewed, not what is asked.
 */
export function keyOf(session: ApiSession, asked: IDataObject, accessToken: unknown): string {
	const { clientId, baseUrl } = session.credentials;
	const token = typeof accessToken === 'string' && accessToken ? { accessToken: questionDigest(accessToken) } : {};
	return questionDigest({ ...asked, clientId, baseUrl, ...token });
}

/** The entries of a set as entered: rows of a fixed collection, or pasted text (one entry a line). */
export function enteredEntries(fn: IPollFunctions, names: SetParameters, fieldsOf: (row: IDataObject) => string[]) {
	const text = fn.getNodeParameter(names.entry, 'rows') === 'text';
	if (text) return entriesOfText(String(fn.getNodeParameter(names.text, '')));
	const rows = [(fn.getNodeParameter(names.rows, {}) as IDataObject)[names.row] ?? []].flat() as IDataObject[];
	return rows.map((row, i) => ({ where: `row ${i + 1}`, fields: fieldsOf(row) }));
}
