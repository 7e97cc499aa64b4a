# shellcheck shell=bash
# Shared helpers for deploy/local/{up,down,status}.sh. Sourced, never run directly.

LOCAL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$LOCAL_DIR/../.." && pwd)"
STATE_ROOT="${TOLLGATE_STATE_DIR:-$REPO_ROOT/.tollgate/local}"
CACHE_ROOT="${TOLLGATE_CACHE_DIR:-${HOME:-/tmp}/.cache/tollgate}"
# Every server the scripts know, in start order: the ones that only start (or install a Debian
# package) first, so they boot while the slow builds (FerretDB, Jaeger, Directus) run.
ALL_SERVERS=(nats elasticsearch postgres mariadb ferretdb jaeger directus)
# What `up.sh` with no argument starts: everything the test suite needs (all of them).
DEFAULT_SERVERS=(nats elasticsearch postgres mariadb ferretdb jaeger directus)

info() { printf '[infra] %s\n' "$*"; }
err() { printf '[infra] %s\n' "$*" >&2; }
die() { err "$@"; exit 1; }

# resolve_servers [name...]: fills SERVERS, in ALL_SERVERS order, without duplicates
# (DEFAULT_SERVERS when no name is given).
resolve_servers() {
  SERVERS=()
  [ $# -eq 0 ] && set -- "${DEFAULT_SERVERS[@]}"
  local s wanted=" "
  for s in "$@"; do
    case "$s" in
      nats) s="$(nats_node_names)" ;;
      nats[2-9]) [[ " $(nats_node_names)" == *" $s "* ]] || die "unknown server '$s': the NATS cluster has $NATS_NODES node(s) (TOLLGATE_CLUSTER)" ;;
      ferretdb | ferret | mongo | mongodb) s=ferretdb ;;
      elasticsearch | elastic | es) s=elasticsearch ;;
      postgres | postgresql | pg) s=postgres ;;
      mariadb | mysql) s=mariadb ;;
      directus) s=directus ;;
      jaeger) s=jaeger ;;
      -h | --help) die "usage: $(basename "$0") [$(IFS='|' && printf '%s' "${ALL_SERVERS[*]}") ...] (aliases: mongo, es, pg, mysql)" ;;
      *) die "unknown server '$s' (known: ${ALL_SERVERS[*]}; aliases: mongo, es, pg, mysql)" ;;
    esac
    wanted+="$s "
  done
  for s in "${ALL_SERVERS[@]}"; do
    if [[ "$wanted" == *" $s "* ]]; then SERVERS+=("$s"); fi
  done
  return 0
}

# check_port VAR DEFAULT: prints the port from env var VAR, or dies if it is not a port number.
check_port() {
  local value="${!1:-$2}"
  if ! [[ "$value" =~ ^[0-9]+$ ]] || [ "$value" -lt 1 ] || [ "$value" -gt 65535 ]; then
    die "$1='$value' is not a port number"
  fi
  printf '%s' "$value"
}

# state_dir NAME: <state root>/NAME, unless NAME's script set STATE_DIR_<NAME>.
state_dir() {
  local override="STATE_DIR_$1"
  printf '%s' "${!override:-$STATE_ROOT/$1}"
}
pid_file() { printf '%s/server.pid' "$(state_dir "$1")"; }
log_file() { printf '%s/server.log' "$(state_dir "$1")"; }
provision_log() { printf '%s/provision.log' "$(state_dir "$1")"; }

# world_searchable PATH: true if every existing folder on the way to PATH lets others enter it.
world_searchable() {
  local d="$1"
  while [ "$d" != / ] && [ -n "$d" ]; do
    if [ -d "$d" ] && [ "$(($(stat -c '%a' "$d") % 2))" -eq 0 ]; then # even last digit: no o+x
      return 1
    fi
    d="$(dirname "$d")"
  done
}

