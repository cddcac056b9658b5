import { Pacer } from '../../nodes/PartnerAccountInquiry/shared/core/flow/pacer';

function clockAt(start: number) {
	const clock = { t: start, now: () => clock.t };
	return clock;
}

describe('Pacer', () => {
	it('lets everything go at once until a round trip has been seen', () => {
		const clock = clockAt(0);
		const pacer = new Pacer(clock.now);
		expect(pacer.dueAt(4)).toBe(-Infinity);
		pacer.sent();
		expect(pacer.wait(4)).toBe(0);
	});

	it('spaces requests by the fastest round trip over the width', () => {
		const clock = clockAt(1000);
		const pacer = new Pacer(clock.now);
		pacer.observe(80);
		pacer.observe(40);
		pacer.observe(60);
		pacer.sent();
		expect(pacer.dueAt(4)).toBe(1010);
		expect(pacer.wait(4)).toBe(10);
		expect(pacer.wait(2)).toBe(20);
		clock.t = 1007;
		expect(pacer.wait(4)).toBe(3);
		clock.t = 1012;
		expect(pacer.wait(4)).toBe(0);
	});

	it('ignores round trips of 0 ms or less (a clock that did not move or went back)', () => {
		const pacer = new Pacer(() => 0);
		pacer.observe(0);
		pacer.observe(-50);
		expect(pacer.dueAt(1)).toBe(-Infinity);
	});

	it('never waits more than one spacing, and not at all when the clock went back', () => {
		const clock = clockAt(10_000);
		const pacer = new Pacer(clock.now);
		pacer.observe(40);
		pacer.sent();
		clock.t = 10_000 - 3_600_000; // an hour back
		expect(pacer.wait(4)).toBe(0);
		clock.t = 9_995;
		expect(pacer.wait(4)).toBe(0);
		clock.t = 10_001;
		expect(pacer.wait(4)).toBe(9);
		expect(pacer.wait(4)).toBeLessThanOrEqual(10);
	});
});
