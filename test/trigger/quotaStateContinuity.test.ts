/**
 * What a poll carries on from (trigger/continuity.ts) and the back-off read back
 * (trigger/unknownBackoff.ts), framework-free: the rules the engine tests in
 * test/workflows/triggerPollers.test.ts play through n8n's pollers.
 */
import {
	carryOn,
	forgetWrittenStates,
	nextRecord,
	readPollRecord,
	rememberWritten,
	type Carried,
} from '../../nodes/PartnerAccountInquiry/trigger/continuity';
import { readBackoff } from '../../nodes/PartnerAccountInquiry/trigger/unknownBackoff';

const NODE = 'wf\nnode';
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

beforeEach(() => forgetWrittenStates());

/** One poll over `data` (the object n8n gave it) that writes, quiet or not; returns what it carried on as. */
function poll(data: Record<string, unknown>, quiet: boolean): Carried {
	const carried = carryOn(NODE, readPollRecord(data.pollRecord).state, data);
	if (carried.adopt) Object.assign(data, carried.adopt);
	const record = nextRecord(carried, quiet, Date.now());
	data.pollRecord = record;
	rememberWritten(NODE, data, carried, { state: data.state, pollRecord: record });
	return carried;
}

describe('carryOn', () => {
	it('every poll saved (a fresh copy each time): two quiet polls in a row seen saved make the record say so', () => {
		let saved: Record<string, unknown> = {};
		const flags: boolean[] = [];
		for (let i = 0; i < 4; i++) {
			const copy = clone(saved);
			flags.push(poll(copy, true).everyPollSaved);
			saved = copy;
		}
		// The first write proves nothing; the third poll has seen the first and the second saved.
		expect(flags).toEqual([false, false, true, true]);
		forgetWrittenStates(); // a restart
		expect(carryOn(NODE, readPollRecord(saved.pollRecord).state, clone(saved)).whole).toBe(true);
	});

	it('one live object (the default poller): never evidence, whatever is saved', () => {
		const live: Record<string, unknown> = {};
		for (let i = 0; i < 4; i++) expect(poll(live, true).everyPollSaved).toBe(false);
	});

	it('the activation poll saved, the quiet polls after it not (the scheduler without durable cursors): no evidence, and the newer write carried on', () => {
		const saved: Record<string, unknown> = {};
		poll(saved, true); // the activation's poll, saved by n8n's activator
		const second = clone(saved);
		expect(poll(second, true).everyPollSaved).toBe(false); // not saved
		const third = clone(saved);
		const carried = poll(third, true);
		expect(carried.adopt).toBeDefined();
		expect(carried.everyPollSaved).toBe(false);
		expect((third.pollRecord as { polls: number }).polls).toBe(3);
	});

	it('an older run saved (a deactivation kept it) loses to the newer activation this process wrote', () => {
		const old = { pollRecord: { version: 1, born: 'old', polls: 40, at: Date.now() - 60_000, quiet: true, everyPollSaved: true }, state: 'old' };
		const activation: Record<string, unknown> = {};
		poll(activation, true);
		activation.state = 'new';
		rememberWritten(NODE, activation, { whole: true, everyPollSaved: false, quietSeenSaved: false }, { state: 'new', pollRecord: activation.pollRecord as never });
		const next = clone(old);
		expect(poll(next, true).adopt).toMatchObject({ state: 'new' });
		expect(next.state).toBe('new');
	});

	it('a record not of its shape is a problem; none is what the previous release saved', () => {
		expect(readPollRecord(undefined)).toEqual({});
		expect(readPollRecord({ version: 1, born: 'x', polls: 0, at: 1, quiet: true, everyPollSaved: false }).problem).toMatch(/poll record/);
		expect(readPollRecord('x').problem).toBeDefined();
	});
});

describe('readBackoff', () => {
	const now = 1_000_000_000_000;
	const at = (minutes: number) => now + minutes * 60_000;
	it("reads today's back-off as it is, and another question's as none", () => {
		expect(readBackoff({ question: 'q', unknowns: 3, nextPollAt: at(19) }, 'q', now).state).toMatchObject({ unknowns: 3 });
		expect(readBackoff({ question: 'other', unknowns: 3, nextPollAt: at(19) }, 'q', now)).toEqual({});
		expect(readBackoff(undefined, 'q', now)).toEqual({});
	});
	it.each([
		['further than 320 minutes', { unknowns: 9, nextPollAt: at(321) }],
		['longer than its step', { unknowns: 1, nextPollAt: at(6) }],
		['no answers U counted', { unknowns: 0, nextPollAt: at(1) }],
		['no time', { unknowns: 2, nextPollAt: 'soon' }],
	])('%s is damage', (_, backoff) => {
		expect(readBackoff({ question: 'q', ...backoff }, 'q', now).problem).toBeDefined();
	});
	it('320 minutes after the 7th repeat and later ones is what the API asks', () => {
		expect(readBackoff({ question: 'q', unknowns: 12, nextPollAt: at(320) }, 'q', now).state).toBeDefined();
	});
});
