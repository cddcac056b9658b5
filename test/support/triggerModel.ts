/**
 * A reference model of what the README promises of the trigger, and the steps a model-based test
 * drives the real trigger through (n8nApp: n8n-core's poll context under each way n8n saves a poll,
 * against the simulator). A step is plain data (so a shrunk failure is a named regression test);
 * after every step the trigger's output is checked against the model:
 *
 * - every event is a change of the world since what earlier events told (nothing invented, no
 *   repeat), of an event picked now; after a poll that read an entry and held nothing back, what
 *   the events told is the world, for every event picked (nothing missed);
 * - Quota Below Threshold once per crossing, a threshold newly watched as at an activation, one
 *   repeat after a restart (the documented at-least-once); Quota Changed at each change, with the
 *   previous amount;
 * - a failure report names exactly the entries with a stage not yet told (an episode's failure, a
 *   back-off after U, support to contact), each once; no request before a back-off's time;
 * - a restart of n8n: the trigger carries on from what n8n saved (the model keeps a copy of its own
 *   memory at each poll n8n saved, and goes back to it), so a repeat or a loss is exactly what a
 *   lost unsaved poll allows, never more.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Beneficiary } from '../../sandbox/data';
import type { LoggedRequest, Simulator } from '../../sandbox/server';
import type { N8nPoll, N8nSaving } from './n8nApp';
import { later } from './pollerApp';
import { appOf } from './watchShapes';

export const CUSTOMERS = ['CUST_EMPTY', 'CUST_SMALL'] as const;
/** Your own U-1001, and U-B1 of a customer's connected account (a line of its own, `ACC_0002/` in the simulator). */
export const SUBJECTS = ['U-1001', 'ACC_0002/U-B1'] as const;
/** A model entry's connected account ('' for your own) and accumulation ID. */
const whose = (id: string): [account: string, id: string] =>
	id.includes('/') ? (id.split('/') as [string, string]) : ['', id];
/**
 * A crowd of quota subjects after them in the set, moved together: a move across both thresholds is
 * a Quota Changed and a Quota Below Threshold each, 520 events, all told by the poll that reads them.
 * Each move sets an amount no earlier move set, so an item says which move it tells.
 */
export const CROWD = Array.from({ length: 260 }, (_, i) => `U-C${i}`);
/** Amounts (minor units) a step sets, and thresholds an edit picks: 0.50 is below both, 15,000 below the higher. */
export const AMOUNTS = ['50', '1500000', '3000000'] as const;
export const THRESHOLDS = [100, 20000] as const;
const BENEFICIARY_EVENTS = [
	'beneficiaryAdded',
	'beneficiaryRemoved',
	'beneficiaryChanged',
	'beneficiaryBankDetailsChanged',
];
const QUOTA_EVENTS = ['quotaBelowThreshold', 'quotaChanged'];
const MINUTES = [1, 6, 45, 330] as const;
/** The API's waits after each answer U (minutes), then every 320 (docs/api.md). */
const U_WAITS = [5, 10, 20, 40, 80, 160, 320];
/** A burst's size: more events than most polls find, all told by the poll that reads them. */
const BURST = 510;

export type Family = 'beneficiaries' | 'quota';
/**
 * A fault on an entry's next request: an answer F or U, a rate limit (called again: no failure),
 * no answer within the Timeout once (retried: no failure), or a connection reset at every attempt
 * (a failed read).
 */
export type Fault = 'F' | 'U' | 'rate' | 'hang' | 'reset';
/** Attempts of one request (the retry policy's 3 retries): a reset at each fails the read. */
const ATTEMPTS = 4;
/** A step's way of showing a read failed: the last answer of one of its pages. */
const TORN = 'TORN';
const NO_ANSWER = 'NO_ANSWER';
/** One step, as data. */
export type Step =
	| ['poll']
	| ['restart']
	| ['failover']
	| ['reactivate']
	| ['wait', number]
	| ['bind' | 'bindUntagged' | 'burst', number]
	| ['unbind' | 'rename' | 'bank', number, number]
	| ['quota', number, number]
	| ['fault', number, Fault]
	| ['tear', number]
	| ['events', number]
	| ['threshold', number]
	| ['timeout']
	| ['emptyFilter']
	| ['shape']
	| ['rows', number]
	| ['crowd']
	| ['crowdMove'];

