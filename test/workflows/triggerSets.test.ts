/**
 * One trigger watching many quota subjects or many customers (trigger/pollSet.ts), through n8n's
 * engine against the simulator: sets entered as rows and as pasted text, bad lines refused with
 * their line numbers, entries added and removed, one entry failing while others change (reported
 * once per episode), status U per entry, the rotation under a small poll budget, and restarts
 * under each of n8n's pollers. Every event exactly once per entry.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MAX_SET_SIZE } from '../../nodes/PartnerAccountInquiry/trigger/enteredSet';
import { sandboxCredentials } from '../../sandbox/engine';
import { n8nApp, type N8nPoll } from '../support/n8nApp';
import { setRefusal, SET_HINT, useSimulator } from '../support/helpers';
import { customerSet, emitted, later, quotaSet, subjectRow, triggerOf, useClock } from '../support/pollerApp';

const { sim } = useSimulator();

useClock();
const trigger = triggerOf(sim);

const quotaRequests = () => sim().requests.filter((r) => r.path.includes('AvailableQuota'));

const row = subjectRow;
const below = quotaSet;
/** Quotas pasted in Options > Quotas as Text, whose account first. */
const asText = (text: string, event = 'quotaBelowThreshold'): INodeParameters => ({
	events: [event],
	options: { quotasText: text },
});
const setQuota = (id: string, cents: string) => sim().setQuota('USER_ID', id, cents);

