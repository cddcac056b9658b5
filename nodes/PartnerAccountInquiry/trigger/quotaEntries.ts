/** The entries of a trigger on the available quota: one subject, or a set of them (Watch Many). */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CONNECTED_ACCOUNT_ID, isMaskedQuotaId } from '../shared/core/api/fields';
import type { QuotaRequest } from '../shared/core/api/validation';
import { ValidationError } from '../shared/core/errors';
import { maskAccount } from '../shared/core/redaction';
import { buildQuotaRequest, getQuota, quotaQuestion } from '../shared/endpoints/quota';
import { maskedIdIndex } from '../shared/core/subjectLines';
import { ACCUMULATION_ID, readWhose } from '../shared/properties';
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
	const ask = (request: QuotaRequest, account: unknown, threshold = defaultThreshold) =>
		({ question: quotaQuestion(request, account, options), threshold }) as const;
	let subjects: Array<{ where: string; value: ReturnType<typeof ask> }>;
	if (many) {
		subjects = checkSet(
			'subjects',
			enteredEntries(fn, SET_PARAMETERS.quota, quotaRowFields),
			(entry) => {
				const { values, threshold, connectedAccountId } = quotaEntryValues(entry);
				const request = buildQuotaRequest((name, fallback) => values[name] ?? fallback);
				// A threshold is checked whatever the events: a misplaced column is refused, not ignored.
				const own = threshold !== '' ? readThreshold(threshold) : undefined;
				return ask(request, connectedAccountId, below ? own : undefined);
			},
			({ question }) => questionDigest([question.request, question.headers]),
			({ fields }) => fields.filter((_, i) => i === maskedIdIndex(fields)),
		);
	} else {
		const read = (name: string) => fn.getNodeParameter(name, '');
		const [id, account] = [ACCUMULATION_ID, CONNECTED_ACCOUNT_ID].map((rule) => readWhose(fn.getNode(), 0, rule, read));
		const parameter = (name: string, fallback: unknown) =>
			name === ACCUMULATION_ID.name ? id : fn.getNodeParameter(name, fallback);
		subjects = [{ where: '', value: ask(buildQuotaRequest(parameter), account) }];
	}
	return subjects.map(({ where, value: { question, threshold } }) => {
		const { request } = question;
		const connected = question.headers[CONNECTED_ACCOUNT_ID.header as string] as string | undefined;
		const key = keyOf(session, { quota: request, connectedAccountId: connected }, question.accessToken);
		// Whose quota it is, for a Switch to route on: the connected account as sent, when one was.
		const naming = { subject: subjectOf(request), ...(connected ? { connectedAccountId: connected } : {}) };
		// A receiving account's ID is a bank account: by its last four in messages, whole in items (a workflow routes on it).
		const id = isMaskedQuotaId(request.quotaAccumulationMethod) ? maskAccount(request.quotaAccumulationId) : undefined;
		return {
			key,
			where,
			label: `${subjectOf(request, id)}${connected ? ` of ${connected}` : ''}`,
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
