import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { REQUEST_WIDTH } from '../shared/core/flow/scheduler';
import { ValidationError } from '../shared/core/errors';
import { ApiSession } from '../shared/transport/session';
import { errorItem, toNodeError } from '../shared/errorMapping';
import * as getAvailableQuota from './getAvailableQuota.operation';
import * as listBeneficiaries from './listBeneficiaries.operation';

const operations = { listBeneficiaries, getAvailableQuota } as const;
type Operation = keyof typeof operations;

type Outcome = { ok: true; items: INodeExecutionData[] } | { ok: false; error: unknown };

/**
 * Runs every input item through its operation. Items run concurrently, at most the execution's
 * width at a time and started in input order; their requests share one scheduler. The output is
 * what running them one after another gives: each item's results in its own place, in input
 * order. Without Continue On Fail the first failure in input order ends the node: nothing new
 * starts, later items are abandoned, and nothing partial is emitted. With it (either On Error
 * mode) or as a tool, each failure is an error item in its failed item's place, and a failure of
 * the whole node (before any item runs) is one in every item's place.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	// As an AI agent's tool (type "...Tool"), a failure is returned as the tool's answer: the agent
	// hands a thrown error to the model as an empty string, so the model could not tell the user why.
	const failureAsItem = this.continueOnFail() || node.type.endsWith('Tool');
	const forErrorOutput = node.onError === 'continueErrorOutput';
	const failedItem = (error: unknown, itemIndex: number): INodeExecutionData => ({
		json: errorItem(error, toNodeError(node, error, itemIndex), forErrorOutput),
		pairedItem: { item: itemIndex },
	});
	// When the node cannot run at all (a credential it cannot use, an unknown operation), every
	// input item fails in its own place: thrown under Continue, n8n would pass the input items on
	// as the node's output, where a following node expects answers.
	const failEveryItem = (error: unknown): INodeExecutionData[][] => {
		if (!failureAsItem) throw toNodeError(node, error, 0);
		return [items.map((_, itemIndex) => failedItem(error, itemIndex))];
	};

	const operation = this.getNodeParameter('operation', 0) as Operation;
	const handler = Object.hasOwn(operations, operation) ? operations[operation] : undefined;
	if (!handler) {
		return failEveryItem(new ValidationError('operation', 'choice', `The operation "${operation}" is not supported`));
	}

	let session: ApiSession;
	try {
		session = await ApiSession.open(this, REQUEST_WIDTH);
	} catch (error) {
		return failEveryItem(error);
	}
	// A cancelled execution ends every item at once, a request waiting out a traffic limit included.
	const cancelled = this.getExecutionCancelSignal?.();
	const outcomes = await runItems(
		items.length,
		session.scheduler.maxWidth,
		failureAsItem,
		cancelled,
		(itemIndex, signal) => handler.execute.call(this, itemIndex, session, signal),
	);
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < outcomes.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (outcome.ok) {
			output.push(...outcome.items);
			continue;
		}
		if (!failureAsItem) throw toNodeError(node, outcome.error, itemIndex);
		output.push(failedItem(outcome.error, itemIndex));
	}
	return [output];
}

/**
 * Runs items 0..count-1 with at most `width` in flight, started in input order. When failures do
 * not become items, the first failure stops new starts and aborts the items after it; the items
 * before it run to their end (one of them may fail too, and then its failure is the first). The
 * outcomes are complete up to the first failure. `cancelled` (n8n's execution cancel signal)
 * aborts every item.
 */
async function runItems(
	count: number,
	width: number,
	failureAsItem: boolean,
	cancelled: AbortSignal | undefined,
	run: (itemIndex: number, signal: AbortSignal) => Promise<INodeExecutionData[]>,
): Promise<Outcome[]> {
	const outcomes: Outcome[] = [];
	const controllers: AbortController[] = [];
	let firstFailure = Infinity;
	let next = 0;
	await new Promise<void>((resolve) => {
		let running = 0;
		const startMore = () => {
			while (running < width && next < count && next < firstFailure) {
				const itemIndex = next++;
				const controller = new AbortController();
				controllers[itemIndex] = controller;
				running++;
				run(itemIndex, cancelled ? AbortSignal.any([controller.signal, cancelled]) : controller.signal)
					.then(
						(result) => {
							outcomes[itemIndex] = { ok: true, items: result };
						},
						(error: unknown) => {
							outcomes[itemIndex] = { ok: false, error };
							if (!failureAsItem && itemIndex < firstFailure) {
								firstFailure = itemIndex;
								const reason = new Error(`Item ${itemIndex} failed`);
								for (let later = itemIndex + 1; later < controllers.length; later++) controllers[later]?.abort(reason);
							}
						},
					)
					.finally(() => {
						running--;
						startMore();
						if (running === 0) resolve();
					});
			}
			if (running === 0) resolve();
		};
		startMore();
	});
	return Number.isFinite(firstFailure) ? outcomes.slice(0, firstFailure + 1) : outcomes;
}
