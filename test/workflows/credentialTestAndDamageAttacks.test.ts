/**
 * A hostile review of issue 54's fixes, through n8n's engine: the credential Test (replays, the
 * 8 MiB cap, the deadline, secrets echoed) and damage staying local in the trigger. Two limits it
 * found are documented, not tested: a fresh genuine answer to another question this process never
 * saw (docs/api.md, "What no check can tell") and a secret echoed in pieces shorter than 8
 * characters (redaction.ts).
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { sandboxCredentials } from '../../sandbox/engine';
import { otherPrivate } from '../fixtures/keys';
import { credentialTestWith, headerDripGateway, paddedSignedGateway, textGateway } from '../support/hostileGateways';
import { list, until, useSimulator } from '../support/helpers';
import type { N8nPoll, N8nSaving } from '../support/n8nApp';
import { itemsOf, useClock } from '../support/pollerApp';
import { appOf, SAVINGS, bindPayee } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);

const creds = (more: Record<string, string> = {}): ICredentialDataDecryptedObject => ({
	...sandboxCredentials(sim().url),
	...more,
});
const MiB = 1024 * 1024;

describe('hostile 54: the credential Test and replays', () => {
	it('a replay across two credentials of one gateway (Base URL 127.0.0.1 vs localhost): refused, a wrong Private Key fails', async () => {
		expect((await credentialTestWith(creds())).status).toBe('OK');
		sim().addFault({ fault: 'replayAny' });
		const otherSpelling = sim().url.replace('127.0.0.1', 'localhost');
		const result = await credentialTestWith(creds({ baseUrl: otherSpelling, privateKey: otherPrivate }));
		expect(sim().requests.map((r) => r.fault)).toEqual([undefined, 'replayAny']);
		expect(result.status).toBe('Error');
	});

	it("held: a run's empty listing (CUST_EMPTY) served again to Test: refused by the process's replay guard", async () => {
		const run = await list(sim(), { returnAll: true, customerId: 'CUST_EMPTY' });
		expect(run.status).toBe('success');
		sim().addFault({ fault: 'replayAny' });
		const result = await credentialTestWith(creds({ privateKey: otherPrivate }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/replay/);
	});
});

describe('hostile 54: the credential Test reads at most 8 MiB and stops at the deadline', () => {
	it('held: a genuinely signed answer of exactly 8 MiB passes; 8 MiB + 1 is refused as larger than 8 MiB', async () => {
		const exact = await paddedSignedGateway(8 * MiB);
		const over = await paddedSignedGateway(8 * MiB + 1);
		try {
			const atCap = await credentialTestWith(creds({ baseUrl: exact.url }));
			expect(atCap).toEqual({ status: 'OK', message: expect.stringMatching(/^Connection successful/) });
			const pastCap = await credentialTestWith(creds({ baseUrl: over.url }));
			expect(pastCap.status).toBe('Error');
			expect(pastCap.message).toMatch(/larger than 8 MiB/);
		} finally {
			await exact.close();
			await over.close();
		}
	});

	it('held: headers dripped for ever (the helper never resolves): Test says "timed out" at 30 s and the connection is closed', async () => {
		const gateway = await headerDripGateway();
		try {
			const started = Date.now();
			const result = await credentialTestWith(creds({ baseUrl: gateway.url }));
			expect(Date.now() - started).toBeLessThan(40_000);
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/timed out/);
			// The deadline promises the connection closed: give it 3 s.
			await until(() => gateway.open() === 0, 'the connection closed at the deadline', 3_000);
		} finally {
			await gateway.close();
		}
	}, 60_000);
});

describe('hostile 54: no Test message repeats the Access Token, however the gateway echoes it', () => {
	// An OAuth-style token (Base64 alphabet): made from pieces, so no literal here looks like a secret.
	const token = ['Zx9', 'Qa+Lm3', 'Pq7', 'Rt+Wv2k8'].join('/');
	const lowerEscapes = encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
	/** [how, what the gateway writes, the pieces that together give the token away] */
	const echoes: Array<[string, string, string[]]> = [
		['held: URL-encoded (upper-case escapes)', `token=${encodeURIComponent(token)}`, [encodeURIComponent(token)]],
		['URL-encoded with lower-case escapes (RFC 3986 equivalent)', `token=${lowerEscapes}`, [lowerEscapes]],
		['Base64', `token=${Buffer.from(token).toString('base64')}`, [Buffer.from(token).toString('base64')]],
	];
	it.each(echoes)('a refusal that echoes the Access Token %s: not repeated', async (_how, echoed, pieces) => {
		// A gateway's (or a proxy's) plain-text refusal that quotes the request: it reaches the message ("The body began: ...").
		const gateway = await textGateway(400, `Bad request: MARKER-ECHO ${echoed}`);
		let result: { status: string; message?: string };
		try {
			result = await credentialTestWith(creds({ baseUrl: gateway.url, accessToken: token }));
		} finally {
			await gateway.close();
		}
		expect(result.status).toBe('Error');
		const message = String(result.message);
		// The gateway's words do reach the message.
		expect(message).toContain('MARKER-ECHO');
		expect({ message, leaked: pieces.every((piece) => message.includes(piece)) }).toEqual({ message, leaked: false });
	});
});

