/**
 * Every value the package sends, body field or header, one row each: the single source of every
 * rule about it. The node's parameters (shared/properties.ts), the checks before sending
 * (validation.ts for body fields, headerValues.ts for headers), the redaction of secrets and the
 * checks of what comes back are all derived from these rows. See docs/api.md.
 */

export interface Choice {
	value: string;
	label: string;
	description?: string;
}

/** How the gateway applies a filter, which decides whether an answer can be checked against it. */
export type Match =
	/** Every returned beneficiary that carries `responseField` must hold the value sent (or one of the values). */
	| 'exact'
	/** Part of a value matches, in ways the API does not define: an answer cannot be checked against it. */
	| 'fuzzy'
	/** Not a filter. */
	| 'none';

export interface FieldRule {
	/** The body field, node parameter or credential field name. */
	name: string;
	label: string;
	description: string;
	placeholder?: string;
	/** text: a string; choice: one of `choices`; choices: a list of distinct `choices`. */
	kind: 'text' | 'choice' | 'choices';
	choices?: readonly Choice[];
	/** In Unicode code points, as the API counts characters. */
	maxLength?: number;
	pattern?: { regex: RegExp; text: string };
	/** Never shown in an error, a log or an output item. */
	secret?: boolean;
	/**
	 * Bank details: shown in messages only by their last four characters ("****6819"), in the
	 * node's own checks and wherever the gateway echoes the value back (maskedValues below).
	 */
	masked?: boolean;
	match: Match;
	/** The beneficiary field an exact filter constrains. */
	responseField?: string;
	/**
	 * The HTTP header the value is sent in where an endpoint sends it as a header (a header carries
	 * printable ASCII only: headerValues.ts); Key Version's is an attribute of the Signature header.
	 * The access token has one for the quota call; the listing sends it as a body field.
	 */
	header?: string;
	/** A value must be given (the quota subject's fields). */
	required?: boolean;
	/** The editor's default (else a choice's first, or empty text). */
	defaultValue?: string;
	/** Sent only, and then required, when another field holds this value (the trade type: only for BENEFICIARY). */
	onlyWith?: { field: string; value: string };
}

const codes = (values: readonly string[]): Choice[] => values.map((value) => ({ value, label: value }));

/**
 * The active ISO 4217 currency codes, plus CNH (offshore renminbi) that the API names: the quota's
 * Currency is one of them, so a typo is refused before anything is sent.
 */
const CURRENCY_CODES = (
	'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF ' +
	'CHF CLP CNH CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD ' +
	'HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL ' +
	'LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR ' +
	'PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP ' +
	'TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG'
).split(' ');

/** The currencies a beneficiary listing can be filtered by (the API's list), in alphabetical order. */
const LISTING_CURRENCIES = ['AUD', 'CAD', 'CNH', 'CNY', 'EUR', 'GBP', 'HKD', 'JPY', 'KRW', 'NZD', 'SGD', 'USD'];

const MAX_PAGE_SIZE = 50;

/** What says "our own account" wherever an account is asked (any case): whoseAccount.ts reads it. */
export const OWN_ACCOUNT = 'own';

/**
 * Access token: a field of the credential (a secret: n8n encrypts credentials, not node
 * parameters), sent with every request of that credential: the body field `accessToken` of the
 * listing, the Access-Token header of the quota call. Max 64.
 */
export const ACCESS_TOKEN: FieldRule = {
	name: 'accessToken',
	label: 'Access Token',
	description:
		"Only for a customer's account reached through OAuth authorization: that customer's OAuth access token. Leave empty otherwise.",
	kind: 'text',
	maxLength: 64,
	secret: true,
	match: 'none',
	header: 'Access-Token',
};

// The API gives no length for the IDs below: 128 is a generous cap that no issued ID reaches.

/**
 * The customer whose beneficiaries are listed. The API takes it as the Connected-CustomerId
 * header or, with the same function, as the body field customerId. It travels in the body only:
 * there it is part of the signed bytes, so nothing on the way can drop or change whose list comes
 * back without breaking the signature; a header copy would be unsigned (docs/api.md, What the
 * signature binds).
 */