# private_state_dir NAME: where NAME keeps files that an unprivileged server user must reach:
# <state>/NAME/data, or, as root with a state folder under a private folder (such as /root),
# /var/tmp/tollgate-<hash of state root>/NAME.
private_state_dir() {
  if [ "$(id -u)" -eq 0 ] && ! world_searchable "$STATE_ROOT/$1"; then
    printf '/var/tmp/tollgate-%s/%s' "$(printf '%s' "$STATE_ROOT" | sha256sum | cut -c1-8)" "$1"
  else
    printf '%s/data' "$(state_dir "$1")"
  fi
}

# ensure_system_user NAME USER WHY: as root, creates system user USER if missing.
ensure_system_user() {
  id "$2" >/dev/null 2>&1 && return 0
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$2" \
    || die "$1: could not create system user $2 ($3)"
  info "$1: created system user $2 ($3)"
}

# run_as_cmd USER: prints (one word a line) the setpriv prefix that runs a command as USER.
run_as_cmd() {
  printf '%s\n' setpriv "--reuid=$1" "--regid=$(id -g "$1")" --init-groups
}

# apt_install NAME PACKAGE...: installs Debian packages, without letting their maintainer
# scripts start the system's own copy of the service (which would take the default port).
apt_install() {
  local name="$1" started guard=""
  shift
  command -v apt-get >/dev/null || die "$name: $* not installed; install it with your package manager (Debian/Ubuntu: apt-get install $*)"
  [ "$(id -u)" -eq 0 ] || die "$name: $* not installed; run: sudo apt-get install -y $*"
  started="$(date +%s)"
  info "$name: installing Debian package(s) $* (log: $(provision_log "$name"))"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    guard=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\n# written by deploy/local during apt-get install, removed after it\nexit 101\n' >"$guard"
    chmod 755 "$guard"
  fi
  export DEBIAN_FRONTEND=noninteractive
  local rc=0
  run_logged "$name" "apt-get install $*" apt-get install -y --no-install-recommends "$@" \
    || { run_logged "$name" "apt-get update" apt-get update && run_logged "$name" "apt-get install $*" apt-get install -y --no-install-recommends "$@"; } \
    || rc=1
  if [ -n "$guard" ]; then rm -f "$guard"; fi
  [ "$rc" -eq 0 ] || die "$name: could not install $*"
  info "$name: installed $* in $(($(date +%s) - started))s"
}

# random_secret: 32 URL-safe random characters (no quoting needed in URLs, env files or SQL).
random_secret() {
  head -c 24 /dev/urandom | base64 | tr '+/' '-_'
}

# env_value FILE KEY: prints KEY's value from a KEY=VALUE file (nothing if absent).
env_value() {
  if [ -f "$1" ]; then sed -n "s/^$2=//p" "$1" | head -n 1; fi
}

# server_pid NAME: prints the pid from the pid file if that process is alive and is ours.
server_pid() {
  local file pid
  file="$(pid_file "$1")"
  [ -f "$file" ] || return 1
  pid="$(cat "$file" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$("${1}_match")" || return 1
  printf '%s' "$pid"
}

# port_in_use PORT: true if something accepts TCP connections on 127.0.0.1:PORT.
port_in_use() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

port_owner() {
  command -v ss >/dev/null || return 0
  ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'users:(([^)]*))' | head -n 1
}

# ensure_ports_free NAME: dies naming the port and its env variable if one is taken.
ensure_ports_free() {
  local pair var port owner
  for pair in $("${1}_ports"); do
    var="${pair%%=*}"
    port="${pair#*=}"
    if port_in_use "$port"; then
      owner="$(port_owner "$port")"
      die "$1: port $port is already in use by another process${owner:+ ($owner)}; stop it or set $var to a free port"
    fi
  done
}

# http_ok URL [max seconds]: true on a 2xx answer.
http_ok() {
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time "${2:-3}" "$1" 2>/dev/null)" || return 1
  [[ "$code" == 2* ]]
}

