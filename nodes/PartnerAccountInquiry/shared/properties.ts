/**
 * The editor's parameters that the action node, the trigger and the credential share, derived
 * from the field rows of core/api/fields.ts (the same bounds as the checks in code).
 */
import type { IDataObject, IDisplayOptions, INodeProperties } from 'n8n-workflow';

import {
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

/**
 * Whose account is asked, the first thing each operation shows: `own` or the customer's ID,
 * required (api/whoseAccount.ts: empty is refused, never read as your own account).
 */
export const customerIdProperty = fieldProperty(CUSTOMER_ID, { default: CUSTOMER_ID.defaultValue, required: true });
export const connectedAccountIdProperty = fieldProperty(CONNECTED_ACCOUNT_ID, {
	default: CONNECTED_ACCOUNT_ID.defaultValue,
	required: true,
});

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
		`${property.displayName} must be true or false`,
		undefined,
		`It is ${JSON.stringify(value)}.`,
	);
}

/**
 * The Include Proof option: what an auditor needs to verify an answer again, offline. A proof is
 * the exact bytes signed, bank details whole: offered with Simplify off (where there is a Simplify),
 * and it turns Mask Bank Details' default off (readMask).
 */
export const includeProofOption: INodeProperties = {
	displayName: 'Include Proof',
	name: 'includeProof',
	type: 'boolean',
	default: false,
	description:
		"Whether to add the service's signed answer to each item, so anyone with the service's public key can check it later",
};

/**
 * Mask Bank Details: items safe to post to a chat channel or a ticket (masking.ts's
 * maskBankDetails), on by default in both nodes; an option, as n8n keeps a node's first screen to
 * what every run decides.
 */
export const maskBankDetailsOption: INodeProperties = {
	displayName: 'Mask Bank Details',
	name: 'maskBankDetails',
	type: 'boolean',
	default: true,
	description:
		'Whether to show account numbers, IBANs and beneficiary tokens by their last four characters only. Turn off only where whole numbers are needed.',
};

/** Simplify: a beneficiary item of at most 10 fields (core/simplify.ts), as n8n's nodes offer for long answers. */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		'Whether to return a simplified version of each beneficiary (name, bank account, currency, status, reference ID, whose account) instead of the whole answer',
};

/**
 * Mask Bank Details as set in `options`; unset, on, unless Include Proof is on (a proof is the exact
 * bytes signed and cannot be masked and still verify). Both on is refused before anything is sent.
 */
export function readMask(options: IDataObject, withProof: boolean): boolean {
	const { name } = maskBankDetailsOption;
	if (options[name] === undefined || options[name] === '') return !withProof;
	const mask = readBoolean(maskBankDetailsOption, options);
	if (mask && withProof) {
		throw new ValidationError(
			name,
			'not with Include Proof',
			'Mask Bank Details and Include Proof cannot both be on',
			'Turn one of them off. Nothing was sent.',
			'A proof is the exact bytes signed, whole bank details included: a run for an auditor keeps it, a run for a chat channel masks.',
		);
	}
	return mask;
}

/** Reads a string parameter, trimmed; empty means "not set". */
export function optionalString(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}
