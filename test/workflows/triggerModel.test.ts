/**
 * The trigger's contract, proven by a model (test/support/triggerModel.ts) over random sequences
 * of steps (fast-check's model-based commands): list and quota changes (bursts of 510, bank
 * changes with and without a reference ID; a crowd of 260 quota subjects moved at once, 520
 * events, removed from the set and added back), polls, n8n restarts, another main taking the lead
 * (multi-main), edits that keep the request
 * (events, threshold, Timeout, an empty filter, rows <-> pasted lines) and that change it
 * (a row added or removed), a deactivation and activation, waits, and faults (F, U, a rate limit, a
 * request without an answer within the Timeout, a connection reset at every attempt, a list that
 * changes after every request that reads it),
 * under each way n8n saves a poll. The model is checked after every step; a failing sequence
 * shrinks to its shortest, printed as steps, and is kept below as a named regression test.
 *
 * `TRIGGER_MODEL_RUNS=2000 npx jest test/workflows/triggerModel.test.ts` runs longer, on new
 * sequences (default: 50 per family and saving and 1 with the crowd, the same every run, about
 * 2 minutes in all);
 * `TRIGGER_MODEL_SEED` replays one seed.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-globals -- the run count and seed come from the environment */
import fc from 'fast-check';

import { newN8nProcess } from '../../sandbox/engine';
import { useSimulator } from '../support/helpers';
import { later, useClock } from '../support/pollerApp';
import { news, newModel, Run, type Family, type Model, type Step } from '../support/triggerModel';
import { SAVINGS } from '../support/watchShapes';

const { sim } = useSimulator();
useClock();
const RUNS = Number(process.env.TRIGGER_MODEL_RUNS ?? 50);
/** Sequences of a crowd cell, whose polls cost a second each: 1 by default (beside its regression), a tenth of a longer run's. */
const CROWD_RUNS = process.env.TRIGGER_MODEL_RUNS === undefined ? 1 : Math.max(1, Math.round(RUNS / 10));
/**
 * The default run (npm test, CI) walks the same sequences every time, so that a red run is the
 * change's doing; a longer run draws new ones (its seed is printed on failure) to find what they miss.
 */
const FIXED_SEED = 20261127;
const SEED =
	process.env.TRIGGER_MODEL_SEED !== undefined
		? Number(process.env.TRIGGER_MODEL_SEED)
		: process.env.TRIGGER_MODEL_RUNS === undefined
			? FIXED_SEED
			: undefined;

class StepCommand implements fc.AsyncCommand<Model, Run> {
	constructor(readonly step: Step) {}
	check = () => true;
	async run(_: Model, run: Run): Promise<void> {
		await run.step(this.step);
	}
	toString = () => JSON.stringify(this.step);
}

const n = fc.nat({ max: 5 });
/**
 * The steps of a family, weighted: mostly changes and polls, now and then a restart, an edit, a
 * fault. With the crowd (quota), its moves (520 events) and edits that remove it and add it back.
 */
