// n8n's REST API as the editor calls it, for the real-app checks (check-app.mjs,
// community-packages.mjs): one session cookie, JSON in and out, a time limit per call.
export const OWNER = { email: 'owner@example.com', password: 'Smoke-Test-Pass-1' };

/** A client for the n8n app at `base`. `call` never throws on an HTTP status: callers judge it. */
export function restClient(base, timeoutMs = 60_000) {
	let cookie = '';
	async function call(method, path, body) {
		const res = await fetch(`${base}${path}`, {
			method,
			headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		});
		const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (auth) cookie = auth.split(';')[0];
		const text = await res.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		return { status: res.status, type: res.headers.get('content-type') ?? '', text, json, data: json?.data ?? json };
	}
	/** Signs in as the owner, setting the owner up first on a fresh instance. Says which it did. */
	async function signIn() {
		const settings = await call('GET', '/rest/settings');
		const fresh = settings.data?.userManagement?.showSetupOnFirstLoad;
		const res = fresh
			? await call('POST', '/rest/owner/setup', { ...OWNER, firstName: 'Smoke', lastName: 'Test' })
			: await call('POST', '/rest/login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password });
		if (res.status !== 200 || !cookie) {
			throw new Error(`${fresh ? 'POST /rest/owner/setup' : 'POST /rest/login'} answered ${res.status}: ${res.text.slice(0, 200)}`);
		}
		return fresh ? 'owner set up, signed in' : 'signed in';
	}
	return { call, signIn };
}
