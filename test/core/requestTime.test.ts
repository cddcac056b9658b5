import fc from 'fast-check';

import { formatRequestTime, parseRequestTime } from '../../nodes/PartnerAccountInquiry/core/signing/requestTime';

describe('formatRequestTime', () => {
	it('writes whole seconds with an offset', () => {
		const d = new Date('2026-11-22T10:15:30.987Z');
		expect(formatRequestTime(d)).toBe('2026-11-22T10:15:30+00:00');
		expect(formatRequestTime(d, 480)).toBe('2026-11-22T18:15:30+08:00');
		expect(formatRequestTime(d, -330)).toBe('2026-11-22T04:45:30-05:30');
	});

	it('round-trips through parseRequestTime for any instant and offset', () => {
		fc.assert(
			fc.property(
				fc.date({ min: new Date('2000-01-01Z'), max: new Date('2099-12-31Z'), noInvalidDate: true }),
				fc.integer({ min: -12 * 60, max: 14 * 60 }),
				(date, offset) => {
					const text = formatRequestTime(date, offset);
					expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
					expect(parseRequestTime(text)).toBe(Math.floor(date.getTime() / 1000) * 1000);
				},
			),
		);
	});
});

describe('parseRequestTime', () => {
	it.each(['2019-04-04T12:08:56+08:00', '2019-04-04T04:08:56Z', '2019-04-04T04:08:56.123Z'])('accepts %s', (t) => {
		expect(parseRequestTime(t)).toBe(Date.parse('2019-04-04T04:08:56Z') + (t.includes('.123') ? 123 : 0));
	});
	it.each(['2019-04-04 12:08:56', '2019-04-04T12:08:56', '1554350936000', '2019-13-04T12:08:56Z', 'yesterday', ''])(
		'rejects %p',
		(t) => {
			expect(parseRequestTime(t)).toBeUndefined();
		},
	);
});
