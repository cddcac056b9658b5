#!/usr/bin/env bash
# npm run test:queue: the package in n8n 2.x queue mode, as larger installs run it: a main
# process that takes webhooks, two `n8n worker` processes that run the executions (Bull queue
# in Redis), PostgreSQL as the database. All on loopback; everything started here is stopped here.
#
#  1. installs Redis and PostgreSQL with apt-get if missing (root), starts both on free
#     127.0.0.1 ports with their data in a temporary folder (PostgreSQL as the postgres user),
#  2. installs the n8n 2.x app (test-n8n.sh's cache) and the packed package into three user
#     folders, one per process, as community packages,
#  3. imports the credential and two webhook workflows (scripts/n8n-app/queue/), publishes them,
#     starts the main (EXECUTIONS_MODE=queue, DB_TYPE=postgresdb) and two workers,
#  4. sends QUEUE_REQUESTS (default 48) requests at once to the production webhooks, a mix of
#     listings (Return All) and quotas, and checks every answer against the simulator's data,
#  5. checks in PostgreSQL that every execution finished with success, and in the workers' logs
#     that both workers ran executions and that together they ran all of them,
#  6. binds a new beneficiary in the simulator and checks that the polling trigger (its polls run
#     on the main) starts exactly one execution carrying it, run by a worker, and the poll after
#     that none (up to 3 minutes: polls come once a minute).
#
# Prints one "ok"/"FAIL" line per check and closes with "N passed, N failed". Environment as
# test-n8n.sh, plus QUEUE_REQUESTS, QUEUE_WORKER_CONCURRENCY (default 10), N8N_SMOKE_KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG_PREFIX=test:queue
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh

STARTED=$SECONDS
HERE=scripts/n8n-app
REQUESTS="${QUEUE_REQUESTS:-48}"
CONCURRENCY="${QUEUE_WORKER_CONCURRENCY:-10}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/n8n-queue.XXXXXX")"
chmod 711 "$WORK" # PostgreSQL, run as its own user, keeps its data below
SIM_PID="" REDIS_PID="" N8N_PID="" WORKER1_PID="" WORKER2_PID="" PG_DATA="" PG_STARTED=0
OK=0
N8N_COMMAND_TIMEOUT="${N8N_COMMAND_TIMEOUT:-180}"

as_postgres() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup() {
	local status=$?
	stop_processes $WORKER1_PID $WORKER2_PID $N8N_PID $SIM_PID $REDIS_PID
	if [ "$PG_STARTED" = 1 ]; then
		as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null 2>&1 || true
	fi
	if [ "$OK" = 1 ] && [ "${N8N_SMOKE_KEEP:-0}" != 1 ]; then
		rm -rf "$WORK"
	else
		printf '[%s] logs, user folders and the database folder are kept in %s\n' "$LOG_PREFIX" "$WORK" >&2
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$WORK/logs"

# 1. Redis and PostgreSQL, from Debian's packages.
pg_bin() { find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1; }
PG_BIN="$(pg_bin)"
APT_PACKAGES=()
command -v redis-server >/dev/null || APT_PACKAGES+=(redis-server)
[ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] || APT_PACKAGES+=(postgresql)
command -v psql >/dev/null || APT_PACKAGES+=(postgresql-client)
if [ "${#APT_PACKAGES[@]}" -gt 0 ]; then
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null ||
		die "needs ${APT_PACKAGES[*]}: run 'apt-get update && apt-get install -y ${APT_PACKAGES[*]}' as root"
	say "installing Debian's ${APT_PACKAGES[*]} (apt-get)"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${APT_PACKAGES[@]}"; } >"$WORK/logs/apt.log" 2>&1 || {
		show_log "$WORK/logs/apt.log"
		die "apt-get install ${APT_PACKAGES[*]} failed"
	}
	PG_BIN="$(pg_bin)"
fi

REDIS_PORT="$(free_port)"
mkdir -p "$WORK/redis"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/redis" \
	>"$WORK/logs/redis.log" 2>&1 &
REDIS_PID=$!

