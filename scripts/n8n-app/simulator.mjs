// The gateway simulator for the real-app tests (npm run build:dev first), with a control port beside
// its API: what the tests need of it that its admin routes do not offer.
//   node scripts/n8n-app/simulator.mjs <API port> <control port>
//   GET  /requests       every API request so far, as { at, op, customer, account, id, token, via,
//                        code }: which workflow polled and when (`via`: the front it came through)
//   POST /call/<method>  a method of the Simulator object (sandbox/types.ts) with the body's arguments
//   POST /call/changeBankDetailsAt  [customerId, index]: new bank details for the payee at that
//                        index, by its reference ID or, one without, by its token
//   POST /call/front     [name]: a port of its own into the simulator, { port, url }: a plain TCP
//                        pass-through (the bytes untouched), so a request that came through it is
//                        logged with `via: name` (its Host header names the port). Each trigger of
//                        the sessions has a credential whose Base URL is its own front.
import { createServer } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import { resolve } from 'node:path';

const { startSimulator } = await import(resolve('.dev-dist/sandbox/server.js'));
const [port, control] = process.argv.slice(2).map(Number);
const sim = await startSimulator({ port, host: '127.0.0.1' });
const push = sim.requests.push.bind(sim.requests);
sim.requests.push = (...entries) => push(...entries.map((e) => Object.assign(e, { at: Date.now() })));

/** Front port -> its name. */
const fronts = new Map();
const extra = {
	async front(name) {
		const server = createTcpServer((socket) => {
			const up = connect(port, '127.0.0.1');
			const end = () => (socket.destroy(), up.destroy());
			for (const side of [socket, up]) side.on('error', end).on('close', end);
			socket.pipe(up).pipe(socket);
		});
		await new Promise((done, fail) => server.once('error', fail).listen(0, '127.0.0.1', done));
		const { port: at } = server.address();
		fronts.set(at, name);
		return { name, port: at, url: `http://127.0.0.1:${at}` };
	},
	changeBankDetailsAt(customerId, index) {
		const { referenceBeneficiaryId, beneficiaryToken } = sim.beneficiaries(customerId)[index];
		return sim.changeBankDetails(customerId, referenceBeneficiaryId === undefined ? { beneficiaryToken } : { referenceBeneficiaryId });
	},
};

function summary(e) {
	let body = {};
	try {
		body = JSON.parse(e.body);
	} catch {}
	const op = e.path.includes('Quota') || 'quotaAccumulationId' in body ? 'quota' : 'list';
	const token = op === 'quota' ? e.headers['access-token'] : body.accessToken;
	const via = fronts.get(Number(String(e.headers.host ?? '').split(':').pop()));
	return { at: e.at, op, customer: String(e.headers['connected-customerid'] ?? body.customerId ?? ''), account: e.headers['connected-accountid'], id: body.quotaAccumulationId, token, via, code: e.resultCode };
}

createServer(async (req, res) => {
	let raw = '';
	for await (const chunk of req) raw += chunk;
	const reply = (status, value) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value ?? null));
	try {
		if (req.url === '/requests') return reply(200, sim.requests.map(summary));
		const method = /^\/call\/(\w+)$/.exec(req.url ?? '')?.[1];
		const fn = extra[method] ?? (typeof sim[method] === 'function' ? sim[method].bind(sim) : undefined);
		if (req.method !== 'POST' || !fn) return reply(404, { error: `no ${req.url}` });
		reply(200, await fn(...JSON.parse(raw || '[]')));
	} catch (error) {
		reply(400, { error: error.message });
	}
}).listen(control, '127.0.0.1', () => console.log(`simulator on ${sim.url}, control on 127.0.0.1:${control}`));
