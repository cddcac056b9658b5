#!/usr/bin/env bash
# npm run dev:n8n: the n8n that `npm run dev -- --external-n8n` talks to, for when `npm run dev`
# cannot install its own (it runs `npx n8n@latest`, which needs the newest release to install
# from the registry, and Node 24).
#
#   terminal 1: npm run dev -- --external-n8n    # links the package into ~/.n8n-node-cli/.n8n/custom, tsc --watch
#   terminal 2: npm run dev:n8n                  # n8n 2.x from the test cache, on Node 24, hot reload on
#
# Starts the n8n 2.x app that test:n8n installs (installing it and Node 24 once if needed) with
# N8N_USER_FOLDER=${N8N_DEV_USER_FOLDER:-~/.n8n-node-cli} (n8n-node dev's default folder; pass the
# same --custom-user-folder to both) and N8N_DEV_RELOAD=true, on http://localhost:${N8N_PORT:-5678}.
# The node appears as CUSTOM.partnerAccountInquiry (a linked folder, not an installed package).
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG_PREFIX=dev:n8n
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh
select_line "${N8N_DEV_LINE:-2}"
ensure_n8n_app
USER_FOLDER="${N8N_DEV_USER_FOLDER:-$HOME/.n8n-node-cli}"
[ -e "$USER_FOLDER/.n8n/custom/node_modules/$PACKAGE_NAME" ] ||
	say "note: $USER_FOLDER/.n8n/custom/node_modules/$PACKAGE_NAME does not exist yet: start 'npm run dev -- --external-n8n' too"
export N8N_USER_FOLDER="$USER_FOLDER"
line_env
export N8N_DEV_RELOAD=true
export N8N_PORT="${N8N_PORT:-5678}"
export N8N_RUNNERS_BROKER_PORT="${N8N_RUNNERS_BROKER_PORT:-$(free_port)}"
export N8N_DIAGNOSTICS_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false N8N_SECURE_COOKIE=false
say "n8n $N8N_APP_VERSION on Node $(node -v), user folder $USER_FOLDER, http://localhost:$N8N_PORT"
exec "$N8N_APP_BIN" start