/** What the trigger knows of one entry, as the model has it. */
interface Known {
	/** Beneficiaries: identity -> fingerprint, as events told; quota: the amount and the standing alert. */
	list?: Record<string, string>;
	amount?: number;
	alerted?: { threshold: number };
	/**
	 * The episode: its stage now ('changing': a list changing while read, fewer than 3 polls in a
	 * row, which reports nothing), the stages told, answers U in a row, polls in a row that found
	 * the list changing, the earliest next request (epoch ms).
	 */
	stage?: string;
	told: string[];
	ended?: boolean;
	unknowns: number;
	unsettled?: number;
	askAt?: number;
}
type Memory = Record<string, Known>;

/** A stage of the episode not yet reported (a list changing, before the 3rd poll in a row, reports nothing). */
export const news = (k: Known): boolean =>
	k.ended === true || (k.stage !== undefined && k.stage !== 'changing' && !k.told.includes(k.stage));

export interface Model {
	family: Family;
	saving: N8nSaving;
	active: boolean;
	/** How the entries are entered (parametersOf): 'one' as rows (customers: IDs alone), 'set' as pasted lines. */
	shape: 'one' | 'set';
	/** Indexes of the watched customers or subjects (a set's rows; one: the first). */
	watched: number[];
	/** The CROWD watched too, after them (a set). */
	crowd: boolean;
	events: string[];
	threshold: number;
	timeout?: boolean;
	emptyFilter?: boolean;
	/** Customers whose list changes after every request that reads it (a bind at its front). */
	tearing: Set<string>;
	/** n8n's last cron tick (epoch ms): a wait ends a whole number of minutes after it, as a schedule does. */
	tick: number;
	/** The world's quota amounts (major units), as the steps set them. */
	amounts: Record<string, number>;
	memory: Memory;
	saved?: Memory;
	/** Subjects whose next alert after a restart may repeat (at least once). */
	mayRepeat: Set<string>;
	/** What the main that led before the last failover knew, and the polls n8n saved since that failover. */
	stepDown?: { memory: Memory };
	sinceFailover: number;
	serial: number;
	/** Identities the world ever had per entry, and removed ever (an event about another is invented). */
	ever: Record<string, Set<string>>;
	gone: Record<string, Set<string>>;
	log: string[];
}

export function newModel(family: Family, saving: N8nSaving, crowd = false): Model {
	return {
		family,
		saving,
		active: false,
		shape: crowd ? 'set' : 'one',
		watched: [0],
		crowd,
		events: family === 'quota' ? [...QUOTA_EVENTS] : [...BENEFICIARY_EVENTS],
		threshold: THRESHOLDS[1],
		amounts: {
			'U-1001': 12500,
			[SUBJECTS[1]]: 1.01,
			...Object.fromEntries(CROWD.map((id) => [id, CROWD_ABOVE / 100])),
		},
		memory: {},
		mayRepeat: new Set(),
		sinceFailover: 0,
		tearing: new Set(),
		tick: Date.now(),
		serial: 0,
		ever: {},
		gone: {},
		log: [],
	};
}

const entryIds = (m: Model): string[] => [
	...m.watched.map((i) => (m.family === 'quota' ? SUBJECTS[i] : CUSTOMERS[i])),
	...(m.crowd ? CROWD : []),
];
/** The crowd's amount (minor units) at its start, above both thresholds; a move goes below both, or above. */
const CROWD_ABOVE = 3_000_000;
const CROWD_BELOW = 50;
/** How a report names an entry: the quota's subject (whose account first), or whose beneficiaries. */
const labelOf = (m: Model, id: string) =>
	m.family === 'quota' ? `${whose(id)[0] || 'own'} USER_ID ${whose(id)[1]} USD` : `${id} beneficiaries`;
const clone = (memory: Memory): Memory => structuredClone(memory);
function groupBy<T, K>(values: T[], keyOf: (value: T) => K): Map<K, T[]> {
	const groups = new Map<K, T[]>();
	for (const value of values) groups.set(keyOf(value), [...(groups.get(keyOf(value)) ?? []), value]);
	return groups;
}

