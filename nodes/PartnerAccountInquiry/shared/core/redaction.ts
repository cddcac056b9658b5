/**
 * What a text the package shows may keep of a request and of the gateway's words: no secret value
 * of the request (not a piece of one either), and bank account numbers and IBANs by their last
 * four characters only. A gateway may echo the request (an unsigned 4xx body, a resultMessage), and
 * such text reaches messages, descriptions, error items and an AI agent's answer.
 *
 * `redactText` is applied to every text of an error (`redactError`, by the session) and, before it
 * is cut, to any start of an answer's body that an error quotes (judgeAnswer.ts): a text is always
 * redacted whole and cut after, so a cut never leaves the start of a secret or an account behind.
 *
 * How an account is shown (maskAccount) and which runs of a text look like one (maskAccountNumbers)
 * are defined here once, and read by Mask Bank Details (masking.ts) and by pasted subject lines
 * (subjectLines.ts), so that a message, an item and a quoted parameter mask an account alike.
 */
import { ApiResultError, PartnerError } from './errors';

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
	if (error.detail !== undefined) error.detail = redact(error.detail);
	if (error instanceof ApiResultError) error.explanation.message = redact(error.explanation.message);
	return error;
}

/** Full-width letters and digits (U+FF10..FF19, FF21..FF3A, FF41..FF5A) as ASCII; nothing else changes. */
export function normaliseWidth(text: string): string {
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

/** The text (full-width read as ASCII) with every ACCOUNT_LIKE run masked: a message, an item's free text, a pasted line. */
export function maskAccountNumbers(text: string): string {
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

/** The text as a pattern that matches it literally (the values and tails patterns are built of). */
export function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A piece of a secret this long or longer is removed wherever it appears: a secret cut off at the
 * edge of a quoted text, or split by one, leaves no run of SECRET_PIECE characters behind.
 */
const SECRET_PIECE = 8;

/**
 * The forms a gateway may echo a secret in: as sent, JSON-escaped, URL-encoded (with upper- or
 * lower-case escapes: the same bytes), Base64 and Base64url (a basic-auth or token header).
 */
function secretForms(secret: string): Set<string> {
	const encoded = encodeURIComponent(secret);
	const base64 = Buffer.from(secret, 'utf8').toString('base64');
	return new Set([
		secret,
		JSON.stringify(secret).slice(1, -1),
		encoded,
		encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
		base64,
		base64.replace(/=+$/, ''),
		Buffer.from(secret, 'utf8').toString('base64url'),
	]);
}

/**
 * Every secret replaced by "[hidden]" wherever it appears in any of its secretForms, and so is every
 * run of SECRET_PIECE or more characters of any of those forms. A secret echoed in pieces shorter
 * than that (each in a field of its own) is beyond any text check: that is left to the gateway.
 */
function redactSecrets(text: string, secrets: readonly string[]): string {
	const hidden = new Uint8Array(text.length);
	const hide = (start: number, length: number) => hidden.fill(1, start, start + length);
	for (const secret of secrets) {
		if (!secret) continue;
		for (const form of secretForms(secret)) {
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
