/** The entries of a trigger on the available quota: its rows and pasted lines, whose account first. */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { customerOf } from '../shared/core/api/whoseAccount';
import { ValidationError } from '../shared/core/errors';
import { buildQuotaRequest, getQuota, quotaLabel, quotaQuestion } from '../shared/endpoints/quota';
import { maskedIdIndex } from '../shared/core/subjectLines';
import type { ApiSession } from '../shared/transport/session';
import { checkSet, enteredQuotas, quotaEntryValues } from './enteredSet';
import { quotaEvents, readQuotaState, type QuotaState } from './quotaState';
import { questionDigest } from './savedState';
import { keyOf, type Context, type WatchedEntry } from './watchedEntry';

/** A threshold as a number of at least 0 ("10000" too); text or negative is refused, never read as 0. */
function readThreshold(raw: string): number {
	const value = raw.trim() ? Number(raw) : Number.NaN;
	if (Number.isFinite(value) && value >= 0) return value;
	throw new ValidationError('threshold', 'a number of at least 0', `Threshold ${JSON.stringify(raw)} is not a number of at least 0`);
}

export function quotaEntries(fn: IPollFunctions, session: ApiSession, context: Context): WatchedEntry[] {
	const { options, wanted, accessToken } = context;
	const below = wanted.has('quotaBelowThreshold');
	const subjects = checkSet(
		'quotas',
		enteredQuotas(fn, options),
		(entry) => {
			const { whose, values, threshold } = quotaEntryValues(entry);
			const request = buildQuotaRequest((name, fallback) => values[name] ?? fallback);
			// A threshold is checked whatever the events: a misplaced column is refused, not ignored.
			const own = threshold !== '' ? readThreshold(threshold) : undefined;
			if (below && own === undefined)
				throw new ValidationError('threshold', 'a threshold', 'no threshold, which Quota Below Threshold needs');
			return { question: quotaQuestion(request, whose, options, accessToken), threshold: below ? (own as number) : 0 };
		},
		({ question }) => questionDigest([question.request, question.headers]),
		({ fields }) => fields.filter((_, i) => i === maskedIdIndex(fields)),
	);
	return subjects.map(({ where, value: { question, threshold } }) => {
		const { request, whose } = question;
		/** An event's item: the event, the quota item, what it was at the last poll, the threshold crossed. */
		const item = (event: string, quota: IDataObject, previousAmount: number | null): IDataObject => ({
			event,
			...quota,
			previousAmount,
			...(event === 'quotaBelowThreshold' ? { threshold } : {}),
		});
		const key = keyOf(session, { quota: request, connectedAccountId: customerOf(whose) }, question.accessToken);
		return {
			key,
			where,
			// A receiving account's ID is a bank account: by its last four in messages, whole in items (a workflow routes on it).
			label: quotaLabel(whose, request),
			readState: (saved) => readQuotaState(saved, key),
			cost: () => ({ key, requests: 1, steps: 1 }),
			read: async (s, read) => await getQuota(s, question, read),
			compare: (saved, read, whole) => {
				const quota = read as IDataObject;
				const state = saved as QuotaState | undefined;
				const outcome = quotaEvents(wanted, state, key, quota.availableQuotaAmount as number, threshold, whole);
				const { below: isBelow, amount } = outcome.next;
				const moved = () =>
					!state || isBelow !== state.below || amount !== state.amount || (threshold) !== state.threshold;
				const events = outcome.fired.map((event) => item(event, quota, outcome.previousAmount ?? null));
				return { events, next: outcome.next, unchanged: false, moved };
			},
			// Shaped as an event, so that what follows the trigger can be built on it.
			sample: async (s) => [item([...wanted][0], await getQuota(s, question), null)],
		};
	});
}
