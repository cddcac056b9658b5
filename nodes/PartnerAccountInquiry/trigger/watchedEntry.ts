/** One watched entry (a quota subject or a customer's list) as a poll uses it, and what both kinds share. */
import type { IDataObject } from 'n8n-workflow';

import type { ListingSize } from '../shared/endpoints/beneficiaries';
import type { ApiSession, ReadOptions } from '../shared/transport/session';
import type { EntryCost } from './pollPlan';
import { questionDigest, type StateReading } from './savedState';
import type { EntryRecord } from './watchState';

/** `where`: "row 2", "line 3"; `label` names it in messages (whose account first), an account by its last four. */
export interface WatchedEntry {
	key: string;
	where: string;
	label: string;
	readState: (saved: unknown) => StateReading<unknown>;
	cost: (record: EntryRecord | undefined, width: number, typicalPages: number) => EntryCost;
	read: (session: ApiSession, options: ReadOptions, observed: ListingSize) => Promise<unknown>;
	compare: (saved: unknown, read: unknown, whole: boolean) => Compared;
	/** "Fetch Test Event": one item of current data (none for an empty list). */
	sample: (session: ApiSession) => Promise<IDataObject[]>;
}

/** `moved`: the state moved in a way a restart must not lose (a baseline, a re-armed alert). */
export type Compared = { events: IDataObject[]; next: unknown; unchanged: boolean; moved: () => boolean };

/** What every entry of a watch shares: the Options, the events picked, the credential's access token. */
export type Context = { options: IDataObject; wanted: ReadonlySet<string>; accessToken?: string };

/** The digest of the request as sent (a secret token only by its digest): only another request is a new baseline. */
export function keyOf(session: ApiSession, asked: IDataObject, accessToken: unknown): string {
	const { clientId, baseUrl } = session.credentials;
	const token = typeof accessToken === 'string' && accessToken ? { accessToken: questionDigest(accessToken) } : {};
	return questionDigest({ ...asked, clientId, baseUrl, ...token });
}