export const CUSTOMER_ID: FieldRule = {
	name: 'customerId',
	label: 'Customer ID',
	description: "Whose beneficiaries: own for your own account, or the ID the service gave the customer's account",
	placeholder: 'e.g. CUST_0001',
	kind: 'text',
	maxLength: 128,
	match: 'none',
	defaultValue: OWN_ACCOUNT,
};

/** The customer's account whose quota is read, when a partner manages it (the quota's Connected-AccountId). */
export const CONNECTED_ACCOUNT_ID: FieldRule = {
	name: 'connectedAccountId',
	label: 'Connected Account ID',
	description: "Whose quota: own for your own account, or the ID of the customer's account you manage",
	placeholder: 'e.g. ACC_0001',
	kind: 'text',
	maxLength: 128,
	match: 'none',
	header: 'Connected-AccountId',
	defaultValue: OWN_ACCOUNT,
};

/** The credential's client ID (the Client-Id header of every request, and part of what is signed). */
export const CLIENT_ID: FieldRule = {
	name: 'clientId',
	label: 'Client ID',
	description: 'The client ID the developer centre issued to you',
	kind: 'text',
	maxLength: 128,
	match: 'none',
	header: 'Client-Id',
};

/** The credential's key version, an attribute of the Signature header. */
export const KEY_VERSION: FieldRule = {
	name: 'keyVersion',
	label: 'Key Version',
	description: 'The version of your key pair, as the developer centre shows it',
	kind: 'text',
	maxLength: 32,
	// It is spliced into "algorithm=RSA256, keyVersion=<v>, signature=...": no ',', '=' or space.
	pattern: { regex: /^[A-Za-z0-9._-]+$/, text: 'letters, digits, dots, underscores or hyphens' },
	match: 'none',
	header: 'Signature',
};

/** The listing's filters (request body of the beneficiary list), in the API's order. */
export const BENEFICIARY_FILTERS: readonly FieldRule[] = [
	{
		name: 'beneficiaryToken',
		label: 'Beneficiary Token',
		description: "The token that stands for the beneficiary's bank details, as the service returns it",
		kind: 'text',
		maxLength: 128,
		secret: true,
		match: 'exact',
		responseField: 'beneficiaryToken',
	},
	{
		name: 'beneficiaryNick',
		label: 'Beneficiary Nickname',
		description: 'The nickname the customer gave the beneficiary',
		kind: 'text',
		maxLength: 70,
		// The API does not say whether a nickname matches exactly or in part: not checked in answers.
		match: 'fuzzy',
	},
	{
		name: 'referenceBeneficiaryId',
		label: 'Reference Beneficiary ID',
		description: 'Your own unique ID of the beneficiary',
		kind: 'text',
		maxLength: 64,
		match: 'exact',
		responseField: 'referenceBeneficiaryId',
	},
	{
		name: 'bankAccountNo',
		label: 'Bank Account Number',
		description: 'A domestic bank or wallet account number: capital letters and digits, no spaces',
		kind: 'text',
		// The API states both a length limit of 64 and a pattern of at most 34: the pattern is the
		// rule that decides (at most 34); a value over 64 is reported against the length limit first.
		maxLength: 64,
		pattern: { regex: /^[A-Z0-9]{0,34}$/, text: 'capital letters and digits only, at most 34 of them' },
		masked: true,
		match: 'exact',
		responseField: 'bankAccountNo',
	},
	{
		name: 'bankAccountIBAN',
		label: 'Bank Account IBAN',
		description: "The beneficiary account's IBAN, without spaces",
		placeholder: 'e.g. GB29NWBK60161331926819',
		kind: 'text',
		maxLength: 34,
		pattern: {
			regex: /^[A-Z]{2,2}[0-9]{2,2}[a-zA-Z0-9]{1,30}$/,
			text: 'a country code, two check digits, then up to 30 letters or digits, without spaces',
		},
		masked: true,
		match: 'exact',
		responseField: 'bankAccountIBAN',
	},
	{
		name: 'currencyList',
		label: 'Currencies',
		description: 'Only beneficiaries in these currencies; none selected means all',
		kind: 'choices',
		choices: codes(LISTING_CURRENCIES),
		match: 'exact',
		responseField: 'currency',
	},
	{
		name: 'assetType',
		label: 'Asset Type',
		description: 'Only beneficiaries of this asset type',
		kind: 'choice',
		choices: [
			{ value: 'BANK_ACCOUNT', label: 'Bank Account' },
			{ value: 'WALLET_ACCOUNT', label: 'Wallet Account' },
		],
		match: 'exact',
		responseField: 'assetType',
	},
	{
		name: 'relationFilter',
		label: 'Relation',
		description: 'Only same-name or third-party beneficiaries; none selected means all',
		kind: 'choices',
		choices: [
			{ value: 'SAME_NAME', label: 'Same Name' },
			{ value: 'THIRD_PARTY', label: 'Third Party' },
		],
		// The API matches the relation fuzzily.
		match: 'fuzzy',
	},
	{
		name: 'accountName',
		label: 'Account Name',
		description: "The account holder's name; part of the name is enough",
		kind: 'text',
		match: 'fuzzy',
	},
];

