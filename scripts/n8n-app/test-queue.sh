#!/usr/bin/env bash
# npm run test:queue: the package in n8n 2.x queue mode, as larger installs run it: a main
# process that takes webhooks, two `n8n worker` processes that run the executions (Bull queue
# in Redis), PostgreSQL as the database. All on loopback; everything started here is stopped here.
#
#  1. installs Redis and PostgreSQL with apt-get if missing (root), starts both on free
#     127.0.0.1 ports with their data in a temporary folder (PostgreSQL as the postgres user),
#  2. installs the n8n 2.x app (test-n8n.sh's cache), publishes the packed package to a local npm
#     registry that n8n reaches as https://registry.npmjs.org (registry.sh); nothing is copied into
#     the user folders by hand,
#  3. imports the credential and two webhook workflows (scripts/n8n-app/queue/), publishes them;
#     checks that a main told to install an unverified package with unverified packages turned
#     off (n8n 3.0's default) refuses to start and says why; starts the main
#     (EXECUTIONS_MODE=queue, DB_TYPE=postgresdb), which installs the package from
#     N8N_COMMUNITY_PACKAGES (N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV=true) before it activates
#     anything, then two workers, which install what the database says is installed
#     (N8N_REINSTALL_MISSING_PACKAGES=true; in 2.41.1 only the main reads N8N_COMMUNITY_PACKAGES),
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
# shellcheck source=scripts/n8n-app/registry.sh
. scripts/n8n-app/registry.sh

STARTED=$SECONDS
HERE=scripts/n8n-app
REQUESTS="${QUEUE_REQUESTS:-48}"
CONCURRENCY="${QUEUE_WORKER_CONCURRENCY:-10}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/n8n-queue.XXXXXX")"
chmod 711 "$WORK" # PostgreSQL, run as its own user, keeps its data below
SIM_PID="" REDIS_PID="" N8N_PID="" WORKER1_PID="" WORKER2_PID="" PG_DATA="" PG_STARTED=0 REGISTRY_PID="" REGISTRY_FRONT_PID=""
OK=0
N8N_COMMAND_TIMEOUT="${N8N_COMMAND_TIMEOUT:-180}"

