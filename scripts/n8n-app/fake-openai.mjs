// A scripted stand-in for OpenAI's chat completions API on 127.0.0.1, so that n8n's real AI
// Agent can call the package's tool node in the smoke test without any model or network.
//
//   node scripts/n8n-app/fake-openai.mjs --port <port> --log <requests.jsonl>
//
// It behaves like a model that always uses a tool: for a question about beneficiaries its first
// answer calls the offered tool List_beneficiaries with { customerId, accountName } (a question
// naming no customer: the tool whose name says "own", with { accountName })
// (CUST_... and the word after "named"); for any other question naming a user ID (U-...) it
// calls the tool whose name contains "quota" with { userId, currency }: the keys the workflow's
// $fromAI() expressions declare. Once the tool's result is in the conversation it answers
// "Tool result: <result>".
// Every request body is appended to the log, for the test to check what n8n offered the model.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

const arg = (name) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
};
const port = Number(arg('port') ?? 0);
const log = arg('log');
let calls = 0;

function completion(model, message, finishReason) {
	return {
		id: `chatcmpl-local-${++calls}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => part?.text ?? '').join('');
	return '';
}

function answer(body) {
	const messages = body.messages ?? [];
	const toolResult = [...messages].reverse().find((m) => m.role === 'tool');
	if (toolResult) {
		return { message: { role: 'assistant', content: `Tool result: ${textOf(toolResult.content)}` }, finish: 'stop' };
	}
	const question = textOf([...messages].reverse().find((m) => m.role === 'user')?.content);
	const offered = (pattern) => (body.tools ?? []).find((t) => pattern.test(t.function?.name ?? ''));
	let tool;
	let args;
	if (/beneficiar/i.test(question)) {
		// A customer's list, or the own account's (its own tool: a customer left empty is refused).
		const customerId = question.match(/\bCUST_[A-Z0-9_]+\b/)?.[0];
		tool = customerId ? offered(/^List_beneficiaries$/) : (offered(/own/i) ?? offered(/beneficiar/i));
		// Arguments it cannot fill are left out, as models do: the $fromAI() defaults apply.
		const accountName = question.match(/named (\S+?)[?.]?$/)?.[1];
		args = { ...(customerId ? { customerId } : {}), ...(accountName ? { accountName } : {}) };
	} else {
		tool = offered(/quota/i);
		const userId = question.match(/\bU-[A-Z0-9]+\b/)?.[0];
		args = userId ? { userId, currency: question.match(/\b[A-Z]{3}\b/)?.[0] ?? 'USD' } : undefined;
	}
	if (!tool || !args) {
		return { message: { role: 'assistant', content: `No fitting tool offered, or no ID in: ${question}` }, finish: 'stop' };
	}
	return {
		message: {
			role: 'assistant',
			content: null,
			tool_calls: [{ id: `call_${calls + 1}`, type: 'function', function: { name: tool.function.name, arguments: JSON.stringify(args) } }],
		},
		finish: 'tool_calls',
	};
}

function streamed(res, model, { message, finish }) {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	const base = { id: `chatcmpl-local-${++calls}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
	const delta = message.tool_calls
		? { role: 'assistant', content: null, tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) }
		: { role: 'assistant', content: message.content };
	res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
	res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
	res.end('data: [DONE]\n\n');
}

const server = createServer((req, res) => {
	const chunks = [];
	req.on('data', (chunk) => chunks.push(chunk));
	req.on('end', () => {
		const raw = Buffer.concat(chunks).toString('utf8');
		let body = {};
		try {
			body = raw ? JSON.parse(raw) : {};
		} catch {
			res.writeHead(400, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: 'body is not JSON' } }));
			return;
		}
		if (log) appendFileSync(log, `${JSON.stringify({ method: req.method, url: req.url, body })}\n`);
		if (req.method === 'GET' && /\/models$/.test(req.url ?? '')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1-mini', object: 'model', owned_by: 'local' }] }));
			return;
		}
		if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
			return;
		}
		const result = answer(body);
		if (body.stream) {
			streamed(res, body.model, result);
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify(completion(body.model, result.message, result.finish)));
	});
});
server.listen(port, '127.0.0.1', () => {
	console.log(`fake OpenAI chat completions on http://127.0.0.1:${server.address().port}/v1`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
