#!/usr/bin/env bash
# Provision (first run only), start and health-check the local servers: up.sh [SERVER ...]
# (no argument: DEFAULT_SERVERS in lib.sh; names: nats ferretdb elasticsearch postgres mariadb jaeger directus)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
resolve_servers "$@"
require_cmd infra curl "install curl (apt-get install curl)"
require_cmd infra setsid "install util-linux"
require_cmd infra flock "install util-linux"

# One up.sh at a time per state folder: two would provision the same cluster or datadir at once.
mkdir -p "$STATE_ROOT"
exec 9>"$STATE_ROOT/.up.lock"
if ! flock -n 9; then
  info "up: another up.sh is working on $STATE_ROOT; waiting for it"
  flock 9
fi

begin="$(date +%s)"
declare -A deadline=() was_running=()
failed=0

# Phase 1: provision and start whatever is not running (servers boot while later ones build).
for s in "${SERVERS[@]}"; do
  mkdir -p "$(state_dir "$s")"
  if pid="$(server_pid "$s")"; then
    was_running[$s]=1
    # A running server whose configuration this checkout changed takes it without a restart.
    if declare -F "${s}_refresh" >/dev/null; then "${s}_refresh" "$pid"; fi
    deadline[$s]=$(($(date +%s) + $("${s}_timeout")))
    continue
  fi
  rm -f "$(pid_file "$s")"
  # Subshell: a failed step (die) fails this server only; the others still come up.
  set +e
  (
    set -e
    ensure_ports_free "$s"
    "${s}_provision"
    "${s}_start"
  )
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then
    deadline[$s]=$(($(date +%s) + $("${s}_timeout")))
    info "$s: starting (log: $(log_file "$s"))"
  else
    err "$s: not started (provisioning or start failed, exit code $rc)"
    failed=1
  fi
done

# Phase 2: poll every started server once a second until it is healthy, has died, or timed out.
pending=()
for s in "${SERVERS[@]}"; do
  if [ -n "${deadline[$s]:-}" ]; then pending+=("$s"); fi
done
while [ "${#pending[@]}" -gt 0 ]; do
  still=()
  for s in "${pending[@]}"; do
    if ! pid="$(server_pid "$s")"; then
      report_failure "$s" "process exited during startup"
      failed=1
    elif "${s}_healthy"; then
      if [ -n "${was_running[$s]:-}" ]; then
        info "$s: already running on $("${s}_addr") (pid $pid)"
      else
        info "$s: started on $("${s}_addr") (pid $pid)"
      fi
    elif [ "$(date +%s)" -ge "${deadline[$s]}" ]; then
      report_failure "$s" "not healthy after $("${s}_timeout")s ($("${s}_health_desc"))"
      failed=1
    else
      still+=("$s")
    fi
  done
  pending=("${still[@]}")
  if [ "${#pending[@]}" -gt 0 ]; then sleep 1; fi
done

if [ "$failed" -ne 0 ]; then
  err "up: some servers failed (see above); state in $STATE_ROOT"
  exit 1
fi
if [ "${#was_running[@]}" -eq "${#SERVERS[@]}" ]; then
  info "up: nothing to do, ${SERVERS[*]} already running and healthy"
else
  info "up: ${SERVERS[*]} healthy in $(($(date +%s) - begin))s"
fi
