# shellcheck shell=bash
# Directus (npm `directus`, pinned) over SQLite: the HTTP API behind the http resource kind's
# tests, with a `tickets` collection and a static token for the connector (directus/setup.mjs).
# Sourced by lib.sh.

DIRECTUS_VERSION="${TOLLGATE_DIRECTUS_VERSION:-12.3.1}" # 12.4.1 needs a package version not served here
DIRECTUS_PORT="$(check_port TOLLGATE_DIRECTUS_PORT 8055)"
DIRECTUS_ADMIN_EMAIL=admin@example.com

directus_match() { printf 'directus'; }
directus_timeout() { printf '90'; }
directus_stop_timeout() { printf '15'; }
directus_ports() { printf 'TOLLGATE_DIRECTUS_PORT=%s' "$DIRECTUS_PORT"; }
directus_addr() { printf 'http://127.0.0.1:%s' "$DIRECTUS_PORT"; }
# /server/health needs authentication since Directus 12; /server/info is public and reads the
# project settings from the database.
directus_health_desc() { printf 'GET http://127.0.0.1:%s/server/info' "$DIRECTUS_PORT"; }
directus_healthy() { http_ok "http://127.0.0.1:$DIRECTUS_PORT/server/info" 3; }

directus_home() { printf '%s/directus/%s' "$CACHE_ROOT" "$DIRECTUS_VERSION"; }
# The server's own CLI, not directus/cli.js, which first asks the npm registry for a newer
# version on every run (and prints a banner about it).
directus_cli() { printf '%s/node_modules/@directus/api/dist/cli/run.js' "$(directus_home)"; }
directus_setup_hash() { sha256sum <"$LOCAL_DIR/directus/setup.mjs" | cut -c1-12; }

# node-gyp must build argon2, isolated-vm and sqlite3 against the headers of the Node that will
# run them: the ones installed with it, under its prefix (include/node), not a download.
directus_node_prefix() {
  local prefix
  prefix="$(node -p 'require("path").dirname(require("path").dirname(process.execPath))')" || return 1
  [ -f "$prefix/include/node/node.h" ] || return 1
  printf '%s' "$prefix"
}

