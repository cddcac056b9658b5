import { RequestError, TransientError } from '../../nodes/PartnerAccountInquiry/shared/core/errors';
import { exchange, type RequestContext } from '../../nodes/PartnerAccountInquiry/shared/transport/wire';
import { rejection } from '../fixtures/async';
import { list, OK_QUOTA, QUOTA, quota, until, useSimulator } from '../support/helpers';

/** What the wire makes of a send failure: n8n's HTTP helper rejects with `error`. */
async function networkError(error: unknown): Promise<Error> {
	const helpers = { httpRequestWithAuthentication: async () => await Promise.reject(error) };
	const request = { url: 'http://127.0.0.1:9/', body: Buffer.from('{}'), timeout: 60_000 };
	return (await rejection(exchange({ helpers } as unknown as RequestContext, request))) as Error;
}

describe('the wire: which send failures are worth a retry', () => {
	it.each([
		[
			'ECONNRESET',
			{ httpCode: 'ECONNRESET', message: 'The connection to the server was closed unexpectedly' },
			/connection was reset/,
		],
		['ECONNABORTED (timeout)', { httpCode: 'ECONNABORTED', message: 'timeout of 1000ms exceeded' }, /timed out/],
		['a code on the cause', { message: 'x', cause: { code: 'ECONNREFUSED' } }, /connection was refused/],
		['ENOTFOUND', { message: 'x', cause: { code: 'ENOTFOUND' } }, /could not be resolved/],
	])('%s is transient', async (_name, error, message) => {
		const result = await networkError(Object.assign(new Error(String(error.message)), error));
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
	])('%s is not: it fails at once, saying the request could not be sent', async (_name, error) => {
		const result = await networkError(error);
		expect(result).toBeInstanceOf(RequestError);
		expect(result.message).toMatch(/^The request could not be sent: /);
	});
});

describe('the wire: every body is capped in size and every attempt has a wall-clock deadline', () => {
	// Driven through n8n's engine against the simulator, which drips, inflates or drops answers.
	const { sim } = useSimulator();

	// The drip sends one byte every 200 ms: an answer of hundreds of bytes takes minutes, longer
	// than this test may run (30 s). Only a deadline that cuts each attempt ends it in time.
	it('a body dripped byte by byte meets the wall-clock deadline of each attempt', async () => {
		sim().addFault({ fault: 'drip', operation: 'quota' });
		const run = await quota(sim(), { ...QUOTA, options: { timeout: 1000 } });
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/the request timed out \(1000 ms\)/);
		expect(sim().requests).toHaveLength(4);
		// Each attempt was cut by the node (its connection closed before the answer ended), not served whole.
		await until(() => sim().requests.every((r) => r.closedEarly), 'every attempt closed by the node');
	}, 30_000);

	it.each(['huge', 'gzipBomb'] as const)(
		'%s: reading stops at the cap, one request, nothing emitted',
		async (fault) => {
			sim().addFault({ fault, operation: 'quota' });
			const run = await quota(sim(), QUOTA);
			expect(run.status).toBe('error');
			expect(run.json).toEqual([]);
			expect(run.error?.message).toMatch(/larger than 8 MiB, the most this node reads/);
			expect(sim().requests).toHaveLength(1);
		},
	);

	it('a connection that drops mid-body is transient: retried, and the answer comes back', async () => {
		sim().addFault({ fault: 'dropMidBody', operation: 'quota', times: 1 });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('success');
		expect(run.json).toEqual([OK_QUOTA]);
		expect(sim().requests).toHaveLength(2);
	});

	it('one that keeps dropping ends with a transient error, not "could not be sent"', async () => {
		sim().addFault({ fault: 'dropMidBody', operation: 'quota' });
		const run = await quota(sim(), QUOTA);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/No answer from the gateway: the connection closed in the middle of the answer/);
		expect(sim().requests).toHaveLength(4);
	});

	it.each([0, '', 'abc', -1, 1e12, 2.5])('a Timeout of %p is refused, never "no timeout"', async (timeout) => {
		const run = await quota(sim(), { ...QUOTA, options: { timeout } });
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(/Timeout must be a whole number from 1000 to 300000/);
		expect(sim().requests).toHaveLength(0);
	});

	it('a failing page ends a listing promptly while other pages are still dripping', async () => {
		sim().addFault({ fault: 'drip', customerId: 'CUST_LARGE', pageNumber: 3 });
		sim().addFault({
			fault: 'answer',
			customerId: 'CUST_LARGE',
			pageNumber: 2,
			answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'boom' },
		});
		const run = await list(sim(), {
			returnAll: true,
			customerId: 'CUST_LARGE',
			options: { timeout: 60_000 },
		});
		expect(run.status).toBe('error');
		expect(run.json).toEqual([]);
		expect(run.error?.message).toMatch(/SYSTEM_ERROR/);
		// Page 3 drips for an hour (a byte every 200 ms) and its Timeout is 60 s: a run that waited for
		// either would not end within this test's 30 s. No clock is read: the run ending is the proof.
	}, 30_000);
});
