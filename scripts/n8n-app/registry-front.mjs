// The loopback HTTPS proxy that makes "https://registry.npmjs.org" mean the local verdaccio in the
// real-app tests (startRegistry in install.mjs starts it; n8n and its npm get it as HTTPS_PROXY).
//
// Without an enterprise licence n8n ignores N8N_COMMUNITY_PACKAGES_REGISTRY and always uses
// https://registry.npmjs.org, for `npm pack` and for its own GET of the version manifest. So this
// proxy answers CONNECT registry.npmjs.org:443 itself: it ends TLS with a certificate for
// registry.npmjs.org signed by a throwaway test CA (clients trust it through NODE_EXTRA_CA_CERTS)
// and forwards the requests to verdaccio on 127.0.0.1. Every other host is refused (403) and
// written to the refused log: nothing leaves the machine, and a test can show what n8n tried.
//
//   node registry-front.mjs <listen port> <verdaccio port> <cert.pem> <key.pem> <refused log>
import { appendFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const [listenPort, upstreamPort, certFile, keyFile, refusedLog] = process.argv.slice(2);
const INTERCEPTED = 'registry.npmjs.org';
const refuse = (what) => appendFileSync(refusedLog, `${new Date().toISOString()} refused ${what}\n`);
const answer = (res, status, text) => res.writeHead(status, { 'content-type': 'text/plain' }).end(text);

// Host passes through (registry.npmjs.org) and X-Forwarded-Proto says https, so the tarball URLs
// verdaccio writes into manifests point back at https://registry.npmjs.org, through this proxy.
function forward(req, res, path) {
	const upstream = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path, headers: { ...req.headers, 'x-forwarded-proto': 'https' } }, (reply) => {
		res.writeHead(reply.statusCode ?? 502, reply.headers);
		reply.pipe(res);
	});
	upstream.on('error', (error) => {
		console.error(`verdaccio did not answer ${req.method} ${path}: ${error.message}`);
		if (!res.headersSent) answer(res, 502, 'verdaccio did not answer\n');
		else res.end();
	});
	req.pipe(upstream);
}

// The TLS end of intercepted tunnels: it never listens, CONNECT hands it the client's socket. A
// client that does not trust the test CA ends the handshake: the usual setup error, so say so.
const tlsFront = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => forward(req, res, req.url));
tlsFront.on('tlsClientError', (error) => console.error(`TLS handshake with a client failed: ${error.message}`));

const proxy = http.createServer((req, res) => {
	// Origin-form ("/..."): the proxy itself was asked (a readiness check).
	if (req.url.startsWith('/')) return answer(res, 400, 'registry-front: an HTTPS proxy for registry.npmjs.org only\n');
	// Absolute-form: a plain-HTTP proxy request; some clients send even https URLs this way (axios
	// with its own proxy option). The intercepted host is answered locally, every other refused.
	let url;
	try {
		url = new URL(req.url);
	} catch {
		return res.writeHead(400).end();
	}
	if (url.hostname === INTERCEPTED) return forward(req, res, `${url.pathname}${url.search}`);
	refuse(`${req.method} ${url.origin}${url.pathname}`);
	answer(res, 403, `registry-front: ${url.host} is not reachable from the tests\n`);
});
proxy.on('connect', (req, socket, head) => {
	socket.on('error', () => {}); // a client that hangs up mid-tunnel is no reason to stop
	const at = req.url.lastIndexOf(':');
	if (req.url.slice(0, at).replace(/^\[|\]$/g, '') !== INTERCEPTED || req.url.slice(at + 1) !== '443') {
		refuse(`CONNECT ${req.url}`);
		return socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
	}
	socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
	if (head.length > 0) socket.unshift(head);
	tlsFront.emit('connection', socket);
});
proxy.on('clientError', (error, socket) => socket.destroy(error));
proxy.listen(Number(listenPort), '127.0.0.1', () => console.log(`registry-front: https://${INTERCEPTED} -> http://127.0.0.1:${upstreamPort}, proxy on 127.0.0.1:${listenPort}`));