/**
 * The trigger's parameters for the model's configuration (masking and Simplify off, so items name
 * payees whole). Its shape is how the entries are entered, the same requests either way: 'one' as
 * Quotas rows (customers: their IDs alone), 'set' as Quotas as Text lines (customers: after a
 * comment and a blank line); each quota with the model's threshold.
 */
export function parametersOf(m: Model): INodeParameters {
	const ids = entryIds(m);
	// Short, so that a request without an answer costs seconds, not the default 30; yet long enough
	// for a crowd of 261 quotas answered on a machine loaded by the real-app checks beside it (CI
	// timed out at 1 s). An edit of it keeps the request.
	const timeout = m.timeout ? 5000 : 4000;
	if (m.family === 'quota') {
		const common = { events: m.events, options: { timeout } };
		const account = (entry: string) => whose(entry)[0] || 'own';
		if (m.shape === 'one') {
			const rows = ids.map((entry) => ({
				connectedAccountId: account(entry),
				quotaAccumulationMethod: 'USER_ID',
				quotaAccumulationId: whose(entry)[1],
				currency: 'USD',
				threshold: m.threshold,
			}));
			return { ...common, quotas: { quota: rows } } as unknown as INodeParameters;
		}
		const lines = ids.map((entry) => `${account(entry)}, USER_ID, ${whose(entry)[1]}, USD, ${m.threshold}`);
		return { ...common, options: { ...common.options, quotasText: lines.join('\n') } } as unknown as INodeParameters;
	}
	const filters = m.emptyFilter ? { filters: { currencyList: [], beneficiaryNick: '' } } : {};
	const customerIds = m.shape === 'one' ? ids.join('\n') : `# the customers watched\n\n${ids.join('\n')}`;
	const options: IDataObject = { timeout, maskBankDetails: false, simplify: false };
	return { events: m.events, ...filters, customerIds, options } as unknown as INodeParameters;
}

/** A payee's identity as every item shows it: its reference ID, else its nickname and its token's last four. */
function identity(item: IDataObject): string {
	if (item.referenceBeneficiaryId) return String(item.referenceBeneficiaryId);
	return `${String(item.beneficiaryNick)}|${String(item.beneficiaryToken ?? '').slice(-4)}`;
}
/** What a change shows: the version the step wrote (extendInfo), and the bank account's last four. */
const fingerprint = (item: IDataObject) =>
	`${JSON.stringify((item.extendInfo as IDataObject | undefined)?.tags ?? null)}|${String(item.bankAccountNo ?? '').slice(-4)}`;
const bankPart = (fp: string) => fp.split('|').pop();

export class Run {
	private readonly n8n: ReturnType<ReturnType<typeof appOf>>;
	constructor(
		private readonly sim: () => Simulator,
		readonly m: Model,
	) {
		this.n8n = appOf(sim)(parametersOf(m), m.saving);
		for (const customer of CUSTOMERS)
			for (const b of sim().beneficiaries(customer)) this.seen(customer, b as unknown as IDataObject);
		if (m.family === 'quota') for (const id of CROWD) sim().setQuota('USER_ID', id, String(CROWD_ABOVE));
		for (const [id, amount] of Object.entries(m.amounts)) (m.ever[id] ??= new Set()).add(String(amount));
	}

	/** Sets a quota subject's amount (minor units) in the world. */
	private setAmount(id: string, minor: number): void {
		this.sim().setQuota('USER_ID', id, String(minor));
		this.m.amounts[id] = minor / 100;
		(this.m.ever[id] ??= new Set()).add(String(minor / 100));
	}

	private list(i: number): Beneficiary[] {
		return this.sim().beneficiaries(CUSTOMERS[i]);
	}

