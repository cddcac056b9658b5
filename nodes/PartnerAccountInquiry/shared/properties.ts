/**
 * The editor's parameters that the action node, the trigger and the credential share, derived
 * from the field rows of core/api/fields.ts (the same bounds as the checks in code).
 */
import type { IDataObject, IDisplayOptions, INode, INodeProperties } from 'n8n-workflow';

import {
	ACCESS_TOKEN,
	BENEFICIARY_FILTERS,
	CONNECTED_ACCOUNT_ID,
	CUSTOMER_ID,
	NUMBER_OPTIONS,
	QUOTA_SUBJECT_FIELDS,
	type FieldRule,
	type NumberRange,
} from './core/api/fields';
import { ValidationError } from './core/errors';
import { RETRY_POLICY } from './core/flow/retry';

/** The editor's form of one field row. */
export function fieldProperty(rule: FieldRule, overrides: Partial<INodeProperties> = {}): INodeProperties {
	const base = {
		displayName: rule.label,
		name: rule.name,
		description: rule.description,
		...(rule.placeholder ? { placeholder: rule.placeholder } : {}),
	};
	const options = rule.choices?.map((choice) => ({
		name: choice.label,
		value: choice.value,
		...(choice.description ? { description: choice.description } : {}),
	}));
	if (rule.kind === 'choice') {
		return { ...base, type: 'options', options, default: rule.choices?.[0]?.value ?? '', ...overrides };
	}
	if (rule.kind === 'choices') return { ...base, type: 'multiOptions', options, default: [], ...overrides };
	return {
		...base,
		type: 'string',
		default: '',
		...(rule.secret ? { typeOptions: { password: true } } : {}),
		...overrides,
	};
}

/** The Access Token option (the listing sends it in the body, the quota call as a header). */
export const accessTokenOption = fieldProperty(ACCESS_TOKEN);

/**
 * Whose account is asked, the first thing each operation and the trigger show: empty is your own
 * account, so an expression that gives nothing is refused (readWhose).
 */
export const customerIdProperty = fieldProperty(CUSTOMER_ID);
export const connectedAccountIdProperty = fieldProperty(CONNECTED_ACCOUNT_ID);

/** Fields in the order n8n's lint wants in a collection: by name. */
export const sortedByName = (fields: INodeProperties[]) =>
	[...fields].sort((a, b) => a.displayName.localeCompare(b.displayName));

/** The Filters collection, shown where `show` says (the listing and the beneficiary events). */
export function filtersCollection(show: IDisplayOptions): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: show,
		options: sortedByName(BENEFICIARY_FILTERS.map((rule) => fieldProperty(rule))),
	};
}

/** The quota's accumulation ID: required, so an expression that gives nothing is refused too. */
export const ACCUMULATION_ID = QUOTA_SUBJECT_FIELDS[1];

/** The quota subject's fields (fields.ts rows), shown where `show` says (the quota operation and the quota events). */
export function quotaFields(show: NonNullable<IDisplayOptions['show']>): INodeProperties[] {
	return QUOTA_SUBJECT_FIELDS.map((rule) => {
		const only = rule.onlyWith;
		return fieldProperty(rule, {
			required: true,
			default: rule.defaultValue ?? rule.choices?.[0]?.value ?? '',
			displayOptions: { show: only ? { ...show, [only.field]: [only.value] } : show },
		});
	});
}

/** A whole-number parameter with its bounds and default from NUMBER_OPTIONS, the row the check in code reads. */
export function numberProperty(
	name: keyof typeof NUMBER_OPTIONS,
	displayName: string,
	description: string,
): INodeProperties {
	const { min, max, default: value } = NUMBER_OPTIONS[name] as NumberRange;
	return {
		displayName,
		name,
		type: 'number',
		typeOptions: { minValue: min, ...(max !== undefined ? { maxValue: max } : {}) },
		default: value,
		description,
	};
}

/**
 * The Timeout option, as n8n's HTTP Request node has one: how long to wait for the gateway. The
 * request width and the page size are the package's to decide (NUMBER_OPTIONS), not the user's.
 */
export const timeoutOption = numberProperty(
	'timeout',
	'Timeout',
	`Milliseconds to wait for an answer before retrying (up to ${RETRY_POLICY.retries} times), and to keep retrying while the gateway limits traffic`,
);

/** The operation's "Options" collection. */
export function optionsCollection(show: IDisplayOptions, options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show,
		options,
	};
}

/**
 * Reads a boolean option of `options` by its property (name, default and label in one place): a
 * boolean, or the text "true"/"false" an expression may give; unset is the property's default.
 */
export function readBoolean(property: INodeProperties, options: IDataObject): boolean {
	const value = options[property.name];
	if (value === undefined || value === null || value === '') return property.default as boolean;
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw new ValidationError(
		property.name,
		'true or false',
		`${property.displayName} must be true or false, got ${JSON.stringify(value)}`,
	);
}

