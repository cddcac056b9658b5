#!/usr/bin/env bash
# One release line of `npm run test:n8n` (test-n8n.sh runs it once per selected line):
#
#   bash scripts/n8n-app/smoke-line.sh <1|2> [tarball]
#
#  1. installs the line's n8n app once into a cache folder outside the repository (Node 24
#     too, for 2.x),
#  2. installs the packed package (the tarball given, or a fresh `npm run build` + `npm pack`)
#     as a community package into a fresh, temporary N8N_USER_FOLDER,
#  3. starts the gateway simulator on a free 127.0.0.1 port,
#  4. imports a credential and the smoke workflows with n8n's CLI, runs each with
#     `n8n execute --id` and asserts the JSON it prints (one of them runs n8n's AI Agent with
#     the package as a tool, against a scripted stand-in for OpenAI on loopback),
#  5. imports every example in examples/ (`import:workflow --input=<file>`, one at a time) and
#     checks the app knows all their nodes,
#  6. on 2.x: turns n8n's SSRF protection on without allowing loopback and checks a quota run
#     fails with an error that says why, then allows loopback and checks the same run succeeds,
#  7. starts the app (n8n start) and checks, through its REST API, what the editor is served
#     (node and credential types, icons) and the credential's Test button; with the polling
#     trigger's workflow active, binds a beneficiary in the simulator after a scheduled poll and
#     checks that the next poll started exactly one execution carrying it;
#  8. runs the trigger's scenarios (trigger/scenarios.mjs, seven workflows polling every 10 s on
#     1.x, every minute on 2.x): a
#     bank-detail change, a list changed while a poll reads it, a quota that falls, recovers and
#     falls again while n8n is restarted, a quota below from activation; on 2.x once more under
#     n8n's durable poll scheduler with durable cursors (where the quota below from activation must
#     alert exactly once across the restart), then a workflow activated through the REST API with a
#     change right after its activation poll, deactivated, changed, activated again. Each check
#     reads n8n's saved executions.
#
# Prints one "ok"/"FAIL" line per check and closes with "n8n <version>: N passed, N failed"
# (prefixed, so only test-n8n.sh's total is a plain "N passed, N failed" line). Environment as
# test-n8n.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh

LINE="${1:?usage: smoke-line.sh <1|2> [tarball]}"
TARBALL="${2:-}"
LOG_PREFIX="test:n8n $LINE.x"
select_line "$LINE"

STARTED=$SECONDS
HERE=scripts/n8n-app
WORK="$(mktemp -d "${TMPDIR:-/tmp}/n8n-smoke.XXXXXX")"
SIM_PID=""
LLM_PID=""
N8N_PID=""
OK=0

