# shellcheck shell=bash
# NATS with JetStream: nats-server built from its Go module (the version in deploy/nats/version),
# with authentication for everyone (deploy/nats/tollgate.conf). Sourced by lib.sh.
#
# TOLLGATE_CLUSTER=3 (or 5) runs a cluster instead: servers nats, nats2, nats3, each with its own
# state folder and ports (node i: the base ports + 10*(i-1)), routes on loopback with a password,
# JetStream on every node. Node 1 keeps the single server's folder (credentials, TLS files).

NATS_VERSION="${TOLLGATE_NATS_VERSION:-$(cat "$REPO_ROOT/deploy/nats/version")}"
# The NKey tool, from the nkeys module that nats-server itself is built with.
NKEYS_VERSION="${TOLLGATE_NKEYS_VERSION:-v0.4.16}"
NATS_PORT="$(check_port TOLLGATE_NATS_PORT 4222)"
NATS_MONITOR_PORT="$(check_port TOLLGATE_NATS_MONITOR_PORT 8222)"
NATS_TLS="${TOLLGATE_NATS_TLS:-0}"

# The cluster's size: TOLLGATE_CLUSTER, else what the running nodes were started with (so
# status.sh and down.sh see a cluster without being told), else 1.
nats_shape_file() { printf '%s/nats/cluster' "$STATE_ROOT"; }
NATS_NODES="${TOLLGATE_CLUSTER:-}"
if [ -z "$NATS_NODES" ] && [ -s "$(nats_shape_file)" ]; then NATS_NODES="$(cat "$(nats_shape_file)")"; fi
NATS_NODES="${NATS_NODES:-1}"
case "$NATS_NODES" in
  1 | 3 | 5) ;;
  *) die "TOLLGATE_CLUSTER='$NATS_NODES' is not a cluster size: expected 1, 3 or 5 (JetStream needs a majority)" ;;
esac
# Routes between nodes: node i listens on this + 10*(i-1) (default: the client port + 2000).
NATS_CLUSTER_PORT="$(TOLLGATE_NATS_CLUSTER_PORT="${TOLLGATE_NATS_CLUSTER_PORT:-$((NATS_PORT + 2000))}" check_port TOLLGATE_NATS_CLUSTER_PORT 6222)"

nats_clustered() { [ "$NATS_NODES" -gt 1 ]; }
# nats_node_port BASE I: the port of node I (1-based) for a base port.
nats_node_port() { printf '%s' "$(($1 + 10 * ($2 - 1)))"; }
# nats_node_name I: the server name the scripts use for node I (nats, nats2, nats3, ...).
nats_node_name() { if [ "$1" -eq 1 ]; then printf 'nats'; else printf 'nats%s' "$1"; fi; }
nats_node_dir() { state_dir "$(nats_node_name "$1")"; }
# nats_urls: every node's client URL, comma-separated (TOLLGATE_NATS_URL takes this list).
nats_urls() {
  local i out='' scheme=nats
  if nats_tls; then scheme=tls; fi
  for ((i = 1; i <= NATS_NODES; i++)); do
    out+="${out:+,}$scheme://127.0.0.1:$(nats_node_port "$NATS_PORT" "$i")"
  done
  printf '%s' "$out"
}

nats_tls() { [ "$NATS_TLS" = 1 ] || [ "$NATS_TLS" = true ]; }

nats_node_match() { printf '%s/nats.conf' "$(nats_node_dir "$1")"; }
# Node i's ports, named by the base variable they derive from (the one to change).
nats_node_ports() {
  local i="$1" pair
  pair="TOLLGATE_NATS_PORT=$(nats_node_port "$NATS_PORT" "$i") TOLLGATE_NATS_MONITOR_PORT=$(nats_node_port "$NATS_MONITOR_PORT" "$i")"
  if nats_clustered; then pair+=" TOLLGATE_NATS_CLUSTER_PORT=$(nats_node_port "$NATS_CLUSTER_PORT" "$i")"; fi
  printf '%s' "$pair"
}
nats_node_addr() {
  local port
  port="$(nats_node_port "$NATS_PORT" "$1")"
  if nats_tls; then
    printf 'tls://127.0.0.1:%s (CA %s/tls/ca.pem)' "$port" "$(state_dir nats)"
  else
    printf 'nats://127.0.0.1:%s' "$port"
  fi
}
# A single server is healthy once JetStream is on; a cluster node once it also follows the
# JetStream meta leader (plain /healthz), so up.sh returns with the cluster formed.
nats_node_health_url() {
  local query='?js-enabled-only=true'
  if nats_clustered; then query=''; fi
  printf '%s://127.0.0.1:%s/healthz%s' "$(nats_tls && echo https || echo http)" \
    "$(nats_node_port "$NATS_MONITOR_PORT" "$1")" "$query"
}
nats_node_healthy() {
  if nats_tls; then
    curl -sf -o /dev/null --max-time 3 --cacert "$(state_dir nats)/tls/ca.pem" "$(nats_node_health_url "$1")"
  else
    http_ok "$(nats_node_health_url "$1")"
  fi
}

