/** What the trigger tests under n8n's pollers share: a clock the tests move, the app, counts. */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import { activateTrigger, sandboxCredentials, type PollerOptions, newN8nProcess } from '../../sandbox/engine';
import { n8nApp, type N8nPoll, type N8nSaving } from './n8nApp';
import type { Simulator } from '../../sandbox/server';
import { QUOTA } from './helpers';

export const MINUTE = 60_000;
let offset = 0;
const realNow = Date.now.bind(Date);
export function useClock(): void {
	beforeEach(() => {
		offset = 0;
		jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
		newN8nProcess();
	});
	afterEach(() => jest.restoreAllMocks());
}
/** Moves the clock (negative: stepped back). */
export const later = (minutes: number) => {
	offset += minutes * MINUTE;
};
export function makeApp(sim: () => Simulator) {
	return (parameters: INodeParameters, saving: N8nSaving) =>
		n8nApp({ parameters, credentials: sandboxCredentials(sim().url), saving });
}
export function count(poll: N8nPoll | undefined): number {
	return itemsOf(poll).length;
}
/** The items a poll emitted (none: []); a poll that failed fails the test instead of counting as quiet. */
export function itemsOf(poll: N8nPoll | undefined): IDataObject[] {
	if (poll?.error) throw poll.error;
	return poll?.items ?? [];
}
export const U = { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' } as const;
/** Your own quota subject U-1001 as the one row of a quota trigger, its threshold (if any) in the row. */
export const ownQuota = (threshold?: number) => ({
	quotas: { quota: [{ connectedAccountId: 'own', ...QUOTA, ...(threshold === undefined ? {} : { threshold }) }] },
});
export const BELOW = { events: ['quotaBelowThreshold'], ...ownQuota(10000) } as unknown as INodeParameters;
export const CHANGED = { events: ['quotaChanged'], ...ownQuota() } as unknown as INodeParameters;
export const SMALL = { customerIds: 'CUST_SMALL' };

export type Poller = ReturnType<typeof activateTrigger>;
/** One poller of the trigger over `staticData`, against the simulator. */
export function triggerOf(sim: () => Simulator) {
	return (parameters: INodeParameters, staticData: IDataObject, extra: Partial<PollerOptions> = {}): Poller =>
		activateTrigger({ parameters, credentials: sandboxCredentials(sim().url), staticData, ...extra });
}
/** The items a poll emitted (null: none); a failed poll fails the test. */
export async function emitted(poller: Poller): Promise<IDataObject[] | null> {
	const result = await poller.poll();
	if (!result.ok) throw result.error;
	return result.items?.map((item) => item.json) ?? null;
}

/** A quota subject of your own account as a row (USER_ID, USD), its own threshold optional ('' : none). */
export const subjectRow = (id: string, threshold: number | string = '') => ({
	connectedAccountId: 'own',
	quotaAccumulationMethod: 'USER_ID',
	quotaAccumulationId: id,
	currency: 'USD',
	threshold,
});
/** Quota subjects entered as rows (Quota Below Threshold); a row without a threshold gets `threshold` (100). */
export const quotaSet = (rows: IDataObject[], threshold = 100): INodeParameters => ({
	events: ['quotaBelowThreshold'],
	quotas: {
		quota: rows.map((row) => (row.threshold === '' || row.threshold === undefined ? { ...row, threshold } : row)),
	} as unknown as INodeParameters,
});
/** Customers entered as Customer IDs, one a line. */
export const customerSet = (ids: string[], event = 'beneficiaryAdded'): INodeParameters => ({
	events: [event],
	customerIds: ids.join('\n'),
});

/** The first watched entry's own saved state (one subject's, or the set's first), as JSON: what a failed read must leave as it was. */
export function entryStateOf(staticData: IDataObject): string | undefined {
	const entries = (staticData.state as { entries?: Record<string, { state?: unknown }> } | undefined)?.entries ?? {};
	return JSON.stringify(Object.values(entries)[0]?.state);
}

/** Listing requests the simulator received, all or those for one customer. */
export const listRequests = (sim: Simulator, customerId?: string): number =>
	sim.requests.filter(
		(r) => r.path.includes('Beneficiar') && (customerId === undefined || r.body.includes(`"${customerId}"`)),
	).length;

/** The reference IDs of emitted items, in order. */
export const refs = (items: IDataObject[] | null): string[] =>
	(items ?? []).map((i) => String(i.referenceBeneficiaryId));

/** A payee like CUST_SMALL's first, named by `id`: reference ID REF-<id>, a token and nickname of its own. */
export const payeeLike = (sim: () => Simulator, id: string, more: Partial<Beneficiary> = {}): Beneficiary => ({
	...sim().beneficiaries('CUST_SMALL')[0],
	referenceBeneficiaryId: `REF-${id}`,
	beneficiaryToken: Buffer.from(`token:${id}`).toString('base64'),
	beneficiaryNick: `Payee ${id}`,
	...more,
});