/** The listing's whole body: the access token, the customer, the filters, and the two paging fields (checked as ranges). */
export const BENEFICIARY_LIST_FIELDS: readonly FieldRule[] = [ACCESS_TOKEN, CUSTOMER_ID, ...BENEFICIARY_FILTERS];

export interface QuotaMethod extends Choice {
	/** What the accumulation ID identifies under this method. */
	subject: string;
	/** The ID is an account number: shown in messages by its last four characters only. */
	masked?: boolean;
}

export const QUOTA_METHOD_CHOICES: readonly QuotaMethod[] = [
	{
		value: 'USER_ID',
		label: 'User ID',
		subject: 'service user ID',
		description: 'Counted per service user: the ID is the service user ID',
	},
	{
		value: 'RECEIVING_ACCOUNT',
		label: 'Receiving Account',
		subject: 'receiving account',
		masked: true,
		description: 'Counted per receiving account: the ID is the receiving account',
	},
	{
		value: 'VIRTUAL_ACCOUNT',
		label: 'Virtual Account',
		subject: 'virtual account',
		masked: true,
		description: 'Counted per virtual account: the ID is the virtual account',
	},
	{
		value: 'BENEFICIARY',
		label: 'Beneficiary',
		subject: 'beneficiary ID',
		description: 'Counted per beneficiary and trade type: the ID is the beneficiary ID',
	},
];

const TRADE_TYPE_CHOICES: readonly Choice[] = [
	{ value: 'GOODS', label: 'Goods' },
	{ value: 'SERVICE', label: 'Service' },
];

/** Only this accumulation method takes (and requires) a trade type. */
export const METHOD_WITH_TRADE_TYPE = 'BENEFICIARY';

/**
 * The quota subject: the quota call's body, one row per field, in the order a line of pasted
 * subjects gives them after whose account (the trigger's Quotas). The action node's and the trigger's parameters,
 * the request built from them and its checks (validation.ts) all read these rows.
 */
export const QUOTA_SUBJECT_FIELDS: readonly FieldRule[] = [
	{
		name: 'quotaAccumulationMethod',
		label: 'Accumulation Method',
		description: 'How the quota is counted, which decides what the Accumulation ID is',
		kind: 'choice',
		choices: QUOTA_METHOD_CHOICES,
		required: true,
		match: 'none',
	},
	{
		name: 'quotaAccumulationId',
		label: 'Accumulation ID',
		description: 'The user ID, receiving account, virtual account or beneficiary ID, as the method says',
		placeholder: 'e.g. U-1001',
		kind: 'text',
		required: true,
		match: 'none',
	},
	{
		name: 'currency',
		label: 'Currency',
		description: 'The currency of the quota',
		kind: 'choice',
		choices: codes(CURRENCY_CODES),
		required: true,
		defaultValue: 'USD',
		match: 'none',
	},
	{
		name: 'tradeType',
		label: 'Trade Type',
		description: 'The trade type of a beneficiary quota',
		kind: 'choice',
		choices: TRADE_TYPE_CHOICES,
		required: true,
		onlyWith: { field: 'quotaAccumulationMethod', value: METHOD_WITH_TRADE_TYPE },
		match: 'none',
	},
];

