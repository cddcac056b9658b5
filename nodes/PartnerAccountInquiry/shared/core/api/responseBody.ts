/**
 * The raw response body, once verified, as a JSON object: strict UTF-8 (a broken byte is an
 * error, not a silent U+FFFD), valid JSON, an object at the top. A problem is returned, not
 * thrown, with a sentence that says what was wrong; `redact` (core/redaction.ts) is applied to the
 * body before the sentence quotes its start.
 */
export type ParsedBody = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

export function parseResponseBody(raw: Uint8Array, redact: (text: string) => string = (text) => text): ParsedBody {
	let text: string;
	try {
		text = decoder.decode(raw);
	} catch {
		return { ok: false, problem: 'The response body is not valid UTF-8 text' };
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return {
			ok: false,
			problem: `The response body is not valid JSON (${text.length} characters, starting ${JSON.stringify(redact(text).slice(0, 40))})`,
		};
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) {
		return { ok: false, problem: 'The response body is not a JSON object' };
	}
	return { ok: true, value: value as Record<string, unknown> };
}
