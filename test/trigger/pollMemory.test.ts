/**
 * What a poll carries on from (trigger/pollMemory.ts) and a saved back-off read back
 * (trigger/failures.ts), framework-free: the rules the engine tests in
 * test/workflows/trigger{Restarts,Runs,StatusU}.test.ts play through n8n's pollers.
 */
import { PollMemory, type Carried } from '../../nodes/PartnerAccountInquiry/trigger/pollMemory';
import {
	activationRun,
	markOf,
	nextRecord,
	readPollRecord,
	recordActivation,
} from '../../nodes/PartnerAccountInquiry/trigger/pollRecord';
import { backoffProblem, type Failure } from '../../nodes/PartnerAccountInquiry/trigger/failures';

const NODE = 'wf\nnode';
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** This process's memory; a restart makes a new one. */
let memory = new PollMemory();
beforeEach(() => {
	memory = new PollMemory();
});
const carryOn: PollMemory['carryOn'] = (...args) => memory.carryOn(...args);
const rememberWritten: PollMemory['rememberWritten'] = (...args) => memory.rememberWritten(...args);
const startRun: PollMemory['startRun'] = (...args) => memory.startRun(...args);

/**
 * One quiet poll over `data` (the object n8n gave it) that writes, the last activation's run in
 * the global static data being `activated`; returns what it carried on as.
 */
function poll(data: Record<string, unknown>, activated?: number): Carried {
	const carried = carryOn(NODE, readPollRecord(data.pollRecord).state, data, activated);
	if (carried.fresh) for (const key of ['state', 'pollRecord']) delete data[key];
	if (carried.adopt) Object.assign(data, carried.adopt);
	const record = nextRecord(carried, true, memory.writer);
	data.pollRecord = record;
	rememberWritten(NODE, data, { state: data.state, pollRecord: record });
	return carried;
}
/** A user's activation over `data`, as the node plays it; returns its run. */
function activate(data: Record<string, unknown>): number {
	const run = startRun(NODE, data);
	delete data.pollRecord;
	delete data.state;
	return run;
}