nats_match() { nats_node_match 1; }
nats_timeout() { printf '20'; }
nats_stop_timeout() { printf '15'; }
nats_ports() { nats_node_ports 1; }
nats_addr() { nats_node_addr 1; }
nats_health_desc() { printf 'GET %s' "$(nats_node_health_url 1)"; }
nats_healthy() { nats_node_healthy 1; }

nats_bin() { printf '%s/nats-server/%s/bin/nats-server' "$CACHE_ROOT" "$NATS_VERSION"; }
nk_bin() { printf '%s/nats-server/%s/bin/nk' "$CACHE_ROOT" "$NATS_VERSION"; }

# Debian's nats-server (2.9) lacks auth callout; `go install` builds the real thing in ~2 min.
nats_provision() {
  [ -x "$(nats_bin)" ] && [ -x "$(nk_bin)" ] && return 0
  require_cmd nats go "install Go 1.24 or newer (https://go.dev/dl/ or apt-get install golang-go) to build nats-server"
  local started bindir
  started="$(date +%s)"
  bindir="$(dirname "$(nats_bin)")"
  mkdir -p "$bindir"
  info "nats: building nats-server $NATS_VERSION with Go, takes a few minutes the first time (log: $(provision_log nats))"
  export GOMODCACHE="$CACHE_ROOT/go/mod" GOCACHE="$CACHE_ROOT/go/build" GOBIN="$bindir"
  export GOFLAGS="-modcacherw -buildvcs=false" CGO_ENABLED=0
  run_logged nats "go install nats-server" go install -trimpath "github.com/nats-io/nats-server/v2@$NATS_VERSION" || exit 1
  run_logged nats "go install nk" go install -trimpath "github.com/nats-io/nkeys/nk@$NKEYS_VERSION" || exit 1
  rm -rf "$GOCACHE" # the build cache is not needed once the binaries exist
  info "nats: built $(nats_bin) in $(($(date +%s) - started))s"
}

# nats_tls_files DIR: a private CA and a server certificate for 127.0.0.1/localhost (kept).
nats_tls_files() {
  local tls="$1/tls"
  [ -s "$tls/server.pem" ] && return 0
  require_cmd nats openssl "install openssl to run NATS with TLS"
  mkdir -p "$tls" && chmod 700 "$tls"
  run_logged nats "tls: CA" openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$tls/ca-key.pem" -out "$tls/ca.pem" -days 825 -subj "/CN=tollgate-local-ca" || exit 1
  run_logged nats "tls: server key" openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$tls/server-key.pem" -out "$tls/server.csr" -subj "/CN=localhost" || exit 1
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$tls/san.ext"
  run_logged nats "tls: server certificate" openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" \
    -CAkey "$tls/ca-key.pem" -CAcreateserial -out "$tls/server.pem" -days 825 -extfile "$tls/san.ext" || exit 1
}

# nats_node_refresh I PID: the permissions (deploy/nats/tollgate.conf) of this checkout, by a reload.
nats_node_refresh() {
  local dir
  nats_check_shape
  dir="$(nats_node_dir "$1")"
  cmp -s "$REPO_ROOT/deploy/nats/tollgate.conf" "$dir/tollgate.conf" && return 0
  cp "$REPO_ROOT/deploy/nats/tollgate.conf" "$dir/tollgate.conf"
  kill -HUP "$2" && info "$(nats_node_name "$1"): reloaded the changed permissions (deploy/nats/tollgate.conf)"
}
nats_refresh() { nats_node_refresh 1 "$1"; }

