import { maskSubjectsText, pastedEntries } from '../../nodes/PartnerAccountInquiry/shared/core/subjectLines';

describe('pastedEntries: the one reading of a pasted set line', () => {
	it('one entry a line, fields trimmed, by comma, semicolon or tab; blank lines and # comments are none', () => {
		const text =
			'# header\r\n USER_ID , U-1001;USD\n\n\tRECEIVING_ACCOUNT\t1234567\tUSD\r  # RA-1, 6222021234567890\nCUST_1';
		expect(pastedEntries(text).map(({ line, fields }) => ({ line, fields }))).toEqual([
			{ line: 2, fields: ['USER_ID', 'U-1001', 'USD'] },
			{ line: 4, fields: ['RECEIVING_ACCOUNT', '1234567', 'USD'] },
			{ line: 6, fields: ['CUST_1'] },
		]);
	});

	it("each field's span is where it stands in the text as typed", () => {
		const text = 'x\n\t VIRTUAL_ACCOUNT ;  VA-0099 ,, EUR  \n';
		for (const { fields, spans } of pastedEntries(text)) {
			expect(spans.map(([start, end]) => text.slice(start, end))).toEqual(fields);
		}
		expect(pastedEntries(text)[1].fields).toEqual(['VIRTUAL_ACCOUNT', 'VA-0099', '', 'EUR']);
	});
});

describe('maskSubjectsText: pasted quota subjects as an error shows the node', () => {
	it('a receiving or virtual account by its last four, any account-like run too; the rest as typed', () => {
		expect(
			maskSubjectsText(
				'USER_ID, U-1001, USD\nreceiving_account;6222-0212-3456;USD\nVIRTUAL_ACCOUNT\tVA-0099\tEUR\n6222021234567890, USD',
			),
		).toBe('USER_ID, U-1001, USD\nreceiving_account;****3456;USD\nVIRTUAL_ACCOUNT\t****0099\tEUR\n****7890, USD');
	});

	it('a line the trigger reads as an account subject is masked as one: a leading tab, spaces, CRLF', () => {
		// A short account (fewer than 8 digits) is caught by its column only: the line must be read as the trigger reads it.
		expect(maskSubjectsText('\tRECEIVING_ACCOUNT\t1234567\tUSD\r\n  VIRTUAL_ACCOUNT ,  VA-1 , EUR ')).toBe(
			'\tRECEIVING_ACCOUNT\t****4567\tUSD\r\n  VIRTUAL_ACCOUNT ,  **** , EUR ',
		);
	});

	it('a comment is no entry: only its account-like runs are masked', () => {
		expect(maskSubjectsText('# RECEIVING_ACCOUNT, 1234567, 6222021234567890')).toBe(
			'# RECEIVING_ACCOUNT, 1234567, ****7890',
		);
	});
});
