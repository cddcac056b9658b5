/**
 * The one place where the package's errors become n8n errors, and where an error becomes a
 * Continue On Fail (or AI tool) item. Nothing here carries a secret: the node's parameters are
 * redacted (secrets hidden, bank details masked) before n8n serialises the node into the error.
 */
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isMaskedField, SECRET_FIELDS } from './core/api/fields';
import { descriptionOf, PartnerError } from './core/errors';
import { maskAccount } from './core/redaction';
import { maskSubjectsText, QUOTA_LINES_PARAMETER } from './core/subjectLines';

export type NodeError = NodeApiError | NodeOperationError;

export function toNodeError(node: INode, error: unknown, itemIndex: number): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		// n8n's own errors (a failed expression, say) carry the node as it was given: hide its secrets too.
		(error as { node: INode }).node = redacted(error.node ?? node);
		return error;
	}
	const shownNode = redacted(node);
	if (!(error instanceof PartnerError)) {
		return new NodeOperationError(shownNode, error instanceof Error ? error : String(error), { itemIndex });
	}
	// n8n's description: what exactly (the error's detail), then one way to get unstuck (its hint).
	const description = descriptionOf(error);
	if (!error.isApiError) {
		return new NodeOperationError(shownNode, error.message, { description, itemIndex });
	}
	// Not `code`/`detail` keys: NodeApiError would replace our message with its generic one for known codes.
	return new NodeApiError(shownNode, { summary: error.message, ...error.itemFields() } as JsonObject, {
		message: error.message,
		description,
		httpCode: error.httpCode === undefined ? undefined : String(error.httpCode),
		itemIndex,
	});
}

/**
 * The item that stands for a failed input item: `{ error, description, ...the error's own fields }`,
 * `description` as n8n shows it (the error's detail, then its hint).
 * For On Error "Continue (using error output)" the same fields go under `details`: n8n routes an
 * item to the error output only when its JSON holds nothing but `error`, `message` and `details`
 * (it then adds the input item's own fields), and would otherwise leave it among the successes.
 */
export function errorItem(error: unknown, nodeError: NodeError, forErrorOutput = false): IDataObject {
	const details: IDataObject = {};
	if (nodeError.description) details.description = nodeError.description;
	if (error instanceof PartnerError) {
		Object.assign(details, error.itemFields());
		if (error.whoseAccount !== undefined) details.whoseAccount = error.whoseAccount;
	}
	if (forErrorOutput)
		return Object.keys(details).length > 0 ? { error: nodeError.message, details } : { error: nodeError.message };
	return { error: nodeError.message, ...details };
}

function redactParameters(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(redactParameters);
	if (!value || typeof value !== 'object') return value;
	const copy: IDataObject = {};
	for (const [key, inner] of Object.entries(value)) {
		const masked = isMaskedField(key, value as IDataObject);
		if (SECRET_FIELDS.has(key) && inner !== '' && inner !== undefined) copy[key] = '[hidden]';
		else if (key === QUOTA_LINES_PARAMETER && typeof inner === 'string') copy[key] = maskSubjectsText(inner);
		else if (masked && typeof inner === 'string') copy[key] = maskAccount(inner);
		else copy[key] = redactParameters(inner) as IDataObject;
	}
	return copy;
}

/** The node as n8n attaches it to an error (parameters included), secrets hidden and bank details masked. */
function redacted(node: INode): INode {
	return { ...node, parameters: redactParameters(node.parameters) as INode['parameters'] };
}