describe('many quota subjects in one trigger', () => {
	it('each subject against its own threshold; an alert names its subject; each exactly once', async () => {
		const state: IDataObject = {};
		// U-B1 has 1.01 USD, U-B2 2.01, U-B3 3.01: below 2 only U-B1 (threshold 100 for U-B3).
		const poller = trigger(below([row('U-B1', '2'), row('U-B2', '2'), row('U-B3')]), state);
		const first = await emitted(poller);
		expect(first?.map((e) => [e.subject, e.threshold, e.availableQuotaAmount])).toEqual([
			['own USER_ID U-B1 USD', 2, 1.01],
			['own USER_ID U-B3 USD', 100, 3.01],
		]);
		expect(await emitted(poller)).toBeNull();
		setQuota('U-B1', '500'); // back above its 2
		setQuota('U-B2', '100'); // 1.00 < 2
		expect((await emitted(poller))?.map((e) => e.subject)).toEqual(['own USER_ID U-B2 USD']);
		setQuota('U-B1', '1');
		expect((await emitted(poller))?.map((e) => [e.subject, e.previousAmount])).toEqual([['own USER_ID U-B1 USD', 5]]);
		expect(await emitted(poller)).toBeNull();
	});

	it('pasted text: one subject a line, commas, semicolons or tabs, comments and blank lines skipped', async () => {
		const poller = trigger(
			asText(
				'# account, floor\nown, USER_ID, U-B1, USD, 2\n\nown;USER_ID;U-B2;usd;2\nOWN\tUSER_ID\tU-B3\tUSD',
				'quotaChanged',
			),
			{},
		);
		expect(await emitted(poller)).toBeNull();
		expect(quotaRequests()).toHaveLength(3);
		setQuota('U-B2', '7');
		expect((await emitted(poller))?.map((e) => [e.subject, e.previousAmount, e.availableQuotaAmount])).toEqual([
			['own USER_ID U-B2 USD', 2.01, 0.07],
		]);
	});

	it('bad lines: each refused with its line number and rule, nothing watched, nothing sent', async () => {
		const result = await trigger(
			asText(
				[
					'own, USER_ID, U-B1, USD, 100',
					'own, USER_ID, , USD, 100',
					'own, NOPE, X, USD, 100',
					'own, USER_ID, U-B1, USD, 100',
					'own, USER_ID, U-B4, USDX, 100',
					'own, USER_ID, U-B5, USD, -3',
					'own, BENEFICIARY, R-1, USD',
					'ACC_6, USER_ID, U-B6, USD, 1, more',
					'own USER_ID U-B7 USD',
					', USER_ID, U-B8, USD, 100',
					'USER_ID, U-B9, USD, 100',
				].join('\n'),
			),
			{},
		).poll();
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error.message).toBe('Quotas has 10 bad entries (line 2, line 3, line 4, ...)');
		// The bad entries, each by its line, are the description (n8n's), before the hint.
		const description = String(result.error.description);
		expect(description).toMatch(/^line 2: Accumulation ID is empty; /);
		expect(description.endsWith(`. ${SET_HINT}`)).toBe(true);
		for (const line of [3, 5, 6, 7, 8, 9, 10, 11]) expect(description).toContain(`line ${line}: `);
		expect(description).toContain('line 4 repeats line 1');
		expect(description).toMatch(
			/line 5: Currency "USDX" is not one of its choices \(it must be one of \d+ currency codes \(/,
		);
		expect(description).toContain('line 6: Threshold "-3" is not a number of at least 0');
		expect(description).toContain(
			'line 7: Trade Type (GOODS or SERVICE) is needed for Accumulation Method BENEFICIARY',
		);
		expect(description).toContain(
			'line 8: 6 fields, more than the 5 a line takes (a line is whose account, accumulation method, accumulation id, currency, threshold, separated by commas, semicolons or tabs)',
		);
		// A line typed without separators is said to be one field, not taken for an account.
		expect(description).toContain('line 9: 1 field: its values are not separated');
		// An empty first field is no way to say "your own account": it is refused, never read as own.
		expect(description).toContain('line 10: Connected Account ID is empty');
		// A line in the old order (the method first) is refused: its method is never taken for an account.
		expect(description).toContain(
			'line 11: starts with the method USER_ID: start it with own or a Connected Account ID',
		);
		expect(sim().requests).toHaveLength(0);
	});

	it("a row's Connected Account ID expression that gives nothing is refused, never read as your own account", async () => {
		const result = await trigger(
			below([row('U-B1', '2'), { ...row('U-B2', '2'), connectedAccountId: '={{ "" }}' }]),
			{},
		).poll();
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error.message).toBe('Quotas has 1 bad entry (row 2)');
		expect(result.error.description).toBe(setRefusal('row 2: Connected Account ID is empty'));
		expect(sim().requests).toHaveLength(0);
	});

	it('each quota with its own connected account: as rows and as pasted lines (its first field); the same subject of two accounts is two quotas', async () => {
		const asRows = trigger(
			{
				...below([{ ...row('U-B1', '2'), connectedAccountId: 'ACC_1' }, row('U-B1', '2'), row('U-B2')]),
				events: ['quotaBelowThreshold'],
			},
			{},
		);
		const fromRows = await emitted(asRows);
		const pasted = trigger(
			asText('ACC_1, USER_ID, U-B1, USD, 2\nown, USER_ID, U-B1, USD, 2\nACC_2, USER_ID, U-B2, USD, 100'),
			{},
		);
		const fromText = await emitted(pasted);
		// Each quota sent with its own Connected-AccountId, none for your own.
		const sent = quotaRequests().map((r) => [JSON.parse(r.body).quotaAccumulationId, r.headers['connected-accountid']]);
		expect(sent).toEqual([
			['U-B1', 'ACC_1'],
			['U-B1', undefined],
			['U-B2', undefined],
			['U-B1', 'ACC_1'],
			['U-B1', undefined],
			['U-B2', 'ACC_2'],
		]);
		// Items name whose account they were read for (own: the partner's), in whoseAccount and the subject.
		const view = (items: IDataObject[] | null) => (items ?? []).map((e) => [e.subject, e.threshold, e.whoseAccount]);
		// U-B1 holds 1.01 USD (below its 2), U-B2 2.01 (below 100).
		expect(view(fromRows)).toEqual([
			['ACC_1 USER_ID U-B1 USD', 2, 'ACC_1'],
			['own USER_ID U-B1 USD', 2, 'own'],
			['own USER_ID U-B2 USD', 100, 'own'],
		]);
		expect(view(fromText)).toEqual([
			['ACC_1 USER_ID U-B1 USD', 2, 'ACC_1'],
			['own USER_ID U-B1 USD', 2, 'own'],
			['ACC_2 USER_ID U-B2 USD', 100, 'ACC_2'],
		]);
		for (const item of [...(fromRows ?? []), ...(fromText ?? [])])
			expect(item).not.toHaveProperty('connectedAccountId');
	});

	it(`more than ${MAX_SET_SIZE} subjects, or none, is refused`, async () => {
		const lines = Array.from({ length: MAX_SET_SIZE + 1 }, (_, i) => `own, USER_ID, U-B${i}, USD, 100`).join('\n');
		const tooMany = await trigger(asText(lines), {}).poll();
		expect(!tooMany.ok && tooMany.error.message).toBe(
			'Quotas has 1001 entries, more than the 1000 one trigger watches',
		);
		const none = await trigger(asText('# nothing yet\n'), {}).poll();
		expect(!none.ok && none.error.message).toBe('Quotas is empty');
		expect(sim().requests).toHaveLength(0);
	});

	it('a subject added to an active set records its baseline; one removed drops its state; the others carry on', async () => {
		const state: IDataObject = {};
		const rows = [row('U-B10', '1'), row('U-B11', '1')];
		const poller = () => trigger({ ...below(rows), events: ['quotaChanged'] }, state, { activation: 'update' });
		expect(await emitted(poller())).toBeNull();
		setQuota('U-B10', '5');
		rows.push(row('U-B12', '1'));
		// The change of U-B10 is reported; U-B12 only records its baseline.
		expect((await emitted(poller()))?.map((e) => e.subject)).toEqual(['own USER_ID U-B10 USD']);
		setQuota('U-B12', '5');
		rows.splice(1, 1); // U-B11 removed
		expect((await emitted(poller()))?.map((e) => e.subject)).toEqual(['own USER_ID U-B12 USD']);
		const entries = (state.state as { entries: Record<string, unknown> }).entries;
		expect(Object.keys(entries)).toHaveLength(2);
		setQuota('U-B11', '5');
		rows.push(row('U-B11', '1'));
		// Back in the set: a new baseline, not a change against what it was before it left.
		expect(await emitted(poller())).toBeNull();
	});

	it('one subject failing neither blocks nor loses the others; it is reported once, by a poll without events, naming it', async () => {
		const state: IDataObject = {};
		const rows = [row('U-B20'), row('U-B21'), { ...row('RA-2001'), quotaAccumulationMethod: 'RECEIVING_ACCOUNT' }];
		const poller = trigger({ ...below(rows), events: ['quotaChanged'] }, state);
		expect(await emitted(poller)).toBeNull();
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			accumulationId: 'RA-2001',
			answer: { status: 'F', code: 'SYSTEM_ERROR', message: 'System error' },
		});
		setQuota('U-B20', '9');
		// The others' events first: emitted as usual.
		expect((await emitted(poller))?.map((e) => e.subject)).toEqual(['own USER_ID U-B20 USD']);
		// The next poll has no event: the failure is reported, once, its account by its last four.
		const reported = await poller.poll();
		expect(reported.ok).toBe(false);
		if (reported.ok) return;
		expect(reported.error.message).toBe('1 of 3 watched entries failed');
		expect(reported.error.description).toMatch(
			/^own RECEIVING_ACCOUNT \*\*\*\*2001 USD \(row 3\): The API answered SYSTEM_ERROR: system error\. Every other entry was read and its events were emitted as usual/,
		);
		expect(JSON.stringify(reported.error)).not.toContain('RA-2001');
		expect(await emitted(poller)).toBeNull();
		setQuota('U-B21', '9');
		expect((await emitted(poller))?.map((e) => e.subject)).toEqual(['own USER_ID U-B21 USD']);
		// It recovers, changed meanwhile: its change is reported once, and a later failure is a new episode.
		sim().clearFaults();
		sim().setQuota('RECEIVING_ACCOUNT', 'RA-2001', '1');
		expect((await emitted(poller))?.map((e) => e.subject)).toEqual(['own RECEIVING_ACCOUNT RA-2001 USD']);
		sim().addFault({ fault: 'staleTime', operation: 'quota', accumulationId: 'U-B21' });
		expect((await poller.poll()).ok).toBe(false);
		expect(await emitted(poller)).toBeNull();
	});

	it('status U for one subject: its back-off as the API asks, reported at its start; the others are read every poll', async () => {
		const state: IDataObject = {};
		const poller = trigger({ ...below([row('U-B30'), row('U-B31')]), events: ['quotaChanged'] }, state);
		await emitted(poller);
		sim().addFault({
			fault: 'answer',
			operation: 'quota',
			accumulationId: 'U-B31',
			answer: { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' },
		});
		const started = await poller.poll();
		expect(!started.ok && started.error.message).toBe('1 of 2 watched entries failed');
		expect(!started.ok && started.error.description).toMatch(
			/^own USER_ID U-B31 USD \(row 2\): .*UNKNOWN_EXCEPTION.*asked again at the first poll from \S+Z/,
		);
		const asked = () => quotaRequests().filter((r) => r.body.includes('U-B31')).length;
		const before = asked();
		for (let minute = 1; minute < 5; minute++) {
			later(1);
			setQuota('U-B30', String(100 + minute));
			expect((await emitted(poller))?.map((e) => e.subject)).toEqual(['own USER_ID U-B30 USD']);
		}
		expect(asked()).toBe(before);
		later(1);
		expect(await emitted(poller)).toBeNull(); // asked again at 5 minutes: U, not reported again
		expect(asked()).toBe(before + 1);
	});

	it('a poll budget too small for the set reads the least recently read first: every subject within K polls', async () => {
		sim().setLatency(60);
		const ids = Array.from({ length: 64 }, (_, i) => `U-B${100 + i}`);
		const state: IDataObject = {};
		const poller = () =>
			trigger({ ...below(ids.map((id) => row(id))), events: ['quotaChanged'] }, state, {
				activation: 'update',
				pollBudgetMs: 400,
			});
		const readAt = (): number[] =>
			Object.values((state.state as { entries: Record<string, { readAt: number }> } | undefined)?.entries ?? {}).map(
				(e) => e.readAt,
			);
		let before: number[] = ids.map(() => 0);
		/** One poll: how many subjects it read, what it emitted, whether every subject has now been read. */
		const pollOnce = async () => {
			const items = await emitted(poller());
			const turn = (state.state as { turn: number }).turn;
			const now = readAt();
			const read = now.map((at, i) => (at === turn ? before[i] : undefined)).filter((at) => at !== undefined);
			const left = now.map((at, i) => (at === turn ? undefined : before[i])).filter((at) => at !== undefined);
			// The least recently read first: nothing read this poll was read more recently than what was left.
			if (left.length > 0) expect(Math.max(...read)).toBeLessThanOrEqual(Math.min(...left));
			before = now;
			return { read: read.length, subjects: items?.map((e) => e.subject) ?? [], whole: now.every((at) => at > 0) };
		};
		// How many a poll reads depends on this machine's speed (the budget is real time): the bound
		// K = ceil(N / fewest read in a poll) is taken over the polls themselves, never from a clock.
		const readPerPoll: number[] = [];
		for (let poll = 0; poll < 64; poll++) {
			const { read, whole } = await pollOnce();
			readPerPoll.push(read);
			if (whole) break;
		}
		// Some read each poll, never all: the budget cut the set, never a read part-way.
		expect(readPerPoll.every((n) => n > 0 && n < 64)).toBe(true);
		// Every subject read within K polls.
		expect(readPerPoll.length).toBeLessThanOrEqual(Math.ceil(64 / Math.min(...readPerPoll)));
		// A change in any subject is then reported within K polls, once.
		setQuota(ids[0], '1');
		setQuota(ids[63], '1');
		const seen: unknown[] = [];
		const readSince: number[] = [];
		while (seen.length < 2 && readSince.length < 64) {
			const { read, subjects } = await pollOnce();
			readSince.push(read);
			seen.push(...subjects);
		}
		expect(readSince.length).toBeLessThanOrEqual(Math.ceil(64 / Math.min(...readSince)));
		expect((await pollOnce()).subjects).toEqual([]);
		sim().setLatency(0);
		expect(seen.sort()).toEqual([`own USER_ID ${ids[0]} USD`, `own USER_ID ${ids[63]} USD`]);
	});
});