function steps(family: Family, crowd = false): fc.Arbitrary<Step> {
	const world: Array<fc.WeightedArbitrary<Step>> =
		family === 'quota'
			? [
					{ weight: 5, arbitrary: fc.tuple(fc.constant('quota' as const), n, n) },
					...(crowd
						? [
								{ weight: 4, arbitrary: fc.constant<Step>(['crowdMove']) },
								{ weight: 1, arbitrary: fc.constant<Step>(['crowd']) },
							]
						: []),
				]
			: [
					{ weight: 3, arbitrary: fc.tuple(fc.constant('bind' as const), n) },
					{ weight: 1, arbitrary: fc.tuple(fc.constant('bindUntagged' as const), n) },
					{
						weight: 2,
						arbitrary: fc.tuple(fc.constantFrom('unbind' as const, 'rename' as const, 'bank' as const), n, n),
					},
					{ weight: 1, arbitrary: fc.tuple(fc.constant('burst' as const), n) },
					{ weight: 1, arbitrary: fc.constant<Step>(['emptyFilter']) },
					{ weight: 1, arbitrary: fc.tuple(fc.constant('tear' as const), n) },
				];
	return fc.oneof(
		...world,
		{ weight: 8, arbitrary: fc.constant<Step>(['poll']) },
		{ weight: 2, arbitrary: fc.constant<Step>(['restart']) },
		{ weight: 1, arbitrary: fc.constant<Step>(['failover']) },
		{ weight: 1, arbitrary: fc.constant<Step>(['reactivate']) },
		{ weight: 2, arbitrary: fc.tuple(fc.constant('wait' as const), n) },
		{
			weight: 2,
			arbitrary: fc.tuple(
				fc.constant('fault' as const),
				n,
				fc.constantFrom('F' as const, 'U' as const, 'rate' as const, 'hang' as const, 'reset' as const),
			),
		},
		{ weight: 1, arbitrary: fc.tuple(fc.constant('events' as const), fc.nat({ max: 14 })) },
		{ weight: 1, arbitrary: fc.tuple(fc.constant('threshold' as const), n) },
		{ weight: 1, arbitrary: fc.constantFrom<Step>(['timeout'], ['shape']) },
		{ weight: 1, arbitrary: fc.tuple(fc.constant('rows' as const), n) },
	);
}

/** A fresh world, a fresh n8n process, the trigger activated. */
async function started(family: Family, saving: (typeof SAVINGS)[number], crowd = false): Promise<Run> {
	sim().reset();
	newN8nProcess();
	const run = new Run(sim, newModel(family, saving, crowd));
	await run.step(['poll']);
	return run;
}

/** What a regression runs on: a family, or quota with the crowd. */
type Cell = Family | 'quota and crowd';

/** A run of `sequence` (a regression kept as data), then the drain. */
async function play(cell: Cell, saving: (typeof SAVINGS)[number], sequence: Step[]): Promise<void> {
	const crowd = cell === 'quota and crowd';
	const run = await started(crowd ? 'quota' : cell, saving, crowd);
	for (const step of sequence) await run.step(step);
	await drain(run);
}

async function drain(run: Run): Promise<void> {
	run.calm();
	for (let i = 0; i < 6; i++) {
		later(330);
		await run.step(['poll']);
	}
	for (const [id, known] of Object.entries(run.m.memory)) {
		if (news(known)) throw new Error(`${id}: a failure never reported\n  steps: [${run.m.log.join(', ')}]`);
	}
}

/**
 * Each family under each saving; then quota with the crowd (each of its polls reads 262 subjects,
 * about a second: fewer and shorter sequences).
 */
const CELLS = [
	...(['beneficiaries', 'quota'] as const).flatMap((family) =>
		SAVINGS.map((saving) => ({ family, saving, crowd: false, runs: RUNS, steps: 30 })),
	),
	...SAVINGS.map((saving) => ({ family: 'quota' as const, saving, crowd: true, runs: CROWD_RUNS, steps: 12 })),
];
describe.each(CELLS)(
	'the trigger ($family, crowd $crowd) under n8n saving $saving holds its contract over random sequences',
	({ family, saving, crowd, runs, steps: maxCommands }) => {
		it(`${runs} sequences, checked after every step`, async () => {
			await fc.assert(
				fc.asyncProperty(
					fc.commands([steps(family, crowd).map((step) => new StepCommand(step))], { maxCommands }),
					async (commands) => {
						const run = await started(family, saving, crowd);
						await fc.asyncModelRun(() => ({ model: run.m, real: run }), commands);
						await drain(run);
					},
				),
				{ numRuns: runs, seed: SEED },
			);
		});
	},
);

