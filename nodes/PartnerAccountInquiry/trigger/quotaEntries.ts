/** The entries of a trigger on the available quota: one subject, or a set of them (Watch Many). */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, isMaskedField, isMaskedQuotaId } from '../shared/core/api/fields';
import type { QuotaRequest } from '../shared/core/api/validation';
import { ValidationError } from '../shared/core/errors';
import { maskAccount } from '../shared/core/redaction';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import { ACCUMULATION_ID, refuseEmptyExpression } from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';
import { checkSet, quotaEntryValues, quotaRowFields, SET_PARAMETERS } from './enteredSet';
import { legacyEventForms } from './legacyKeys';
import { quotaEvents, readQuotaState, type QuotaState } from './quotaState';
import { questionDigest } from './savedState';
import { enteredEntries, keyOf, type Context, type WatchedEntry } from './watchedEntry';

/**
 * The Threshold as a number of at least 0 (a number in a string, "10000", is that number). An empty
 * string, text or a negative number is refused, never read as 0, an alert that could never fire.
 */
function readThreshold(raw: unknown): number {
	const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() ? Number(raw) : Number.NaN;
	if (Number.isFinite(value) && value >= 0) return value;
	const got = `got ${JSON.stringify(raw) ?? 'nothing'}`;
	throw new ValidationError('threshold', 'a number of at least 0', `Threshold must be a number of at least 0, ${got}`);
}

/** How an item names a quota subject, for a Switch to route on ("USER_ID U-1001 USD"), or a message does (`id` masked). */
const subjectOf = (request: QuotaRequest, id = request.quotaAccumulationId) =>
	[request.quotaAccumulationMethod, id, request.currency, request.tradeType].filter(Boolean).join(' ');

export function quotaEntries(fn: IPollFunctions, session: ApiSession, context: Context): WatchedEntry[] {
	const { options, wanted, many, named } = context;
	const below = wanted.has('quotaBelowThreshold');
	const thresholdParameter = fn.getNodeParameter('threshold', '');
	const defaultThreshold = below ? readThreshold(thresholdParameter) : 0;
	type Subject = { request: QuotaRequest; threshold: number; entered?: unknown };
	let subjects: Array<{ where: string; value: Subject }>;
	if (many) {
		const entered = enteredEntries(fn, SET_PARAMETERS.quota, quotaRowFields);
		subjects = checkSet(
			'subjects',
			entered,
			(entry) => {
				const { values, threshold } = quotaEntryValues(entry);
				const request = buildQuotaRequest((name, fallback) => values[name] ?? fallback);
				const entered = threshold === '' ? thresholdParameter : threshold;
				return { request, threshold: below && threshold !== '' ? readThreshold(threshold) : defaultThreshold, entered };
			},
			({ request }) => questionDigest(request),
			({ fields }) => (isMaskedQuotaId(fields[0]?.toUpperCase()) && fields[1] ? [fields[1]] : []),
		);
	} else {
		const id = fn.getNodeParameter(ACCUMULATION_ID.name, '');
		refuseEmptyExpression(fn.getNode(), 0, [ACCUMULATION_ID.name], ACCUMULATION_ID, id);
		const request = buildQuotaRequest((name, fallback) =>
			name === ACCUMULATION_ID.name ? id : fn.getNodeParameter(name, fallback),
		);
		subjects = [{ where: '', value: { request, threshold: defaultThreshold, entered: thresholdParameter } }];
	}
	return subjects.map(({ where, value: { request, threshold, entered } }) => {
		const question = quotaQuestion(request, options);
		const connected = question.headers[CONNECTED_ACCOUNT_ID.header as string];
		const key = keyOf(session, { quota: request, connectedAccountId: connected }, question.accessToken);
		// Up to 0.3.0 the threshold was in the key (0 without Quota Below Threshold), as entered then.
		const legacyKeys = () =>
			legacyEventForms('quota').flatMap(({ events, below: alerts }) => {
				const judged = alerts ? Number(entered === '' ? Number.NaN : entered) : 0;
				if (!Number.isFinite(judged) || judged < 0) return [];
				const asked = { ...events, request, threshold: judged, connectedAccountId: options.connectedAccountId ?? '' };
				return [{ key: keyOf(session, asked, options.accessToken), threshold: alerts ? judged : undefined }];
			});
		const id = request.quotaAccumulationId;
		const naming = named ? { subject: subjectOf(request) } : {};
		// A receiving account's ID is a bank account: named by its last four in messages and in what the
		// state keeps of an event waiting behind the cap, given back whole (a workflow routes on it).
		const masked = isMaskedField('quotaAccumulationId', { ...request });
		const label = subjectOf(request, masked ? maskAccount(id) : id);
		return {
			key,
			legacyKeys,
			where,
			label,
			readState: (saved) => readQuotaState(saved, key),
			cost: () => ({ key, requests: 1, steps: 1 }),
			read: async (s, read) => await getQuota(s, question, read),
			compare: (saved, read, cap, whole) => {
				const quota = read as IDataObject;
				const state = saved as QuotaState | undefined;
				const outcome = quotaEvents(wanted, state, key, quota.availableQuotaAmount as number, threshold, whole);
				const { below, amount } = outcome.next;
				const moved = () => !state || below !== state.below || amount !== state.amount || threshold !== state.threshold;
				// Over the cap: nothing emitted and the state stays, so a later poll fires it; a baseline
				// still takes the amount (a move before that poll is a Quota Changed), not the alert.
				if (outcome.fired.length > cap) {
					const next = state ?? { ...outcome.next, below: false };
					return { events: [], next, unchanged: false, moved: () => state === undefined };
				}
				const events = outcome.fired.map((event) => {
					const json: IDataObject = { ...quota, event, ...naming, previousAmount: outcome.previousAmount ?? null };
					if (event === 'quotaBelowThreshold') json.threshold = threshold;
					return json;
				});
				return { events, next: outcome.next, unchanged: false, moved };
			},
			toHeld: (json) =>
				masked ? { ...json, quotaAccumulationId: maskAccount(id), ...(named ? { subject: label } : {}) } : json,
			fromHeld: (json) => (masked ? { ...json, quotaAccumulationId: id, ...naming } : json),
			sample: async (s) => [{ ...(await getQuota(s, question)), event: [...wanted][0], ...naming }],
		};
	});
}
