/**
 * The raw response body, once verified, as a JSON object: strict UTF-8 (a broken byte is an
 * error, not a silent U+FFFD), valid JSON, an object at the top. A problem is returned, not
 * thrown, with a short sentence that says what was wrong and, for JSON that does not parse, a
 * detail that quotes its start; `redact` (core/redaction.ts) is applied to the body before that.
 */
export type ParsedBody = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string; detail?: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

export function parseResponseBody(raw: Uint8Array, redact: (text: string) => string = (text) => text): ParsedBody {
	let text: string;
	try {
		text = decoder.decode(raw);
	} catch {
		return { ok: false, problem: 'The answer is not valid UTF-8 text' };
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return {
			ok: false,
			problem: 'The answer is not valid JSON',
			detail: `It has ${text.length} characters, starting ${JSON.stringify(redact(text).slice(0, 40))}.`,
		};
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) {
		return { ok: false, problem: 'The answer is not a JSON object' };
	}
	return { ok: true, value: value as Record<string, unknown> };
}
