#!/usr/bin/env bash
# One release line of `npm run test:n8n` (test-n8n.sh runs it once per selected line, with the
# package and the previous release published to a local npm registry that n8n reaches as
# https://registry.npmjs.org; see registry.sh):
#
#   REGISTRY_ENV_FILE=... PACKAGE_VERSION=... [PREVIOUS_VERSION=...] bash scripts/n8n-app/smoke-line.sh <1|2>
#
#  1. installs the line's n8n app once into a cache folder outside the repository (Node 24
#     too, for 2.x), and starts the gateway simulator on a free 127.0.0.1 port,
#  2. installs the package as a person does: n8n started with a fresh user folder, the owner set
#     up, Settings > Community nodes > Install (the editor's REST call), which makes n8n fetch it
#     from the registry. With PREVIOUS_VERSION, that version is installed first;
#  3. the running app: with the polling trigger's workflow active, binds a beneficiary in the
#     simulator after a scheduled poll and checks that the next poll started exactly one execution
#     carrying it; runs the trigger's scenarios (trigger/scenarios.mjs: a bank-detail change, a list
#     changed while a poll reads it, quotas that fall, a scheduled quota workflow; polling every
#     10 s on 1.x, every minute on 2.x; examples/bank-detail-change-alert.json live in a working
#     copy: on 1.x activated at this part's restart, on 2.x in step 5's session, the ones that run
#     this version from their start). With PREVIOUS_VERSION this part runs on the previous
#     release and the restart in the middle is an upgrade: Settings > Community nodes > Update to
#     PACKAGE_VERSION, then n8n restarted, a beneficiary bound and the quota fallen meanwhile; the
#     new version must carry on from the state the old one saved. Then checks, through the REST
#     API, what the editor is served (node and credential types, icons, the credential's Test);
#  4. with the simulator's data afresh, runs the smoke workflows with `n8n execute --id` and
#     asserts the JSON it prints (one runs n8n's AI Agent with the package as a tool, against a
#     scripted stand-in for OpenAI on loopback) and the two quota examples from their Run now
#     trigger (working copies whose Slack node is a stand-in, example-copy.mjs); imports every example in examples/ and checks
#     the app knows all their nodes; on 2.x, checks n8n's SSRF protection blocks loopback with an
#     error that says why, and allows it when told to;
#  5. on 2.x, the scenarios again under n8n's durable poll scheduler with durable cursors (where
#     the quota below from activation must alert exactly once across the restart), then a
#     workflow activated through the REST API with a change right after its activation poll,
#     deactivated, changed, activated again. Each check reads n8n's saved executions.
#
# Prints one "ok"/"FAIL" line per check and closes with "n8n <version>: N passed, N failed"
# (prefixed, so only test-n8n.sh's total is a plain "N passed, N failed" line). Environment as
# test-n8n.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh

LINE="${1:?usage: smoke-line.sh <1|2> (run by test-n8n.sh, which serves the package from a local registry)}"
: "${REGISTRY_ENV_FILE:?run through test-n8n.sh: it publishes the package to a local registry first}"
: "${PACKAGE_VERSION:?run through test-n8n.sh}"
PREVIOUS_VERSION="${PREVIOUS_VERSION:-}"
# What every n8n process that installs packages needs to reach the local registry (registry.sh).
mapfile -t REGISTRY_ENV <"$REGISTRY_ENV_FILE"
LOG_PREFIX="test:n8n $LINE.x"
select_line "$LINE"

STARTED=$SECONDS
HERE=scripts/n8n-app
WORK="$(mktemp -d "${TMPDIR:-/tmp}/n8n-smoke.XXXXXX")"
SIM_PID=""
LLM_PID=""
N8N_PID=""
LIVE_PID=""
OK=0

