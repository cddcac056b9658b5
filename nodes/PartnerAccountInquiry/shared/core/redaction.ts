/**
 * What a text the package shows may keep of a request and of the gateway's words: no secret value
 * of the request (not a piece of one either), and bank account numbers and IBANs by their last
 * four characters only. A gateway may echo the request (an unsigned 4xx body, a resultMessage), and
 * such text reaches messages, descriptions, error items and an AI agent's answer.
 *
 * `redactText` is applied to every text of an error (`redactError`, by the session) and, before it
 * is cut, to any start of an answer's body that an error quotes (judgeAnswer.ts): a text is always
 * redacted whole and cut after, so a cut never leaves the start of a secret or an account behind.
 */
import { isMaskedQuotaId } from './api/fields';
import { BANK_DETAIL_FIELDS } from './api/identity';
import { ApiResultError, PartnerError, TransientError } from './errors';

/** What a masked account shows before its last four characters. */
export const ACCOUNT_MASK = '****';
/** A bank account number or IBAN as a message shows it: its last four characters ("****6819"). */
export function maskAccount(value: string): string {
	return value.length <= 4 ? ACCOUNT_MASK : `${ACCOUNT_MASK}${value.slice(-4)}`;
}

/**
 * The text with secrets removed (`secrets`: the request's secret values), the request's own account
 * values masked whatever their shape (`masked`), and any other account-like run masked. Full-width
 * letters and digits (as CJK text writes them) are read as their ASCII forms first.
 */
export function redactText(text: string, secrets: readonly string[] = [], masked: readonly string[] = []): string {
	return maskAccountNumbers(maskValues(redactSecrets(normaliseWidth(text), secrets), masked));
}

/** The error with every text of it redacted (redactText); anything that is not a PartnerError as it is. */
export function redactError(error: unknown, secrets: readonly string[], masked: readonly string[] = []): unknown {
	if (!(error instanceof PartnerError)) return error;
	const redact = (text: string): string => redactText(text, secrets, masked);
	error.message = redact(error.message);
	error.hint = redact(error.hint);
	if (error instanceof ApiResultError) {
		error.explanation.message = redact(error.explanation.message);
		error.explanation.description = redact(error.explanation.description);
	}
	if (error instanceof TransientError) error.detail = redact(error.detail);
	return error;
}

/**
 * Mask Bank Details: what each kind of field keeps, one row per kind, the one table the masking
 * reads (docs/reference.md, "Mask Bank Details: the rules", has it with examples and limits). A
 * field is of the kind of the row that names it, at any depth; what is inside a bank field is bank,
 * what is inside a routing field is of that routing kind (the whole `_listedFor`, a change's
 * `before` and `after` of `referenceBeneficiaryId`), anything else is free text, keys included.
 */
