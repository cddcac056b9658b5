/**
 * A promise's outcome as a value. The core decides what to do with a failure outside any catch
 * clause (retry, re-read or pass it on), and the n8n layer turns what reaches it into an n8n error.
 */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
	try {
		return { ok: true, value: await promise };
	} catch (error) {
		return { ok: false, error };
	}
}

export function settleSync<T>(fn: () => T): Settled<T> {
	try {
		return { ok: true, value: fn() };
	} catch (error) {
		return { ok: false, error };
	}
}