	private payee(i: number, tagged: boolean): Beneficiary {
		const n = ++this.m.serial;
		const base = { ...(this.sim().beneficiaries('CUST_SMALL')[0] ?? {}) } as Beneficiary;
		const payee: Beneficiary = {
			...base,
			referenceBeneficiaryId: `REF-M-${n}`,
			beneficiaryToken: `TKN-M-${String(n).padStart(6, '0')}`,
			beneficiaryNick: `Model ${n}`,
			extendInfo: { createdAt: base.extendInfo?.createdAt ?? '2025-01-01T00:00:00.000Z', tags: [`v${n}`] },
		};
		if (!tagged) delete (payee as Partial<Beneficiary>).referenceBeneficiaryId;
		this.seen(CUSTOMERS[i], payee as unknown as IDataObject);
		return payee;
	}

	private stopTearing(customer: string): void {
		this.m.tearing.delete(customer);
		this.sim().clearFaults((rule) => rule.fault === 'totalChanges' && rule.customerId === customer);
	}

	/** No more faults: what is left of them cleared, no list changing while read. */
	calm(): void {
		this.sim().clearFaults();
		this.m.tearing.clear();
	}

	private seen(entry: string, item: IDataObject): void {
		(this.m.ever[entry] ??= new Set()).add(identity(item));
	}

	/** Runs one step and checks the trigger against the model; throws on a violation. */
	async step(step: Step): Promise<void> {
		const m = this.m;
		m.log.push(JSON.stringify(step));
		const [kind, a = 0, b = 0] = step as [string, number, number];
		switch (kind) {
			case 'bind':
			case 'bindUntagged':
				this.list(a % 2).push(this.payee(a % 2, kind === 'bind'));
				return;
			case 'burst':
				this.list(a % 2).push(...Array.from({ length: BURST }, () => this.payee(a % 2, true)));
				return;
			case 'unbind':
			case 'rename':
			case 'bank': {
				const list = this.list(a % 2);
				if (list.length === 0) return;
				const at = b % list.length;
				const entry = CUSTOMERS[a % 2];
				const before = list[at];
				if (kind === 'unbind') {
					list.splice(at, 1);
					(m.gone[entry] ??= new Set()).add(identity(before as unknown as IDataObject));
					return;
				}
				const n = ++m.serial;
				const after: Beneficiary = { ...before, extendInfo: { ...before.extendInfo, tags: [`v${n}`] } };
				if (kind === 'rename')
					after.beneficiaryNick = before.referenceBeneficiaryId ? `Renamed ${n}` : before.beneficiaryNick;
				else {
					after.bankAccountNo = `${70000000 + n}${String(n).padStart(4, '0')}`;
					after.beneficiaryToken = `TKN-B-${String(n).padStart(6, '0')}`;
				}
				list[at] = after;
				// An untagged payee's new token is another identity: the old one gone, a new one seen.
				if (!before.referenceBeneficiaryId && kind === 'bank')
					(m.gone[entry] ??= new Set()).add(identity(before as unknown as IDataObject));
				this.seen(entry, after as unknown as IDataObject);
				return;
			}
			case 'quota':
				this.setAmount(SUBJECTS[a % 2], Number(AMOUNTS[b % AMOUNTS.length]));
				return;
			case 'crowdMove': {
				// Across both thresholds each time: below (a Quota Changed and an alert each), or back above.
				const n = ++m.serial;
				const below = m.amounts[CROWD[0]] >= THRESHOLDS[1];
				for (const id of CROWD) this.setAmount(id, (below ? CROWD_BELOW : CROWD_ABOVE) + n);
				return;
			}
			case 'fault': {
				const id = entryIds(m)[a % entryIds(m).length];
				const where =
					m.family === 'quota'
						? { operation: 'quota' as const, accumulationId: whose(id)[1] }
						: { operation: 'list' as const, customerId: id };
				const answer =
					step[2] === 'F'
						? { status: 'F', code: 'PROCESS_FAIL', message: 'Process failed' }
						: { status: 'U', code: 'UNKNOWN_EXCEPTION', message: 'An unknown exception occurred' };
				const fault = step[2] as Fault;
				if (fault === 'rate') this.sim().addFault({ fault: 'rateLimit', times: 1, ...where });
				else if (fault === 'hang') this.sim().addFault({ fault: 'hang', times: 1, ...where });
				else if (fault === 'reset') this.sim().addFault({ fault: 'reset', times: ATTEMPTS, ...where });
				else this.sim().addFault({ fault: 'answer', answer, times: 1, ...where } as never);
				return;
			}
			case 'tear': {
				if (m.family !== 'beneficiaries') return;
				const customer = CUSTOMERS[a % 2];
				if (m.tearing.delete(customer)) this.stopTearing(customer);
				else if (this.list(a % 2).length > 0) {
					m.tearing.add(customer);
					this.sim().addFault({ fault: 'totalChanges', operation: 'list', customerId: customer });
				}
				return;
			}
			case 'wait': {
				// The next tick, minutes after the last poll began (not after it ended): a slow poll
				// leaves less of a back-off's wait to the next.
				m.tick += MINUTES[a % MINUTES.length] * 60_000;
				const ahead = m.tick - Date.now();
				if (ahead > 0) later(ahead / 60_000);
				return;
			}
		}
		await this.n8nStep(kind, a);
	}