// ---------------------------------------------------------------------------------------------
// Damage stays local in the trigger (issue 54, item 2).

const FAIL = { status: 'F', code: 'PROCESS_FAIL', message: 'General business failure' } as const;
const bind = (customerId: string, ref: string) => bindPayee(sim, customerId, ref);
const customers = (ids: string[]): INodeParameters =>
	({
		events: ['beneficiaryAdded', 'beneficiaryRemoved'],
		customerIds: ids.join('\n'),
		options: { simplify: false },
	}) as unknown as INodeParameters;
const shown = (poll: N8nPoll | undefined) =>
	poll && !poll.error ? itemsOf(poll).map((i) => `${String(i.event)} ${String(i.referenceBeneficiaryId)}`) : [];
type SavedState = { entries: Record<string, IDataObject>; ended: IDataObject } & IDataObject;
const pollSaved = async (n8n: ReturnType<typeof app>, saving: N8nSaving): Promise<N8nPoll | undefined> =>
	saving === 'durable' ? await n8n.poll() : ((await n8n.restart()) ?? (await n8n.poll()));

/** Activates a set, polls it twice, damages its saved state with `damage`, then binds a payee in CUST_SMALL. */
async function damagedSet(saving: N8nSaving, ids: string[], damage: (state: SavedState, keys: string[]) => void) {
	const n8n = app(customers(ids), saving);
	expect(shown(await n8n.activate())).toEqual([]);
	for (let i = 0; i < 2; i++) expect(shown(await n8n.poll())).toEqual([]);
	n8n.editSaved((data) => {
		const state = data.state as SavedState;
		damage(state, Object.keys(state.entries));
	});
	bind('CUST_SMALL', 'REF-HEALTHY-0');
	return n8n;
}

