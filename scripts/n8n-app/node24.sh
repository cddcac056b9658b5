#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH, the Node that n8n 2.x wants, without touching the
# system Node: the npm registry's node-linux-<arch> package, unpacked once into the cache folder
# beside the n8n apps (${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-account-inquiry/node-24.x).
# The system npm then runs under Node 24 too.
#
#   bash scripts/n8n-app/node24.sh node -v
#   bash scripts/n8n-app/node24.sh npx jest      # npm run test:node24: the jest suite on Node 24
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG_PREFIX=node24
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh
[ "$#" -gt 0 ] || die "usage: node24.sh <command> [args...]"
ensure_node24
export PATH="$NODE24_DIR/bin:$PATH"
export npm_config_nodedir="$NODE24_DIR"
exec "$@"