	private async n8nStep(kind: string, a: number): Promise<void> {
		const m = this.m;
		if (kind === 'poll' || kind === 'reactivate' || kind === 'restart' || kind === 'failover') {
			if (kind === 'reactivate') {
				this.n8n.deactivate();
				m.active = false;
			}
			// A restart, or another main taking the lead (which may remember its own earlier lead): what
			// was not saved is lost, as at a restart.
			if (kind === 'restart' || kind === 'failover') {
				if (!m.active) return;
				// A main that leads again where n8n saved no poll of the other meanwhile knows what it knew.
				const back = kind === 'failover' && m.sinceFailover === 0 ? m.stepDown : undefined;
				// A restart is the leading main's: the other keeps what it knew.
				if (kind === 'failover') {
					m.stepDown = { memory: clone(m.memory) };
					m.sinceFailover = 0;
				}
				if (back) {
					Object.assign(m, back);
					return await this.observe(() => this.n8n.failover(), kind);
				}
				m.memory = clone(m.saved ?? {});
				// A standing alert may come once more.
				for (const id of entryIds(m)) if (m.memory[id]?.alerted) m.mayRepeat.add(id);
				return await this.observe(() => (kind === 'restart' ? this.n8n.restart() : this.n8n.failover()), kind);
			}
			if (!m.active) {
				m.memory = {};
				m.saved = undefined;
				m.mayRepeat.clear();
				return await this.observe(() => this.n8n.activate(), 'activate');
			}
			return await this.observe(() => this.n8n.poll(), 'poll');
		}
		// An edit: the same request (events, threshold, Timeout, an empty filter, rows <-> pasted lines) or a row more or less.
		if (kind === 'events') {
			const all = m.family === 'quota' ? QUOTA_EVENTS : BENEFICIARY_EVENTS;
			const picked = all.filter((_, i) => ((a % (2 ** all.length - 1)) + 1) & (1 << i));
			m.events = picked;
		} else if (kind === 'threshold') m.threshold = THRESHOLDS[a % THRESHOLDS.length];
		else if (kind === 'timeout') m.timeout = !m.timeout;
		else if (kind === 'emptyFilter') m.emptyFilter = m.family === 'beneficiaries' && !m.emptyFilter;
		else if (kind === 'shape') {
			if (m.watched.length !== 1 || m.crowd) return;
			m.shape = m.shape === 'one' ? 'set' : 'one';
		} else if (kind === 'crowd') {
			m.crowd = m.family === 'quota' && !m.crowd;
			if (m.crowd) m.shape = 'set';
		} else if (kind === 'rows') {
			if (m.shape === 'one') m.shape = 'set';
			const other = m.watched.includes(1) ? 0 : 1;
			if (m.watched.length === 2) {
				const drop = a % 2;
				m.watched = m.watched.filter((i) => i !== drop);
			} else m.watched = [...m.watched, other].sort();
		}
		await this.observe(() => this.n8n.update(parametersOf(m)), 'update');
	}