/** The quota subject's fields a subject of `method` has (the trade type only for BENEFICIARY). */
export const quotaFieldsFor = (method: unknown): FieldRule[] =>
	QUOTA_SUBJECT_FIELDS.filter((rule) => !rule.onlyWith || rule.onlyWith.value === method);

/** Whole-number options (node and credential): the editor's bounds and the check in code come from here. */
export interface NumberRange {
	min: number;
	max?: number;
	default: number;
}

export const NUMBER_OPTIONS = {
	limit: { min: 1, default: 50 },
	pageSize: { min: 1, max: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE },
	timeout: { min: 1000, max: 300_000, default: 30_000 },
	// The credential's: how far a response-time may be from the local clock. 300 s as well-run
	// webhook verifiers default to; never 0 ("no check") by accident.
	responseTimeToleranceSeconds: { min: 1, max: 86_400, default: 300 },
} as const satisfies Record<string, NumberRange>;

/** Whether a quota's accumulation ID is an account number, shown by its last four characters only. */
export function isMaskedQuotaId(method: unknown): boolean {
	return QUOTA_METHOD_CHOICES.some((choice) => choice.value === method && choice.masked);
}

/** Names of the fields shown only by their last four characters. */
export const MASKED_FIELDS: ReadonlySet<string> = new Set(
	BENEFICIARY_LIST_FIELDS.filter((rule) => rule.masked).map((rule) => rule.name),
);

/**
 * Whether `field` of `values` (a request body, or the node's parameters) holds bank details shown
 * by their last four characters only: a masked row, or the quota's accumulation ID under a method
 * whose ID is an account number.
 */
export function isMaskedField(field: string, values: Readonly<Record<string, unknown>>): boolean {
	return (
		MASKED_FIELDS.has(field) || (field === 'quotaAccumulationId' && isMaskedQuotaId(values.quotaAccumulationMethod))
	);
}

/** The values of a request that are masked wherever the gateway echoes them (redactError). */
export function maskedValues(request: Readonly<Record<string, unknown>>): string[] {
	return Object.entries(request)
		.filter(([field, value]) => typeof value === 'string' && value !== '' && isMaskedField(field, request))
		.map(([, value]) => value as string);
}

/** Names of every field whose value is never shown. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(
	[...BENEFICIARY_LIST_FIELDS].filter((rule) => rule.secret).map((rule) => rule.name),
);

export const values = (choices: readonly Choice[]): string[] => choices.map((choice) => choice.value);

/** The editor's name of every parameter and credential field an error can be about, by its name. */
const LABELS: Readonly<Record<string, string>> = {
	...Object.fromEntries(
		[...BENEFICIARY_LIST_FIELDS, ...QUOTA_SUBJECT_FIELDS, CONNECTED_ACCOUNT_ID, CLIENT_ID, KEY_VERSION].map((rule) => [
			rule.name,
			rule.label,
		]),
	),
	limit: 'Limit',
	timeout: 'Timeout',
	responseTimeToleranceSeconds: 'Response Time Tolerance',
	baseUrl: 'Base URL',
	environment: 'Gateway',
	privateKey: 'Private Key',
	servicePublicKey: 'Service Public Key',
	events: 'Events',
	threshold: 'Threshold',
	customerIds: 'Customer IDs',
	quotas: 'Quotas',
	operation: 'Operation',
};

/** The editor's name of a parameter or credential field (its name when none is known). */
export const labelOf = (name: string): string => LABELS[name] ?? name;
