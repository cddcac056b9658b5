/**
 * One guarantee, every shape it serves: the trigger watching one subject alone ('one'), or the
 * same subject as the first entry of a set beside a quiet one ('set'), under each way n8n saves a
 * poll (test/support/n8nApp.ts: 'emit', 'scheduler', 'durable').
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { sandboxCredentials } from '../../sandbox/engine';
import { n8nApp, type N8nSaving } from './n8nApp';
import type { Simulator } from '../../sandbox/server';
import { QUOTA } from './helpers';

export const SAVINGS = ['emit', 'scheduler', 'durable'] as const;
export const SHAPES = ['one', 'set'] as const;
export type Shape = (typeof SHAPES)[number];
/** Every shape under every saving, for describe.each. */
export const CELLS = SHAPES.flatMap((shape) => SAVINGS.map((saving) => [shape, saving] as [Shape, N8nSaving]));

/**
 * The quota subject U-1001 (USD 12,500.00) of your own account for `events`, alone or first of a
 * set beside U-B1, whose own threshold 0 never alerts. `more.threshold` is U-1001's threshold
 * (10000 unless given); the rest are parameters as given.
 */
export function quotaTrigger(shape: Shape, events: string[], more: IDataObject = {}): INodeParameters {
	const { threshold = 10000, ...rest } = more;
	const row = (id: string, own: unknown) => ({
		connectedAccountId: 'own',
		...QUOTA,
		quotaAccumulationId: id,
		threshold: own,
	});
	const rows = shape === 'one' ? [row('U-1001', threshold)] : [row('U-1001', threshold), row('U-B1', 0)];
	return { events, quotas: { quota: rows }, ...rest } as unknown as INodeParameters;
}

/**
 * Customer `customerId`'s list (own for your own) for `events`, alone or first of a set beside
 * CUST_EMPTY, its items whole (Simplify off) unless `more.options` says otherwise.
 */
export function customerTrigger(
	shape: Shape,
	events: string[],
	customerId = 'CUST_SMALL',
	more: IDataObject = {},
): INodeParameters {
	const { options = {}, ...rest } = more as { options?: IDataObject };
	const customerIds = shape === 'one' ? customerId : `${customerId}\nCUST_EMPTY`;
	return { events, customerIds, options: { simplify: false, ...options }, ...rest } as unknown as INodeParameters;
}

/**
 * The trigger in an n8n app saving as `saving`, against the simulator; `credential` adds fields to
 * the simulator's credential (an `accessToken`, say).
 */
export function appOf(sim: () => Simulator, credential: IDataObject = {}) {
	return (parameters: INodeParameters, saving: N8nSaving, pollBudgetMs?: number) =>
		n8nApp({
			parameters,
			credentials: { ...sandboxCredentials(sim().url), ...credential } as ICredentialDataDecryptedObject,
			saving,
			typeVersion: 1,
			pollBudgetMs,
		});
}

/** The watched subject's record in a saved state (the first entry: alone, or first of the set). */
export function watchedRecord(saved: IDataObject): IDataObject {
	const entries = (saved.state as { entries?: Record<string, IDataObject> } | undefined)?.entries ?? {};
	return Object.values(entries)[0] ?? {};
}

/** Requests the simulator answered for the watched quota subject (U-1001) or customer. */
export const requestsFor = (sim: () => Simulator, id: string) =>
	sim().requests.filter((request) => request.body.includes(`"${id}"`)).length;

/** A payee bound to `customerId` (a copy of CUST_SMALL's first), its reference `ref`, its token its own. */
export function bindPayee(sim: () => Simulator, customerId: string, ref: string): void {
	const template = sim().beneficiaries('CUST_SMALL')[0];
	sim()
		.beneficiaries(customerId)
		.push({ ...template, referenceBeneficiaryId: ref, beneficiaryToken: Buffer.from(`token:${ref}`).toString('base64') });
}
