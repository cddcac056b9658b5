import { checkBeneficiaries, checkQuotaAnswer } from '../../nodes/PartnerAccountInquiry/shared/core/api/answers';
import { ForeignAnswerError, RequestError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { thrown } from '../fixtures/thrown';

const b = (fields: Record<string, unknown>) => ({
	beneficiaryToken: 't1',
	currency: 'USD',
	assetType: 'BANK_ACCOUNT',
	...fields,
});

describe('checkBeneficiaries: every item is an object that satisfies the exact filters sent', () => {
	it('accepts items that match every exact filter, and items that do not carry the field', () => {
		expect(() =>
			checkBeneficiaries(
				[b({}), { beneficiaryNick: 'no currency field' }],
				{ currencyList: ['USD', 'EUR'], assetType: 'BANK_ACCOUNT' },
				1,
			),
		).not.toThrow();
	});

	it.each([
		[
			{ currencyList: ['EUR'] },
			b({}),
			/^The gateway ignored the Currencies filter\. Beneficiary 1 on page 2 has `currency` "USD", but only \["EUR"\] was asked for;/,
		],
		[{ assetType: 'WALLET_ACCOUNT' }, b({}), /Asset Type filter/],
		[{ referenceBeneficiaryId: 'R-1' }, b({ referenceBeneficiaryId: 'R-2' }), /Reference Beneficiary ID filter/],
		[{ bankAccountNo: 'A1' }, b({ bankAccountNo: 'A2' }), /Bank Account Number filter/],
		[{ bankAccountIBAN: 'GB29X' }, b({ bankAccountIBAN: 'GB29Y' }), /Bank Account IBAN filter/],
		[
			{ beneficiaryToken: 'secret-a' },
			b({ beneficiaryToken: 'secret-b' }),
			/^The gateway ignored the Beneficiary Token filter\. .*\(value hidden\)/,
		],
	])('refuses an answer that ignored %p', (sent, item, message) => {
		let error: unknown;
		try {
			checkBeneficiaries([item], sent, 2);
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(ForeignAnswerError);
		// The short message names the filter; the detail which beneficiary and which values.
		const { message: title, detail } = error as ForeignAnswerError;
		expect(`${title}. ${detail}`).toMatch(message);
		expect(`${title}. ${detail}`).not.toMatch(/secret-/);
	});

	it('does not check fuzzy filters (account name, relation, nickname)', () => {
		expect(() =>
			checkBeneficiaries(
				[b({ accountName: 'Other', relationType: 'X', beneficiaryNick: 'n' })],
				{ accountName: 'Acme', relationFilter: ['SAME_NAME'], beneficiaryNick: 'm' },
				1,
			),
		).not.toThrow();
	});

	it.each([['x'], [null], [[1]], [3]])('refuses a beneficiary that is %p', (item) => {
		const error = thrown(() => checkBeneficiaries([b({}), item], {}, 1)) as RequestError;
		expect(error.message).toBe('The beneficiary list answer is not of the documented shape');
		expect(error.detail).toMatch(/^Beneficiary 2 on page 1 is .*, not an object;/);
	});
});

describe('checkQuotaAnswer: the required fields, each equal to what was asked', () => {
	const asked = {
		quotaAccumulationMethod: 'BENEFICIARY',
		quotaAccumulationId: 'B-1',
		currency: 'USD',
		tradeType: 'GOODS',
	};
	const answer = {
		quotaAccumulationMethod: 'BENEFICIARY',
		quotaAccumulationId: 'B-1',
		tradeType: 'GOODS',
		availableQuota: { currency: 'USD', value: '1' },
	};
	it('accepts the answer to the question', () => expect(() => checkQuotaAnswer(answer, asked)).not.toThrow());
	it.each([
		['quotaAccumulationMethod', 'Accumulation Method'],
		['quotaAccumulationId', 'Accumulation ID'],
		['tradeType', 'Trade Type'],
	])('refuses an answer without %s', (field, label) => {
		const rest: Record<string, unknown> = { ...answer };
		delete rest[field];
		const error = thrown(() => checkQuotaAnswer(rest, asked)) as RequestError;
		expect(error.message).toBe(`The quota answer has no ${label}`);
		expect(error.detail).toContain(`The API makes \`${field}\` required`);
	});
	it('does not require a trade type for the other methods', () => {
		const rest: Record<string, unknown> = { ...answer, quotaAccumulationMethod: 'USER_ID' };
		delete rest.tradeType;
		expect(() =>
			checkQuotaAnswer({ ...rest }, { ...asked, quotaAccumulationMethod: 'USER_ID', tradeType: undefined }),
		).not.toThrow();
	});
	it('refuses an answer about another subject', () => {
		expect(() => checkQuotaAnswer({ ...answer, quotaAccumulationId: 'B-2' }, asked)).toThrow(ForeignAnswerError);
		const error = thrown(() =>
			checkQuotaAnswer({ ...answer, availableQuota: { currency: 'EUR', value: '1' } }, asked),
		) as ForeignAnswerError;
		expect(error.message).toBe('The quota answer is about another Currency');
		expect(error.detail).toBe('It is about "EUR", not the "USD" asked for; nothing from it was used.');
		expect(() => checkQuotaAnswer({ ...answer, availableQuota: 'x' }, asked)).toThrow(RequestError);
	});
});