const MASKING_RULES = [
	// (a) The bank details themselves: all but their last four characters.
	{ kind: 'bank', fields: BANK_DETAIL_FIELDS, masks: ['allButLastFour'] },
	// (c) What the node itself writes for a workflow to route on (`_listedFor` is OWNER_FIELD of
	// endpoints/beneficiaries.ts): masked only where it holds a bank value of the item.
	{ kind: 'ownRouting', fields: ['_listedFor', 'event', 'subject'], masks: ['itemValues'] },
	// (c) The gateway's codes and IDs: also a number that ends in a tail the trigger kept (a Removed
	// payee whose reference ID was its account number); "REF-20250001" has letters and stays.
	{
		kind: 'gatewayRouting',
		fields: [
			'referenceBeneficiaryId',
			'customerId',
			'resultCode',
			'resultStatus',
			'beneficiaryType',
			'status',
			'assetType',
			'relationType',
			'currency',
			'createdAt',
		],
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

/**
 * Pasted quota subjects (Watch Many's text, one subject a line: method, ID, ...) as an error may
 * show them: the ID of a receiving or virtual account by its last four, and any other
 * account-like run masked (a column typed in the wrong place).
 */
export function maskSubjectsText(text: string): string {
	return text
		.split(/(\r\n|\r|\n)/)
		.map((line) => {
			const fields = line.split(/([,;\t])/);
			if (fields.length >= 3 && isMaskedQuotaId(fields[0].trim().toUpperCase()) && fields[2].trim() !== '') {
				const id = fields[2];
				fields[2] = id.replace(id.trim(), maskAccount(id.trim()));
			}
			return maskAccountNumbers(fields.join(''));
		})
		.join('');
}

/** Full-width letters and digits (U+FF10..FF19, FF21..FF3A, FF41..FF5A) as ASCII; nothing else changes. */
function normaliseWidth(text: string): string {
	return text.replace(/[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A]/g, (c) =>
		String.fromCharCode(c.charCodeAt(0) - 0xfee0),
	);
}

/**
 * Account-like runs in text the gateway wrote, in any case, shown by their last four characters:
 * an IBAN, compact or in groups of four ("GB29NWBK60161331926819", "de89 3704 0044 0532 0130 00");
 * letters joined to 6 or more digits ("VA12345678", "Acct-0012345", "ACCNO6222021234567890"); and
 * digits, alone or in groups joined by single "-", "_", ".", "/" or spaces ("6222.0212.3456.7890"),
 * 8 or more in all. Left as they are, so the node's own figures stay readable: fewer than 8 digits
 * (seconds, statuses, counts, codes), a date ("2026-01-31", "31.01.2026", "2026/01/31 12"), an IPv4
 * address and an amount ("1250000.00"). A value of the request itself (an accumulation ID, a bank
 * filter) is masked whatever its shape (maskValues).
 */
const ACCOUNT_LIKE =
	/(?<![\p{L}\p{N}])(?:[A-Za-z]{2}\p{Nd}{2}(?:[A-Za-z0-9]{10,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,3})?)|\p{L}+[-_.]?\p{Nd}{6,34}|\p{Nd}+(?:[-_./ ]\p{Nd}+){0,9})(?![\p{L}\p{N}])/gu;
/** Our own figures among digit runs: a date (and an hour: "2026-01-31 12" of "2026-01-31 12:00"), an IPv4 address, an amount. */
const OWN_FIGURES = [
	/^(?:\p{Nd}{4}([-./])\p{Nd}{2}\1\p{Nd}{2}|\p{Nd}{2}([-./])\p{Nd}{2}\2\p{Nd}{4})(?: \p{Nd}{2})?$/u,
	/^\p{Nd}{1,3}(?:\.\p{Nd}{1,3}){3}$/u,
	/^\p{Nd}+\.\p{Nd}{1,2}$/u,
];

function maskAccountLike(run: string): string {
	if (/^\p{Nd}/u.test(run)) {
		const digits = run.match(/\p{Nd}/gu)?.length ?? 0;
		if (digits < 8 || OWN_FIGURES.some((figure) => figure.test(run))) return run;
	}
	return maskAccount(run);
}

function maskAccountNumbers(text: string): string {
	return normaliseWidth(text).replace(ACCOUNT_LIKE, maskAccountLike);
}

/**
 * Each of `values` (the request's bank details and account numbers) by its last four characters,
 * whatever its shape and however the gateway echoes it: as sent, JSON-escaped, or its letters and
 * digits in any case with any run of other characters between them ("6222-0212-3456" echoed as
 * "622202123456", "6222.0212.3456" or "6222/0212/3456"; "VA-0099" as "va 0099"). Only where it
 * stands alone, not inside a longer word or (hyphenated) number: a short account number "1234"
 * leaves the node's own "12345 ms" as it is, and a longer account it begins is masked as a whole.
 */
function maskValues(text: string, values: readonly string[]): string {
	let out = text;
	for (const value of values) {
		const characters = Array.from(normaliseWidth(value).replace(/[^\p{L}\p{N}]/gu, ''));
		const forms = [value, JSON.stringify(value).slice(1, -1)].map(escapeRegExp);
		if (characters.length > 0) forms.push(characters.map(escapeRegExp).join('[^\\p{L}\\p{N}]*'));
		const alone = new RegExp(`(?<![\\p{L}\\p{N}]-?)(?:${forms.join('|')})(?!-?[\\p{L}\\p{N}])`, 'giu');
		out = out.replace(alone, () => maskAccount(value));
	}
	return out;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A piece of a secret this long or longer is removed wherever it appears: a secret cut off at the
 * edge of a quoted text, or split by one, leaves no run of SECRET_PIECE characters behind.
 */
const SECRET_PIECE = 8;

/**
 * Every secret replaced by "[hidden]" wherever it appears, as sent, as a JSON string would escape it
 * or URL-encoded, and so is every run of SECRET_PIECE or more characters of any of those forms.
 */
function redactSecrets(text: string, secrets: readonly string[]): string {
	const hidden = new Uint8Array(text.length);
	const hide = (start: number, length: number) => hidden.fill(1, start, start + length);
	for (const secret of secrets) {
		if (!secret) continue;
		for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])) {
			for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) hide(at, form.length);
			if (form.length <= SECRET_PIECE) continue;
			const pieces = new Set<string>();
			for (let i = 0; i + SECRET_PIECE <= form.length; i++) pieces.add(form.slice(i, i + SECRET_PIECE));
			for (let i = 0; i + SECRET_PIECE <= text.length; i++) {
				if (pieces.has(text.slice(i, i + SECRET_PIECE))) hide(i, SECRET_PIECE);
			}
		}
	}
	if (!hidden.includes(1)) return text;
	let out = '';
	for (let i = 0; i < text.length; i++) {
		if (!hidden[i]) out += text[i];
		else if (i === 0 || !hidden[i - 1]) out += '[hidden]';
	}
	return out;
}