/** Sequences the model found, shrunk: each a guarantee that once failed. */
const REGRESSIONS: Array<[name: string, family: Cell, saving: (typeof SAVINGS)[number], steps: Step[]]> = [
	[
		'a customer added to the set beside a failing one, its baseline taken by a poll that reported; then bursts',
		'beneficiaries',
		'durable',
		[['fault', 0, 'F'], ['rows', 0], ['poll'], ['bindUntagged', 3], ['burst', 0]],
	],
	[
		// Kept from the held queue's time (a gap of the model then): a burst, events edited around a failing read.
		'a burst, a restart, its event unpicked during a failing read, then picked again',
		'beneficiaries',
		'emit',
		[['poll'], ['burst', 0], ['restart'], ['fault', 0, 'F'], ['events', 7], ['events', 0]],
	],
	[
		// Kept from the held queue's time (found by CI then): a quiet poll n8n does not save, then a reactivation.
		'a burst, its event unpicked over a quiet poll, picked again, then a reactivation',
		'beneficiaries',
		'scheduler',
		[['burst', 0], ['poll'], ['events', 1], ['poll'], ['events', 0], ['reactivate']],
	],
	[
		// Kept from the held queue's time (a hostile review's): an activation refused in between.
		'the same, with an activation refused (a read F) before the one that succeeds',
		'beneficiaries',
		'scheduler',
		[['burst', 0], ['poll'], ['events', 1], ['poll'], ['events', 0], ['fault', 0, 'F'], ['reactivate'], ['poll']],
	],
	[
		// Kept from the held queue's time: a restart after a quiet poll n8n did not save.
		'the same, with an n8n restart after the quiet poll',
		'beneficiaries',
		'scheduler',
		[['burst', 0], ['poll'], ['events', 1], ['poll'], ['restart'], ['events', 0], ['reactivate']],
	],
	[
		// The state after a restart is in doubt, so a subject still below is alerted anew (the documented at-least-once).
		'a crowd of quota subjects below both thresholds at once (520 events in one poll), then an n8n restart',
		'quota and crowd',
		'scheduler',
		[['crowdMove'], ['poll'], ['restart'], ['poll']],
	],
	[
		// The model's own gap, found by a long run: a main that leads again where n8n saved no poll of
		// the other meanwhile (durable cursors: its activation's and a failed poll are not) knows its
		// activation's baseline still.
		'a payee bound while the other main led and its poll failed, then back to the first',
		'beneficiaries',
		'durable',
		[['failover'], ['fault', 0, 'F'], ['bind', 0], ['poll'], ['failover'], ['poll']],
	],
	[
		// Found by a hostile look at multi-main: the new leader's activation poll threw the report due,
		// and n8n counts that as the workflow failing to activate there.
		'a failure reported late (its poll emitted a payee of the other customer), then another main takes the lead',
		'beneficiaries',
		'emit',
		[['rows', 0], ['bind', 0], ['fault', 1, 'F'], ['poll'], ['failover'], ['poll']],
	],
];
/** Sequences written to reach, every run, what random ones reach rarely (a row of 3 polls of a torn list). */
const REACHED: typeof REGRESSIONS = [
	[
		'a list of many pages changing at every read: reported at the 3rd poll in a row, once; its binds once it reads whole',
		'beneficiaries',
		'emit',
		[['burst', 0], ['poll'], ['poll'], ['tear', 0], ['poll'], ['poll'], ['poll'], ['poll'], ['tear', 0], ['poll']],
	],
	[
		'a one-page list changing after each read: what was bound after it, at the next poll',
		'beneficiaries',
		'durable',
		[['bind', 0], ['poll'], ['tear', 0], ['poll'], ['poll'], ['restart'], ['poll']],
	],
	[
		'a request without an answer within the Timeout (retried), then a connection reset at every attempt',
		'quota',
		'scheduler',
		[['fault', 0, 'hang'], ['poll'], ['fault', 0, 'reset'], ['poll'], ['poll']],
	],
	[
		// Found by a hostile review: the wait was counted from the poll's start.
		"a status U answered late in its poll (after a Timeout): no request at the tick 5 minutes after the poll's start",
		'quota',
		'durable',
		[
			['fault', 0, 'hang'],
			['fault', 0, 'U'],
			['poll'],
			['wait', 0],
			['wait', 0],
			['wait', 0],
			['wait', 0],
			['wait', 0],
			['poll'],
		],
	],
];
describe('regressions the model found, and sequences written to reach rare paths', () => {
	for (const [name, family, saving, sequence] of [...REGRESSIONS, ...REACHED]) {
		it(`${name} (${family}, ${saving})`, async () => await play(family, saving, sequence));
	}
});
