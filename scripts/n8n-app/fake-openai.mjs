// A scripted stand-in for OpenAI's chat completions API on 127.0.0.1, so that n8n's real AI Agent
// calls the package's tool node in the smoke run without any model or network.
//
//   node scripts/n8n-app/fake-openai.mjs --port <port> --log <requests.jsonl>
//
// A model that always uses a tool: a question about beneficiaries calls List_beneficiaries with
// { customerId, accountName } (CUST_... and the word after "named"; no customer named: the tool
// whose name says "own", with { accountName }); any other question naming a user ID (U-...) calls
// the tool whose name holds "quota" with { account, userId, currency }, `account` being the
// connected account ID the question names (ACC_...), `own` when it says "own", else empty (for the
// tool to refuse): the keys the $fromAI() expressions declare. Once a tool's result is in the
// conversation it answers "Tool result: <result>". Every request is appended to the log, for the
// test to check what n8n offered the model.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

const arg = (name) => process.argv[process.argv.indexOf(`--${name}`) + 1];
let calls = 0;
const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => part?.text ?? '').join('') : '');

function answer({ messages = [], tools = [] }) {
	const last = (role) => [...messages].reverse().find((m) => m.role === role);
	if (last('tool')) return { message: { role: 'assistant', content: `Tool result: ${textOf(last('tool').content)}` }, finish: 'stop' };
	const question = textOf(last('user')?.content);
	const offered = (pattern) => tools.find((t) => pattern.test(t.function?.name ?? ''));
	let tool;
	let args;
	if (/beneficiar/i.test(question)) {
		// Arguments it cannot fill are left out, as models do: the $fromAI() defaults apply.
		const customerId = question.match(/\bCUST_[A-Z0-9_]+\b/)?.[0];
		const accountName = question.match(/named (\S+?)[?.]?$/)?.[1];
		tool = customerId ? offered(/^List_beneficiaries$/) : (offered(/own/i) ?? offered(/beneficiar/i));
		args = { ...(customerId && { customerId }), ...(accountName && { accountName }) };
	} else {
		const userId = question.match(/\bU-[A-Z0-9]+\b/)?.[0];
		tool = offered(/quota/i);
		const account = question.match(/\bACC_[A-Z0-9_]+\b/)?.[0] ?? (/\bown\b/i.test(question) ? 'own' : '');
		args = userId && { account, userId, currency: question.match(/\b[A-Z]{3}\b/)?.[0] ?? 'USD' };
	}
	if (!tool || !args) return { message: { role: 'assistant', content: `No fitting tool offered, or no ID in: ${question}` }, finish: 'stop' };
	const call = { id: `call_${calls + 1}`, type: 'function', function: { name: tool.function.name, arguments: JSON.stringify(args) } };
	return { message: { role: 'assistant', content: null, tool_calls: [call] }, finish: 'tool_calls' };
}

const server = createServer((req, res) => {
	const chunks = [];
	req.on('data', (chunk) => chunks.push(chunk));
	req.on('end', () => {
		const send = (status, body, type = 'application/json') => (res.writeHead(status, { 'content-type': type }), res.end(typeof body === 'string' ? body : JSON.stringify(body)));
		let body;
		try {
			body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
		} catch {
			return send(400, { error: { message: 'body is not JSON' } });
		}
		appendFileSync(arg('log'), `${JSON.stringify({ method: req.method, url: req.url, body })}\n`);
		if (req.method === 'GET' && /\/models$/.test(req.url)) return send(200, { object: 'list', data: [{ id: 'gpt-4.1-mini', object: 'model', owned_by: 'local' }] });
		if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url)) return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
		const { message, finish } = answer(body);
		const base = { id: `chatcmpl-local-${++calls}`, created: Math.floor(Date.now() / 1000), model: body.model };
		if (!body.stream) return send(200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
		const delta = message.tool_calls ? { ...message, tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) } : message;
		const chunk = (d, finish_reason) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: d, finish_reason }] })}\n\n`;
		send(200, chunk(delta, null) + chunk({}, finish) + 'data: [DONE]\n\n', 'text/event-stream');
	});
});
server.listen(Number(arg('port') ?? 0), '127.0.0.1', () => console.log(`fake OpenAI chat completions on http://127.0.0.1:${server.address().port}/v1`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
