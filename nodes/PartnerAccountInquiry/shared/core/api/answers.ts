/**
 * An answer is used only when it is about the question that was sent. The signature binds an
 * answer to the path, the client and the time, not to the filters, the subject or the customer,
 * so a gateway that ignored a filter, or an answer meant for another request, verifies. These
 * checks, derived from the field rows, refuse such answers before anything is emitted.
 */
import { ForeignAnswerError, RequestError } from '../errors';
import { maskAccount } from '../redaction';
import { BENEFICIARY_FILTERS, isMaskedQuotaId, labelOf, METHOD_WITH_TRADE_TYPE } from './fields';
import { shown, type QuotaRequest } from './validation';

function typeName(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'string' ? 'a string' : typeof value;
}

const EXACT_FILTERS = BENEFICIARY_FILTERS.filter((rule) => rule.match === 'exact' && rule.responseField);

/**
 * Every beneficiary of a page is a JSON object and satisfies each exact-match filter that was
 * sent, wherever it carries the field that filter constrains. Fuzzy filters (account name,
 * relation, nickname) match in ways the API does not define, and cannot be checked.
 */
export function checkBeneficiaries(
	items: readonly unknown[],
	sent: Readonly<Record<string, unknown>>,
	pageNumber: number,
): asserts items is Array<Record<string, unknown>> {
	const filters = EXACT_FILTERS.filter((rule) => sent[rule.name] !== undefined);
	items.forEach((item, index) => {
		if (!item || typeof item !== 'object' || Array.isArray(item)) {
			throw new RequestError(
				'The beneficiary list answer is not of the documented shape',
				'Contact support quoting this message.',
				undefined,
				`Beneficiary ${index + 1} on page ${pageNumber} is ${typeName(item)}, not an object; nothing from the answer was used.`,
			);
		}
		const beneficiary = item as Record<string, unknown>;
		for (const rule of filters) {
			const field = rule.responseField as string;
			if (!Object.hasOwn(beneficiary, field)) continue;
			const wanted = sent[rule.name];
			const got = beneficiary[field];
			const matches = Array.isArray(wanted) ? wanted.includes(got) : got === wanted;
			if (!matches) {
				throw new ForeignAnswerError(
					`The gateway ignored the ${rule.label} filter`,
					`Beneficiary ${index + 1} on page ${pageNumber} has \`${field}\` ${shown(rule.name, got)}, but only ${shown(rule.name, wanted)} was asked for; nothing from the answer was used.`,
				);
			}
		}
	});
}

/**
 * A quota answer carries what the API makes required (method, ID, available quota with a
 * currency, and the trade type for the beneficiary method), each equal to what was asked.
 */
export function checkQuotaAnswer(data: Readonly<Record<string, unknown>>, asked: QuotaRequest): void {
	const quota = data.availableQuota as Record<string, unknown> | undefined;
	if (!quota || typeof quota !== 'object' || Array.isArray(quota) || typeof quota.currency !== 'string') {
		throw new RequestError(
			'The quota answer has no available quota with a currency',
			'Contact support quoting this message.',
			undefined,
			'The API makes `availableQuota` and its `currency` required; nothing from the answer was used.',
		);
	}
	const required: Array<[label: string, field: string, wanted: string | undefined, got: unknown]> = [
		[
			labelOf('quotaAccumulationMethod'),
			'quotaAccumulationMethod',
			asked.quotaAccumulationMethod,
			data.quotaAccumulationMethod,
		],
		[labelOf('quotaAccumulationId'), 'quotaAccumulationId', asked.quotaAccumulationId, data.quotaAccumulationId],
		[labelOf('currency'), 'availableQuota.currency', asked.currency, quota.currency],
	];
	if (asked.quotaAccumulationMethod === METHOD_WITH_TRADE_TYPE)
		required.push([labelOf('tradeType'), 'tradeType', asked.tradeType, data.tradeType]);
	for (const [label, field, wanted, got] of required) {
		if (got === undefined) {
			throw new RequestError(
				`The quota answer has no ${label}`,
				'Contact support quoting this message.',
				undefined,
				`The API makes \`${field}\` required: without it the answer cannot be tied to the question, so it was not used.`,
			);
		}
		if (got !== wanted) {
			const show = (value: unknown) =>
				field === 'quotaAccumulationId' && isMaskedQuotaId(asked.quotaAccumulationMethod)
					? JSON.stringify(maskAccount(String(value)))
					: JSON.stringify(value);
			throw new ForeignAnswerError(
				`The quota answer is about another ${label}`,
				`It is about ${show(got)}, not the ${show(wanted)} asked for; nothing from it was used.`,
			);
		}
	}
}
