/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only simulator, not in the published package */
/**
 * What a test asks for (a FaultRule), which request gets it (FaultBook), and the shape of a row of
 * the catalogue in faults.ts: the stages at which a fault can act, in the order a request meets them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Beneficiary, Customer } from './data';
import { isOnTheWay, type FaultKind } from './faults';
import type { Answer, PreparedResponse } from './types';

export interface FaultRule {
	fault: FaultKind;
	operation?: 'list' | 'quota';
	customerId?: string;
	/** Only quota requests for this accumulation ID (one subject of a trigger watching many). */
	accumulationId?: string;
	pageNumber?: number;
	/** How many matching requests get the fault; unlimited when omitted. */
	times?: number;
	/** Only every Nth matching request gets the fault (the Nth, the 2Nth, ...). */
	every?: number;
	/** For fault 'answer': the result to answer with (any section 7 code). */
	answer?: { status: 'S' | 'F' | 'U'; code: string; message: string };
	/** For faults 'answer', 'oneGiB' and 'dripForever': send it without a signature header. */
	unsigned?: boolean;
	/** For fault 'answer': the HTTP status to send it with (200 when omitted). */
	httpStatus?: number;
	/** For fault 'lowerPageCap': the most beneficiaries the gateway puts on a page. */
	pageCap?: number;
	/** For fault 'quotaMissingField': the field left out of the quota answer. */
	field?: string;
	/** For fault 'nonObjectItem': what stands in for the first beneficiary. */
	item?: unknown;
	/** For fault 'swapBeneficiary': the index of the beneficiary unbound (default 0); for 'swapOrder', the first of the two. */
	position?: number;
	/** For fault 'rewriteCustomer': the customer the request is turned into. */
	to?: string;
}

/** The request on its way: its headers and body may be changed, or an earlier answer served. */
export interface OnTheWay {
	req: IncomingMessage;
	raw: Buffer;
	body: Record<string, unknown>;
	rule: FaultRule;
	/** The last answer to each identical request (URL and body). */
	answered: ReadonlyMap<string, PreparedResponse>;
}

/** Binds a new beneficiary like `model`, named by `label` and a serial (accounts.ts). */
export type Bind = (model: Beneficiary, label: string, nick: string) => Beneficiary;

export interface ListHooks {
	/** The filters asked for are not applied. */
	ignoresFilters?: boolean;
	/** The matching entries in the order served. */
	order?(listed: Beneficiary[], rule: FaultRule): Beneficiary[];
	pageSize?(asked: number, rule: FaultRule): number;
	pageNumber?(asked: number): number;
	/** The page's entries, changed in place. */
	page?(entries: unknown[], rule: FaultRule): void;
	totals?: { totalCount: number; totalPageNumber: number };
	/** What happens to the account right after this page was answered. */
	afterwards?(customer: Customer, rule: FaultRule, bind: Bind): void;
}

/** The result block as written: resultStatus may be one the API does not have. */
export type Written = Omit<Answer, 'status'> & { status: string };

export interface SigningHooks {
	/** What is written instead of the answer; `echo` is the request as a careless gateway quotes it. */
	result?(answer: Answer, echo: () => string): Written;
	/** The body as signed. */
	signedBody?(body: string): string;
	/** Response-Time; `at(shiftMs)` is the simulator's clock shifted. */
	responseTime?(at: (shiftMs: number) => string): string;
	/** Signed with the partner's demo key, not the gateway's. */
	partnerKey?: boolean;
	/** The body as sent, changed after it was signed. */
	sentBody?(body: string): string;
	clientId?: string;
	unsigned?(rule: FaultRule): boolean;
	httpStatus?(rule: FaultRule): number;
}

export interface Exchange {
	req: IncomingMessage;
	res: ServerResponse;
	prepared: PreparedResponse;
}

export interface FaultRow {
	/** What goes wrong, as a client sees it. */
	doc: string;
	/** On the way, before the gateway: such a fault is drawn on its own, before the gateway's. */
	onTheWay?(request: OnTheWay): { raw?: Buffer; replayed?: PreparedResponse } | void;
	/** An answer instead of the endpoint's own (drawn once the request's shape was checked). */
	instead?(rule: FaultRule, question: { operation: 'list' | 'quota'; id?: string }): Answer | undefined;
	list?: ListHooks;
	/** The quota answer's fields, changed in place. */
	quota?(data: Record<string, unknown>, rule: FaultRule): void;
	signing?: SigningHooks;
	/** Writes the HTTP answer itself (the prepared answer, some of it, or something else). */
	transport?(exchange: Exchange): void;
}

/** Where a request stands when it draws a rule. */
export interface Draw {
	/** Drawing on the way (before the gateway), or at the gateway. */
	onTheWay: boolean;
	operation: 'list' | 'quota';
	customerId: string;
	pageNumber?: number;
	accumulationId?: string;
}

/** The rules a test added, in order, each with how many requests matched it and how many it struck. */
export class FaultBook {
	private rules: Array<FaultRule & { used: number; seen: number }> = [];

	add(rule: FaultRule): void {
		this.rules.push({ ...rule, used: 0, seen: 0 });
	}

	/** Removes the rules `which` picks (every rule when omitted). */
	clear(which: (rule: FaultRule) => boolean = () => true): void {
		this.rules = this.rules.filter((rule) => !which(rule));
	}

	/** The first rule that matches and strikes this request (and counts it), if any. */
	draw({ onTheWay, operation, customerId, pageNumber, accumulationId }: Draw): FaultRule | undefined {
		for (const rule of this.rules) {
			if (isOnTheWay(rule) !== onTheWay) continue;
			if (rule.accumulationId !== undefined && rule.accumulationId !== accumulationId) continue;
			if (rule.operation && rule.operation !== operation) continue;
			if (rule.customerId !== undefined && rule.customerId !== customerId) continue;
			if (rule.pageNumber !== undefined && rule.pageNumber !== pageNumber) continue;
			if (rule.times !== undefined && rule.used >= rule.times) continue;
			if (rule.every !== undefined && ++rule.seen % rule.every !== 0) continue;
			rule.used++;
			return rule;
		}
		return undefined;
	}
}
