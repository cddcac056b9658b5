import { maskBankDetails } from '../../nodes/PartnerAccountInquiry/shared/core/masking';
import { WHOSE_ACCOUNT_FIELD } from '../../nodes/PartnerAccountInquiry/shared/core/api/whoseAccount';

describe('maskBankDetails: an item safe to post', () => {
	// The token is Base64 of a test text, not a secret.
	const token = Buffer.from('token:SML-00001').toString('base64');
	const item = {
		referenceBeneficiaryId: 'REF00012345',
		beneficiaryNick: 'Supplier 12345678',
		beneficiaryToken: token,
		bankAccountNo: '6222021234567890',
		bankAccountIBAN: 'GB29NWBK60161331926819',
		availableAmount: 1250000,
		extendInfo: { note: 'pay to 6222-0212-3456-7890 or gb29 nwbk 6016 1331 9268 19', tags: ['6222021234567890'] },
	};

	it('keeps the last four of each bank field, wherever a value repeats them; free text by its account-like runs', () => {
		expect(maskBankDetails(item)).toEqual({
			referenceBeneficiaryId: 'REF00012345',
			beneficiaryNick: 'Supplier ****5678',
			beneficiaryToken: '****MDAx',
			bankAccountNo: '****7890',
			bankAccountIBAN: '****6819',
			availableAmount: 1250000,
			extendInfo: { note: 'pay to ****7890 or ****6819', tags: ['****7890'] },
		});
	});

	it("masks a change's before and after of a bank field, and a tail kept as ****1234 stays as it is", () => {
		const changed = {
			...item,
			changes: {
				bankAccountNo: { before: '****1111', after: '6222021234567890' },
				bankAccountIBAN: { before: 'DE89370400440532013000', after: 'GB29NWBK60161331926819' },
				beneficiaryNick: { before: 'Old 12345678', after: 'Supplier 12345678' },
				status: { before: 'A1234567890', after: 'ACTIVE' },
			},
		};
		const masked = maskBankDetails(changed);
		expect(masked.changes).toEqual({
			bankAccountNo: { before: '****1111', after: '****7890' },
			bankAccountIBAN: { before: '****3000', after: '****6819' },
			beneficiaryNick: { before: 'Old ****5678', after: 'Supplier ****5678' },
			// A code a workflow routes on stays as it is.
			status: { before: 'A1234567890', after: 'ACTIVE' },
		});
		for (const value of ['6222021234567890', 'GB29NWBK60161331926819', 'DE89370400440532013000', token])
			expect(JSON.stringify(masked)).not.toContain(value);
	});

	it('a number, a short value, an absent field and a bank field nested anywhere', () => {
		expect(
			maskBankDetails({ bankAccountNo: 62220212345, bankAccountIBAN: null, extendInfo: { bankAccountNo: 'AB12' } }),
		).toEqual({ bankAccountNo: '****2345', bankAccountIBAN: null, extendInfo: { bankAccountNo: '****' } });
	});
});

describe('maskBankDetails: the rules of MASKING_RULES at their edges', () => {
	it('the whole of whoseAccount (a customer ID of digits) and a change of a routing code are routing: kept whole', () => {
		const item = {
			bankAccountNo: '****5678',
			[WHOSE_ACCOUNT_FIELD]: '12345678',
			changes: { referenceBeneficiaryId: { before: 'REF-20250001', after: 'REF-20255678' } },
		};
		expect(maskBankDetails(item)).toEqual(item);
	});

	it('a run ending in a kept tail, in any separator form; the tail alone and the words before it stay', () => {
		const nick = (beneficiaryNick: string) =>
			maskBankDetails({ bankAccountNo: '****7123', beneficiaryNick }).beneficiaryNick;
		expect(['Rent 456-7123', 'Rent 456 7123', 'Rent 456.7123', 'Rent 4567123'].map(nick)).toEqual(
			Array(4).fill('Rent ****7123'),
		);
		expect(nick('Rent%20456%207123')).toBe('Rent%20****7123');
		expect(nick('invoice 12 for 456-7123')).toBe('invoice 12 for ****7123');
		expect(nick('Acct-7123 rent')).toBe('Acct-7123 rent');
		// Another script's letters bound the run: they stay.
		expect(nick('家賃456-7123')).toBe('家賃****7123');
	});

	it('a text nothing is masked in stays as written (full-width letters too); a fraction is no account number', () => {
		const item = { beneficiaryNick: 'Ｒｅｎｔ 家賃', extendInfo: { rate: 7.123456789, amount: 1250000.5 } };
		expect(maskBankDetails(item)).toEqual(item);
	});
});
