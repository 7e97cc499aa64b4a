# shellcheck shell=bash
# MongoDB wire protocol: FerretDB v1 with its SQLite backend, built from source with Go.
# Sourced by lib.sh.

FERRETDB_VERSION="${TOLLGATE_FERRETDB_VERSION:-v1.24.2}"
MONGO_PORT="$(check_port TOLLGATE_MONGO_PORT 27017)"
FERRETDB_DEBUG_PORT="$(check_port TOLLGATE_FERRETDB_DEBUG_PORT 8088)"

ferretdb_match() { printf 'ferretdb'; }
ferretdb_timeout() { printf '60'; }
ferretdb_stop_timeout() { printf '15'; }
ferretdb_ports() { printf 'TOLLGATE_MONGO_PORT=%s TOLLGATE_FERRETDB_DEBUG_PORT=%s' "$MONGO_PORT" "$FERRETDB_DEBUG_PORT"; }
ferretdb_addr() { printf 'mongodb://127.0.0.1:%s' "$MONGO_PORT"; }
ferretdb_health_desc() { printf 'GET http://127.0.0.1:%s/debug/readyz' "$FERRETDB_DEBUG_PORT"; }
ferretdb_healthy() { http_ok "http://127.0.0.1:$FERRETDB_DEBUG_PORT/debug/readyz"; }

ferretdb_bin() { printf '%s/ferretdb/%s/bin/ferretdb' "$CACHE_ROOT" "$FERRETDB_VERSION"; }

# `go install ...@version` builds a binary that panics at start: FerretDB embeds
# build/version/version.txt, which its own build tooling generates. So: download the module
# source, write version.txt, then `go build` it (the SQLite backend needs no build tag).
ferretdb_provision() {
  local bin work src started
  bin="$(ferretdb_bin)"
  [ -x "$bin" ] && return 0
  require_cmd ferretdb go "install Go 1.24 or newer (https://go.dev/dl/ or apt-get install golang-go) to build FerretDB"
  work="$CACHE_ROOT/ferretdb/$FERRETDB_VERSION"
  started="$(date +%s)"
  info "ferretdb: building FerretDB $FERRETDB_VERSION with Go, takes a few minutes the first time (log: $(provision_log ferretdb))"
  export GOMODCACHE="$CACHE_ROOT/go/mod" GOCACHE="$CACHE_ROOT/go/build"
  export GOFLAGS="-modcacherw -buildvcs=false" CGO_ENABLED=0
  src="$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" 2>>"$(provision_log ferretdb)" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" || true
  if [ -z "$src" ] || [ ! -d "$src" ]; then
    die "ferretdb: could not download github.com/FerretDB/FerretDB@$FERRETDB_VERSION (log: $(provision_log ferretdb))"
  fi
  rm -rf "$work/src" && mkdir -p "$work/bin"
  cp -r "$src" "$work/src" && chmod -R u+w "$work/src"
  printf '%s\n' "$FERRETDB_VERSION" >"$work/src/build/version/version.txt"
  (cd "$work/src" && run_logged ferretdb "go build" go build -trimpath -o "$bin.tmp" ./cmd/ferretdb) || exit 1
  mv "$bin.tmp" "$bin"
  rm -rf "$work/src" "$GOCACHE" # the build cache (~0.8 GB) is not needed once the binary exists
  info "ferretdb: built $bin in $(($(date +%s) - started))s"
}

ferretdb_start() {
  local dir
  dir="$(state_dir ferretdb)"
  mkdir -p "$dir/data"
  start_background ferretdb "$(ferretdb_bin)" \
    --handler=sqlite --sqlite-url="file:$dir/data/" \
    --listen-addr="127.0.0.1:$MONGO_PORT" --debug-addr="127.0.0.1:$FERRETDB_DEBUG_PORT" \
    --state-dir="$dir" --telemetry=disable --log-level=info
}