require_cmd() { # require_cmd SERVER CMD "what to install"
  command -v "$2" >/dev/null 2>&1 || die "$1: '$2' not found: $3"
}

# start_background NAME CMD...: runs CMD in its own session (so down.sh can signal the whole
# process group), output appended to the server log, pid written to the pid file.
start_background() {
  local name="$1" log pid
  shift
  log="$(log_file "$name")"
  printf '\n==== %s start %s\n' "$(date -u +%FT%TZ)" "$*" >>"$log"
  # 9>&-: the server must not inherit up.sh's lock (it would hold it for as long as it runs).
  (cd "$(state_dir "$name")" && exec setsid "$@" >>"$log" 2>&1 </dev/null 9>&-) &
  pid=$!
  printf '%s\n' "$pid" >"$(pid_file "$name")"
}

report_failure() {
  local log
  log="$(log_file "$1")"
  err "$1: FAILED: $2"
  if [ -s "$log" ]; then
    err "$1: last 30 lines of $log:"
    tail -n 30 "$log" | sed 's/^/    /' >&2
  fi
  err "$1: full log: $log"
}

# run_logged NAME STEP CMD...: runs a provisioning command with its output in provision.log.
run_logged() {
  local name="$1" step="$2" log
  shift 2
  log="$(provision_log "$name")"
  printf '\n==== %s %s: %s\n' "$(date -u +%FT%TZ)" "$step" "$*" >>"$log"
  if ! "$@" >>"$log" 2>&1; then
    err "$name: FAILED: $step"
    err "$name: last 30 lines of $log:"
    tail -n 30 "$log" | sed 's/^/    /' >&2
    return 1
  fi
}

# stop_server NAME: SIGTERM to the process group, then SIGKILL after NAME_stop_timeout seconds.
stop_server() {
  local name="$1" pid waited=0 limit sig
  if ! pid="$(server_pid "$name")"; then
    rm -f "$(pid_file "$name")"
    info "$name: not running"
    return 0
  fi
  limit="$("${name}_stop_timeout")"
  sig=TERM # a server may ask for another signal (PostgreSQL: INT, its fast shutdown)
  if declare -F "${name}_stop_signal" >/dev/null; then sig="$("${name}_stop_signal")"; fi
  kill "-$sig" -- "-$pid" 2>/dev/null || kill "-$sig" "$pid" 2>/dev/null || true
  while kill -0 -- "-$pid" 2>/dev/null && [ "$waited" -lt "$limit" ]; do
    sleep 1
    waited=$((waited + 1))
  done
  if kill -0 -- "-$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null || true
    info "$name: did not stop within ${limit}s, killed (pid $pid)"
  else
    info "$name: stopped (pid $pid)"
  fi
  rm -f "$(pid_file "$name")"
}

# Per-server settings and functions (NAME_provision, NAME_start, NAME_healthy, ...).
# shellcheck source=nats.sh
source "$LOCAL_DIR/nats.sh"
# A cluster's nodes 2..N come right after nats (TOLLGATE_CLUSTER, nats.sh).
read -r -a _nodes <<<"$(nats_node_names)"
ALL_SERVERS=("${_nodes[@]}" "${ALL_SERVERS[@]:1}")
DEFAULT_SERVERS=("${_nodes[@]}" "${DEFAULT_SERVERS[@]:1}")
unset _nodes
# shellcheck source=ferretdb.sh
source "$LOCAL_DIR/ferretdb.sh"
# shellcheck source=elasticsearch.sh
source "$LOCAL_DIR/elasticsearch.sh"
# shellcheck source=postgres.sh
source "$LOCAL_DIR/postgres.sh"
# shellcheck source=mariadb.sh
source "$LOCAL_DIR/mariadb.sh"
# shellcheck source=jaeger.sh
source "$LOCAL_DIR/jaeger.sh"
# shellcheck source=directus.sh
source "$LOCAL_DIR/directus.sh"
