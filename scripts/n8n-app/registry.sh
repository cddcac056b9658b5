# shellcheck shell=bash
# A local npm registry that the real n8n apps reach as https://registry.npmjs.org, so the tests
# install the package the way users do: from a registry, through n8n's own installer. Source it
# after lib.sh (it uses say, die, free_port, wait_http, show_log, npm_failure_kind and
# N8N_APP_CACHE_ROOT); it defines functions and variables, and runs nothing.
#
# Why the detour: n8n (1.123.81, 2.41.1) honours N8N_COMMUNITY_PACKAGES_REGISTRY only with an
# enterprise licence. Without one it always runs `npm pack <pkg>@<version>
# --registry=https://registry.npmjs.org` (inheriting n8n's environment) and GETs
# https://registry.npmjs.org/<pkg>/<version> itself. So:
#   ensure_verdaccio            verdaccio, installed once into the cache folder
#   start_registry <work>       verdaccio on 127.0.0.1 (no uplinks: it only has what is published)
#   publish_to_registry <tgz>   npm publish to it
#   start_registry_front <work> registry-front.mjs, an HTTPS proxy that terminates TLS for
#                               registry.npmjs.org with a test CA's certificate, forwards to
#                               verdaccio and refuses (and logs) every other host
# and every n8n process gets `env "${REGISTRY_CLIENT_ENV[@]}"`.
#
# Verdaccio 6.8.0: the newest 6.x whose engines still allow Node 20 (6.9 and later want Node 22),
# so one install serves line 1.x (Node 20) and line 2.x (Node 24). It is plain JavaScript.
VERDACCIO_VERSION="${VERDACCIO_VERSION:-6.8.0}"
VERDACCIO_INSTALL_TIMEOUT="${VERDACCIO_INSTALL_TIMEOUT:-300}"
REGISTRY_SH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

# Installs verdaccio $VERDACCIO_VERSION into $N8N_APP_CACHE_ROOT/verdaccio-<version> unless a
# complete install is there. Sets VERDACCIO_DIR and VERDACCIO_BIN (run it with `node`).
# verdaccio-audit asks for node-fetch by its dist-tag "cjs" (2.7.0 on registry.npmjs.org), which
# a mirror that copies only "latest" (3.x, ESM only) cannot resolve: pinned to 2.7.0 instead.
ensure_verdaccio() {
	local marker attempt log status kind fingerprint="verdaccio=$VERDACCIO_VERSION node-fetch=2.7.0"
	VERDACCIO_DIR="$N8N_APP_CACHE_ROOT/verdaccio-$VERDACCIO_VERSION"
	VERDACCIO_BIN="$VERDACCIO_DIR/node_modules/verdaccio/bin/verdaccio"
	marker="$VERDACCIO_DIR/.install-complete"
	mkdir -p "$N8N_APP_CACHE_ROOT"

	# One installer at a time per cache folder (fd 8: ensure_n8n_app uses 9).
	exec 8>"$N8N_APP_CACHE_ROOT/.install-verdaccio-$VERDACCIO_VERSION.lock"
	if command -v flock >/dev/null 2>&1; then
		flock -w 900 8 || die "timed out waiting for another install of verdaccio in $N8N_APP_CACHE_ROOT"
	fi
	if [ -f "$marker" ] && [ "$(cat "$marker")" = "$fingerprint" ] && [ -f "$VERDACCIO_BIN" ]; then
		exec 8>&-
		return 0
	fi

	say "verdaccio $VERDACCIO_VERSION: installing into $VERDACCIO_DIR (once; later runs reuse it)"
	rm -rf "$VERDACCIO_DIR"
	mkdir -p "$VERDACCIO_DIR"
	cat >"$VERDACCIO_DIR/package.json" <<JSON
{
  "name": "verdaccio-for-partner-account-inquiry-tests",
  "private": true,
  "description": "The local npm registry of scripts/n8n-app/registry.sh. Generated; safe to delete.",
  "dependencies": {
    "verdaccio": "$VERDACCIO_VERSION"
  },
  "overrides": { "node-fetch": "2.7.0" }
}
JSON
	for attempt in 1 2; do
		log="$VERDACCIO_DIR/npm-install.$attempt.log"
		status=0
		# No install scripts: verdaccio and its dependencies need none (no native code).
		(
			cd "$VERDACCIO_DIR" &&
				timeout --kill-after=30 "$VERDACCIO_INSTALL_TIMEOUT" \
					npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier \
					--loglevel=http --fetch-timeout=120000 --fetch-retries=3 --fetch-retry-mintimeout=5000
		) >"$log" 2>&1 || status=$?
		if [ "$status" -eq 0 ] && [ "$(node "$VERDACCIO_BIN" --version 2>>"$log")" = "v$VERDACCIO_VERSION" ]; then
			echo "$fingerprint" >"$marker"
			say "verdaccio $VERDACCIO_VERSION installed"
			exec 8>&-
			return 0
		fi
		if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
			kind="npm install did not finish within ${VERDACCIO_INSTALL_TIMEOUT}s (a slow or stalled registry)"
		elif [ "$status" -eq 0 ]; then
			kind="npm install finished but verdaccio does not run (node $VERDACCIO_BIN --version)"
		else
			kind="$(npm_failure_kind "$log")"
		fi
		show_log "$log" 25
		if [ "$attempt" -eq 1 ]; then
			say "verdaccio install attempt 1 failed: $kind. Retrying once from a clean folder."
			rm -rf "$VERDACCIO_DIR/node_modules" "$VERDACCIO_DIR/package-lock.json"
		fi
	done
	exec 8>&-
	die "could not install verdaccio $VERDACCIO_VERSION from the npm registry: $kind. This is not a failure of the package under test; run again when the registry answers (logs: $VERDACCIO_DIR/npm-install.*.log)."
}

