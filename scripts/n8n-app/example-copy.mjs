// A working copy of an example workflow, for running it in the smoke test (smoke-line.sh):
//
//   node scripts/n8n-app/example-copy.mjs <example.json> <out.json> --id=<id> --name=<name> [--cron=<6-field cron>]
//
// The copy is the example as shipped, with three differences only:
//  - its own workflow id and name, so the example itself is still imported and checked as it is;
//  - every Slack node (the example's "Post to your Slack channel", which needs the user's Slack
//    credential and Slack itself) is a No Operation stand-in of the same name, id and position:
//    what would be posted is its input, which the checks read. The same substitution as the
//    agent run makes for the OpenAI model (a scripted stand-in on loopback);
//  - with --cron, the package's trigger polls on that schedule (the scenarios' tick: every 10 s on
//    1.x, every minute on 2.x) instead of the example's 15 minutes.
// Everything else (parameters, expressions, On Error settings, connections, the credential by
// name) is the example's.
import { readFileSync, writeFileSync } from 'node:fs';

const TRIGGER = 'n8n-nodes-partner-account-inquiry.partnerAccountInquiryTrigger';
const SEND = 'n8n-nodes-base.slack';

export function workingCopy(example, { id, name, cron }) {
	const copy = structuredClone(example);
	copy.id = id;
	copy.name = name;
	copy.active = false;
	let standIns = 0;
	copy.nodes = copy.nodes.map((node) => {
		if (node.type === SEND) {
			standIns++;
			return { id: node.id, name: node.name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: node.position, parameters: {} };
		}
		if (node.type === TRIGGER && cron) {
			return { ...node, parameters: { ...node.parameters, pollTimes: { item: [{ mode: 'custom', cronExpression: cron }] } } };
		}
		return node;
	});
	if (standIns !== 1) throw new Error(`${example.name}: ${standIns} Slack nodes, expected the one send node`);
	return copy;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const [exampleFile, outFile, ...flags] = process.argv.slice(2);
	const options = Object.fromEntries(flags.map((flag) => /^--([a-z]+)=(.*)$/s.exec(flag)?.slice(1) ?? [flag, '']));
	if (!exampleFile || !outFile || !options.id || !options.name) {
		console.error('usage: example-copy.mjs <example.json> <out.json> --id=<id> --name=<name> [--cron=<cron>]');
		process.exit(2);
	}
	const copy = workingCopy(JSON.parse(readFileSync(exampleFile, 'utf8')), options);
	writeFileSync(outFile, JSON.stringify(copy, null, 2));
	console.log(copy.id);
}
