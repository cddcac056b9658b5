import { checkBeneficiaries, checkQuotaAnswer } from '../../nodes/PartnerAccountInquiry/shared/core/api/answers';
import { ForeignAnswerError, RequestError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';

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
			/Currencies filter: beneficiary 1 on page 2 has currency "USD", but only \["EUR"\]/,
		],
		[{ assetType: 'WALLET_ACCOUNT' }, b({}), /Asset Type filter/],
		[{ referenceBeneficiaryId: 'R-1' }, b({ referenceBeneficiaryId: 'R-2' }), /Reference Beneficiary ID filter/],
		[{ bankAccountNo: 'A1' }, b({ bankAccountNo: 'A2' }), /Bank Account Number filter/],
		[{ bankAccountIBAN: 'GB29X' }, b({ bankAccountIBAN: 'GB29Y' }), /Bank Account IBAN filter/],
		[
			{ beneficiaryToken: 'secret-a' },
			b({ beneficiaryToken: 'secret-b' }),
			/Beneficiary Token filter.*\(value hidden\)/,
		],
	])('refuses an answer that ignored %p', (sent, item, message) => {
		let error: unknown;
		try {
			checkBeneficiaries([item], sent, 2);
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(ForeignAnswerError);
		expect((error as Error).message).toMatch(message);
		expect((error as Error).message).not.toMatch(/secret-/);
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
		expect(() => checkBeneficiaries([b({}), item], {}, 1)).toThrow(/beneficiary 2 on page 1 is .*, not an object/);
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
	it.each(['quotaAccumulationMethod', 'quotaAccumulationId', 'tradeType'])('refuses an answer without %s', (field) => {
		const rest: Record<string, unknown> = { ...answer };
		delete rest[field];
		expect(() => checkQuotaAnswer(rest, asked)).toThrow(new RegExp(`has no ${field}`));
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
		expect(() => checkQuotaAnswer({ ...answer, availableQuota: { currency: 'EUR', value: '1' } }, asked)).toThrow(
			/availableQuota.currency "EUR", not the "USD"/,
		);
		expect(() => checkQuotaAnswer({ ...answer, availableQuota: 'x' }, asked)).toThrow(RequestError);
	});
});
