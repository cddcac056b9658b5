import { RequestError, TransientError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { networkError } from '../../nodes/PartnerAccountInquiry/shared/transport/wire';

describe('networkError: which send failures are worth a retry', () => {
	it.each([
		[
			'ECONNRESET',
			{ httpCode: 'ECONNRESET', message: 'The connection to the server was closed unexpectedly' },
			/connection was reset/,
		],
		['ECONNABORTED (timeout)', { httpCode: 'ECONNABORTED', message: 'timeout of 1000ms exceeded' }, /timed out/],
		['a code on the cause', { message: 'x', cause: { code: 'ECONNREFUSED' } }, /connection was refused/],
		['ENOTFOUND', { message: 'x', cause: { code: 'ENOTFOUND' } }, /could not be resolved/],
	])('%s is transient', (_name, error, message) => {
		const result = networkError(Object.assign(new Error(String(error.message)), error));
		expect(result).toBeInstanceOf(TransientError);
		expect(result.message).toMatch(message);
		expect(result.message).not.toMatch(/E[A-Z]{4,}/);
	});

	it.each([
		['an invalid header value', new Error('Invalid character in header content ["Connected-CustomerId"]')],
		[
			'a blocked address',
			Object.assign(new Error('Request to 10.0.0.1 blocked by SSRF protection'), { code: 'SSRF_BLOCKED' }),
		],
		['too many redirects', new Error('Maximum number of redirects exceeded')],
	])('%s is not: it fails at once, saying the request could not be sent', (_name, error) => {
		const result = networkError(error);
		expect(result).toBeInstanceOf(RequestError);
		expect(result.message).toMatch(/^The request could not be sent: /);
	});
});
