// The loopback HTTPS proxy that makes "https://registry.npmjs.org" mean the local verdaccio in the
// real-app tests (registry.sh starts it; n8n and the npm it runs get it as HTTPS_PROXY).
//
// Why: without an enterprise licence n8n ignores N8N_COMMUNITY_PACKAGES_REGISTRY and always uses
// https://registry.npmjs.org, both for `npm pack` and for its own GET of the version manifest.
// So this proxy answers CONNECT registry.npmjs.org:443 itself: it terminates TLS with a
// certificate for registry.npmjs.org signed by a throwaway test CA (clients trust it through
// NODE_EXTRA_CA_CERTS) and forwards the decrypted requests to verdaccio on 127.0.0.1. Every other
// host is refused (403) and written to the refused log, so nothing leaves the machine and a test
// can show what n8n tried to reach.
//
//   node registry-front.mjs <listen port> <verdaccio port> <cert.pem> <key.pem> <refused log>
import { appendFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const [listenPort, upstreamPort, certFile, keyFile, refusedLog] = process.argv.slice(2);
if (!refusedLog) {
	console.error('usage: registry-front.mjs <listen port> <verdaccio port> <cert.pem> <key.pem> <refused log>');
	process.exit(2);
}
const INTERCEPTED = 'registry.npmjs.org';

function refuse(what) {
	appendFileSync(refusedLog, `${new Date().toISOString()} refused ${what}\n`);
}

// Forwards one request to verdaccio. Host is passed through (registry.npmjs.org) and
// X-Forwarded-Proto says https, so even without VERDACCIO_PUBLIC_URL the tarball URLs verdaccio
// writes into manifests point back at https://registry.npmjs.org, that is, through this proxy.
function forward(req, res, path) {
	const upstream = http.request(
		{
			host: '127.0.0.1',
			port: upstreamPort,
			method: req.method,
			path,
			headers: { ...req.headers, 'x-forwarded-proto': 'https' },
		},
		(answer) => {
			res.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(res);
		},
	);
	upstream.on('error', (error) => {
		console.error(`verdaccio did not answer ${req.method} ${path}: ${error.message}`);
		if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
		res.end('verdaccio did not answer\n');
	});
	req.pipe(upstream);
}

// The TLS end of intercepted tunnels. It never listens: CONNECT hands it the client's socket.
const tlsFront = https.createServer(
	{ cert: readFileSync(certFile), key: readFileSync(keyFile) },
	(req, res) => forward(req, res, req.url),
);
// A client that does not trust the test CA ends the handshake; say so, it is the usual setup error.
tlsFront.on('tlsClientError', (error) => console.error(`TLS handshake with a client failed: ${error.message}`));

const proxy = http.createServer((req, res) => {
	// Origin-form ("/..."): someone asked the proxy itself (a readiness check); not a proxy request.
	if (req.url.startsWith('/')) {
		res.writeHead(400, { 'content-type': 'text/plain' });
		res.end('registry-front: an HTTPS proxy for registry.npmjs.org only\n');
		return;
	}
	// Absolute-form: a plain-HTTP proxy request. Some clients send even https URLs this way (axios
	// with its own proxy option); answer the intercepted host locally, refuse every other.
	let url;
	try {
		url = new URL(req.url);
	} catch {
		res.writeHead(400).end();
		return;
	}
	if (url.hostname !== INTERCEPTED) {
		refuse(`${req.method} ${url.origin}${url.pathname}`);
		res.writeHead(403, { 'content-type': 'text/plain' });
		res.end(`registry-front: ${url.host} is not reachable from the tests\n`);
		return;
	}
	forward(req, res, `${url.pathname}${url.search}`);
});

proxy.on('connect', (req, socket, head) => {
	socket.on('error', () => {}); // a client that hangs up mid-tunnel is no reason to stop
	const at = req.url.lastIndexOf(':');
	const host = req.url.slice(0, at).replace(/^\[|\]$/g, '');
	const port = req.url.slice(at + 1);
	if (host !== INTERCEPTED || port !== '443') {
		refuse(`CONNECT ${req.url}`);
		socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
		return;
	}
	socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
	if (head.length > 0) socket.unshift(head);
	tlsFront.emit('connection', socket);
});
proxy.on('clientError', (error, socket) => socket.destroy(error));

proxy.listen(Number(listenPort), '127.0.0.1', () => {
	console.log(`registry-front: https://${INTERCEPTED} -> http://127.0.0.1:${upstreamPort}, proxy on 127.0.0.1:${listenPort}`);
});
