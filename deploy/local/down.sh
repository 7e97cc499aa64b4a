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
