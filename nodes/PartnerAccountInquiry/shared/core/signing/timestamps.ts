/**
 * Request-Time and response-time: ISO 8601 with a zone offset, `yyyy-MM-ddTHH:mm:ss+hh:mm`, or
 * UTC with `Z`. The value is opaque to the signature (the header and the signed content carry
 * the same string); its meaning is what makes a signed answer fresh or stale.
 */
import { ResponseVerificationError } from '../errors';

/** Request-Time in whole seconds with a zone offset. */
export function formatRequestTime(date: Date = new Date(), offsetMinutes = 0): string {
	const shifted = new Date(Math.floor(date.getTime() / 1000) * 1000 + offsetMinutes * 60_000);
	const base = shifted.toISOString().slice(0, 19);
	const sign = offsetMinutes < 0 ? '-' : '+';
	const abs = Math.abs(offsetMinutes);
	const hh = String(Math.floor(abs / 60)).padStart(2, '0');
	const mm = String(abs % 60).padStart(2, '0');
	return `${base}${sign}${hh}:${mm}`;
}

/** Both spec forms: `2019-04-04T12:08:56+08:00` and `2019-04-04T04:08:56Z` (fraction tolerated). */
const ISO_8601_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch, or undefined when the text is not an ISO 8601 time with a zone. */
export function parseTimestamp(text: string): number | undefined {
	const m = ISO_8601_WITH_ZONE.exec(text);
	if (!m) return undefined;
	const [month, day, hour, minute, second] = [m[2], m[3], m[4], m[5], m[6]].map(Number);
	if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
		return undefined;
	}
	if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
	const ms = Date.parse(text);
	return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A signed answer is fresh when its response-time is within `toleranceSeconds` of the local clock,
 * either way: the signature binds that time, so an answer recorded and served again later (an old
 * quota, another customer's page) is refused, and so is one dated in the future.
 */
export function checkResponseTime(responseTime: string, nowMs: number, toleranceSeconds: number): void {
	const at = parseTimestamp(responseTime);
	if (at === undefined) {
		throw new ResponseVerificationError(
			'unparsable-response-time',
			"The answer's time is not a date, so its age cannot be known",
			'Check the Base URL and any proxy in between.',
			`Its \`response-time\` is ${JSON.stringify(responseTime.slice(0, 40))}, not an ISO 8601 time with a zone (a genuine gateway sends one such as 2026-11-23T10:00:00+08:00); nothing from the answer was used.`,
		);
	}
	const skewSeconds = Math.round((at - nowMs) / 1000);
	if (Math.abs(at - nowMs) > toleranceSeconds * 1000) {
		const direction = skewSeconds < 0 ? `${-skewSeconds} s old` : `${skewSeconds} s in the future`;
		const local = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
		throw new ResponseVerificationError(
			'stale-response',
			`The answer is not fresh: it is ${direction} by this n8n host's clock`,
			"Check that the n8n host's clock is synchronised (NTP); if it is, look for a proxy or cache replaying old answers.",
			`Its \`response-time\` is ${responseTime} and this host's clock said ${local}; the credential's Response Time Tolerance accepts at most ${toleranceSeconds} s. Nothing from the answer was used.`,
		);
	}
}