	/** Runs what n8n does (a poll of some kind) and checks what came of it against the model. */
	private async observe(act: () => Promise<N8nPoll | undefined>, what: string): Promise<void> {
		const m = this.m;
		// A list emptied while it changes at each read: its next bind would copy no payee.
		for (const customer of m.tearing) if (this.sim().beneficiaries(customer).length === 0) this.stopTearing(customer);
		const sent = this.sim().requests.length;
		m.tick = Date.now();
		const poll = await act();
		if (poll?.saved) m.sinceFailover++;
		const requests = groupBy(this.sim().requests.slice(sent), (r) => this.about(r));
		// Payees bound while their list was read are of the world too.
		for (const customer of CUSTOMERS)
			for (const b of this.sim().beneficiaries(customer)) this.seen(customer, b as unknown as IDataObject);
		for (const id of entryIds(m)) {
			const askAt = what === 'activate' ? undefined : m.memory[id]?.askAt;
			const early = requests.get(id)?.find((r) => askAt !== undefined && r.at < askAt);
			if (early) this.fail(`${id} was asked ${(askAt as number) - early.at} ms before its back-off ended`);
		}
		if (what === 'activate') {
			// Refused only when a read failed: then nothing is active, nothing known.
			const readFailed = entryIds(m).some((id) => this.readOf(requests.get(id)).failed !== undefined);
			if (poll?.error && !readFailed) this.fail(`the activation was refused: ${poll.error.message}`);
			if (poll?.error) return;
			m.active = true;
		}
		if (poll === undefined) return;
		if (poll.error && what !== 'poll') this.fail(`the ${what} poll failed: ${poll.error.message}`);
		const items = poll.items ?? [];
		for (const item of items)
			if (!m.events.includes(String(item.event))) this.fail(`an event not picked: ${String(item.event)}`);
		// A possible bank change (an untagged payee's Removed plus Added) comes whole, in one poll.
		for (const item of items) {
			const other = item.possibleBankChange as IDataObject | undefined;
			const partner = (i: IDataObject) =>
				i.event === other?.event &&
				i.beneficiaryNick === other?.beneficiaryNick &&
				this.itemEntry(i) === this.itemEntry(item);
			if (other && !items.some(partner))
				this.fail(`a bank change parted: ${String(item.event)} of ${String(item.beneficiaryNick)} alone`);
		}
		const byEntry = groupBy(items, (item) => this.itemEntry(item));
		for (const entry of byEntry.keys())
			if (!entryIds(m).includes(entry)) this.fail(`an event for ${entry}, which is not watched`);
		// No event comes for an entry whose read failed, or that was not read.
		const told = (id: string, known: Known, mine: IDataObject[]) => {
			if (mine.length > 0) this.fail(`an event for ${id}, which was not read`);
			for (const item of mine) (m.family === 'quota' ? this.quotaEvent : this.listEvent).call(this, id, known, item);
		};
		for (const id of entryIds(m)) {
			const read = this.readOf(requests.get(id));
			const known = (m.memory[id] ??= { told: [], unknowns: 0 });
			const mine = byEntry.get(id) ?? [];
			if (read.failed !== undefined) {
				this.failedRead(known, read.failed, read.failedAt);
				told(id, known, mine);
			} else if (read.asked) {
				if (known.stage !== undefined) {
					if (news({ ...known, ended: false })) known.ended = true;
					Object.assign(known, { stage: undefined, told: [], unknowns: 0, unsettled: 0, askAt: undefined });
				}
				if (m.family === 'quota') this.quotaRead(id, known, mine);
				else this.listRead(id, known, mine, read.boundAfter);
			} else told(id, known, mine);
		}
		if (poll.error) this.report(poll.error);
		// A poll forgets the entries no longer watched (one put back before it carries on as it was).
		for (const id of Object.keys(m.memory)) if (!entryIds(m).includes(id)) delete m.memory[id];
		if (poll.saved) {
			m.saved = clone(m.memory);
		}
	}

	private about(request: LoggedRequest): string | undefined {
		try {
			const body = JSON.parse(request.body) as IDataObject;
			if (this.m.family !== 'quota') return String(body.customerId ?? '');
			const account = request.headers['connected-accountid'];
			return `${account ? `${String(account)}/` : ''}${String(body.quotaAccumulationId)}`;
		} catch {
			return undefined;
		}
	}

