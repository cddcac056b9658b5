import fc from 'fast-check';

import { ResponseVerificationError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import {
	checkResponseTime,
	formatRequestTime,
	parseTimestamp,
} from '../../nodes/PartnerAccountInquiry/shared/core/signing/timestamps';
import { thrown } from '../fixtures/thrown';

describe('formatRequestTime', () => {
	it('writes whole seconds with an offset', () => {
		const d = new Date('2026-11-22T10:15:30.987Z');
		expect(formatRequestTime(d)).toBe('2026-11-22T10:15:30+00:00');
		expect(formatRequestTime(d, 480)).toBe('2026-11-22T18:15:30+08:00');
		expect(formatRequestTime(d, -330)).toBe('2026-11-22T04:45:30-05:30');
	});

	it('round-trips through parseTimestamp for any instant and offset', () => {
		fc.assert(
			fc.property(
				fc.date({ min: new Date('2000-01-01Z'), max: new Date('2099-12-31Z'), noInvalidDate: true }),
				fc.integer({ min: -12 * 60, max: 14 * 60 }),
				(date, offset) => {
					const text = formatRequestTime(date, offset);
					expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
					expect(parseTimestamp(text)).toBe(Math.floor(date.getTime() / 1000) * 1000);
				},
			),
		);
	});
});

describe('parseTimestamp', () => {
	it.each(['2019-04-04T12:08:56+08:00', '2019-04-04T04:08:56Z', '2019-04-04T04:08:56.123Z'])('accepts %s', (t) => {
		expect(parseTimestamp(t)).toBe(Date.parse('2019-04-04T04:08:56Z') + (t.includes('.123') ? 123 : 0));
	});
	it.each(['2019-04-04 12:08:56', '2019-04-04T12:08:56', '1554350936000', '2019-13-04T12:08:56Z', 'yesterday', ''])(
		'rejects %p',
		(t) => {
			expect(parseTimestamp(t)).toBeUndefined();
		},
	);
});

describe('checkResponseTime', () => {
	const now = Date.parse('2026-11-23T10:00:00Z');
	it.each(['2026-11-23T10:00:00Z', '2026-11-23T18:04:59+08:00', '2026-11-23T09:55:00Z'])(
		'accepts %s within 300 s',
		(t) => {
			expect(() => checkResponseTime(t, now, 300)).not.toThrow();
		},
	);
	it.each([
		['2026-11-23T09:54:59Z', /301 s old/],
		['2026-11-23T18:05:01+08:00', /301 s in the future/],
		['2020-01-01T00:00:00Z', /s old/],
		['x', /^The answer's time is not a date/],
		['', /^The answer's time is not a date/],
	])('refuses %p', (t, message) => {
		expect(() => checkResponseTime(t, now, 300)).toThrow(message);
	});
	it('says how far off in the message, both times and the tolerance in the detail', () => {
		const error = thrown(() => checkResponseTime('2026-11-23T09:00:00Z', now, 300)) as ResponseVerificationError;
		expect(error.message).toBe("The answer is not fresh: it is 3600 s old by this n8n host's clock");
		expect(error.detail).toBe(
			"Its `response-time` is 2026-11-23T09:00:00Z and this host's clock said 2026-11-23T10:00:00Z; the credential's Response Time Tolerance accepts at most 300 s. Nothing from the answer was used.",
		);
		const unparsable = thrown(() => checkResponseTime('x', now, 300)) as ResponseVerificationError;
		expect(unparsable.detail).toMatch(/^Its `response-time` is "x", not an ISO 8601 time with a zone/);
	});
});