PG_DATA="$WORK/postgres"
PG_PORT="$(free_port)"
mkdir -p "$PG_DATA"
[ "$(id -u)" != 0 ] || chown postgres "$PG_DATA"
as_postgres "$PG_BIN/initdb" -D "$PG_DATA" -U n8n --auth=trust -E UTF8 --no-locale >"$WORK/logs/initdb.log" 2>&1 || {
	show_log "$WORK/logs/initdb.log"
	die "initdb failed"
}
PG_STARTED=1
as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -w -t 60 -l "$PG_DATA/server.log" \
	-o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG_DATA -c fsync=off -c max_connections=200" \
	start >"$WORK/logs/pg_ctl.log" 2>&1 || {
	show_log "$PG_DATA/server.log"
	die "PostgreSQL did not start"
}
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U n8n n8n || die "createdb n8n failed"
for _ in $(seq 1 40); do
	[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && break
	sleep 0.25
done
[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] || {
	show_log "$WORK/logs/redis.log"
	die "Redis did not start"
}
say "Redis on 127.0.0.1:$REDIS_PORT, PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT"
psql_n8n() { psql -h 127.0.0.1 -p "$PG_PORT" -U n8n -d n8n -tAq "$@"; }

# 2. The app (2.x, Node 24) and the package, once per process.
select_line 2
ensure_n8n_app
TARBALL="$(pack_package "$WORK/pack")" || exit 1
for who in main worker1 worker2; do
	mkdir -p "$WORK/$who/.n8n/nodes"
	install_package_into "$WORK/$who" "$WORK" "$TARBALL"
done
start_simulator "$WORK"

n8n_env "$WORK/main"
export DB_TYPE=postgresdb DB_POSTGRESDB_HOST=127.0.0.1 DB_POSTGRESDB_PORT="$PG_PORT" \
	DB_POSTGRESDB_DATABASE=n8n DB_POSTGRESDB_USER=n8n DB_POSTGRESDB_PASSWORD=
export EXECUTIONS_MODE=queue QUEUE_BULL_REDIS_HOST=127.0.0.1 QUEUE_BULL_REDIS_PORT="$REDIS_PORT"
export QUEUE_HEALTH_CHECK_ACTIVE=false
# Keep every execution's data, so the database shows each one's outcome.
export EXECUTIONS_DATA_SAVE_ON_SUCCESS=all EXECUTIONS_DATA_SAVE_ON_ERROR=all

n8n_cli() {
	local label="$1"
	shift
	N8N_RUNNERS_BROKER_PORT="$(free_port)" timeout --kill-after=10 "$N8N_COMMAND_TIMEOUT" "$N8N_APP_BIN" "$@" >"$WORK/logs/$label.log" 2>&1 || {
		show_log "$WORK/logs/$label.log"
		die "n8n $1 failed"
	}
}

# 3. Credential and workflows (two webhooks, one polling trigger) into PostgreSQL, published; then the main and the two workers.
node "$HERE/make-credential.mjs" "$SIM_URL" "$WORK/credentials.json"
say "importing the credential and the webhook workflows (the first command migrates the database)"
n8n_cli import-credentials import:credentials --input="$WORK/credentials.json"
n8n_cli import-workflows import:workflow --separate --input="$HERE/queue"
n8n_cli import-trigger import:workflow --input="$HERE/trigger/beneficiary-added.json"
for id in PaiQueueList0001 PaiQueueQuota001 PaiLiveTrigger01; do
	n8n_cli "publish-$id" publish:workflow --id="$id"
done

start_n8n "$WORK/logs/main.log"
say "starting the main on http://127.0.0.1:$N8N_PORT (EXECUTIONS_MODE=queue)"
wait_json "$N8N_PORT" /rest/settings 180 || {
	show_log "$WORK/logs/main.log"
	die "the main did not become ready"
}
for n in 1 2; do
	say "starting worker $n (n8n worker --concurrency=$CONCURRENCY)"
	N8N_USER_FOLDER="$WORK/worker$n" N8N_RUNNERS_BROKER_PORT="$(free_port)" \
		"$N8N_APP_BIN" worker --concurrency="$CONCURRENCY" >"$WORK/logs/worker$n.log" 2>&1 &
	eval "WORKER${n}_PID=\$!"
done
for n in 1 2; do
	for _ in $(seq 1 240); do
		grep -q 'n8n worker is now ready' "$WORK/logs/worker$n.log" 2>/dev/null && break
		kill -0 "$(eval echo "\$WORKER${n}_PID")" 2>/dev/null || break
		sleep 0.5
	done
	grep -q 'n8n worker is now ready' "$WORK/logs/worker$n.log" || {
		show_log "$WORK/logs/worker$n.log"
		die "worker $n did not become ready"
	}
done
say "main and both workers ready after $((SECONDS - STARTED))s"
READY_AT_MS="$(node -p 'Date.now()')"

RESULTS="$WORK/results.txt"
: >"$RESULTS"
record() { echo "$1" | tee -a "$RESULTS"; }

# The main registered the production webhooks of both published workflows.
if psql_n8n -c "select count(*) from webhook_entity where \"webhookPath\" in ('pai-queue-list', 'pai-queue-quota')" | grep -qx 2; then
	record "ok   the main registered both production webhooks (pai-queue-list, pai-queue-quota)"
else
	record "FAIL the main did not register the production webhooks"
fi

# 4. The load.
say "sending $REQUESTS requests at once to the production webhooks"
LOAD_STARTED=$SECONDS
node "$HERE/queue-load.mjs" "http://127.0.0.1:$N8N_PORT" "$REQUESTS" | tee -a "$RESULTS" || true
LOAD_SECONDS=$((SECONDS - LOAD_STARTED))

# 5. What the database and the workers say.
sleep 1
counts="$(psql_n8n -c "select status || '=' || count(*) from execution_entity group by status order by status" | tr '\n' ' ')"
success="$(psql_n8n -c "select count(*) from execution_entity where status = 'success' and finished and \"stoppedAt\" is not null")"
total="$(psql_n8n -c "select count(*) from execution_entity")"
if [ "$success" = "$REQUESTS" ] && [ "$total" = "$REQUESTS" ]; then
	record "ok   PostgreSQL holds $total executions, every one finished with success"