as_postgres() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup() {
	local status=$?
	stop_processes $WORKER1_PID $WORKER2_PID $N8N_PID $SIM_PID $REDIS_PID $REGISTRY_FRONT_PID $REGISTRY_PID
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

# 2. The app (2.x, Node 24) and the package, in a local registry; three empty user folders.
select_line 2
ensure_n8n_app
ensure_verdaccio
start_registry "$WORK"
start_registry_front "$WORK"
PACKAGE_VERSION="$(node -p 'require("./package.json").version')"
TARBALL="$(pack_package "$WORK/pack")" || exit 1
publish_to_registry "$TARBALL" latest
for who in main worker1 worker2; do mkdir -p "$WORK/$who/.n8n"; done
# Every process (main and workers) gets the settings of docker/compose.queue.yml (all but the
# hosts and secrets, which are loopback and the test's own here), so that file is what is tested.
COMPOSE_FILE=docker/compose.queue.yml
mapfile -t COMPOSE_ENV < <(node -e '
	const [file, name, version] = process.argv.slice(1);
	const text = require("fs").readFileSync(file, "utf8");
	const block = /^  environment: &n8n-env\n((?:    .*\n)+)/m.exec(text);
	if (!block) throw new Error(`${file} has no "environment: &n8n-env" block`);
	const unquote = (v) => (/^(["\x27]).*\1$/.test(v) ? v.slice(1, -1) : v);
	const env = Object.fromEntries(block[1].split("\n").filter((l) => /^    [A-Z]/.test(l)).map((l) => {
		const [, key, value] = /^    ([A-Z0-9_]+): (.*)$/.exec(l);
		return [key, unquote(value.trim())];
	}));
	// The file names this package at the version under test or at the previous release (what
	// users can install today); the test installs the version under test either way.
	const listed = JSON.parse(env.N8N_COMMUNITY_PACKAGES);
	const previous = require("./scripts/n8n-app/previous-release.json").version;
	if (listed.length !== 1 || listed[0].name !== name || ![version, previous].includes(listed[0].version))
		throw new Error(`${file} installs ${env.N8N_COMMUNITY_PACKAGES}: it must name ${name} at ${version} (package.json) or ${previous} (previous-release.json)`);
	env.N8N_COMMUNITY_PACKAGES = JSON.stringify([{ name, version }]);
	for (const [key, value] of Object.entries(env)) {
		if (/^(DB_|QUEUE_BULL_REDIS_HOST$|N8N_ENCRYPTION_KEY$)/.test(key)) continue;
		console.log(`${key}=${value}`);
	}
' "$COMPOSE_FILE" "$PACKAGE_NAME" "$PACKAGE_VERSION") && [ "${#COMPOSE_ENV[@]}" -gt 0 ] || die "could not read the n8n settings of $COMPOSE_FILE"
export "${COMPOSE_ENV[@]}"
say "settings of $COMPOSE_FILE: ${COMPOSE_ENV[*]}"
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

RESULTS="$WORK/results.txt"
: >"$RESULTS"
record() { echo "$1" | tee -a "$RESULTS"; }

# n8n 3.0 turns unverified packages off by default: a main told to install this package (not yet
# verified by n8n) must refuse to start, and say so, rather than start without it.
say "a main with N8N_UNVERIFIED_PACKAGES_ENABLED=false: must refuse to install the package"
N8N_PORT="$(free_port)"
env "${REGISTRY_CLIENT_ENV[@]}" N8N_UNVERIFIED_PACKAGES_ENABLED=false N8N_PORT="$N8N_PORT" N8N_RUNNERS_BROKER_PORT="$(free_port)" \
	timeout --kill-after=10 120 "$N8N_APP_BIN" start >"$WORK/logs/main-unverified-off.log" 2>&1 && refused_status=0 || refused_status=$?
if [ "$refused_status" -ne 0 ] && [ "$refused_status" -ne 124 ] &&
	grep -q "no checksum available for '$PACKAGE_NAME@$PACKAGE_VERSION' and unverified packages are disabled" "$WORK/logs/main-unverified-off.log"; then
	record "ok   with unverified packages off (N8N_UNVERIFIED_PACKAGES_ENABLED=false, n8n 3.0's default), the main refuses to start: \"N8N_COMMUNITY_PACKAGES: no checksum available for '$PACKAGE_NAME@$PACKAGE_VERSION' and unverified packages are disabled\""
else
	show_log "$WORK/logs/main-unverified-off.log" 20
	record "FAIL with unverified packages off, the main did not refuse the package as expected (exit $refused_status)"
fi
# The other way n8n 3.0 allows: unverified packages still off, the tarball's checksum pinned in
# N8N_COMMUNITY_PACKAGES. n8n checks the download against it and installs the package.
say "a main with unverified packages off and the checksum pinned: must install the package"
CHECKSUM="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$TARBALL")"
rm -rf "$WORK/main/.n8n/nodes"
start_n8n "$WORK/logs/main-checksum.log" "${REGISTRY_CLIENT_ENV[@]}" N8N_UNVERIFIED_PACKAGES_ENABLED=false \
	N8N_COMMUNITY_PACKAGES="[{\"name\":\"$PACKAGE_NAME\",\"version\":\"$PACKAGE_VERSION\",\"checksum\":\"$CHECKSUM\"}]"
if wait_json "$N8N_PORT" /rest/settings 180 &&
	grep -q "Installed community package '$PACKAGE_NAME@$PACKAGE_VERSION' from env" "$WORK/logs/main-checksum.log"; then
	record "ok   with unverified packages off and the tarball's checksum pinned in N8N_COMMUNITY_PACKAGES, the main installs the package (n8n checked the download against it)"
else
	show_log "$WORK/logs/main-checksum.log" 20
	record "FAIL with unverified packages off and the checksum pinned, the main did not install the package"
fi
stop_processes "$N8N_PID"
N8N_PID=""
# Undone, so that the main below installs it from N8N_COMMUNITY_PACKAGES itself.
rm -rf "$WORK/main/.n8n/nodes"
psql_n8n -c "delete from installed_packages where \"packageName\" = '$PACKAGE_NAME'" >/dev/null

start_n8n "$WORK/logs/main.log" "${REGISTRY_CLIENT_ENV[@]}"
say "starting the main on http://127.0.0.1:$N8N_PORT (EXECUTIONS_MODE=queue)"
wait_json "$N8N_PORT" /rest/settings 180 || {
	show_log "$WORK/logs/main.log"
	die "the main did not become ready"
}
for n in 1 2; do
	say "starting worker $n (n8n worker --concurrency=$CONCURRENCY)"
	env "${REGISTRY_CLIENT_ENV[@]}" N8N_USER_FOLDER="$WORK/worker$n" N8N_RUNNERS_BROKER_PORT="$(free_port)" \
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

# Each process fetched the package from the registry itself: the main from N8N_COMMUNITY_PACKAGES,
# the workers from the main's record in the database.
installed=""
for who in main worker1 worker2; do
	installed="$installed $who:$(node -p 'require(process.argv[1]).version' "$WORK/$who/.n8n/nodes/node_modules/$PACKAGE_NAME/package.json" 2>/dev/null || echo none)"
done
if [ "$installed" = " main:$PACKAGE_VERSION worker1:$PACKAGE_VERSION worker2:$PACKAGE_VERSION" ] &&
	grep -q "Installed community package '$PACKAGE_NAME@$PACKAGE_VERSION' from env" "$WORK/logs/main.log"; then
	record "ok   the main installed $PACKAGE_NAME@$PACKAGE_VERSION from N8N_COMMUNITY_PACKAGES and each worker from the main's record (N8N_REINSTALL_MISSING_PACKAGES), all from the registry:$installed"
else
	show_log "$WORK/logs/main.log" 20
	record "FAIL the package was not installed from the registry by every process (on disk:$installed)"
fi

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
