/** The entries of a trigger on the available quota: one subject, or a set of them (Watch Many). */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, isMaskedField, isMaskedQuotaId } from '../shared/core/api/fields';
import type { QuotaRequest } from '../shared/core/api/validation';
import { ValidationError } from '../shared/core/errors';
import { maskAccount } from '../shared/core/redaction';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import { ACCUMULATION_ID, refuseEmptyExpression } from '../shared/properties';
import type { ApiSession } from '../shared/transport/session';
import { checkSet, enteredEntries, quotaEntryValues, quotaRowFields, SET_PARAMETERS } from './enteredSet';
import { quotaEvents, readQuotaState, type QuotaState } from './quotaState';
import { questionDigest } from './savedState';
import { keyOf, type Context, type WatchedEntry } from './watchedEntry';

/** The Threshold as a number of at least 0 ("10000" too); empty, text or negative is refused, never read as 0. */
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
	const { options, wanted, many } = context;
	const below = wanted.has('quotaBelowThreshold');
	const defaultThreshold = below ? readThreshold(fn.getNodeParameter('threshold', '')) : 0;
	let subjects: Array<{ where: string; value: { request: QuotaRequest; threshold: number } }>;
	if (many) {
		subjects = checkSet(
			'subjects',
			enteredEntries(fn, SET_PARAMETERS.quota, quotaRowFields),
			(entry) => {
				const { values, threshold } = quotaEntryValues(entry);
				const request = buildQuotaRequest((name, fallback) => values[name] ?? fallback);
				return { request, threshold: below && threshold !== '' ? readThreshold(threshold) : defaultThreshold };
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
		subjects = [{ where: '', value: { request, threshold: defaultThreshold } }];
	}
	return subjects.map(({ where, value: { request, threshold } }) => {
		const question = quotaQuestion(request, options);
		const connected = question.headers[CONNECTED_ACCOUNT_ID.header as string];
		const key = keyOf(session, { quota: request, connectedAccountId: connected }, question.accessToken);
		const id = request.quotaAccumulationId;
		const naming = { subject: subjectOf(request) };
		// A receiving account's ID is a bank account: by its last four in messages, whole in items (a workflow routes on it).
		const masked = isMaskedField('quotaAccumulationId', { ...request });
		return {
			key,
			where,
			label: subjectOf(request, masked ? maskAccount(id) : id),
			readState: (saved) => readQuotaState(saved, key),
			cost: () => ({ key, requests: 1, steps: 1 }),
			read: async (s, read) => await getQuota(s, question, read),
			compare: (saved, read, whole) => {
				const quota = read as IDataObject;
				const state = saved as QuotaState | undefined;
				const outcome = quotaEvents(wanted, state, key, quota.availableQuotaAmount as number, threshold, whole);
				const { below, amount } = outcome.next;
				const moved = () => !state || below !== state.below || amount !== state.amount || threshold !== state.threshold;
				const events = outcome.fired.map((event) => {
					const json: IDataObject = { ...quota, event, ...naming, previousAmount: outcome.previousAmount ?? null };
					if (event === 'quotaBelowThreshold') json.threshold = threshold;
					return json;
				});
				return { events, next: outcome.next, unchanged: false, moved };
			},
			sample: async (s) => [{ ...(await getQuota(s, question)), event: [...wanted][0], ...naming }],
		};
	});
}
