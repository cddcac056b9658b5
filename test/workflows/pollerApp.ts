/** What the trigger tests under n8n's pollers share: a clock the tests move, the app, counts. */
import type { INodeParameters } from 'n8n-workflow';

import { forgetWrittenStates } from '../../nodes/PartnerAccountInquiry/trigger/continuity';
import { n8nApp, sandboxCredentials, type N8nPoll, type N8nSaving } from '../../sandbox/engine';
import type { Simulator } from '../../sandbox/server';
import { QUOTA } from './helpers';

export const MINUTE = 60_000;
let offset = 0;
const realNow = Date.now.bind(Date);
export function useClock(): void {
	beforeEach(() => {
		offset = 0;
		jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
		forgetWrittenStates();
	});
	afterEach(() => jest.restoreAllMocks());
}
/** Moves the clock (negative: stepped back). */
export const later = (minutes: number) => {
	offset += minutes * MINUTE;
};
export function makeApp(sim: () => Simulator) {
	return (parameters: INodeParameters, saving: N8nSaving) =>
		n8nApp({ parameters, credentials: sandboxCredentials(sim().url), saving, forget: forgetWrittenStates });
}
export function count(poll: N8nPoll | undefined): number {
	if (poll?.error) throw poll.error;
	return poll?.items?.length ?? 0;
}
export const U = { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' } as const;
export const BELOW = { event: 'quotaBelowThreshold', ...QUOTA, threshold: 10000 };
export const CHANGED = { event: 'quotaChanged', ...QUOTA };
export const SMALL = { options: { customerId: 'CUST_SMALL' } };