describe('many customers in one trigger', () => {
	const customers = (ids: string[]) => customerSet(ids, 'beneficiaryChanged');

	it("a bank-detail change in one customer's list: one event, naming the customer, masked by default", async () => {
		const state: IDataObject = {};
		const poller = trigger(customers(['CUST_SMALL', 'CUST_LARGE', 'CUST_EMPTY']), state);
		expect(await emitted(poller)).toBeNull();
		const before = { ...sim().beneficiaries('CUST_SMALL')[1] };
		const after = sim().changeBankDetails('CUST_SMALL', before.referenceBeneficiaryId as string);
		const items = await emitted(poller);
		expect(
			items?.map((e) => [e.whoseAccount, e.referenceBeneficiaryId, Object.keys(e.changes as object).sort()]),
		).toEqual([['CUST_SMALL', before.referenceBeneficiaryId, ['bankAccountNo', 'beneficiaryToken']]]);
		expect(JSON.stringify(items)).not.toContain(after.bankAccountNo as string);
		expect(await emitted(poller)).toBeNull();
	});

	it('a quiet poll reads each list once; a changed list is confirmed', async () => {
		const poller = trigger(customers(['CUST_LARGE', 'CUST_SMALL']), {});
		await emitted(poller);
		const lists = () => sim().requests.filter((r) => r.path.includes('Beneficiar')).length;
		const before = lists();
		expect(await emitted(poller)).toBeNull();
		expect(lists() - before).toBe(8); // 7 pages and 1
	});

	it('one customer whose list keeps changing: quiet twice, then reported once; the others report as usual', async () => {
		const state: IDataObject = {};
		const poller = trigger({ ...customers(['CUST_SMALL', 'CUST_LARGE']), events: ['beneficiaryAdded'] }, state);
		await emitted(poller);
		sim().addFault({ fault: 'swapBeneficiary', customerId: 'CUST_LARGE', pageNumber: 3, position: 10 });
		const outcomes: string[] = [];
		for (let poll = 0; poll < 4; poll++) {
			const result = await poller.poll();
			outcomes.push(
				result.ok ? String(result.items?.length ?? 'quiet') : `${result.error.message} | ${result.error.description}`,
			);
		}
		expect(outcomes.slice(0, 2)).toEqual(['quiet', 'quiet']);
		expect(outcomes[2]).toMatch(
			/^1 of 2 watched entries failed \| CUST_LARGE beneficiaries \(line 2\): The beneficiary list changed while it was being read.* \(at each of the last 3 polls\)/,
		);
		expect(outcomes[3]).toBe('quiet');
		const list = sim().beneficiaries('CUST_SMALL');
		list.push({
			...list[0],
			referenceBeneficiaryId: 'REF-SET-1',
			beneficiaryToken: Buffer.from('token:SET-1').toString('base64'),
		});
		expect((await emitted(poller))?.map((e) => [e.whoseAccount, e.referenceBeneficiaryId])).toEqual([
			['CUST_SMALL', 'REF-SET-1'],
		]);
	});

	it('pasted customer IDs: a bad line is refused with its number', async () => {
		const result = await trigger(
			{ events: ['beneficiaryAdded'], customerIds: 'CUST_SMALL\nCUST_LARGE, CUST_EMPTY\nCUST_SMALL' },
			{},
		).poll();
		expect(!result.ok && result.error.message).toBe('Customer IDs has 2 bad entries (line 2, line 3)');
		expect(!result.ok && result.error.description).toBe(
			setRefusal('line 2: 2 fields, expected one ID a line; line 3 repeats line 1'),
		);
	});
});