# nats_check_shape: refuses a size other than the running nodes' (a single server counts as 1).
nats_check_shape() {
  local i pid running='' current=1
  for ((i = 1; i <= 5; i++)); do
    # Not server_pid: nodes beyond this size have no functions defined.
    pid="$(cat "$(pid_file "$(nats_node_name "$i")")" 2>/dev/null)" || continue
    if [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q nats-server; then running="$i"; fi
  done
  if [ -s "$(nats_shape_file)" ]; then current="$(cat "$(nats_shape_file)")"; fi
  if [ -n "$running" ] && [ "$current" != "$NATS_NODES" ]; then
    die "nats: running as $current node(s), asked for $NATS_NODES (TOLLGATE_CLUSTER); stop it first (down.sh nats)"
  fi
  return 0
}

# nats_route_secret: the password the nodes' routes authenticate with (made once, mode 600), so
# no other local process can join the cluster as a route and read its traffic.
nats_route_secret() {
  local file
  file="$(state_dir nats)/credentials/cluster-route.secret"
  if [ ! -s "$file" ]; then
    (umask 077 && random_secret >"$file")
  fi
  cat "$file"
}

# nats_node_start I: writes node I's config (in its own folder) and starts it.
nats_node_start() {
  local i="$1" dir keys tls_block='' http_line cluster_block='' data j routes='' secret name suffix
  dir="$(nats_node_dir "$i")"
  keys="$(state_dir nats)"
  name="$(nats_node_name "$i")"
  nats_check_shape
  mkdir -p "$dir" "$keys"
  # The keys live with node 1 (services and tests read credentials/ there); every node gets
  # the same public keys and permissions.
  sh "$REPO_ROOT/deploy/nats/keys.sh" "$keys" "$(nk_bin)" 2>>"$(provision_log nats)" \
    || die "nats: could not make the NKeys (log: $(provision_log nats))"
  [ "$dir" = "$keys" ] || cp "$keys/keys.conf" "$dir/keys.conf"
  cp "$REPO_ROOT/deploy/nats/tollgate.conf" "$dir/tollgate.conf"
  http_line="http: 127.0.0.1:$(nats_node_port "$NATS_MONITOR_PORT" "$i")"
  if nats_tls; then
    nats_tls_files "$keys"
    tls_block="tls { cert_file: \"$keys/tls/server.pem\", key_file: \"$keys/tls/server-key.pem\" }"
    http_line="https: 127.0.0.1:$(nats_node_port "$NATS_MONITOR_PORT" "$i")"
  fi
  data="$dir/data"
  if nats_clustered; then
    # A cluster's JetStream state is not a single server's: node 1 keeps them apart.
    [ "$i" -gt 1 ] || data="$dir/cluster-data"
    secret="$(nats_route_secret)"
    for ((j = 1; j <= NATS_NODES; j++)); do
      routes+="    \"nats-route://route:$secret@127.0.0.1:$(nats_node_port "$NATS_CLUSTER_PORT" "$j")\""$'\n'
    done
    cluster_block="cluster {
  name: tollgate-local
  listen: 127.0.0.1:$(nats_node_port "$NATS_CLUSTER_PORT" "$i")
  authorization { user: route, password: \"$secret\" }
  routes: [
$routes  ]
}"
    printf '%s\n' "$NATS_NODES" >"$(nats_shape_file)"
  else
    rm -f "$(nats_shape_file)"
  fi
  mkdir -p "$data"
  suffix=''
  if nats_clustered; then suffix="-$i"; fi
  (
    umask 077 # the route password is in it
    cat >"$dir/nats.conf" <<EOF
# generated by deploy/local/nats.sh on every start
server_name: tollgate-local$suffix
listen: 127.0.0.1:$(nats_node_port "$NATS_PORT" "$i")
$http_line
$tls_block
jetstream {
  store_dir: "$data"
}
$cluster_block
include ./tollgate.conf
EOF
  )
  start_background "$name" "$(nats_bin)" -c "$dir/nats.conf"
}
nats_start() { nats_node_start 1; }

# Nodes 2..N are servers of their own (nats2, nats3, ...) for up.sh, status.sh and down.sh.
nats_define_nodes() {
  local i n
  for ((i = 2; i <= NATS_NODES; i++)); do
    n="nats$i"
    eval "${n}_match() { nats_node_match $i; }
      ${n}_timeout() { nats_timeout; }
      ${n}_stop_timeout() { nats_stop_timeout; }
      ${n}_ports() { nats_node_ports $i; }
      ${n}_addr() { nats_node_addr $i; }
      ${n}_health_desc() { printf 'GET %s' \"\$(nats_node_health_url $i)\"; }
      ${n}_healthy() { nats_node_healthy $i; }
      ${n}_provision() { nats_provision; }
      ${n}_start() { nats_node_start $i; }
      ${n}_refresh() { nats_node_refresh $i \"\$1\"; }"
  done
}
nats_define_nodes
# nats_node_names: nats nats2 ... natsN (the names `nats` stands for in up/status/down).
nats_node_names() {
  local i
  for ((i = 1; i <= NATS_NODES; i++)); do printf '%s ' "$(nats_node_name "$i")"; done
}
