/**
 * Status U (outcome unknown) backs off as the API asks, for one subject alone and for one entry of
 * a set, under each way n8n saves a poll: a request only when the API allows, the start and the
 * 7th repeat reported once each, restarts, a back-off edited into one the API never asks for.
 */
import type { IDataObject } from 'n8n-workflow';

import { useSimulator } from '../support/helpers';
import { CHANGED as CHANGED_ONE, count, later, makeApp, MINUTE, U, useClock } from '../support/pollerApp';
import { appOf, CELLS, quotaTrigger, requestsFor, SHAPES, watchedRecord } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const app = appOf(sim);
const CHANGED = ['quotaChanged'];
const setQuota = (value: string) => sim().setQuota('USER_ID', 'U-1001', value);
const asked = () => requestsFor(sim, 'U-1001');
const refuseU1001 = () => sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: U });

/** Polls every minute for `minutes` minutes: the minutes at which U-1001 was asked and a poll failed, and the failures. */
async function everyMinute(n8n: ReturnType<typeof app>, minutes: number, start = 0, restartAt?: number) {
	const at = { asked: [] as number[], failed: [] as number[], errors: [] as string[] };
	for (let minute = start; minute < start + minutes; minute++) {
		const sent = asked();
		const poll = minute === restartAt ? ((await n8n.restart()) ?? (await n8n.poll())) : await n8n.poll();
		if (asked() > sent) at.asked.push(minute);
		if (poll.error) {
			at.failed.push(minute);
			at.errors.push(`${poll.error.message} ${poll.error.description ?? ''}`);
		}
		later(1);
	}
	return at;
}

/** The API's schedule: the first U at 0, then 5, 10, 20, 40, 80, 160, 320 minutes apart, then every 320. */
const SCHEDULE = [0, 5, 15, 35, 75, 155, 315, 635, 955];
/**
 * When the 8th U (at 635) is reported: by that poll, or, where every poll is known saved (durable
 * cursors, by then), by the next, the poll at 635 saving the back-off a restart must not lose.
 */
const SUPPORT_REPORTED = { emit: 635, scheduler: 635, durable: 636 } as const;

