/**
 * One guarantee, every shape it serves: the trigger watching one subject alone ('one'), or the
 * same subject as the first entry of a set beside a quiet one ('set'), under each way n8n saves a
 * poll (test/support/n8nApp.ts: 'emit', 'scheduler', 'durable'). Node version 3.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { sandboxCredentials } from '../../sandbox/engine';
import { n8nApp, type N8nSaving } from './n8nApp';
import type { Simulator } from '../../sandbox/server';
import { QUOTA } from './helpers';

export const SAVINGS = ['emit', 'scheduler', 'durable'] as const;
export const SHAPES = ['one', 'set'] as const;
export type Shape = (typeof SHAPES)[number];
/** Every shape under every saving, for describe.each. */
export const CELLS = SHAPES.flatMap((shape) => SAVINGS.map((saving) => [shape, saving] as [Shape, N8nSaving]));

/** The quota subject U-1001 (USD 12,500.00) for `events`, alone or first of a set beside U-B1, whose own threshold 0 never alerts. */
export function quotaTrigger(shape: Shape, events: string[], more: IDataObject = {}): INodeParameters {
	const { threshold = 10000, ...rest } = more;
	const common = { triggerOn: 'quota', events, threshold, ...rest };
	if (shape === 'one') return { ...common, watch: 'one', ...QUOTA } as INodeParameters;
	const row = (id: string, own = '') => ({ ...QUOTA, quotaAccumulationId: id, threshold: own });
	return {
		...common,
		watch: 'many',
		subjects: { subject: [row('U-1001'), row('U-B1', '0')] },
	} as unknown as INodeParameters;
}

/** Customer `customerId`'s list for `events`, alone or first of a set beside CUST_EMPTY. */
export function customerTrigger(
	shape: Shape,
	events: string[],
	customerId = 'CUST_SMALL',
	more: IDataObject = {},
): INodeParameters {
	const { options = {}, ...rest } = more as { options?: IDataObject };
	const common = { triggerOn: 'beneficiaries', events, ...rest };
	if (shape === 'one') return { ...common, watch: 'one', customerId, options } as INodeParameters;
	const customers = { customer: [{ customerId }, { customerId: 'CUST_EMPTY' }] };
	return { ...common, watch: 'many', options, customers } as unknown as INodeParameters;
}

/** The trigger (version 3) in an n8n app saving as `saving`, against the simulator. */
export function appOf(sim: () => Simulator) {
	return (parameters: INodeParameters, saving: N8nSaving, pollBudgetMs?: number) =>
		n8nApp({ parameters, credentials: sandboxCredentials(sim().url), saving, typeVersion: 3, pollBudgetMs });
}

/** The watched subject's record in a saved state (the first entry: alone, or first of the set). */
export function watchedRecord(saved: IDataObject): IDataObject {
	const entries = (saved.state as { entries?: Record<string, IDataObject> } | undefined)?.entries ?? {};
	return Object.values(entries)[0] ?? {};
}

/** Requests the simulator answered for the watched quota subject (U-1001) or customer. */
export const requestsFor = (sim: () => Simulator, id: string) =>
	sim().requests.filter((request) => request.body.includes(`"${id}"`)).length;