/**
 * The Include Proof option: what an auditor needs to verify an answer again, offline. Not offered
 * while Mask Bank Details is on: a proof is the exact bytes signed, bank details whole.
 */
export const includeProofOption: INodeProperties = {
	displayName: 'Include Proof',
	name: 'includeProof',
	type: 'boolean',
	default: false,
	displayOptions: { hide: { '/maskBankDetails': [true] } },
	description:
		"Whether to add the service's signed answer to each item, so anyone with the service's public key can check it later",
};

/**
 * Mask Bank Details: items safe to post to a chat channel or a ticket (masking.ts's
 * maskBankDetails). A top-level switch in both nodes: off in the action node, on in the trigger.
 */
export const maskBankDetailsOption: INodeProperties = {
	displayName: 'Mask Bank Details',
	name: 'maskBankDetails',
	type: 'boolean',
	default: false,
	description:
		'Whether to show account numbers, IBANs and beneficiary tokens by their last four characters only, to post items to a chat or a ticket',
};

/** Reads a string parameter, trimmed; empty means "not set". */
export function optionalString(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

/**
 * Where the value of the node's parameter at `path` (["options", "customerId"]) comes from an
 * expression: the path itself, or the enclosing collection that is one expression as a whole
 * (`options: "={{ { customerId: $json.id } }}"`, as imported or generated workflows have it);
 * undefined when neither is. n8n gives the node the resolved value and keeps the parameter as
 * typed in the node, an expression being text that starts with "=".
 */
function expressionAt(node: INode, path: readonly string[]): { path: string[]; text: string } | undefined {
	let value: unknown = node.parameters;
	for (let depth = 0; depth <= path.length; depth++) {
		if (typeof value === 'string')
			return value.startsWith('=') ? { path: path.slice(0, depth), text: value } : undefined;
		if (depth === path.length || !value || typeof value !== 'object' || Array.isArray(value)) return undefined;
		value = (value as IDataObject)[path[depth]];
	}
	return undefined;
}

/** "options" as the editor shows it: "Options". */
const collectionLabel = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * Refuses a value an expression was meant to give but did not (empty, blank, nothing) where an
 * empty value would answer another question than the item asked: the partner's own account
 * instead of a customer's (the rows' `emptyMeans`), or no subject at all. A field left empty as
 * typed is not refused here; it means what its row says. Where the enclosing collection is the
 * expression, the field is the expression's when the collection it gave holds the field (`values`:
 * empty, blank or null) or the expression names it; a field it neither gives nor names is unset.
 */
export function refuseEmptyExpression(
	node: INode,
	itemIndex: number,
	path: readonly string[],
	field: Pick<FieldRule, 'name' | 'label' | 'secret' | 'emptyMeans'>,
	value: unknown,
	values?: IDataObject,
): void {
	if (optionalString(value) !== undefined) return;
	const expression = expressionAt(node, path);
	if (!expression) return;
	const whole = expression.path.length < path.length;
	if (whole && !(values && Object.hasOwn(values, field.name)) && !expression.text.includes(field.name)) return;
	const got = field.secret || value === undefined || value === null ? 'nothing' : JSON.stringify(value);
	const consequence = field.emptyMeans ? `; an empty ${field.label} ${field.emptyMeans}` : '';
	const source = whole
		? `${collectionLabel(expression.path.join('.'))} is an expression that gave ${field.label} ${got}`
		: `${field.label} is an expression that gave ${got}`;
	const onPurpose = whole
		? ` To leave it empty on purpose, leave ${field.label} out of what the ${collectionLabel(expression.path.join('.'))} expression gives.`
		: ` To leave it empty on purpose, remove ${field.label} from the node or leave it empty without an expression.`;
	throw new ValidationError(
		field.name,
		'an expression must give a value',
		`${source} for item ${itemIndex}${consequence}, so nothing was sent for this item`,
		`Give every item its ${field.label} (drop the items without one first, e.g. with a Filter node).${field.emptyMeans ? onPurpose : ''}`,
	);
}

/** A top-level parameter that says whose account (or which subject) is asked: read, refused as refuseEmptyExpression says. */
export function readWhose(node: INode, itemIndex: number, rule: FieldRule, read: (name: string) => unknown): unknown {
	const value = read(rule.name);
	refuseEmptyExpression(node, itemIndex, [rule.name], rule, value);
	return value;
}

/** The Options' Access Token, refused as refuseEmptyExpression says: without it, your own account is answered. */
export function refuseEmptyAccessToken(node: INode, itemIndex: number, options: IDataObject): void {
	const { name } = ACCESS_TOKEN;
	refuseEmptyExpression(node, itemIndex, ['options', name], ACCESS_TOKEN, options[name], options);
}