# Starts verdaccio in the background on a free 127.0.0.1 port, its files (config, storage,
# htpasswd, verdaccio.log) in $1/registry, and creates the user that publishes. No uplinks: it
# serves only what publish_to_registry put there, and 404s the rest. Its public URL is
# https://registry.npmjs.org, so manifests name tarballs there (reached through the front).
# Sets REGISTRY_DIR, REGISTRY_PORT, REGISTRY_URL (http://127.0.0.1:<port>/, for publishing),
# REGISTRY_PID and REGISTRY_TOKEN.
start_registry() {
	local work="$1" user="n8n-test-publisher" password
	[ -n "$work" ] || die "usage: start_registry <work dir>"
	[ -n "${VERDACCIO_BIN:-}" ] || ensure_verdaccio
	REGISTRY_DIR="$work/registry"
	mkdir -p "$REGISTRY_DIR/storage"
	REGISTRY_PORT="$(free_port)"
	cat >"$REGISTRY_DIR/config.yaml" <<YAML
# Generated by scripts/n8n-app/registry.sh for one test run.
storage: $REGISTRY_DIR/storage
listen: 127.0.0.1:$REGISTRY_PORT
auth:
  htpasswd:
    file: $REGISTRY_DIR/htpasswd
    max_users: 10
uplinks: {}
packages:
  '@*/*':
    access: \$all
    publish: \$authenticated
    unpublish: \$authenticated
  '**':
    access: \$all
    publish: \$authenticated
    unpublish: \$authenticated
web:
  enable: false
max_body_size: 50mb
log: { type: stdout, format: pretty, level: http }
YAML
	# Verdaccio itself never goes out (no uplinks); no proxy of the caller's is handed to it.
	env -u HTTPS_PROXY -u https_proxy -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy \
		VERDACCIO_PUBLIC_URL=https://registry.npmjs.org \
		node "$VERDACCIO_BIN" --config "$REGISTRY_DIR/config.yaml" >"$REGISTRY_DIR/verdaccio.log" 2>&1 &
	REGISTRY_PID=$!
	REGISTRY_URL="http://127.0.0.1:$REGISTRY_PORT/"
	wait_http "$REGISTRY_PORT" /-/ping 60 || {
		show_log "$REGISTRY_DIR/verdaccio.log"
		die "verdaccio did not start on $REGISTRY_URL"
	}
	password="$(node -p 'require("crypto").randomBytes(18).toString("hex")')"
	# The registry's adduser API (what `npm adduser` calls): 201 with a token for the new user.
	REGISTRY_TOKEN="$(node -e '
		const [port, name, password] = process.argv.slice(1);
		const body = JSON.stringify({ _id: `org.couchdb.user:${name}`, name, password, type: "user", roles: [], date: new Date().toISOString() });
		const req = require("http").request({
			host: "127.0.0.1", port, method: "PUT", path: `/-/user/org.couchdb.user:${encodeURIComponent(name)}`,
			headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }, timeout: 20000,
		}, (res) => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (chunk) => (text += chunk));
			res.on("end", () => {
				let token;
				try { token = JSON.parse(text).token; } catch {}
				if (res.statusCode !== 201 || !token) {
					console.error(`adduser answered ${res.statusCode}: ${text}`);
					process.exit(1);
				}
				console.log(token);
			});
		});
		req.on("error", (error) => { console.error(error.message); process.exit(1); });
		req.on("timeout", () => req.destroy(new Error("adduser timed out")));
		req.end(body);
	' "$REGISTRY_PORT" "$user" "$password" 2>"$REGISTRY_DIR/adduser.log")" || {
		show_log "$REGISTRY_DIR/adduser.log"
		show_log "$REGISTRY_DIR/verdaccio.log"
		die "could not create the publishing user in verdaccio ($REGISTRY_URL)"
	}
	say "local npm registry (verdaccio $VERDACCIO_VERSION) on $REGISTRY_URL (pid $REGISTRY_PID)"
}

