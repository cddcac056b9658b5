/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only simulator, not in the published package */
/**
 * The fault catalogue: every way the simulated gateway (or something on the way to it) misbehaves,
 * one row each in FAULTS, with its doc and its behaviour. A row acts through hooks, one per stage a
 * request goes through, in this order: `onTheWay` (before the gateway sees it), `instead` (an answer
 * instead of the endpoint's own), `list` / `quota` (the endpoint's answer bent), `signing` (how the
 * answer is written and signed) and `transport` (below the API: the HTTP exchange itself).
 *
 * A test adds a FaultRule (faultRules.ts); each request draws at most one rule on the way and one
 * at the gateway, the first that matches. A fault drawn by a request it cannot act on (a listing
 * fault on a quota request) does nothing, though the request logs it.
 * A new fault is one row here, and a test of it in test/workflows/.
 */
import type { IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';

import type { Exchange, FaultRow, FaultRule } from './faultRules';

export type FaultKind = keyof typeof FAULTS;

/** The request as a careless gateway echoes it in an error: the access token first, then the body and every header. */
export function echo(req: IncomingMessage, body: string): string {
	return `access token ${String(req.headers['access-token'] ?? '')}; body ${body}; headers ${JSON.stringify(req.headers)}`;
}

const httpError =
	(status: number) =>
	({ res }: Exchange): void => {
		res.writeHead(status, { 'content-type': 'text/html', ...(status === 429 ? { 'retry-after': '1' } : {}) });
		res.end(`<html><body><h1>${status}</h1><p>upstream unavailable</p></body></html>`);
	};

let gzipBomb: Buffer | undefined;

export const FAULTS = {
	// On the way, before the gateway sees the request.
	dropCustomerHeader: {
		doc: 'Something on the way (a proxy, a misconfigured gateway in front of a sandbox) drops the Connected-CustomerId header.',
		onTheWay: ({ req }) => {
			delete req.headers['connected-customerid'];
		},
	},
	rewriteCustomer: {
		doc: 'Something on the way rewrites the customer (into `to`, CUST_LARGE by default) wherever it travels, header or body; rewriting the body breaks the request signature.',
		onTheWay: ({ req, raw, body, rule }) => {
			const to = rule.to ?? 'CUST_LARGE';
			if (req.headers['connected-customerid'] !== undefined) req.headers['connected-customerid'] = to;
			if (body.customerId === undefined) return;
			return {
				raw: Buffer.from(raw.toString('utf8').replace(/"customerId":"[^"]*"/, `"customerId":${JSON.stringify(to)}`)),
			};
		},
	},
	replay: {
		doc: 'The answer of the last identical request (URL and body), served again byte for byte: a replay within the freshness window, with a genuine signature and a fresh enough time. The first such request is answered as usual.',
		onTheWay: ({ req, raw, answered }) => ({ replayed: answered.get(`${req.url}\n${raw.toString('utf8')}`) }),
	},
	replayAny: {
		doc: 'The last answer to the same URL, whatever the body asked, served again byte for byte: a proxy that replays a recorded answer to another question (it verifies: the signature binds the path, client and time, not the question). The first request to a URL is answered as usual.',
		onTheWay: ({ req, answered }) => ({
			replayed: [...answered].reverse().find(([key]) => key.startsWith(`${req.url}\n`))?.[1],
		}),
	},

	// Answers instead of the endpoint's own, signed.
	rateLimit: {
		doc: 'U REQUEST_TRAFFIC_EXCEED_LIMIT: slow down.',
		instead: () => ({
			status: 'U',
			code: 'REQUEST_TRAFFIC_EXCEED_LIMIT',
			message: 'Request traffic exceeds the limit',
		}),
	},
	unknownException: {
		doc: 'U UNKNOWN_EXCEPTION: the gateway does not know how it went.',
		instead: () => ({ status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' }),
	},
	answer: {
		doc: 'Its `answer` (any section 7 result) instead, with HTTP status `httpStatus` (200 by default), unsigned if `unsigned`; without `answer`, the usual answer sent so.',
		instead: (rule) => rule.answer,
		signing: { unsigned: (rule) => rule.unsigned === true, httpStatus: (rule) => rule.httpStatus ?? 200 },
	},
	echoAccount: {
		doc: 'Quota only: a signed failure (ACCOUNT_NOT_EXIST) that names the accumulation ID as sent, as bare digits and in groups of four, and other accounts: hyphenated, letter-prefixed, a spaced IBAN.',
		instead: (_rule, { operation, id = '' }) => {
			if (operation !== 'quota') return undefined;
			const digits = id.replace(/\D/g, '');
			const message = `Account ${id} (${digits}, ${digits.replace(/(\d{4})(?=\d)/g, '$1 ')}) does not exist; linked accounts 6222-0212-3456-7890, VA00123456 and GB29 NWBK 6016 1331 9268 19`;
			return { status: 'F', code: 'ACCOUNT_NOT_EXIST', message };
		},
	},

	// Listings that verify but are not about the question, or not of the documented shape.
	ignoreFilters: {
		doc: 'The filters asked for are not applied: the whole list.',
		list: { ignoresFilters: true },
	},
	impossibleTotals: {
		doc: 'totalCount and totalPageNumber 0 beside a page of entries.',
		list: { totals: { totalCount: 0, totalPageNumber: 0 } },
	},
	nonObjectItem: {
		doc: 'The first entry of the page is `item` (the text "not a beneficiary" by default), not a beneficiary.',
		list: {
			page: (entries, rule) => {
				entries[0] = 'item' in rule ? rule.item : 'not a beneficiary';
			},
		},
	},
	ignorePageNumber: {
		doc: 'Page 1, whichever page was asked for.',
		list: { pageNumber: () => 1 },
	},
	lowerPageCap: {
		doc: 'The gateway puts at most `pageCap` (20 by default) beneficiaries on a page, whatever the pageSize; the page count follows.',
		list: { pageSize: (asked, rule) => Math.min(asked, rule.pageCap ?? 20) },
	},
	swapOrder: {
		doc: 'The entries at `position` (0 by default) and the next, served in the other order (as a sort with a tie may at each request); the list itself does not change. With `every: 2`, every other request.',
		list: {
			order: (listed, rule) => {
				const at = rule.position ?? 0;
				return [...listed.slice(0, at), listed[at + 1], listed[at], ...listed.slice(at + 2)];
			},
		},
	},
	// The list changing while it is read.
	totalChanges: {
		doc: 'Right after answering this request, a beneficiary is bound at the front: the total grows and every page after shifts.',
		list: {
			afterwards: (customer, _rule, bind) =>
				customer.beneficiaries.unshift(bind(customer.beneficiaries[0], 'NEW', 'New beneficiary')),
		},
	},
	swapBeneficiary: {
		doc: 'Right after answering this request, one beneficiary is unbound (at `position`, default 0) and another bound at the end: the total stays the same, the pages after it shift.',
		list: {
			afterwards: (customer, rule, bind) => {
				const [gone] = customer.beneficiaries.splice(rule.position ?? 0, 1);
				customer.beneficiaries.push(bind(gone, 'SWAPPED-IN', 'Bound while read'));
			},
		},
	},
	growTail: {
		doc: 'Right after answering this request, one beneficiary is bound at the end of the list (a list that keeps growing beyond the pages a Limit reads).',
		list: {
			afterwards: (customer, _rule, bind) =>
				customer.beneficiaries.push(bind(customer.beneficiaries[0], 'TAIL', 'Bound at the end')),
		},
	},

	// Quota answers that verify but are not about the question, or not of the documented shape.
	foreignQuota: {
		doc: 'A quota answer about another accumulation ID (`<id>-SOMEONE-ELSE`).',
		quota: (data) => {
			data.quotaAccumulationId = `${String(data.quotaAccumulationId)}-SOMEONE-ELSE`;
		},
	},
	quotaMissingField: {
		doc: 'The quota answer lacks `field` (quotaAccumulationId by default).',
		quota: (data, rule) => {
			delete data[rule.field ?? 'quotaAccumulationId'];
		},
	},

	// Answers written or signed wrong.
	badResultStatus: {
		doc: 'resultStatus "X": none of S, F and U.',
		signing: { result: (answer) => ({ ...answer, status: 'X' }) },
	},
	echoInResult: {
		doc: 'An unsigned F PARAM_ILLEGAL whose resultMessage echoes the request back: its access token, body and every header.',
		signing: {
			result: (_answer, echoed) => ({ status: 'F', code: 'PARAM_ILLEGAL', message: `Illegal request: ${echoed()}` }),
			unsigned: () => true,
		},
	},
	malformedJson: {
		doc: 'The body cut in half, then signed: a genuine signature over JSON that does not parse.',
		signing: { signedBody: (body) => body.slice(0, Math.floor(body.length / 2)) },
	},
	// A genuinely signed answer dated 10 minutes ago, 10 minutes ahead, or with a Response-Time that is no time.
	staleTime: { doc: 'Signed, and dated 10 minutes ago.', signing: { responseTime: (at) => at(-600_000) } },
	futureTime: { doc: 'Signed, and dated 10 minutes ahead.', signing: { responseTime: (at) => at(600_000) } },
	badTime: { doc: 'Signed, with Response-Time "x".', signing: { responseTime: () => 'x' } },
	wrongKey: {
		doc: 'Signed with another key (the demo partner key), not the gateway key.',
		signing: { partnerKey: true },
	},
	alterBody: {
		doc: 'Changed after it was signed: the first digit of a value (or, without one, the result message).',
		signing: {
			sentBody: (body) => {
				const altered = body.replace(/"value":"?(\d)/, (m, d) => m.replace(d, String((Number(d) + 1) % 10)));
				return /"value"/.test(altered) ? altered : altered.replace('"resultMessage":"', '"resultMessage":"!');
			},
		},
	},
	unsigned: { doc: 'No Signature header.', signing: { unsigned: () => true } },
	foreignClientId: {
		doc: 'Client-Id SOMEONE_ELSE_9999 (another client) in the answer, while the signature is over the caller.',
		signing: { clientId: 'SOMEONE_ELSE_9999' },
	},

	// Below the API: HTTP errors with an HTML body, a reset connection, no answer at all, bodies that never end well.
	http429: { doc: 'HTTP 429 with an HTML body and Retry-After: 1.', transport: httpError(429) },
	http502: { doc: 'HTTP 502 with an HTML body.', transport: httpError(502) },
	http503: { doc: 'HTTP 503 with an HTML body.', transport: httpError(503) },
	reset: { doc: 'The connection reset, no answer.', transport: ({ res }) => res.socket?.destroy() },
	hang: { doc: 'No answer at all; the connection stays open.', transport: () => undefined },
	redirect: {
		doc: 'HTTP 307 to the same path under /elsewhere.',
		transport: ({ req, res }) => {
			res.writeHead(307, {
				location: `http://127.0.0.1:${(res.socket?.localPort ?? 80) as number}/elsewhere${req.url ?? ''}`,
			});
			res.end();
		},
	},
	echoRequest: {
		doc: 'An unsigned HTTP 400 in plain text that echoes the request back: its access token, body and every header.',
		transport: ({ req, res, prepared }) => {
			res.writeHead(400, { 'content-type': 'text/plain' });
			res.end(`Bad request: ${echo(req, prepared.requestBody ?? '')}`);
		},
	},
	drip: {
		doc: 'The headers at once, then one byte every 200 ms: an idle timeout never fires.',
		transport: ({ res, prepared }) => {
			res.writeHead(prepared.status, prepared.headers);
			const bytes = Buffer.from(prepared.body, 'utf8');
			let sent = 0;
			const timer = setInterval(() => {
				if (res.destroyed || sent >= bytes.length) {
					clearInterval(timer);
					if (!res.destroyed) res.end();
					return;
				}
				res.write(bytes.subarray(sent, sent + 1));
				sent++;
			}, 200);
			res.on('close', () => clearInterval(timer));
		},
	},
	huge: {
		doc: 'A signed-looking answer that never ends: 64 KiB chunks for as long as the client reads.',
		transport: ({ res, prepared }) => {
			res.writeHead(200, prepared.headers);
			const chunk = Buffer.alloc(64 * 1024, 0x20);
			const pump = () => {
				while (!res.destroyed && res.write(chunk));
			};
			res.on('drain', pump);
			pump();
		},
	},
	oneGiB: {
		doc: 'An answer of exactly 1 GiB (Content-Length announced), its headers signed-looking (with `unsigned`, no Signature header), written as fast as the client reads.',
		signing: { unsigned: (rule) => rule.unsigned === true },
		transport: ({ res, prepared }) => {
			const total = 1024 * 1024 * 1024;
			res.writeHead(200, { ...prepared.headers, 'content-length': String(total) });
			const chunk = Buffer.alloc(64 * 1024, 0x20);
			let written = 0;
			const pump = () => {
				while (!res.destroyed && written < total) {
					written += chunk.length;
					if (!res.write(chunk)) return;
				}
				if (!res.destroyed && !res.writableEnded) res.end();
			};
			res.on('drain', pump);
			pump();
		},
	},
	dripForever: {
		doc: 'The headers at once (signed-looking; with `unsigned`, no Signature header), then a space every 200 ms for ever: an idle timeout never fires and the body never ends.',
		signing: { unsigned: (rule) => rule.unsigned === true },
		transport: ({ res, prepared }) => {
			res.writeHead(200, prepared.headers);
			const timer = setInterval(() => {
				if (res.destroyed) clearInterval(timer);
				else res.write(' ');
			}, 200);
			res.on('close', () => clearInterval(timer));
		},
	},
	gzipBomb: {
		doc: '64 KiB on the wire (Content-Encoding: gzip) that inflate to 64 MiB.',
		transport: ({ res, prepared }) => {
			gzipBomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
			res.writeHead(200, {
				...prepared.headers,
				'content-encoding': 'gzip',
				'content-length': String(gzipBomb.length),
			});
			res.end(gzipBomb);
		},
	},
	dropMidBody: {
		doc: 'Half the body (Content-Length announces all of it), then the connection closes.',
		transport: ({ res, prepared }) => {
			res.writeHead(prepared.status, {
				...prepared.headers,
				'content-length': String(Buffer.byteLength(prepared.body)),
			});
			res.write(prepared.body.slice(0, Math.floor(prepared.body.length / 2)), () => res.socket?.destroy());
		},
	},
} satisfies Record<string, FaultRow>;

/** A rule a request drew, with its fault's row. */
export type Struck = FaultRow & { rule: FaultRule };

/** The row of the fault a request drew, with the rule; none when it drew none, or a fault not in the catalogue (a rule added over HTTP may name any). */
export function struck(rule: FaultRule | undefined): Struck | undefined {
	if (!rule || !Object.hasOwn(FAULTS, rule.fault)) return undefined;
	return { ...(FAULTS as Record<string, FaultRow>)[rule.fault], rule };
}

const ON_THE_WAY = new Set(
	Object.entries(FAULTS as Record<string, FaultRow>).flatMap(([k, row]) => (row.onTheWay ? [k] : [])),
);

/** Whether the fault happens on the way to the gateway (drawn on its own, before the gateway's). */
export function isOnTheWay(rule: FaultRule): boolean {
	return ON_THE_WAY.has(rule.fault);
}