	/**
	 * What the step's requests say of an entry's read: not asked, failed (the last answer of one of
	 * its pages: a request without an answer, a list that changed at each read), or read whole;
	 * `boundAfter`: payees a list changing at each read got after the one request that read it whole.
	 */
	private readOf(mine: LoggedRequest[] = []) {
		const last = new Map<unknown, { code: string; at: number }>();
		for (const r of mine) {
			const unanswered = r.fault === 'hang' || r.fault === 'reset' || r.closedEarly === true;
			const code = unanswered ? NO_ANSWER : String(r.resultCode);
			last.set((JSON.parse(r.body) as IDataObject).pageNumber ?? 1, { code, at: r.answeredAt ?? r.at });
		}
		// A list that changes after every request is whole only when one request read it (one page).
		const struck = mine.filter((r) => r.fault === 'totalChanges').length;
		const failure = [...last.values()].find(({ code }) => code !== 'SUCCESS');
		const failed = struck > 1 ? TORN : failure?.code;
		return { asked: mine.length > 0, failed, failedAt: failure?.at ?? 0, boundAfter: struck };
	}

	private itemEntry(item: IDataObject): string {
		const account = String(item.whoseAccount ?? '');
		if (this.m.family === 'quota')
			return `${account === 'own' ? '' : `${account}/`}${String(item.quotaAccumulationId)}`;
		return account;
	}

	/** `at`: when the failing answer went (a status U's wait runs from it). */
	private failedRead(known: Known, code: string, at: number): void {
		if (code === TORN) {
			// A list changing while read: its own row of polls, reported at the 3rd; an answer, so no back-off.
			const row = known.stage === 'changing' || known.stage === 'unsettled' ? (known.unsettled ?? 0) : 0;
			known.unsettled = row + 1;
			known.stage = known.unsettled >= 3 ? 'unsettled' : 'changing';
			Object.assign(known, { unknowns: 0, askAt: undefined });
			return;
		}
		known.unsettled = 0;
		if (code === 'UNKNOWN_EXCEPTION') {
			known.unknowns++;
			known.stage = known.unknowns > U_WAITS.length ? 'support' : 'unknown';
			known.askAt = at + U_WAITS[Math.min(known.unknowns, U_WAITS.length) - 1] * 60_000;
		} else known.stage = 'failed';
	}

	/**
	 * A failure report: it names exactly the entries with a stage not told (or an episode that ended
	 * untold), one entry in n8n's title, the entries of a set in its description.
	 */
	private report(error: Error & { description?: string }): void {
		const m = this.m;
		const shown = `${error.message} | ${error.description ?? ''}`;
		const due = entryIds(m).filter((id) => m.memory[id] && news(m.memory[id]));
		const named = entryIds(m).filter((id) => shown.includes(labelOf(m, id)));
		const reported = named.length > 0 || entryIds(m).length > 1 ? named : entryIds(m);
		if (JSON.stringify(reported) !== JSON.stringify(due))
			this.fail(`a report named [${reported.join(', ')}] where [${due.join(', ')}] had news: ${shown}`);
		for (const id of due) {
			const k = m.memory[id];
			if (news({ ...k, ended: false })) k.told.push(k.stage as string);
			k.ended = false;
		}
	}

	/**
	 * One quota event, in the order told: a Quota Changed from the amount the last one told (or the
	 * baseline) to one the world had; a Quota Below Threshold below the threshold it names, once per
	 * crossing (again only after a told or read amount at or above it; one repeat after a restart).
	 */
	private quotaEvent(id: string, known: Known, item: IDataObject): void {
		const m = this.m;
		const amount = item.availableQuotaAmount as number;
		if (!m.ever[id]?.has(String(amount))) this.fail(`${id}: an event with ${amount}, which it never had`);
		if (item.event === 'quotaChanged') {
			const chained = item.previousAmount === known.amount;
			if (known.amount === undefined || !chained || amount === item.previousAmount)
				this.fail(`${id}: Quota Changed ${String(item.previousAmount)} -> ${amount} after ${known.amount} was told`);
			known.amount = amount;
			if (known.alerted && amount >= known.alerted.threshold) known.alerted = undefined;
			return;
		}
		const threshold = item.threshold as number;
		const again = known.alerted?.threshold === threshold;
		if (amount >= threshold || (again && !m.mayRepeat.delete(id)))
			this.fail(
				`${id}: Quota Below Threshold at ${amount} (threshold ${threshold}, alerted ${JSON.stringify(known.alerted)})`,
			);
		known.alerted = { threshold };
	}

