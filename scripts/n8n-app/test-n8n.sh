#!/usr/bin/env bash
# npm run test:n8n: proves the package in the real n8n app (not only in n8n's engine), on both
# release lines the package supports, one after the other:
#
#   1.x  n8n 1.123.81 on the system Node (20)
#   2.x  n8n 2.41.1 on Node 24 (unpacked from the npm registry into the cache folder)
#
# Each app is installed once into ${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-account-inquiry
# and reused. The package is built and packed once, and the previous release
# (previous-release.json) is built from this repository's history; both are published to one local
# npm registry (verdaccio, registry.sh) that the n8n apps reach as https://registry.npmjs.org. Then
# smoke-line.sh installs the package into each app through n8n's Settings > Community nodes,
# upgrades it from the previous release, and runs every check (see docs/real-n8n-app.md).
#
# Prints one "ok"/"FAIL" line per check, a prefixed subtotal per line, and closes with one plain
# "N passed, N failed" line over all lines (.ci/run adds it to its total). A line that could not
# run at all (its install failed, say) counts as one failed check. Exits non-zero on any failure.
#
# Environment:
#   N8N_APP_LINES            which lines: "1", "2" or "1,2" (default 1,2)
#   N8N_APP_VERSION_1X       n8n version of line 1.x (default 1.123.81)
#   N8N_APP_VERSION_2X       n8n version of line 2.x (default 2.41.1)
#   N8N_NODE24_VERSION       Node for line 2.x (default 24.21.0)
#   N8N_APP_CACHE_ROOT       cache folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-account-inquiry)
#   N8N_APP_INSTALL_TIMEOUT  seconds per npm install attempt (default 600)
#   N8N_COMMAND_TIMEOUT      seconds per n8n CLI command (default 180)
#   N8N_SMOKE_KEEP=1         keep each line's temporary folder (n8n user folder, logs) even on success
#   N8N_UPGRADE_CHECK=0      install this version directly instead of upgrading from the previous release
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh
# shellcheck source=scripts/n8n-app/registry.sh
. scripts/n8n-app/registry.sh

LINES="$(selected_lines)"
PACK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/n8n-smoke-pack.XXXXXX")"
mkdir -p "$PACK_DIR/logs"
REGISTRY_PID="" REGISTRY_FRONT_PID=""
trap 'stop_processes $REGISTRY_FRONT_PID $REGISTRY_PID; rm -rf "$PACK_DIR"' EXIT

# One registry for the whole run: the previous release, then this version (the "latest" tag).
ensure_verdaccio
start_registry "$PACK_DIR"
start_registry_front "$PACK_DIR"
export PACKAGE_VERSION PREVIOUS_VERSION="" REGISTRY_ENV_FILE="$PACK_DIR/registry.env"
PACKAGE_VERSION="$(node -p 'require("./package.json").version')"
if [ "${N8N_UPGRADE_CHECK:-1}" != 0 ]; then
	PREVIOUS_VERSION="$(node -p 'require("./scripts/n8n-app/previous-release.json").version')"
	[ "$PREVIOUS_VERSION" != "$PACKAGE_VERSION" ] ||
		die "package.json and scripts/n8n-app/previous-release.json both say $PACKAGE_VERSION: raise the version in package.json (after a release, previous-release.json names it)"
	mkdir -p "$PACK_DIR/previous"
	publish_to_registry "$(pack_previous_release "$PACK_DIR/previous")" previous
fi
publish_to_registry "$(pack_package "$PACK_DIR/pack")" latest
printf '%s\n' "${REGISTRY_CLIENT_ENV[@]}" >"$REGISTRY_ENV_FILE"

TOTAL_PASSED=0
TOTAL_FAILED=0
SUMMARY=""
STATUS=0
for line in $LINES; do
	log="$PACK_DIR/line-$line.log"
	started=$SECONDS
	set +e
	bash scripts/n8n-app/smoke-line.sh "$line" 2>&1 | tee "$log"
	line_status=${PIPESTATUS[0]}
	set -e
	counts="$(sed -nE 's/^n8n [^ ]+: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" | tail -n 1)"
	if [ -z "$counts" ]; then
		# The line stopped before its checks ended (an install failure, say): one failure, plus
		# whatever checks it had already failed or passed.
		counts="$(grep -c '^ok' "$log" || true) $(($(grep -c '^FAIL' "$log" || true) + 1))"
	fi
	read -r passed failed <<<"$counts"
	[ "$line_status" -eq 0 ] || { STATUS=1; [ "$failed" -gt 0 ] || failed=1; }
	TOTAL_PASSED=$((TOTAL_PASSED + passed))
	TOTAL_FAILED=$((TOTAL_FAILED + failed))
	SUMMARY="$SUMMARY  $line.x: $passed passed, $failed failed ($((SECONDS - started))s)"$'\n'
done
say "lines $(echo "$LINES" | sed 's/\([12]\)/\1.x/g'), $SECONDS s in all"
printf '%s' "$SUMMARY"
echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
exit "$STATUS"