describe.each(CELLS)('status U, %s subject, n8n saving %s', (shape, saving) => {
	const start =
		shape === 'one'
			? /stops asking this question until \S+Z \(5 minutes\), then asks again at most 7 times, 5 to 320 minutes apart/
			: /^1 of 2 watched entries failed own USER_ID U-1001 USD \(row 1\): .*UNKNOWN_EXCEPTION.*asked again at the first poll from \S+Z/;
	const support =
		shape === 'one'
			? /each of its 7 repeats.*Contact technical support/
			: /every one of its 7 repeats was answered U: contact technical support/;

	it('polls every minute: a request only when the API allows; two reports, the start and after the 7th repeat; silence after', async () => {
		const n8n = app(quotaTrigger(shape, CHANGED), saving);
		expect(count(await n8n.activate())).toBe(0);
		refuseU1001();
		const { asked: at, failed, errors } = await everyMinute(n8n, 1000);
		expect(at).toEqual(SCHEDULE);
		expect(failed).toEqual([0, SUPPORT_REPORTED[saving]]);
		expect(errors[0]).toMatch(start);
		expect(errors[1]).toMatch(support);
		// A success ends it, and reports what changed meanwhile, once.
		sim().clearFaults();
		later(320);
		setQuota('1');
		expect((await n8n.poll()).items?.map((item) => [item.subject, item.availableQuotaAmount])).toEqual([
			['own USER_ID U-1001 USD', 0.01],
		]);
		expect(watchedRecord(n8n.saved()).failure).toBeUndefined();
		expect(count(await n8n.poll())).toBe(0);
	});

	it('a restart two minutes after the support report: no repeat of it, no early request where every poll is saved', async () => {
		const n8n = app(quotaTrigger(shape, CHANGED), saving);
		await n8n.activate();
		refuseU1001();
		const restartAt = SUPPORT_REPORTED[saving] + 2;
		const { asked: at, failed } = await everyMinute(n8n, 1000, 0, restartAt);
		if (saving === 'durable') {
			expect(at).toEqual(SCHEDULE);
			expect(failed).toEqual([0, SUPPORT_REPORTED[saving]]);
		} else {
			// What a poll that emits nothing writes is not saved here: the back-off starts again at the restart.
			expect(at.slice(0, 8)).toEqual(SCHEDULE.slice(0, 8));
			expect(at[8]).toBe(restartAt);
			expect(failed.slice(0, 2)).toEqual([0, 635]);
		}
	});

	it('U at the first poll after n8n starts is no failure to activate: the next poll reports the start', async () => {
		const n8n = app(quotaTrigger(shape, CHANGED), saving);
		await n8n.activate();
		await n8n.poll();
		refuseU1001();
		// The default poller runs a poll as n8n starts; a failure there would count as the workflow failing to activate.
		const restarted = await n8n.restart();
		expect(restarted?.error).toBeUndefined();
		const { failed, errors } = await everyMinute(n8n, 30);
		expect(failed).toEqual([0]);
		expect(errors[0]).toMatch(
			/UNKNOWN_EXCEPTION.*asked again at the first poll from \S+Z|stops asking this question until/,
		);
	});

	it('a restart during the back-off: saved every poll, the back-off holds; otherwise it costs early requests', async () => {
		const n8n = app(quotaTrigger(shape, CHANGED), saving);
		await n8n.activate();
		refuseU1001();
		const { asked: at } = await everyMinute(n8n, 100, 0, 20);
		if (saving === 'durable') expect(at).toEqual([0, 5, 15, 35, 75]);
		else expect(at).toEqual([0, 5, 15, 20, 25, 35, 55, 95]);
	});

	it.each([
		['ending far in the future (edited, or a clock stepped back)', 2, 10 * 24 * 60],
		['longer than its own step (U once, 300 minutes to wait)', 1, 300],
	])('a back-off %s is damage: asked at once, with one warning', async (_, unknowns, minutes) => {
		const n8n = app(quotaTrigger(shape, CHANGED), saving);
		await n8n.activate();
		await n8n.poll();
		n8n.editSaved((data) => {
			const backoff = { unknowns, nextPollAt: Date.now() + minutes * MINUTE };
			const reason = 'The API answered UNKNOWN_EXCEPTION';
			watchedRecord(data).failure = { reason, kind: 'unknown', told: ['unknown'], backoff };
		});
		const sent = asked();
		const poll = (await n8n.restart()) ?? (await n8n.poll());
		expect(poll.error).toBeUndefined();
		expect(asked()).toBe(sent + 1);
		expect(n8n.warnings).toEqual([expect.stringMatching(/back-off after status U .*longer than the API ever asks/)]);
		await n8n.poll();
		expect(asked()).toBe(sent + 2);
		expect(n8n.warnings).toHaveLength(1);
	});

	it('the wait runs from the answer U, not from the start of its poll (a retry after the Timeout answered U; a cron tick each minute)', async () => {
		const n8n = app(quotaTrigger(shape, CHANGED, { options: { timeout: 1000 } }), saving);
		await n8n.activate();
		later(1);
		const tick = Date.now();
		// The first attempt gets no answer within the Timeout (1 s) and is retried: the retry is answered U.
		sim().addFault({ fault: 'hang', operation: 'quota', accumulationId: 'U-1001', times: 1 });
		sim().addFault({ fault: 'answer', operation: 'quota', accumulationId: 'U-1001', answer: U, times: 1 });
		// One subject: n8n's title names the code; an entry of a set: its description does.
		const failed = (await n8n.poll()).error;
		expect(shape === 'one' ? failed?.message : failed?.description).toMatch(/UNKNOWN_EXCEPTION/);
		if (shape === 'set') expect(failed?.message).toBe('1 of 2 watched entries failed');
		const answeredU = sim()
			.requests.filter((request) => request.resultCode === 'UNKNOWN_EXCEPTION')
			.at(-1)?.answeredAt as number;
		expect(answeredU - tick).toBeGreaterThanOrEqual(1000);
		const ofU1001 = () => sim().requests.filter((request) => request.body.includes('"U-1001"'));
		const sent = ofU1001().length;
		for (let minute = 1; minute <= 6 && ofU1001().length === sent; minute++) {
			later((tick + minute * MINUTE - Date.now()) / MINUTE);
			await n8n.poll();
		}
		// Not at the tick 5 minutes after the poll began (less than 5 minutes after the answer), at the next.
		const next = ofU1001()[sent];
		expect(next.at - tick).toBeGreaterThanOrEqual(6 * MINUTE);
		expect(next.at - answeredU).toBeGreaterThanOrEqual(5 * MINUTE);
	});

	it('a back-off within its step (U 3 times, 19 minutes to wait) is read as it is', async () => {
		const n8n = app(quotaTrigger(shape, CHANGED), saving);
		await n8n.activate();
		await n8n.poll();
		n8n.editSaved((data) => {
			const backoff = { unknowns: 3, nextPollAt: Date.now() + 19 * MINUTE };
			const reason = 'The API answered UNKNOWN_EXCEPTION';
			watchedRecord(data).failure = { reason, kind: 'unknown', told: ['unknown'], backoff };
		});
		const sent = asked();
		await ((await n8n.restart()) ?? n8n.poll());
		expect(asked()).toBe(sent);
		expect(n8n.warnings).toEqual([]);
	});
});