# Publishes the tarball $1 to the local registry under the dist-tag $2 (default latest), with the
# token of start_registry in a throwaway userconfig (~/.npmrc is neither read nor touched).
publish_to_registry() {
	local tarball="$1" tag="${2:-latest}" npmrc log name
	[ -n "${REGISTRY_TOKEN:-}" ] || die "publish_to_registry: start_registry first"
	[ -f "$tarball" ] || die "publish_to_registry: no tarball at \"$tarball\""
	tarball="$(cd "$(dirname "$tarball")" && pwd -P)/$(basename "$tarball")"
	name="$(tar -xzOf "$tarball" package/package.json 2>/dev/null |
		node -e 'const p = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(`${p.name}@${p.version}`)' 2>/dev/null)" ||
		die "publish_to_registry: $tarball is not an npm package tarball (no package/package.json)"
	npmrc="$REGISTRY_DIR/publish.npmrc"
	log="$REGISTRY_DIR/publish-${name//\//+}.log"
	(umask 077 && printf '//127.0.0.1:%s/:_authToken=%s\n' "$REGISTRY_PORT" "$REGISTRY_TOKEN" >"$npmrc")
	# From the registry folder, so no project .npmrc applies; straight to 127.0.0.1, no proxy.
	if ! (cd "$REGISTRY_DIR" &&
		env -u HTTPS_PROXY -u https_proxy -u HTTP_PROXY -u http_proxy \
			npm publish "$tarball" --userconfig="$npmrc" --registry="$REGISTRY_URL" --tag="$tag" \
			--access=public --provenance=false --ignore-scripts --no-update-notifier --loglevel=warn \
			--logs-dir="$REGISTRY_DIR/npm-logs") >"$log" 2>&1; then
		show_log "$log" 20
		if grep -qE 'EPUBLISHCONFLICT|cannot publish over|previously published' "$log"; then
			die "could not publish $name to the local registry: that version is already there"
		fi
		die "could not publish $name to the local registry ($REGISTRY_URL, dist-tag $tag; log: $log)"
	fi
	say "published $name to the local registry (dist-tag $tag)"
}

