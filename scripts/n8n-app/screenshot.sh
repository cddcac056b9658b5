#!/usr/bin/env bash
# Takes docs/node-parameters.png: the node's parameter panel in the real n8n editor, in
# headless Chromium. Run by hand from the repository root (not part of npm run test:n8n):
#
#   bash scripts/n8n-app/screenshot.sh [output.png]
#
# Also imports each example in examples/ through the editor's Import from File and saves a
# picture of its canvas beside the output (docs/example-<name>.png); SCREENSHOT_EXAMPLES=0 skips.
#
# It reuses the n8n 2.x app (on Node 24) that test-n8n.sh installs (installing it if needed;
# SCREENSHOT_LINE=1 takes the 1.x editor instead), installs the
# package into a temporary user folder, starts the gateway simulator and `n8n start` on free
# 127.0.0.1 ports, sets up the owner account through the REST API, opens a List Beneficiaries
# node with filters set, runs it once (so the output panel shows real simulator data) and saves
# a 1400x900 PNG.
#
# Needs Debian's Chromium at /usr/bin/chromium and a CJK font (fonts-wqy-zenhei), both installed
# with apt-get when missing and run as root, and playwright-core, installed on first use into the cache folder beside the app, never
# into the repository. CHROMIUM=/path overrides the browser; PLAYWRIGHT_CORE_VERSION the
# playwright-core version.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG_PREFIX=screenshot
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh
select_line "${SCREENSHOT_LINE:-2}"

OUT="${1:-docs/node-parameters.png}"
# With the default output, the examples are imported through the editor too and pictured beside it
# (docs/example-<name>.png); SCREENSHOT_EXAMPLES=0 skips them, SCREENSHOT_EXAMPLES="examples/a.json ..."
# pictures only those.
EXAMPLES=""
if [ "${SCREENSHOT_EXAMPLES:-1}" = 1 ]; then
	EXAMPLES="$(ls "$PWD"/examples/*.json)"
elif [ "$SCREENSHOT_EXAMPLES" != 0 ]; then
	# A list of example files: only those are pictured.
	EXAMPLES="$(for file in $SCREENSHOT_EXAMPLES; do realpath "$file"; done)"
fi
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
PLAYWRIGHT_CORE_VERSION="${PLAYWRIGHT_CORE_VERSION:-1.65.1}"
PLAYWRIGHT_DIR="$N8N_APP_CACHE_ROOT/playwright-core-$PLAYWRIGHT_CORE_VERSION"
HERE=scripts/n8n-app
WORK="$(mktemp -d "${TMPDIR:-/tmp}/n8n-screenshot.XXXXXX")"
SIM_PID=""
N8N_PID=""
OK=0

cleanup() {
	local status=$?
	stop_processes $N8N_PID $SIM_PID
	if [ "$OK" = 1 ]; then rm -rf "$WORK"; else printf '[screenshot] logs are kept in %s\n' "$WORK" >&2; fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$WORK/logs"

# The browser: Debian's Chromium, never a browser download; and a CJK font, since the data
# set's account names are partly Chinese and Japanese.
APT_PACKAGES=()
[ -x "$CHROMIUM" ] || APT_PACKAGES+=(chromium)
grep -qiE 'wenquanyi|wqy|noto sans cjk' <<<"$(fc-list 2>/dev/null || true)" || APT_PACKAGES+=(fonts-wqy-zenhei)
if [ "${#APT_PACKAGES[@]}" -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing Debian's ${APT_PACKAGES[*]} (apt-get)"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${APT_PACKAGES[@]}"; } >"$WORK/logs/apt.log" 2>&1 || {
			show_log "$WORK/logs/apt.log"
			die "apt-get install ${APT_PACKAGES[*]} failed"
		}
	elif [ ! -x "$CHROMIUM" ]; then
		die "no Chromium at $CHROMIUM: run 'apt-get update && apt-get install -y chromium fonts-wqy-zenhei' (or set CHROMIUM)"
	fi
fi

# playwright-core, a throwaway install beside the app (it downloads no browser of its own).
if [ ! -f "$PLAYWRIGHT_DIR/node_modules/playwright-core/package.json" ]; then
	say "installing playwright-core $PLAYWRIGHT_CORE_VERSION into $PLAYWRIGHT_DIR"
	mkdir -p "$PLAYWRIGHT_DIR"
	echo '{ "name": "playwright-for-screenshots", "private": true }' >"$PLAYWRIGHT_DIR/package.json"
	(cd "$PLAYWRIGHT_DIR" && npm install --no-audit --no-fund --no-update-notifier "playwright-core@$PLAYWRIGHT_CORE_VERSION") >"$WORK/logs/playwright.log" 2>&1 || {
		show_log "$WORK/logs/playwright.log"
		die "npm install playwright-core@$PLAYWRIGHT_CORE_VERSION failed"
	}
fi

ensure_n8n_app
USER_FOLDER="$WORK/user"
mkdir -p "$USER_FOLDER/.n8n/nodes"
install_package_into "$USER_FOLDER" "$WORK"
n8n_env "$USER_FOLDER"

start_simulator "$WORK"

node "$HERE/make-credential.mjs" "$SIM_URL" "$WORK/credentials.json"
N8N_RUNNERS_BROKER_PORT="$(free_port)" timeout 180 "$N8N_APP_BIN" import:credentials --input="$WORK/credentials.json" >"$WORK/logs/import-credentials.log" 2>&1 || {
	show_log "$WORK/logs/import-credentials.log"
	die "n8n import:credentials failed"
}
N8N_RUNNERS_BROKER_PORT="$(free_port)" timeout 180 "$N8N_APP_BIN" import:workflow --input="$HERE/screenshot/list-beneficiaries.json" >"$WORK/logs/import-workflow.log" 2>&1 || {
	show_log "$WORK/logs/import-workflow.log"
	die "n8n import:workflow failed"
}

start_n8n "$WORK/logs/n8n-start.log"
say "starting n8n $N8N_APP_VERSION on http://127.0.0.1:$N8N_PORT"
wait_json "$N8N_PORT" /rest/settings 180 || {
	show_log "$WORK/logs/n8n-start.log"
	die "n8n start did not become ready on port $N8N_PORT"
}

mkdir -p "$(dirname "$OUT")"
say "taking the screenshot"
PLAYWRIGHT_DIR="$PLAYWRIGHT_DIR" CHROMIUM="$CHROMIUM" N8N_URL="http://127.0.0.1:$N8N_PORT" \
	WORKFLOW_ID=PaiScreenshot001 NODE_ID=d1e2f3a4-0000-4000-8000-000000000002 NODE_NAME="List Beneficiaries" \
	OUT="$OUT" DEBUG_DIR="$WORK" EXAMPLES="$EXAMPLES" EXAMPLES_OUT_DIR="$(dirname "$OUT")" \
	timeout 300 node "$HERE/screenshot.mjs" || {
	show_log "$WORK/logs/n8n-start.log" 30
	die "the screenshot failed"
}
say "saved $OUT"
OK=1