describe('Fetch Test Event of a set', () => {
	it('shows one item of each entry: a quota item naming its subject; a beneficiary naming its customer; nothing saved', async () => {
		const state: IDataObject = {};
		const quota = await emitted(trigger(quotaSet([subjectRow('U-B7'), subjectRow('U-B8')]), state, { mode: 'manual' }));
		expect(quota?.map((e) => [e.subject, e.availableQuotaAmount])).toEqual([
			['own USER_ID U-B7 USD', 7.01],
			['own USER_ID U-B8 USD', 8.01],
		]);
		const sample = await emitted(trigger(customerSet(['CUST_SMALL', 'CUST_LARGE']), state, { mode: 'manual' }));
		expect(sample?.map((e) => e.whoseAccount)).toEqual(['CUST_SMALL', 'CUST_LARGE']);
		expect(state).toEqual({});
	});
});

describe.each(['emit', 'scheduler', 'durable'] as const)('a set across n8n restarts, saving %s', (saving) => {
	it('a change made across a restart is reported once per entry; a quiet set reports nothing', async () => {
		const app = n8nApp({
			parameters: { ...below([row('U-B40'), row('U-B41')]), events: ['quotaChanged'] },
			credentials: sandboxCredentials(sim().url),
			saving,
		});
		const count = (poll: N8nPoll | undefined) => {
			if (poll?.error) throw poll.error;
			return poll?.items?.map((i) => i.subject) ?? [];
		};
		expect(count(await app.activate())).toEqual([]);
		expect(count(await app.poll())).toEqual([]);
		setQuota('U-B41', '3');
		const afterRestart = [...count(await app.restart()), ...count(await app.poll()), ...count(await app.poll())];
		expect(afterRestart).toEqual(['own USER_ID U-B41 USD']);
		setQuota('U-B40', '3');
		expect([...count(await app.poll()), ...count(await app.poll())]).toEqual(['own USER_ID U-B40 USD']);
	});
});
