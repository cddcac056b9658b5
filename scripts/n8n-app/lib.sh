# shellcheck shell=bash
# Shared by test-n8n.sh and screenshot.sh: where the real n8n app lives, how it is installed
# (once, into a cache folder outside the repository), and how n8n is kept quiet and local.
# Source it from the repository root; it defines functions and variables, and runs nothing.

# The n8n release line this package is proven against. 1.123.x is the last line whose full
# app installs and runs on Node 20; override with N8N_APP_VERSION=1.123.<n> to try another.
N8N_APP_VERSION="${N8N_APP_VERSION:-1.123.81}"
N8N_APP_CACHE_ROOT="${N8N_APP_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-account-inquiry}"
N8N_APP_DIR="$N8N_APP_CACHE_ROOT/n8n-$N8N_APP_VERSION"
N8N_APP_BIN="$N8N_APP_DIR/node_modules/.bin/n8n"
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

# Waits until http://127.0.0.1:$1$2 answers, for at most $3 seconds: with any HTTP status, or
# with 200 when $4 is "200".
wait_http() {
	local port="$1" path="$2" seconds="$3" want="${4:-any}" i
	for ((i = 0; i < seconds * 4; i++)); do
		if node -e '
			const [port, path, want] = process.argv.slice(1);
			const req = require("http").get({ host: "127.0.0.1", port, path, timeout: 2000 }, (res) => {
				res.resume();
				process.exit(want === "any" || String(res.statusCode) === want ? 0 : 1);
			});
			req.on("error", () => process.exit(1));
			req.on("timeout", () => { req.destroy(); process.exit(1); });
		' "$port" "$path" "$want" 2>/dev/null; then
			return 0
		fi
		sleep 0.25
	done
	return 1
}

# Environment for every n8n command: nothing leaves the machine, nothing waits on the internet.
n8n_env() {
	local user_folder="$1"
	export N8N_USER_FOLDER="$user_folder"
	export N8N_ENCRYPTION_KEY="partner-account-inquiry-smoke-test-key"
	export DB_TYPE=sqlite
	export N8N_EXPRESSION_ENGINE=legacy
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

# Installs the pinned n8n app into $N8N_APP_DIR unless a complete install is already there.
# The folder has its own package.json: xlsx pinned to the registry's 0.18.5 (n8n-nodes-base
# asks for a tarball on a vendor CDN that cannot be reached) and isolated-vm's native build
# denied through npm 11's allowScripts (it does not build on Node 20 and the legacy expression
# engine does not need it). Every other install script runs as usual (sqlite3 among them).
ensure_n8n_app() {
	local repo_root node_major fingerprint marker attempt log status kind
	repo_root="$(pwd -P)"
	mkdir -p "$N8N_APP_CACHE_ROOT"
	case "$(cd "$N8N_APP_CACHE_ROOT" && pwd -P)/" in
	"$repo_root"/*) die "the n8n app cache ($N8N_APP_CACHE_ROOT) must be outside the repository" ;;
	esac
	node_major="$(node -p 'process.versions.node.split(".")[0]')"
	fingerprint="n8n=$N8N_APP_VERSION node=$node_major xlsx=0.18.5 deny=isolated-vm"
	marker="$N8N_APP_DIR/.install-complete"

	# One installer at a time per cache folder (two CI jobs on one machine, say).
	exec 9>"$N8N_APP_CACHE_ROOT/.install.lock"
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
  "overrides": {
    "xlsx": "0.18.5"
  },
  "allowScripts": {
    "isolated-vm": false
  }
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
			(cd "$N8N_APP_DIR" && node -e 'require("sqlite3")') >>"$log" 2>&1; then
			echo "$fingerprint" >"$marker"
			say "n8n $N8N_APP_VERSION installed"
			exec 9>&-
			return 0
		fi
		if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
			kind="npm install did not finish within ${N8N_APP_INSTALL_TIMEOUT}s (a slow or stalled registry)"
		elif [ "$status" -eq 0 ]; then
			kind="npm install finished but the app is incomplete (no n8n binary, wrong version or no sqlite3 binding)"
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

# Builds the package, packs it and installs the tarball as a community package into
# $1/.n8n/nodes/node_modules, the way n8n's own installer does: unpack, drop dev, peer and
# optional dependencies, npm install without scripts. Prints nothing on success.
install_package_into() {
	local user_folder="$1" work="$2" tarball nodes pkg_dir
	say "building the package (npm run build) and packing it"
	npm run build --silent >"$work/build.log" 2>&1 || {
		show_log "$work/build.log"
		die "npm run build failed"
	}
	mkdir -p "$work/pack"
	npm pack --silent --pack-destination "$work/pack" >"$work/pack.log" 2>&1 || {
		show_log "$work/pack.log"
		die "npm pack failed"
	}
	tarball="$(find "$work/pack" -maxdepth 1 -name '*.tgz' -print -quit)"
	[ -n "$tarball" ] || die "npm pack produced no tarball"
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
# background. Sets SIM_PORT, SIM_URL and SIM_PID (the caller's cleanup stops it). $1: work dir.
start_simulator() {
	local work="$1"
	say "starting the gateway simulator (npm run build:dev)"
	npm run build:dev --silent >"$work/logs/build-dev.log" 2>&1 || {
		show_log "$work/logs/build-dev.log"
		die "npm run build:dev failed"
	}
	SIM_PORT="$(free_port)"
	SIM_URL="http://127.0.0.1:$SIM_PORT"
	node .dev-dist/sandbox/cli.js --port "$SIM_PORT" >"$work/logs/simulator.log" 2>&1 &
	SIM_PID=$!
	wait_http "$SIM_PORT" / 20 || {
		show_log "$work/logs/simulator.log"
		die "the simulator did not start on $SIM_URL"
	}
	say "simulator on $SIM_URL (pid $SIM_PID)"
}
