import fc from 'fast-check';

import { parseResponseBody } from '../../nodes/PartnerAccountInquiry/shared/core/api/responseBody';

describe('parseResponseBody', () => {
	it('parses a JSON object, non-ASCII text included', () => {
		const raw = Buffer.from('{"result":{"resultStatus":"S"},"name":"深圳 Zoë"}', 'utf8');
		expect(parseResponseBody(raw)).toEqual({ ok: true, value: { result: { resultStatus: 'S' }, name: '深圳 Zoë' } });
	});

	it('refuses invalid UTF-8 instead of replacing it silently', () => {
		const raw = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
		expect(parseResponseBody(raw)).toEqual({ ok: false, problem: 'The answer is not valid UTF-8 text' });
	});

	it('says how long a malformed body is and how it starts', () => {
		const result = parseResponseBody(Buffer.from('{"result":{"resultStatus":'));
		expect(result).toEqual({
			ok: false,
			problem: 'The answer is not valid JSON',
			detail: 'It has 26 characters, starting "{\\"result\\":{\\"resultStatus\\":".',
		});
	});

	it.each(['[]', '"text"', '42', 'null', ''])('refuses a body that is not a JSON object: %p', (text) => {
		expect(parseResponseBody(Buffer.from(text)).ok).toBe(false);
	});

	it('never throws, whatever the bytes', () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
				const result = parseResponseBody(bytes);
				expect(typeof result.ok).toBe('boolean');
			}),
			{ numRuns: 10_000 },
		);
	});
});