# Makes a throwaway CA and a certificate for registry.npmjs.org (subjectAltName: clients check
# it, not the CN) in $1/registry, and starts registry-front.mjs in front of verdaccio
# (start_registry first). Refused hosts go to $1/registry/refused.log. Sets REGISTRY_FRONT_PID,
# REGISTRY_FRONT_URL, REGISTRY_REFUSED_LOG and REGISTRY_CLIENT_ENV: VAR=value words for
# `env "${REGISTRY_CLIENT_ENV[@]}" ...` on every n8n process (and the npm it runs).
start_registry_front() {
	local work="$1" dir port
	[ -n "${REGISTRY_PORT:-}" ] || die "start_registry_front: start_registry first"
	dir="$work/registry"
	mkdir -p "$dir"
	command -v openssl >/dev/null 2>&1 || die "openssl is needed to make the test registry's certificate"
	if ! {
		openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 7 \
			-keyout "$dir/ca.key" -out "$dir/ca.pem" -subj "/CN=n8n-nodes-partner-account-inquiry throwaway test CA" \
			-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" &&
			openssl req -newkey rsa:2048 -nodes -sha256 \
				-keyout "$dir/registry.npmjs.org.key" -out "$dir/registry.npmjs.org.csr" -subj "/CN=registry.npmjs.org" &&
			printf '%s\n' "subjectAltName=DNS:registry.npmjs.org" "basicConstraints=CA:FALSE" \
				"keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" \
				"subjectKeyIdentifier=hash" "authorityKeyIdentifier=keyid" >"$dir/registry.npmjs.org.ext" &&
			openssl x509 -req -sha256 -days 7 -in "$dir/registry.npmjs.org.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
				-set_serial "0x$(openssl rand -hex 16)" -extfile "$dir/registry.npmjs.org.ext" -out "$dir/registry.npmjs.org.pem"
	} >"$dir/openssl.log" 2>&1; then
		show_log "$dir/openssl.log"
		die "openssl could not make the test registry's certificate"
	fi
	REGISTRY_REFUSED_LOG="$dir/refused.log"
	: >"$REGISTRY_REFUSED_LOG"
	port="$(free_port)"
	node "$REGISTRY_SH_DIR/registry-front.mjs" "$port" "$REGISTRY_PORT" "$dir/registry.npmjs.org.pem" \
		"$dir/registry.npmjs.org.key" "$REGISTRY_REFUSED_LOG" >"$dir/front.log" 2>&1 &
	REGISTRY_FRONT_PID=$!
	REGISTRY_FRONT_URL="http://127.0.0.1:$port"
	wait_http "$port" / 20 || {
		show_log "$dir/front.log"
		die "registry-front.mjs did not start on $REGISTRY_FRONT_URL"
	}
	mkdir -p "$work/npm-cache"
	# NO_PROXY is set, not extended: a caller's NO_PROXY naming npmjs.org would bypass the front.
	# The npm_config_* settings outrank any in an npmrc. npm_config_cafile too: npm trusts only its
	# cafile when one is configured (this machine's global npmrc names the system bundle), so
	# NODE_EXTRA_CA_CERTS alone reaches n8n's own requests but not the npm it runs. Both name only
	# the test CA; every other TLS host is refused anyway. npm_config_cache is new per run, so no
	# manifest cached by an earlier run (or from the real registry) is used.
	REGISTRY_CLIENT_ENV=(
		"HTTPS_PROXY=$REGISTRY_FRONT_URL" "https_proxy=$REGISTRY_FRONT_URL"
		"HTTP_PROXY=$REGISTRY_FRONT_URL" "http_proxy=$REGISTRY_FRONT_URL"
		"NO_PROXY=127.0.0.1,localhost,::1" "no_proxy=127.0.0.1,localhost,::1"
		"npm_config_https_proxy=$REGISTRY_FRONT_URL" "npm_config_proxy=$REGISTRY_FRONT_URL"
		"npm_config_noproxy=127.0.0.1,localhost,::1"
		"NODE_EXTRA_CA_CERTS=$dir/ca.pem" "npm_config_cafile=$dir/ca.pem"
		"npm_config_cache=$work/npm-cache"
	)
	say "registry front on $REGISTRY_FRONT_URL (pid $REGISTRY_FRONT_PID): https://registry.npmjs.org is the local registry, every other host is refused ($REGISTRY_REFUSED_LOG)"
}
