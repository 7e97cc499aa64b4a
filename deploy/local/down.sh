#!/usr/bin/env bash
# Stop the local servers (SIGTERM, then SIGKILL after a timeout): down.sh [SERVER ...] (no argument: every server)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [ $# -eq 0 ]; then set -- "${ALL_SERVERS[@]}"; fi # every server the scripts know
resolve_servers "$@"

for s in "${SERVERS[@]}"; do
  stop_server "$s"
done
# With no node left running, the next start takes its size from TOLLGATE_CLUSTER again.
stopped=1
for s in $(nats_node_names); do
  if server_pid "$s" >/dev/null; then stopped=0; fi
done
if [ "$stopped" = 1 ]; then rm -f "$(nats_shape_file)"; fi
