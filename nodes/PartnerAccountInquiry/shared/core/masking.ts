/**
 * Mask Bank Details (framework-free): an output item made safe to post to a chat channel or a
 * ticket, by one table of rules per kind of field (MASKING_RULES). Apart from error redaction
 * (redaction.ts) because an item is structured: what a field may keep depends on what the field
 * is (a bank detail, a code a workflow routes on, free text), where a message is text alone. It
 * shows an account as messages do (maskAccount) and reads free text as they do (maskAccountNumbers).
 */
import { BANK_DETAIL_FIELDS, BENEFICIARY_ROUTING_FIELDS } from './api/identity';
import { WHOSE_ACCOUNT_FIELD } from './api/whoseAccount';
import { ACCOUNT_MASK, escapeRegExp, maskAccount, maskAccountNumbers, normaliseWidth } from './redaction';

/**
 * Mask Bank Details: what each kind of field keeps, one row per kind, the one table the masking
 * reads (docs/reference.md, "Mask Bank Details: the rules", has it with examples and limits). A
 * field is of the kind of the row that names it, at any depth; what is inside a bank field is bank,
 * what is inside a routing field is of that routing kind (the whole `whoseAccount`, a change's
 * `before` and `after` of `referenceBeneficiaryId`), anything else is free text, keys included.
 */
const MASKING_RULES = [
	// (a) The bank details themselves: all but their last four characters.
	{ kind: 'bank', fields: BANK_DETAIL_FIELDS, masks: ['allButLastFour'] },
	// (c) What the node itself writes for a workflow to route on (api/whoseAccount.ts): masked only
	// where it holds a bank value of the item.
	{ kind: 'ownRouting', fields: [WHOSE_ACCOUNT_FIELD, 'event', 'subject'], masks: ['itemValues'] },
	// (c) The gateway's codes and IDs: also a number that ends in a tail the trigger kept (a Removed
	// payee whose reference ID was its account number); "REF-20250001" has letters and stays.
	{
		kind: 'gatewayRouting',
		fields: [...BENEFICIARY_ROUTING_FIELDS, 'customerId', 'resultCode', 'resultStatus', 'createdAt'],
		masks: ['itemValues', 'numberEndingInTail'],
	},
	// (d) Every other field: free text (a nickname, an account name, extendInfo, a field the gateway adds).
	{ kind: 'text', fields: [], masks: ['itemValues', 'runEndingInTail', 'accountLike'] },
] as const;

type FieldKind = (typeof MASKING_RULES)[number]['kind'];
type Masking = (typeof MASKING_RULES)[number]['masks'][number];

const KIND_OF_FIELD = new Map<string, FieldKind>(
	MASKING_RULES.flatMap(({ kind, fields }) => fields.map((field): [string, FieldKind] => [field, kind])),
);
const MASKS_OF_KIND = new Map<FieldKind, readonly Masking[]>(MASKING_RULES.map(({ kind, masks }) => [kind, masks]));

/** The kind of a field named `key` inside a field of kind `parent` (the item itself: free text). */
function kindOf(parent: FieldKind, key: string): FieldKind {
	const named = KIND_OF_FIELD.get(key);
	if (parent === 'bank' || named === 'bank') return 'bank';
	if (parent !== 'text') return parent;
	return named ?? 'text';
}

/**
 * An output item safe to post (Mask Bank Details), by MASKING_RULES. The item's bank values, now
 * and before (a change's `before`, at any depth), are read first: whole ones are masked wherever
 * they appear (itemValues); of the ones the trigger kept as a tail ("****7123") only the last four
 * are known, so a run ending in them is taken for that account (runEndingInTail, numberEndingInTail).
 */
export function maskBankDetails<T>(item: T): T {
	const held = new Set<string>();
	const collect = (value: unknown, kind: FieldKind): void => {
		if (kind === 'bank' && (typeof value === 'string' || typeof value === 'number'))
			held.add(normaliseWidth(String(value)));
		else if (Array.isArray(value)) value.forEach((entry) => collect(entry, kind));
		else if (value && typeof value === 'object') {
			for (const [key, entry] of Object.entries(value)) collect(entry, kindOf(kind, key));
		}
	};
	collect(item, 'text');
	// A value of four characters or fewer shows no more than its mask: there is nothing to look for.
	const whole = [...held].filter((value) => value.length > 4 && !value.startsWith(ACCOUNT_MASK));
	const tails = [...held]
		.filter((value) => value.startsWith(ACCOUNT_MASK) && value.length === ACCOUNT_MASK.length + 4)
		.map((value) => value.slice(ACCOUNT_MASK.length));
	const maskers: Record<Masking, (text: string) => string> = {
		allButLastFour: (value) => (value === '' || value.startsWith(ACCOUNT_MASK) ? value : maskAccount(value)),
		itemValues: repeatedValues(whole),
		runEndingInTail: runsEndingInTails(tails, RUN_ENDING_IN_TAIL),
		numberEndingInTail: runsEndingInTails(tails, NUMBER_ENDING_IN_TAIL),
		accountLike: maskAccountNumbers,
	};
	/** The text with the kind's masks applied; exactly as it was (full-width letters too) when none found anything. */
	const maskText = (text: string, masks: readonly Masking[]): string => {
		const read = normaliseWidth(text);
		const masked = masks.reduce((out, masking) => maskers[masking](out), read);
		return masked === read ? text : masked;
	};
	// A key is free text whatever field it names.
	const keyMasks = MASKS_OF_KIND.get('text') ?? [];
	const mask = (value: unknown, kind: FieldKind): unknown => {
		const masks = MASKS_OF_KIND.get(kind) ?? [];
		if (typeof value === 'string') return maskText(value, masks);
		if (typeof value === 'number') {
			// A fraction (an amount, a rate) is no account number: only a bank value of the item is looked for in it.
			const digits = String(value);
			const masked = maskText(digits, Number.isInteger(value) ? masks : masks.filter((m) => m === 'itemValues'));
			return masked === digits ? value : masked;
		}
		if (Array.isArray(value)) return value.map((entry) => mask(entry, kind));
		if (value && typeof value === 'object') {
			return Object.fromEntries(
				Object.entries(value).map(([key, entry]) => [maskText(key, keyMasks), mask(entry, kindOf(kind, key))]),
			);
		}
		return value;
	};
	return mask(item, 'text') as T;
}