describe.each(SAVINGS)('hostile 54: damage in the trigger, n8n saving %s', (saving) => {
	it.each([
		['pace', (state: SavedState) => void (state.pace = { roundTripMs: -1, msPerRequest: 'fast' })],
		['last', (state: SavedState) => void (state.last = 'interrupted')],
	])(
		"damage to the set's shared %s (a timing hint / the last outcome), no entry's: recovered without loss or warning, the healthy entry's event told once",
		async (_part, damage) => {
			const n8n = await damagedSet(saving, ['CUST_SMALL', 'CUST_EMPTY'], damage);
			const polls = [await pollSaved(n8n, saving)];
			for (let i = 0; i < 2; i++) polls.push(await n8n.poll());
			// Was: one warning and a fresh baseline for every entry: the payee bound meanwhile never told.
			expect({ errors: polls.filter((p) => p?.error).length, events: polls.flatMap(shown) }).toEqual({
				errors: 0,
				events: ['beneficiaryAdded REF-HEALTHY-0'],
			});
			expect(n8n.warnings).toHaveLength(0);
		},
	);

	it('held: two entries of three damaged (a record, a state): each warned once and started anew; the third reports its change once', async () => {
		const n8n = await damagedSet(saving, ['CUST_SMALL', 'CUST_EMPTY', 'CUST_NO_REF'], ({ entries }, keys) => {
			expect(keys).toHaveLength(3);
			entries[keys[1]] = 'garbage' as unknown as IDataObject;
			(entries[keys[2]].state as IDataObject).version = 99;
		});
		bind('CUST_EMPTY', 'REF-DAMAGED-0');
		const polls = [await pollSaved(n8n, saving)];
		for (let i = 0; i < 3; i++) polls.push(await n8n.poll());
		expect(polls.flatMap(shown)).toEqual(['beneficiaryAdded REF-HEALTHY-0']);
		expect(n8n.warnings).toHaveLength(2);
		expect(n8n.warnings.join('\n')).toMatch(/CUST_EMPTY/);
		expect(n8n.warnings.join('\n')).toMatch(/CUST_NO_REF/);
		bind('CUST_EMPTY', 'REF-DAMAGED-1');
		expect(shown(await n8n.poll())).toEqual(['beneficiaryAdded REF-DAMAGED-1']);
		expect(n8n.warnings).toHaveLength(2);
	});

	it("held: the healthy entry's read fails in the poll that finds its neighbour's damage: its change is reported once after, one warning", async () => {
		const n8n = await damagedSet(saving, ['CUST_SMALL', 'CUST_EMPTY'], ({ entries }, keys) => {
			entries[keys[1]] = 'garbage' as unknown as IDataObject;
		});
		sim().addFault({ fault: 'answer', operation: 'list', customerId: 'CUST_SMALL', answer: FAIL, times: 1 });
		const polls = [await pollSaved(n8n, saving)];
		for (let i = 0; i < 4; i++) polls.push(await n8n.poll());
		expect(polls.flatMap(shown)).toEqual(['beneficiaryAdded REF-HEALTHY-0']);
		expect(n8n.warnings.filter((w) => /fresh baseline/.test(w))).toHaveLength(1);
	});

	it('held: damage, then n8n restarts, then the set is edited (reordered, a line added): the healthy entry reports its change once', async () => {
		const n8n = await damagedSet(saving, ['CUST_SMALL', 'CUST_EMPTY'], ({ entries }, keys) => {
			entries[keys[1]] = 'garbage' as unknown as IDataObject;
		});
		const polls: Array<N8nPoll | undefined> = [await n8n.restart()];
		polls.push(await n8n.update(customers(['CUST_EMPTY', 'CUST_NO_REF', 'CUST_SMALL'])));
		for (let i = 0; i < 3; i++) polls.push(await n8n.poll());
		expect(polls.flatMap(shown)).toEqual(['beneficiaryAdded REF-HEALTHY-0']);
		expect(n8n.warnings.filter((w) => /fresh baseline/.test(w))).toHaveLength(1);
	});

	it("a shape-valid but impossible record (the healthy entry read at turn 10^9 > the set's turn, its list 10^9 pages): its hints repaired, read in its turn, its event told once", async () => {
		const n8n = await damagedSet(saving, ['CUST_SMALL', 'CUST_EMPTY'], ({ entries }, keys) => {
			entries[keys[0]].readAt = 1_000_000_000;
			entries[keys[0]].pages = 1_000_000_000;
		});
		const before = sim().requests.length;
		const polls = [await pollSaved(n8n, saving)];
		for (let i = 0; i < 5; i++) polls.push(await n8n.poll());
		const smallReads = sim()
			.requests.slice(before)
			.filter((r) => r.body.includes('"CUST_SMALL"')).length;
		// Was: CUST_SMALL last in the due order for ever, never fitting the budget: 0 reads in 6 polls, no event, no warning.
		expect({ smallReads: smallReads > 0, events: polls.flatMap(shown), warnings: n8n.warnings.length }).toEqual({
			smallReads: true,
			events: ['beneficiaryAdded REF-HEALTHY-0'],
			warnings: 0,
		});
	});
});