# The native modules load (and isolated-vm runs code) with the Node on PATH.
directus_check_native() {
  (cd "$(directus_home)/node_modules/@directus/api" && node --input-type=module -e "
    import { createRequire } from 'node:module';
    const require = createRequire(process.cwd() + '/package.json');
    const argon2 = require('argon2');
    const hash = await argon2.hash('probe');
    if (!(await argon2.verify(hash, 'probe'))) throw new Error('argon2 verify failed');
    const ivm = require('isolated-vm');
    const isolate = new ivm.Isolate({ memoryLimit: 8 });
    if ((await isolate.compileScriptSync('6 * 7').run(isolate.createContextSync())) !== 42) throw new Error('isolated-vm');
    const sqlite3 = require('sqlite3');
    await new Promise((ok, ko) => new sqlite3.Database(':memory:').get('SELECT 1 AS one', (e, r) => e || r.one !== 1 ? ko(e ?? new Error('sqlite3')) : ok()));
  ")
}

directus_install() {
  local home prefix started
  home="$(directus_home)"
  [ -f "$home/.complete" ] && return 0
  require_cmd directus node "install Node.js 20 or newer"
  require_cmd directus npm "install npm (it comes with Node.js)"
  require_cmd directus make "install make and a C++ compiler (apt-get install build-essential python3)"
  require_cmd directus python3 "install python3 (node-gyp needs it)"
  prefix="$(directus_node_prefix)" || die "directus: no Node headers next to $(command -v node) (expected <prefix>/include/node/node.h); install Node.js with its headers"
  started="$(date +%s)"
  info "directus: npm install directus@$DIRECTUS_VERSION, building argon2, isolated-vm and sqlite3 from source; several minutes the first time (log: $(provision_log directus))"
  rm -rf "$home" && mkdir -p "$home"
  printf '{ "name": "tollgate-directus", "private": true }\n' >"$home/package.json"
  # npm runs the modules' install scripts (prebuild-install finds no prebuilt binary here and
  # falls back to node-gyp, which uses npm_config_nodedir instead of downloading headers).
  (cd "$home" && run_logged directus "npm install directus@$DIRECTUS_VERSION" env \
    npm_config_nodedir="$prefix" npm_config_ignore_scripts=false npm_config_engine_strict=false \
    npm_config_cache="$CACHE_ROOT/npm" npm_config_update_notifier=false \
    npm install --no-audit --no-fund --save-exact "directus@$DIRECTUS_VERSION") || exit 1
  run_logged directus "check argon2, isolated-vm and sqlite3 load" directus_check_native \
    || die "directus: a native module does not load with $(node --version) (log: $(provision_log directus))"
  touch "$home/.complete"
  info "directus: installed in $home in $(($(date +%s) - started))s"
}

# Directus reads its configuration from this file (mode 600: it holds the secret and the
# admin password), so no secret is on a command line or in a log.
directus_write_config() {
  local dir="$1" secret admin_pw
  secret="$(env_value "$dir/directus.env" SECRET)"
  admin_pw="$(env_value "$dir/admin.env" DIRECTUS_ADMIN_PASSWORD)"
  [ -n "$secret" ] || secret="$(random_secret)$(random_secret)"
  [ -n "$admin_pw" ] || admin_pw="$(random_secret)"
  mkdir -p "$dir/data" "$dir/uploads" "$dir/extensions"
  (umask 077 && cat >"$dir/directus.env" <<EOF
# generated by deploy/local/directus.sh on every start
HOST=127.0.0.1
PORT=$DIRECTUS_PORT
PUBLIC_URL=http://127.0.0.1:$DIRECTUS_PORT
DB_CLIENT=sqlite3
DB_FILENAME=$dir/data/directus.db
SECRET=$secret
ADMIN_EMAIL=$DIRECTUS_ADMIN_EMAIL
ADMIN_PASSWORD=$admin_pw
STORAGE_LOCATIONS=local
STORAGE_LOCAL_ROOT=$dir/uploads
EXTENSIONS_PATH=$dir/extensions
TELEMETRY=false
WEBSOCKETS_ENABLED=false
CACHE_ENABLED=false
RATE_LIMITER_ENABLED=false
EMAIL_VERIFY_SETUP=false
LOG_LEVEL=info
LOG_STYLE=raw
LOG_HTTP_IGNORE_PATHS=/server/info,/server/ping
EOF
  )
  # Directus looks for extensions in the package.json of its working folder.
  [ -f "$dir/package.json" ] || printf '{ "name": "tollgate-directus-state", "private": true }\n' >"$dir/package.json"
  (umask 077 && cat >"$dir/admin.env" <<EOF
# Directus admin of the local instance; written by deploy/local/directus.sh
DIRECTUS_URL=http://127.0.0.1:$DIRECTUS_PORT
DIRECTUS_ADMIN_EMAIL=$DIRECTUS_ADMIN_EMAIL
DIRECTUS_ADMIN_PASSWORD=$admin_pw
EOF
  )
}

directus_provision() {
  local dir stamp pid waited=0 token started
  directus_install
  dir="$(state_dir directus)"
  stamp="$DIRECTUS_VERSION $(directus_setup_hash)"
  if [ "$(cat "$dir/.provisioned" 2>/dev/null)" = "$stamp" ] && [ -s "$dir/connector.env" ]; then return 0; fi
  started="$(date +%s)"
  directus_write_config "$dir"
  info "directus: bootstrap (database, migrations, admin) and the tickets collection (log: $(provision_log directus))"
  # A bootstrap cut short leaves a database that counts as installed but has no admin: start
  # afresh unless one completed.
  if [ ! -f "$dir/.bootstrapped" ]; then rm -f "$dir/data/directus.db"; fi
  (cd "$dir" && run_logged directus "directus bootstrap" env CONFIG_PATH="$dir/directus.env" node "$(directus_cli)" bootstrap) || exit 1
  touch "$dir/.bootstrapped"
  # setup.mjs talks to the REST API, so run the server for it once, on the port checked free.
  printf '\n==== %s setup server\n' "$(date -u +%FT%TZ)" >>"$(provision_log directus)"
  (cd "$dir" && exec env CONFIG_PATH="$dir/directus.env" node "$(directus_cli)" start >>"$(provision_log directus)" 2>&1 </dev/null 9>&-) &
  pid=$!
  until directus_healthy; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$waited" -ge 90 ]; then
      kill "$pid" 2>/dev/null
      err "directus: FAILED: the setup server did not become healthy; last 30 lines of $(provision_log directus):"
      tail -n 30 "$(provision_log directus)" | sed 's/^/    /' >&2
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  token="$(env_value "$dir/connector.env" DIRECTUS_TOKEN)"
  [ -n "$token" ] || token="$(random_secret)"
  # The secrets go through the environment: run_logged writes its command line to the log.
  if ! (
    DIRECTUS_URL="$(directus_addr)"
    DIRECTUS_ADMIN_PASSWORD="$(env_value "$dir/admin.env" DIRECTUS_ADMIN_PASSWORD)"
    DIRECTUS_CONNECTOR_TOKEN="$token"
    export DIRECTUS_URL DIRECTUS_ADMIN_EMAIL DIRECTUS_ADMIN_PASSWORD DIRECTUS_CONNECTOR_TOKEN
    run_logged directus "directus/setup.mjs" node "$LOCAL_DIR/directus/setup.mjs"
  ); then
    kill "$pid" 2>/dev/null
    exit 1
  fi
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
  (umask 077 && cat >"$dir/connector.env" <<EOF
# Static token of the Directus user tollgate-connector@example.com (role "Ticket connector":
# read, create and update tickets; nothing else). Written by deploy/local/directus.sh
DIRECTUS_PORT=$DIRECTUS_PORT
DIRECTUS_COLLECTION=tickets
DIRECTUS_TOKEN=$token
EOF
  )
  printf '%s\n' "$stamp" >"$dir/.provisioned"
  info "directus: ready in $(($(date +%s) - started))s (connector token: $dir/connector.env, admin: $dir/admin.env)"
}

directus_start() {
  local dir
  dir="$(state_dir directus)"
  directus_write_config "$dir"
  sed -i "s/^DIRECTUS_PORT=.*/DIRECTUS_PORT=$DIRECTUS_PORT/" "$dir/connector.env"
  start_background directus env CONFIG_PATH="$dir/directus.env" node "$(directus_cli)" start
}
