#!/usr/bin/env bash
# One line per server; exit 0 only if all selected servers are healthy: status.sh [SERVER ...] (no argument: DEFAULT_SERVERS)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
resolve_servers "$@"
require_cmd infra curl "install curl (apt-get install curl)"

rc=0
for s in "${SERVERS[@]}"; do
  if pid="$(server_pid "$s")"; then
    state=running
    if "${s}_healthy"; then health=healthy; else health=unhealthy; rc=1; fi
  else
    state=stopped pid=- health=- rc=1
  fi
  printf '[infra] %-14s %-8s pid=%-8s %-36s %s\n' "$s" "$state" "$pid" "$("${s}_addr")" "$health"
done
exit "$rc"