describe('carryOn', () => {
	it('its own last write came back: whole; a quiet poll seen saved proves every poll is saved, across a restart too', () => {
		let saved: Record<string, unknown> = {};
		const afterRestart: boolean[] = [];
		for (let i = 0; i < 4; i++) {
			const copy = clone(saved);
			const carried = poll(copy, 0);
			if (i > 0) expect(carried.wholeHistory).toBe(true);
			saved = copy;
			afterRestart.push((saved.pollRecord as { everyPollSaved: boolean }).everyPollSaved);
		}
		expect(afterRestart).toEqual([false, true, true, true]);
		memory = new PollMemory(); // a restart
		const record = readPollRecord(saved.pollRecord).state;
		// The global static data holds the run of the activation that wrote it.
		expect(carryOn(NODE, record, clone(saved), record?.run).wholeHistory).toBe(true);
		// The first poll after the restart keeps the proof (a restart does not change what n8n saves).
		const afterIt = clone(saved);
		poll(afterIt, record?.run);
		expect(afterIt.pollRecord).toMatchObject({ everyPollSaved: true });
		// The same, its poll given the object it wrote into (the default poller): proves nothing.
		const live: Record<string, unknown> = {};
		for (let i = 0; i < 4; i++) poll(live);
		expect(live.pollRecord).toMatchObject({ everyPollSaved: false });
	});

	it("a quiet poll's write saved with its mark in the global static data (n8n's save at an activation) proves nothing", () => {
		const saved: Record<string, unknown> = {};
		const carried = carryOn(NODE, undefined, saved);
		const record = nextRecord(carried, true, memory.writer);
		saved.pollRecord = record;
		rememberWritten(NODE, saved, { state: undefined, pollRecord: record });
		// Saved with the workflow's static data, the global mark of that write included.
		const next = clone(saved);
		expect(carryOn(NODE, record, next, undefined, markOf(record)).everyPollSaved).toBe(false);
		// Saved without it (a durable cursor saves the node's data alone): proven.
		expect(carryOn(NODE, record, clone(saved), undefined, 'an older mark').everyPollSaved).toBe(true);
	});

	it('a newer activation in the global static data than the saved run: a fresh baseline in that run, not whole', () => {
		const saved: Record<string, unknown> = { state: 'old' };
		for (let i = 0; i < 4; i++) {
			const copy = clone(saved);
			poll(copy);
			Object.assign(saved, copy);
		}
		const global: Record<string, unknown> = {};
		recordActivation(global, 'node', activate(clone(saved))); // its poll not saved (durable cursors)
		expect(global).toEqual({ partnerAccountInquiryRuns: { node: 2 } });
		memory = new PollMemory(); // a restart before the next poll
		const next = clone(saved);
		const carried = poll(next, activationRun(global, 'node'));
		expect(carried).toMatchObject({ fresh: true, run: 2, wholeHistory: false });
		expect(next.state).toBeUndefined();
		expect(next.pollRecord).toMatchObject({ run: 2, polls: 1, everyPollSaved: false });
		// Runs that agree, or none in the global static data (the previous release): carried on.
		expect(poll(clone(next), 2).fresh).toBeUndefined();
		memory = new PollMemory();
		expect(carryOn(NODE, readPollRecord(saved.pollRecord).state, clone(saved)).fresh).toBeUndefined();
	});

	it('the activation poll saved, the quiet polls after it not (the scheduler without durable cursors): the newer write carried on', () => {
		const saved: Record<string, unknown> = {};
		poll(saved); // the activation's poll, saved by n8n's activator
		poll(clone(saved)); // not saved
		const third = clone(saved);
		expect(poll(third).adopt).toBeDefined();
		expect((third.pollRecord as { polls: number }).polls).toBe(3);
	});

	it('an older run (a deactivation kept it) loses to the newer activation (no clock is read)', () => {
		const old: Record<string, unknown> = { state: 'old' };
		for (let i = 0; i < 3; i++) poll(old);
		const activation = clone(old);
		activate(activation);
		poll(activation); // not saved (durable cursors: the activation's poll is a testing poll)
		activation.state = 'new';
		rememberWritten(NODE, activation, { state: 'new', pollRecord: activation.pollRecord as never });
		const next = clone(old);
		expect(poll(next).adopt).toMatchObject({ state: 'new' });
		expect(next.pollRecord).toMatchObject({ run: 2, polls: 2 });
	});

	it('a newer run this process did not write (another main) is carried on from, as not known to be whole', () => {
		poll({ state: 'mine' });
		const theirs = {
			pollRecord: { version: 1, born: 'theirs', run: 2, polls: 1, at: 0, quiet: false, everyPollSaved: false, by: 'b' },
			state: 'theirs',
		};
		const carried = carryOn(NODE, readPollRecord(theirs.pollRecord).state, theirs);
		expect(carried.adopt).toBeUndefined();
		expect(carried).toMatchObject({ wholeHistory: false, record: { born: 'theirs' } });
	});

	it('a record not of its shape is a problem; none is nothing saved', () => {
		expect(readPollRecord(undefined)).toEqual({});
		expect(readPollRecord({ version: 1, born: 'x', polls: 0, at: 1 }).problem).toMatch(/poll record/);
		expect(readPollRecord({ version: 1, born: 'x', polls: Number.MAX_SAFE_INTEGER, at: 1 }).problem).toMatch(
			/poll record/,
		);
		expect(readPollRecord('x').problem).toBeDefined();
		expect(
			readPollRecord({ version: 1, born: 'x', run: 1, polls: 3, at: 1, quiet: 'yes', everyPollSaved: false, by: 'w' })
				.problem,
		).toMatch(/poll record/);
	});

	it('is bounded: over its budget of entries kept, the nodes least recently written are forgotten and carry on from what n8n saved, as after a restart', () => {
		const small = new PollMemory(10);
		const state = (entries: number) => ({
			entries: Object.fromEntries(Array.from({ length: entries }, (_, i) => [i, {}])),
		});
		const write = (node: string, entries: number) => {
			const record = nextRecord({ everyPollSaved: false }, true, small.writer);
			small.rememberWritten(node, {}, { state: state(entries), pollRecord: record });
			return record;
		};
		write('first', 3);
		const second = write('second', 3);
		// n8n saved neither write (a quiet poll where quiet polls are not saved): each node's memory is newer.
		expect(small.carryOn('first', undefined, {}).adopt).toBeDefined();
		write('third', 3);
		// 3 x (1 + 3) is over 10: the least recently written went.
		expect(small.carryOn('first', undefined, {})).toEqual({
			record: undefined,
			wholeHistory: false,
			everyPollSaved: false,
		});
		expect(small.carryOn('second', undefined, {}).adopt).toMatchObject({ pollRecord: second });
	});

	it('holds 1,001 quota triggers of a few entries each (a hostile review proved a bound of 1,000 nodes forgot each one between its polls)', () => {
		const memory = new PollMemory();
		const quota = { entries: { k1: { state: { amount: 1 } }, k2: { state: { amount: 2 } } } };
		for (let n = 0; n < 1001; n++) {
			const record = nextRecord({ everyPollSaved: false }, true, memory.writer);
			memory.rememberWritten(`node-${n}`, {}, { state: quota, pollRecord: record });
		}
		for (let n = 0; n < 1001; n++) expect(memory.carryOn(`node-${n}`, undefined, {}).adopt).toBeDefined();
	});
});

describe('backoffProblem: a saved back-off the API could not have asked for', () => {
	const now = 1_000_000_000_000;
	const at = (minutes: number) => now + minutes * 60_000;
	const failure = (backoff: object, told: Failure['told'] = ['unknown']): Failure => ({
		reason: 'U',
		kind: 'unknown',
		told,
		backoff: backoff as Failure['backoff'],
	});
	it("reads today's back-off as it is", () => {
		expect(backoffProblem(failure({ unknowns: 3, nextPollAt: at(19) }), now)).toBeUndefined();
		expect(backoffProblem({ reason: 'F', kind: 'failed', told: ['failed'] }, now)).toBeUndefined();
	});
	it.each([
		['further than 320 minutes', { unknowns: 9, nextPollAt: at(321) }],
		['longer than its step', { unknowns: 1, nextPollAt: at(6) }],
		['no answers U counted', { unknowns: 0, nextPollAt: at(1) }],
		['no time', { unknowns: 2, nextPollAt: 'soon' }],
	])('%s is damage', (_, backoff) => {
		expect(backoffProblem(failure(backoff), now)).toBeDefined();
	});
	it('support told before the 8th answer U is damage (it would silence that report)', () => {
		expect(backoffProblem(failure({ unknowns: 7, nextPollAt: at(300) }, ['unknown', 'support']), now)).toMatch(
			/support was told after 7/,
		);
		expect(backoffProblem(failure({ unknowns: 8, nextPollAt: at(300) }, ['unknown', 'support']), now)).toBeUndefined();
	});
	it('320 minutes after the 7th repeat and later ones is what the API asks', () => {
		expect(backoffProblem(failure({ unknowns: 12, nextPollAt: at(320) }), now)).toBeUndefined();
	});
});