else
	record "FAIL PostgreSQL holds $total executions, $success finished with success, expected $REQUESTS ($counts)"
fi
ran1="$(grep -c 'Worker finished execution' "$WORK/logs/worker1.log" || true)"
ran2="$(grep -c 'Worker finished execution' "$WORK/logs/worker2.log" || true)"
if [ "$ran1" -gt 0 ] && [ "$ran2" -gt 0 ]; then
	record "ok   both workers took work from the queue: worker 1 ran $ran1 executions, worker 2 ran $ran2"
else
	record "FAIL not both workers took work: worker 1 ran $ran1 executions, worker 2 ran $ran2"
fi
# Only a worker logs "Worker finished execution"; with the database holding exactly $REQUESTS
# executions, the workers having run $REQUESTS means the main ran none.
if [ $((ran1 + ran2)) = "$REQUESTS" ] && [ "$total" = "$REQUESTS" ]; then
	record "ok   the workers ran all $REQUESTS executions the database holds, so the main ran none (they went through the Bull queue)"
else
	record "FAIL the workers ran $((ran1 + ran2)) of the $total executions the database holds, expected $REQUESTS of $REQUESTS"
fi
# 6. The polling trigger: its polls run on the main, the executions they start on a worker.
# trigger/live.mjs binds a beneficiary once a scheduled poll has recorded the list; the next poll
# must start exactly one successful execution carrying it, run by a worker, and the poll after
# that none.
trigger_executions() {
	psql_n8n -c "select (select count(*) from execution_entity where \"workflowId\" = 'PaiLiveTrigger01') || ' ' ||
		coalesce((select e.id::text from execution_entity e join execution_data d on d.\"executionId\" = e.id
		where e.\"workflowId\" = 'PaiLiveTrigger01' and e.status = 'success' and d.data like '%$1%' limit 1), '-')"
}
if check_live_trigger "$SIM_URL" REF-QUEUE-TRIGGER trigger_executions &&
	grep -q "Worker finished execution $LIVE_EXECUTION " "$WORK/logs/worker1.log" "$WORK/logs/worker2.log"; then
	record "ok   polling trigger, polled by the main, run by a worker: $LIVE_VERDICT"
else
	record "FAIL polling trigger (run by a worker?): $LIVE_VERDICT"
fi

if grep -iE 'error|fail|warn' "$WORK"/logs/{main,worker1,worker2}.log | grep -iE "partner|$PACKAGE_NAME" >"$WORK/logs/package-problems.log"; then
	show_log "$WORK/logs/package-problems.log" 20
	record "FAIL the main or a worker logged problems with the package"
else
	record "ok   neither the main nor the workers logged an error or warning about the package"
fi

PASSED="$(grep -c '^ok' "$RESULTS" || true)"
FAILED="$(grep -c '^FAIL' "$RESULTS" || true)"
say "n8n $N8N_APP_VERSION queue mode: $REQUESTS executions in ${LOAD_SECONDS}s, $((SECONDS - STARTED))s in all"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] || die "the package did not pass in n8n queue mode (see above)"
OK=1