// Where every quiet poll is saved (durable cursors), an edited back-off is what the next poll reads.
describe.each(SHAPES)('status U, %s subject, durable cursors', (shape) => {
	it('a back-off whose stages told claim the support report before the 8th U is damage: dropped, and the reports still come', async () => {
		const n8n = app(quotaTrigger(shape, CHANGED), 'durable');
		await n8n.activate();
		refuseU1001();
		expect((await n8n.poll()).error).toBeDefined(); // the start, reported
		later(5);
		expect((await n8n.poll()).error).toBeUndefined(); // the 1st repeat, U: quiet
		n8n.editSaved((data) => {
			const failure = watchedRecord(data).failure as IDataObject;
			failure.told = ['unknown', 'support'];
		});
		await n8n.restart();
		const { failed } = await everyMinute(n8n, 1000, 6);
		expect(n8n.warnings).toEqual([expect.stringMatching(/says support was told after 2 answers U/)]);
		// The episode starts anew (its start reported again), and its 7th repeat is reported.
		expect(failed).toHaveLength(2);
	});
});

describe('status U under durable cursors (the app of pollerApp.ts), n8n restarting right after the start was reported', () => {
	const appOne = makeApp(sim);
	const quotaRequests = () => sim().requests.filter((r) => r.path.includes('AvailableQuota')).length;

	it('durable cursors: a restart right after the start was reported repeats it at most once, as documented', async () => {
		const n8n = appOne(CHANGED_ONE, 'durable');
		expect((await n8n.activate()).error).toBeUndefined();
		sim().addFault({ fault: 'answer', operation: 'quota', answer: U });
		const first = await n8n.poll();
		expect(first.error?.description).toMatch(/stops asking this question/);
		// The poll that reports throws, which no poller saves: a restart before the next poll forgets it.
		await n8n.restart();
		const failed: number[] = [];
		for (let minute = 1; minute < 60; minute++) {
			later(1);
			if ((await n8n.poll()).error) failed.push(minute);
		}
		expect(failed).toHaveLength(1);
		// After the repeat, the back-off holds under durable cursors: asked at 5 minutes' steps, not every minute.
		expect(quotaRequests()).toBeLessThan(8);
	});
});
