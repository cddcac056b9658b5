/**
 * Request-Time (spec 5.1): ISO 8601 in whole seconds with a zone offset,
 * `yyyy-MM-ddTHH:mm:ss+hh:mm`. The value is opaque to the signature: what matters is that the
 * header and the signed content carry the same string.
 */
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
export function parseRequestTime(text: string): number | undefined {
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