/*
 * The patterns below are made anew for each item (they hold its values and tails), so they are
 * written with ASCII classes: compiling a Unicode class (\p{L}) costs about 5 ms a pattern, which
 * made an item cost 17 ms. The bank values are ASCII (the API's own patterns), the text is read
 * with its full-width forms as ASCII, and any other letter stands between words ("家賃456-7123").
 */
/** Between two characters of a value written out: any other characters, a URL-encoded one ("%20") too. */
const ANY_SEPARATORS = String.raw`(?:%[0-9A-Fa-f]{2}|[^A-Za-z0-9])*`;
/** One separator in a run of groups: "-", "_", ".", "/", a space, or one of them URL-encoded. */
const ONE_SEPARATOR = String.raw`(?:[-_./ ]|%[0-9A-Fa-f]{2})`;
/** Where a run starts: not inside a word, nor inside a URL-encoded character ("%20" then "456" starts at the 4). */
const RUN_START = String.raw`(?<=^|[^A-Za-z0-9%]|%[0-9A-Fa-f]{2})`;
/** What comes before a tail (the last four characters the trigger kept), and after it, in a run taken for that account. */
interface TailRun {
	before: string;
	after: string;
}
/**
 * In free text: letters and digits joined to the tail, or up to five groups that each hold a
 * digit, joined by single separators ("Rent 456-7123": "456-", not "Rent ").
 */
const RUN_ENDING_IN_TAIL: TailRun = {
	before: String.raw`(?:[A-Za-z]*[0-9][A-Za-z0-9]*${ONE_SEPARATOR}){0,5}[A-Za-z0-9]*`,
	after: '(?![A-Za-z0-9])',
};
/** In a gateway's code or ID: the whole value is digits ("6222021234567890"), in groups or not. */
const NUMBER_ENDING_IN_TAIL: TailRun = {
	before: String.raw`^[0-9]+(?:${ONE_SEPARATOR}[0-9]+)*${ONE_SEPARATOR}?`,
	after: '$',
};

/**
 * Masks a run of the shape `shape` that ends in one of `tails` (each of its characters optionally
 * after a separator) and has more before it: it is taken for that account. The tail alone shows
 * no more than its mask and stays.
 */
function runsEndingInTails(tails: string[], shape: TailRun): (text: string) => string {
	const patterns = tails.map((tail) => {
		const written = Array.from(tail).map(escapeRegExp).join(`${ONE_SEPARATOR}?`);
		return { tail, run: new RegExp(`${RUN_START}(?:${shape.before})(${written})${shape.after}`, 'gi') };
	});
	return (text) =>
		patterns.reduce(
			(out, { tail, run }) =>
				out.replace(run, (found, last: string) => (found === last ? found : `${ACCOUNT_MASK}${tail}`)),
			text,
		);
}

/**
 * Masks each of `values` wherever it appears in a text, inside longer words too: as written, in any
 * case, URL-encoded, JSON-escaped, or its letters and digits with any other characters between them
 * (a hyphen, a space, a dot, none, a URL-encoded space). Longest first, so that an account
 * containing another is masked as a whole.
 */
function repeatedValues(values: string[]): (text: string) => string {
	if (values.length === 0) return (text) => text;
	const sorted = [...values].sort((a, b) => b.length - a.length);
	const patterns = sorted.map((value) => {
		const characters = Array.from(value.replace(/[^A-Za-z0-9]/g, ''));
		const forms = new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]);
		const alternatives = [...forms].map(escapeRegExp);
		if (characters.length > 4) alternatives.push(characters.map(escapeRegExp).join(ANY_SEPARATORS));
		return { value, pattern: new RegExp(alternatives.join('|'), 'gi') };
	});
	return (text) => patterns.reduce((out, { value, pattern }) => out.replace(pattern, () => maskAccount(value)), text);
}