	/**
	 * A quota read: its events told in order, each as the world is now; then what the events told
	 * is the world: every change, and an alert for a quota below.
	 */
	private quotaRead(id: string, known: Known, items: IDataObject[]): void {
		const m = this.m;
		const amount = m.amounts[id];
		for (const item of items)
			if (item.availableQuotaAmount !== amount || (item.threshold ?? m.threshold) !== m.threshold)
				this.fail(
					`${id}: an item with ${String(item.availableQuotaAmount)} (${String(item.threshold)}), not ${amount}`,
				);
		const baseline = known.amount === undefined;
		if (baseline) known.amount = amount;
		for (const item of items) this.quotaEvent(id, known, item);
		const wants = (event: string) => m.events.includes(event);
		const isBelow = wants('quotaBelowThreshold') && amount < m.threshold;
		if (wants('quotaChanged') && known.amount !== amount)
			this.fail(`${id}: no Quota Changed came for ${known.amount} -> ${amount}`);
		if (isBelow && known.alerted?.threshold !== m.threshold)
			this.fail(`${id}: no Quota Below Threshold came at ${amount} (threshold ${m.threshold})`);
		m.mayRepeat.delete(id);
		known.amount = amount;
		known.alerted = isBelow ? { threshold: m.threshold } : undefined;
	}

	private listEvent(entry: string, known: Known, item: IDataObject): void {
		const list = (known.list ??= {});
		const id = identity(item);
		if (!this.m.ever[entry]?.has(id)) this.fail(`${entry}: an event about ${id}, which never was`);
		if (item.event === 'beneficiaryAdded') {
			if (list[id] !== undefined) this.fail(`${entry}: ${id} Added again`);
			list[id] = fingerprint(item);
		} else if (item.event === 'beneficiaryRemoved') {
			if (list[id] === undefined) this.fail(`${entry}: ${id} Removed, which events never told`);
			if (!this.m.gone[entry]?.has(id)) this.fail(`${entry}: ${id} Removed, which never was`);
			delete list[id];
		} else {
			const fp = fingerprint(item);
			if (list[id] === undefined || list[id] === fp)
				this.fail(`${entry}: ${id} ${String(item.event)} without a change`);
			if (item.event === 'beneficiaryBankDetailsChanged' && bankPart(list[id]) === bankPart(fp))
				this.fail(`${entry}: ${id} Bank Details Changed, its bank details the same`);
			list[id] = fp;
		}
	}

	/** A list read whole: its events checked, then what they told is the list, for every event picked. */
	private listRead(entry: string, known: Known, items: IDataObject[], boundAfter: number): void {
		// The list as read: without what was bound at its front after the read.
		const world = Object.fromEntries(
			this.sim()
				.beneficiaries(entry)
				.slice(boundAfter)
				.map((b) => [identity(b as unknown as IDataObject), fingerprint(b as unknown as IDataObject)]),
		);
		if (known.list === undefined) {
			if (items.length > 0) this.fail(`${entry}: events at its baseline`);
			known.list = world;
			return;
		}
		for (const item of items) this.listEvent(entry, known, item);
		const list = known.list;
		const wants = (event: string) => this.m.events.includes(event);
		for (const [id, fp] of Object.entries(world)) {
			if (list[id] === undefined) {
				if (wants('beneficiaryAdded')) this.fail(`${entry}: ${id} was bound and no Added came`);
			} else if (list[id] !== fp) {
				const bank = bankPart(list[id]) !== bankPart(fp);
				if (wants('beneficiaryChanged') || (bank && wants('beneficiaryBankDetailsChanged')))
					this.fail(`${entry}: ${id} changed and no event came`);
			}
			list[id] = fp;
		}
		for (const id of Object.keys(list)) {
			if (world[id] !== undefined) continue;
			if (wants('beneficiaryRemoved')) this.fail(`${entry}: ${id} was unbound and no Removed came`);
			delete list[id];
		}
	}

	private fail(why: string): never {
		throw new Error(`${why}\n  steps: [${this.m.log.join(', ')}]`);
	}
}
