#!/usr/bin/env bash
# Installs, once into the cache folder, everything the real-app tests need but the package: Node
# 24, the n8n apps of both lines and verdaccio. .ci/run starts it in the background while lint,
# build, the demo and jest run, so a cold machine does not wait for these installs afterwards.
# Best effort: each install holds a lock that test:n8n and test:queue take too, so they wait for
# an install in progress, reuse a finished one, and retry (and report) one that failed here.
set -uo pipefail
cd "$(dirname "$0")/../.."
LOG_PREFIX=prefetch
# shellcheck source=scripts/n8n-app/lib.sh
. scripts/n8n-app/lib.sh
# shellcheck source=scripts/n8n-app/registry.sh
. scripts/n8n-app/registry.sh
# Each in a subshell: a failure (die) stops only that install.
(ensure_node24)
(ensure_verdaccio)
for line in $(selected_lines); do
	(select_line "$line" && ensure_n8n_app)
done
say "done"
