#!/usr/bin/env bash
# Stop the local servers (SIGTERM, then SIGKILL after a timeout): down.sh [nats|ferretdb|elasticsearch ...]
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
resolve_servers "$@"

for s in "${SERVERS[@]}"; do
  stop_server "$s"
done