cleanup() {
	local status=$?
	stop_processes $LIVE_PID $N8N_PID $SIM_PID $LLM_PID
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

# A fresh user folder: no package until n8n installs it.
USER_FOLDER="$WORK/user"
mkdir -p "$USER_FOLDER/.n8n"
n8n_env "$USER_FOLDER"
export PAI_SMOKE_EXPORT_DIR="$WORK/export"
export N8N_RESTRICT_FILE_ACCESS_TO="$WORK/export"
export N8N_BLOCK_ENV_ACCESS_IN_NODE=false

# The simulator.
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

# The credentials (the API and the OpenAI stand-in), for every workflow that follows.
node "$HERE/make-credential.mjs" "$SIM_URL" "$WORK/credentials.json" "http://127.0.0.1:$LLM_PORT/v1"
n8n_must import-credentials import:credentials --input="$WORK/credentials.json"
grep -q 'Successfully imported 2 credentials' "$WORK/logs/import-credentials.log" || {
	show_log "$WORK/logs/import-credentials.log"
	die "n8n did not report the credential as imported"
}
FAILURES=0
RESULTS="$WORK/results.txt"
: >"$RESULTS"

# 2. Installed as a person installs it: n8n started, the owner set up, Settings > Community nodes >
# Install (its REST call); n8n fetches the package from the registry and loads it without a
# restart. With PREVIOUS_VERSION, the previous release, which the scenarios below upgrade from.
INSTALL_VERSION="${PREVIOUS_VERSION:-$PACKAGE_VERSION}"
start_n8n "$WORK/logs/n8n-install.log" "${REGISTRY_ENV[@]}"
say "starting n8n on http://127.0.0.1:$N8N_PORT to install $PACKAGE_NAME@$INSTALL_VERSION through Settings > Community nodes"
wait_json "$N8N_PORT" /rest/settings 180 || {
	show_log "$WORK/logs/n8n-install.log"
	die "n8n did not start for the install"
}
if verdict="$(node "$HERE/community-packages.mjs" install "http://127.0.0.1:$N8N_PORT" "$INSTALL_VERSION")"; then
	echo "$verdict" | tee -a "$RESULTS"
else
	echo "$verdict" | tee -a "$RESULTS"
	show_log "$WORK/logs/n8n-install.log" 30
	die "n8n could not install the package from the registry"
fi
stop_processes "$N8N_PID"
N8N_PID=""

# 3. The running app (n8n start): the polling trigger live (trigger/beneficiary-added.json, active,
# polls on its schedule) and the trigger's scenarios, across a restart that is also an upgrade when
# PREVIOUS_VERSION is set; then what the editor is served: types, icons, the credential's Test.
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
# examples/bank-detail-change-alert.json (trigger version 2, Mask Bank Details) runs live in the
# session that runs this version from its start: where PREVIOUS_VERSION is set, the default
# poller's runs the previous release until its restart. On 2.x that is the durable scheduler's
# (D: imported with its scenarios, changed at once after its restart, no wait of its own); 1.x has
# no other, so the default poller's (L), activated while n8n is stopped for the restart (its first
# scheduled poll after the restart is then awaited: 10 s at most).
if [ "$N8N_APP_LINE" = 1 ]; then BANK_ALERT_SESSION=L; else BANK_ALERT_SESSION=D; fi
import_scenarios() {
	local suffix="$1" quota_prefix="$2" id
	for id in $(node "$HERE/trigger/scenarios.mjs" workflows "$WORK/scenarios-$suffix" "$suffix" "$quota_prefix"); do
		SCENARIO_IDS="${SCENARIO_IDS:-} $id"
	done
	if [ "$suffix" = "$BANK_ALERT_SESSION" ] && [ "$suffix" != L ]; then
		SCENARIO_IDS="$SCENARIO_IDS $(node "$HERE/trigger/scenarios.mjs" bank-alert-workflow "$WORK/scenarios-$suffix" "$suffix")"
	fi
	# Watch Many (trigger version 2): in the sessions that run this version from their start; the
	# default poller's session (L) runs the previous release until its restart, where it gets them.
	if [ "$suffix" != L ]; then
		SCENARIO_IDS="$SCENARIO_IDS $(node "$HERE/trigger/scenarios.mjs" sets-workflows "$WORK/scenarios-$suffix" "$suffix" "$quota_prefix")"
	fi
	n8n_must "import-scenarios-$suffix" import:workflow --separate --input="$WORK/scenarios-$suffix"
	for id in $SCENARIO_IDS; do activate_workflow "$id"; done
	SCENARIO_IDS=""
	node "$HERE/trigger/scenarios.mjs" setup "$SIM_URL" "$quota_prefix"
}
# Runs them in the running app: the changes, an n8n restart with the quota falling meanwhile, the
# checks. $1 suffix, $2 quota ID prefix, $3 label; n8n is started again with the environment given
# after them (so the restarted app polls as the first one did).
run_scenarios() {
	local suffix="$1" quota_prefix="$2" label="$3" before verdict status=0 bound="" id
	shift 3
	say "trigger scenarios ($label): bank-detail change, a list changed during a poll, quota alerts"
	before="$(node "$HERE/trigger/scenarios.mjs" before-restart "$SIM_URL" "$N8N_APP_DIR" "$USER_FOLDER/.n8n/database.sqlite" "$suffix" "$quota_prefix")" || true
	if [ -n "${LIVE_PID:-}" ]; then
		# The live check that ran beside: its verdict, before n8n stops.
		wait "$LIVE_PID" || true
		LIVE_PID=""
		grep -vE '^(ok|FAIL)' "$WORK/live-trigger.txt" || true
		grep -E '^(ok|FAIL)' "$WORK/live-trigger.txt" | tee -a "$RESULTS" | grep -q '^ok' || FAILURES=$((FAILURES + 1))
	fi
	if [ -n "${UPGRADE_TO:-}" ]; then
		# The upgrade, as a person does it with workflows active and triggers holding state:
		# Settings > Community nodes > Update, then n8n restarted (a beneficiary bound meanwhile).
		say "trigger scenarios ($label): Settings > Community nodes > Update to $UPGRADE_TO, then a restart"
		verdict="$(node "$HERE/community-packages.mjs" update "http://127.0.0.1:$N8N_PORT" "$UPGRADE_TO")" || FAILURES=$((FAILURES + 1))
		echo "$verdict" | tee -a "$RESULTS"
		bound="REF-UPGRADE-$LINE"
	fi
	say "trigger scenarios ($label): restarting n8n with the quota fallen again meanwhile"
	stop_processes "$N8N_PID"
	node "$HERE/trigger/scenarios.mjs" fall "$SIM_URL" "$quota_prefix" $bound
	local bank_alert="" sets=running
	if [ "$suffix" = L ]; then
		# Watch Many: imported and activated now, after the upgrade, for the version under test.
		sets=restart
		for id in $(node "$HERE/trigger/scenarios.mjs" sets-workflows "$WORK/sets-$suffix" "$suffix" "$quota_prefix"); do
			SETS_IDS="${SETS_IDS:-} $id"
		done
		n8n_must "import-sets-$suffix" import:workflow --separate --input="$WORK/sets-$suffix"
		for id in $SETS_IDS; do activate_workflow "$id"; done
		SETS_IDS=""
	fi
	if [ "$suffix" = "$BANK_ALERT_SESSION" ]; then
		bank_alert=running
		if [ "$suffix" = L ]; then
			# Imported and activated now, after the upgrade: the version under test activates it.
			bank_alert=restart
			say "examples/bank-detail-change-alert.json: importing a working copy for the restart"
			id="$(node "$HERE/trigger/scenarios.mjs" bank-alert-workflow "$WORK/bank-alert-$suffix" "$suffix")"
			n8n_must "import-bank-alert-$suffix" import:workflow --separate --input="$WORK/bank-alert-$suffix"
			activate_workflow "$id"
			say "examples/bank-detail-change-alert.json: a working copy imported and activated for the restart"
		fi
	fi
	start_n8n "$WORK/logs/n8n-restart-$suffix.log" "$@"
	if ! wait_json "$N8N_PORT" /rest/settings 180; then
		show_log "$WORK/logs/n8n-restart-$suffix.log"
		echo "FAIL trigger $label: n8n did not start again" | tee -a "$RESULTS"
		FAILURES=$((FAILURES + 1))
		return
	fi
	verdict="$(SCENARIO_SETS="$sets" SCENARIO_N8N_URL="http://127.0.0.1:$N8N_PORT" SCENARIO_BANK_ALERT="$bank_alert" SCENARIO_BOUND_MEANWHILE="$bound" node "$HERE/trigger/scenarios.mjs" after-restart "$SIM_URL" "$N8N_APP_DIR" "$USER_FOLDER/.n8n/database.sqlite" "$suffix" "$quota_prefix" "$label" $before)" || status=$?
	echo "$verdict" | tee -a "$RESULTS"
	[ "$status" -eq 0 ] || FAILURES=$((FAILURES + 1))
	if [ -n "${UPGRADE_TO:-}" ]; then
		verdict="$(node "$HERE/community-packages.mjs" installed "http://127.0.0.1:$N8N_PORT" "$UPGRADE_TO")" || FAILURES=$((FAILURES + 1))
		echo "$verdict (after the restart)" | tee -a "$RESULTS"
	fi
}
import_scenarios L U-L
start_n8n "$WORK/logs/n8n-start.log" "${REGISTRY_ENV[@]}"
say "starting n8n on http://127.0.0.1:$N8N_PORT (n8n start)"
if wait_json "$N8N_PORT" /rest/settings 180; then
	READY_AT_MS="$(node -p 'Date.now()')"
	# The live check waits on n8n's schedule as the scenarios do, on another customer and workflow:
	# it runs beside their first part (run_scenarios collects it before the restart).
	(
		if check_live_trigger "$SIM_URL" "REF-LIVE-TRIGGER-$LINE" node "$HERE/trigger/executions-sqlite.mjs" \
			"$N8N_APP_DIR" "$USER_FOLDER/.n8n/database.sqlite" PaiLiveTrigger01; then
			echo "ok   polling trigger: $LIVE_VERDICT"
		else
			echo "FAIL polling trigger: $LIVE_VERDICT"
		fi
	) >"$WORK/live-trigger.txt" 2>&1 &
	LIVE_PID=$!
	UPGRADE_TO="${PREVIOUS_VERSION:+$PACKAGE_VERSION}" run_scenarios L U-L "n8n's default poller${PREVIOUS_VERSION:+, upgraded from $PREVIOUS_VERSION across the restart}" "${REGISTRY_ENV[@]}"
	node "$HERE/check-app.mjs" "http://127.0.0.1:$N8N_PORT" "$SIM_URL" | tee -a "$RESULTS" || FAILURES=$((FAILURES + 1))
else
	show_log "$WORK/logs/n8n-start.log"
	echo "FAIL n8n start did not become ready on port $N8N_PORT" | tee -a "$RESULTS"
	FAILURES=$((FAILURES + 1))
fi
stop_processes "$N8N_PID"
N8N_PID=""

# 4. The smoke workflows, run with `n8n execute`, against the simulator's data as shipped (the
# scenarios above changed it): the simulator started again on its port.
stop_processes "$SIM_PID"
start_simulator "$WORK" "$SIM_PORT"
# The scenarios' workflows stay active (2.x starts n8n again below): their quota subjects again.
node "$HERE/trigger/scenarios.mjs" setup "$SIM_URL" U-L
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
# The two quota examples run as well, from their Run now trigger, each in a working copy with an ID
# of its own whose Slack node is a No Operation stand-in (example-copy.mjs; check-run.mjs reads the
# message that reaches it), imported and run with the smoke workflows.
for example in daily-quota-check:PaiRunDailyQuota many-accounts-quota-check:PaiRunManyQuota; do
	node "$HERE/example-copy.mjs" "examples/${example%%:*}.json" "$WORK/workflows/example-${example%%:*}.json" \
		--id="${example#*:}" --name="[run] examples/${example%%:*}.json" >/dev/null || die "could not copy examples/${example%%:*}.json"
done
n8n_must import-smoke-workflows import:workflow --separate --input="$WORK/workflows"
n8n_must list-loaded-nodes export:nodes --output="$WORK/nodes.json"
node -e '
	const types = require(process.argv[1]).map((n) => n.name);
	for (const t of ["partnerAccountInquiry", "partnerAccountInquiryTool", "partnerAccountInquiryTrigger"].map((n) => `n8n-nodes-partner-account-inquiry.${n}`)) {
		if (!types.includes(t)) { console.error(`[test:n8n] FAILED: n8n did not load node type ${t} from the community package`); process.exit(1); }
	}
' "$WORK/nodes.json"
say "n8n loaded the community package: partnerAccountInquiry, partnerAccountInquiryTool and partnerAccountInquiryTrigger"

# Runs workflow <id> with `n8n execute` and records check-run.mjs's verdict on it as <name>.
run_and_check() {
	local name="$1" id="$2" status=0 verdict started=$SECONDS
	n8n_cli "run-$name" execute --id="$id" --rawOutput || status=$?
	case "$name" in example-*) say "$name: n8n execute took $((SECONDS - started))s" ;; esac
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

# The examples: each imported on its own, then listed, exported and checked.
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

# 2.x: with n8n's SSRF protection on and loopback not allowed, the node's request to the
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


# 5. 2.x: the same scenarios under n8n's durable poll scheduler with durable cursors (the setup the
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
if cat "$WORK"/logs/n8n-install.log "$WORK"/logs/n8n-start.log "$WORK"/logs/n8n-restart-*.log "$WORK"/logs/n8n-durable.log 2>/dev/null | grep -iE 'error|fail|warn' | grep -iE "partner|$PACKAGE_NAME" >"$WORK/logs/package-problems.log"; then
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