cleanup() {
	local status=$?
	stop_processes $N8N_PID $SIM_PID $LLM_PID
	if [ "$OK" = 1 ] && [ "${N8N_SMOKE_KEEP:-0}" != 1 ]; then
		rm -rf "$WORK"
	else
		printf '[%s] logs and the n8n user folder are kept in %s\n' "$LOG_PREFIX" "$WORK" >&2
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs one n8n CLI command with a time limit; output to $WORK/logs/<label>.log.
N8N_COMMAND_TIMEOUT="${N8N_COMMAND_TIMEOUT:-180}"
n8n_cli() {
	local label="$1"
	shift
	N8N_RUNNERS_BROKER_PORT="$(free_port)" timeout --kill-after=10 "$N8N_COMMAND_TIMEOUT" "$N8N_APP_BIN" "$@" >"$WORK/logs/$label.log" 2>&1
}
n8n_must() {
	local label="$1"
	n8n_cli "$@" || {
		local status=$?
		show_log "$WORK/logs/$label.log"
		[ "$status" -eq 124 ] && die "n8n $2 did not finish within ${N8N_COMMAND_TIMEOUT}s"
		die "n8n $2 failed (exit $status)"
	}
}

mkdir -p "$WORK/logs" "$WORK/export"

# 1. The app.
ensure_n8n_app

# 2. The package, as a community package in a fresh user folder.
USER_FOLDER="$WORK/user"
mkdir -p "$USER_FOLDER/.n8n/nodes"
install_package_into "$USER_FOLDER" "$WORK" "$TARBALL"
n8n_env "$USER_FOLDER"
export PAI_SMOKE_EXPORT_DIR="$WORK/export"
export N8N_RESTRICT_FILE_ACCESS_TO="$WORK/export"
export N8N_BLOCK_ENV_ACCESS_IN_NODE=false

# 3. The simulator.
start_simulator "$WORK"

# A scripted stand-in for OpenAI on loopback, for the AI Agent run (agent-tool.json).
LLM_PORT="$(free_port)"
export PAI_SMOKE_LLM_LOG="$WORK/logs/fake-openai-requests.jsonl"
node "$HERE/fake-openai.mjs" --port "$LLM_PORT" --log "$PAI_SMOKE_LLM_LOG" >"$WORK/logs/fake-openai.log" 2>&1 &
LLM_PID=$!
wait_http "$LLM_PORT" /v1/models 20 || {
	show_log "$WORK/logs/fake-openai.log"
	die "the fake OpenAI server did not start on 127.0.0.1:$LLM_PORT"
}

# 4. Credentials, smoke workflows, runs.
node "$HERE/make-credential.mjs" "$SIM_URL" "$WORK/credentials.json" "http://127.0.0.1:$LLM_PORT/v1"
n8n_must import-credentials import:credentials --input="$WORK/credentials.json"
grep -q 'Successfully imported 2 credentials' "$WORK/logs/import-credentials.log" || {
	show_log "$WORK/logs/import-credentials.log"
	die "n8n did not report the credential as imported"
}
# The agent run uses the example's two tool nodes as they are now, so the example stays proven.
mkdir -p "$WORK/workflows"
cp "$HERE"/workflows/*.json "$WORK/workflows/"
node -e '
	const fs = require("fs");
	const [exampleFile, fixtureFile] = process.argv.slice(1);
	const isTool = (n) => n.type === "n8n-nodes-partner-account-inquiry.partnerAccountInquiryTool";
	const tools = JSON.parse(fs.readFileSync(exampleFile, "utf8")).nodes.filter(isTool);
	const fixture = JSON.parse(fs.readFileSync(fixtureFile, "utf8"));
	fixture.nodes = fixture.nodes.map((node) => {
		if (!isTool(node)) return node;
		const tool = tools.find((t) => t.name === node.name);
		if (!tool) throw new Error(`examples/ai-agent-tool.json has no tool node "${node.name}"`);
		return { ...tool, id: node.id, position: node.position, credentials: node.credentials };
	});
	fs.writeFileSync(fixtureFile, JSON.stringify(fixture, null, 2));
' examples/ai-agent-tool.json "$WORK/workflows/agent-tool.json" || die "could not take the tool nodes of examples/ai-agent-tool.json"
n8n_must import-smoke-workflows import:workflow --separate --input="$WORK/workflows"
n8n_must list-loaded-nodes export:nodes --output="$WORK/nodes.json"
node -e '
	const types = require(process.argv[1]).map((n) => n.name);
	for (const t of ["partnerAccountInquiry", "partnerAccountInquiryTool", "partnerAccountInquiryTrigger"].map((n) => `n8n-nodes-partner-account-inquiry.${n}`)) {
		if (!types.includes(t)) { console.error(`[test:n8n] FAILED: n8n did not load node type ${t} from the community package`); process.exit(1); }
	}
' "$WORK/nodes.json"
say "n8n loaded the community package: partnerAccountInquiry, partnerAccountInquiryTool and partnerAccountInquiryTrigger"

FAILURES=0
RESULTS="$WORK/results.txt"
: >"$RESULTS"
# Runs workflow <id> with `n8n execute` and records check-run.mjs's verdict on it as <name>.
run_and_check() {
	local name="$1" id="$2" status=0 verdict
	n8n_cli "run-$name" execute --id="$id" --rawOutput || status=$?
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		echo "FAIL $name: n8n execute did not finish within ${N8N_COMMAND_TIMEOUT}s" | tee -a "$RESULTS"
		FAILURES=$((FAILURES + 1))
		return
	fi
	verdict="$(node "$HERE/check-run.mjs" "$name" "$WORK/logs/run-$name.log" "$status" 2>&1)" || true
	echo "$verdict" | tee -a "$RESULTS"
	case "$verdict" in
	ok*) ;;
	*)
		show_log "$WORK/logs/run-$name.log" 30
		FAILURES=$((FAILURES + 1))
		;;
	esac
}
for fixture in "$WORK"/workflows/*.json; do
	name="$(basename "$fixture" .json)"
	id="$(node -p 'require(process.argv[1]).id' "$fixture")"
	run_and_check "$name" "$id"
done

# 5. The examples: each imported on its own, then listed, exported and checked.
for example in examples/*.json; do
	name="$(basename "$example" .json)"
	if n8n_cli "import-example-$name" import:workflow --input="$example" &&
		grep -q 'Successfully imported 1 workflow' "$WORK/logs/import-example-$name.log"; then
		echo "ok   example $name.json: n8n import:workflow --input=examples/$name.json (id $(node -p 'require(process.argv[1]).id' "$(pwd)/$example"))" | tee -a "$RESULTS"
	else
		show_log "$WORK/logs/import-example-$name.log" 20
		echo "FAIL example $name.json: n8n import:workflow failed" | tee -a "$RESULTS"
		FAILURES=$((FAILURES + 1))
	fi
done
n8n_must list-workflows list:workflow
for example in examples/*.json; do
	title="$(node -p 'require(process.argv[1]).name' "$(pwd)/$example")"
	if grep -qF "|$title" "$WORK/logs/list-workflows.log"; then
		echo "ok   n8n list:workflow shows \"$title\"" | tee -a "$RESULTS"
	else
		echo "FAIL n8n list:workflow does not show \"$title\"" | tee -a "$RESULTS"
		FAILURES=$((FAILURES + 1))
	fi
done
n8n_must export-workflows export:workflow --all --output="$WORK/workflows.json"
node "$HERE/check-examples.mjs" "$N8N_APP_DIR" "$WORK/nodes.json" "$WORK/workflows.json" PaiSmokeCred0001 examples/*.json |
	tee -a "$RESULTS" || FAILURES=$((FAILURES + 1))

# 6. 2.x: with n8n's SSRF protection on and loopback not allowed, the node's request to the
# simulator (on 127.0.0.1) is blocked, and the error must say why (SSRF / the setting to change).
# With loopback allowed through N8N_SSRF_ALLOWED_IP_RANGES, the same run succeeds.
if [ "$N8N_APP_LINE" = 2 ]; then
	for allowed in "" 127.0.0.0/8; do
		name=quota-ssrf-blocked
		[ -z "$allowed" ] || name=quota-ssrf-allowed
		N8N_SSRF_PROTECTION_ENABLED=true N8N_SSRF_ALLOWED_IP_RANGES="$allowed" \
			run_and_check "$name" "$(node -p 'require(process.argv[1]).id' "$WORK/workflows/quota.json")"
	done
fi

# 7. The running app (n8n start), as the editor sees it: types, icons, the credential's Test;
# then the polling trigger live: trigger/beneficiary-added.json, active, polls on its schedule.
n8n_must import-trigger import:workflow --input="$HERE/trigger/beneficiary-added.json"
activate_workflow() {
	if [ "$N8N_APP_LINE" = 1 ]; then
		n8n_must "activate-$1" update:workflow --id="$1" --active=true
	else
		n8n_must "activate-$1" publish:workflow --id="$1"
	fi
}
activate_workflow PaiLiveTrigger01
# The trigger's scenarios (trigger/scenarios.mjs): imported and active before the app starts.
# 1.x polls them every 10 s; 2.x allows no less than a minute.
if [ "$N8N_APP_LINE" = 1 ]; then export SCENARIO_TICK_SECONDS=10; else export SCENARIO_TICK_SECONDS=60; fi
import_scenarios() {
	local suffix="$1" quota_prefix="$2" id
	for id in $(node "$HERE/trigger/scenarios.mjs" workflows "$WORK/scenarios-$suffix" "$suffix" "$quota_prefix"); do
		SCENARIO_IDS="${SCENARIO_IDS:-} $id"
	done
	n8n_must "import-scenarios-$suffix" import:workflow --separate --input="$WORK/scenarios-$suffix"
	for id in $SCENARIO_IDS; do activate_workflow "$id"; done
	SCENARIO_IDS=""
	node "$HERE/trigger/scenarios.mjs" setup "$SIM_URL" "$quota_prefix"
}
# Runs them in the running app: the changes, an n8n restart with the quota falling meanwhile, the
# checks. $1 suffix, $2 quota ID prefix, $3 label; n8n is started again with the environment given
# after them (so the restarted app polls as the first one did).
run_scenarios() {
	local suffix="$1" quota_prefix="$2" label="$3" before verdict status=0
	shift 3
	say "trigger scenarios ($label): bank-detail change, a list changed during a poll, quota alerts"
	before="$(node "$HERE/trigger/scenarios.mjs" before-restart "$SIM_URL" "$N8N_APP_DIR" "$USER_FOLDER/.n8n/database.sqlite" "$suffix" "$quota_prefix")" || true
	say "trigger scenarios ($label): restarting n8n with the quota fallen again meanwhile"
	stop_processes "$N8N_PID"
	node "$HERE/trigger/scenarios.mjs" fall "$SIM_URL" "$quota_prefix"
	start_n8n "$WORK/logs/n8n-restart-$suffix.log" "$@"
	if ! wait_json "$N8N_PORT" /rest/settings 180; then
		show_log "$WORK/logs/n8n-restart-$suffix.log"
		echo "FAIL trigger $label: n8n did not start again" | tee -a "$RESULTS"
		FAILURES=$((FAILURES + 1))
		return
	fi
	verdict="$(node "$HERE/trigger/scenarios.mjs" after-restart "$SIM_URL" "$N8N_APP_DIR" "$USER_FOLDER/.n8n/database.sqlite" "$suffix" "$quota_prefix" "$label" $before)" || status=$?
	echo "$verdict" | tee -a "$RESULTS"
	[ "$status" -eq 0 ] || FAILURES=$((FAILURES + 1))
}
import_scenarios L U-L
start_n8n "$WORK/logs/n8n-start.log"
say "starting n8n on http://127.0.0.1:$N8N_PORT (n8n start)"
if wait_json "$N8N_PORT" /rest/settings 180; then
	READY_AT_MS="$(node -p 'Date.now()')"
	node "$HERE/check-app.mjs" "http://127.0.0.1:$N8N_PORT" "$SIM_URL" | tee -a "$RESULTS" || FAILURES=$((FAILURES + 1))
	if check_live_trigger "$SIM_URL" "REF-LIVE-TRIGGER-$LINE" node "$HERE/trigger/executions-sqlite.mjs" \
		"$N8N_APP_DIR" "$USER_FOLDER/.n8n/database.sqlite" PaiLiveTrigger01; then
		echo "ok   polling trigger: $LIVE_VERDICT" | tee -a "$RESULTS"
	else
		echo "FAIL polling trigger: $LIVE_VERDICT" | tee -a "$RESULTS"
		FAILURES=$((FAILURES + 1))
	fi
	run_scenarios L U-L "n8n's default poller"
else
	show_log "$WORK/logs/n8n-start.log"
	echo "FAIL n8n start did not become ready on port $N8N_PORT" | tee -a "$RESULTS"
	FAILURES=$((FAILURES + 1))
fi
stop_processes "$N8N_PID"
N8N_PID=""
# 2.x: the same scenarios under n8n's durable poll scheduler with durable cursors (the setup the
# README recommends), in the same app and database, with workflows of their own.
if [ "$N8N_APP_LINE" = 2 ]; then
	DURABLE=(N8N_SCHEDULER_ENABLED=true N8N_SCHEDULER_POLL_TRIGGERS_ENABLED=true N8N_POLLER_DURABLE_CURSORS_ENABLED=true)
	import_scenarios D U-D
	start_n8n "$WORK/logs/n8n-durable.log" "${DURABLE[@]}"
	if wait_json "$N8N_PORT" /rest/settings 180; then
		# Every poll is saved here, and the node sees it: the quota below from activation alerts exactly once.
		export SCENARIO_EVERY_POLL_SAVED=1
		run_scenarios D U-D "n8n's durable poll scheduler" "${DURABLE[@]}"
		unset SCENARIO_EVERY_POLL_SAVED
		# Activated through the REST API as a user would: a change right after the activation poll,
		# then deactivated, changed, activated again.
		say "trigger scenarios (n8n's durable poll scheduler): activation, deactivation, activation again"
		status=0
		verdict="$(node "$HERE/trigger/scenarios.mjs" activation "$SIM_URL" "$N8N_APP_DIR" "$USER_FOLDER/.n8n/database.sqlite" D "http://127.0.0.1:$N8N_PORT" "n8n's durable poll scheduler")" || status=$?
		echo "$verdict" | tee -a "$RESULTS"
		[ "$status" -eq 0 ] || FAILURES=$((FAILURES + 1))
	else
		show_log "$WORK/logs/n8n-durable.log"
		echo "FAIL n8n start with the durable poll scheduler did not become ready" | tee -a "$RESULTS"
		FAILURES=$((FAILURES + 1))
	fi
	stop_processes "$N8N_PID"
	N8N_PID=""
fi
if cat "$WORK"/logs/n8n-start.log "$WORK"/logs/n8n-restart-*.log "$WORK"/logs/n8n-durable.log 2>/dev/null | grep -iE 'error|fail|warn' | grep -iE "partner|$PACKAGE_NAME" >"$WORK/logs/package-problems.log"; then
	show_log "$WORK/logs/package-problems.log" 20
	echo "FAIL n8n start logged problems with the package" | tee -a "$RESULTS"
	FAILURES=$((FAILURES + 1))
else
	echo "ok   n8n start logged no error or warning about the package" | tee -a "$RESULTS"
fi

PASSED="$(grep -c '^ok' "$RESULTS" || true)"
FAILED="$(grep -c '^FAIL' "$RESULTS" || true)"
say "n8n $N8N_APP_VERSION on Node $(node -v), $((SECONDS - STARTED))s"
# Prefixed: only test-n8n.sh's total over all lines is a plain "N passed, N failed" line.
echo "n8n $N8N_APP_VERSION: $PASSED passed, $FAILED failed"
if [ "$FAILURES" -ne 0 ] || [ "$FAILED" -ne 0 ]; then
	die "the package did not pass in the real n8n app (see above)"
fi
OK=1
