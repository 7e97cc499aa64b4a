#!/usr/bin/env bash
# Command-line tools the repo's checks need, built from pinned Go modules and cached:
#   tools.sh helm              builds helm if needed, prints the path of the binary
#   tools.sh helm lint CHART   builds helm if needed, then runs it with those arguments
# Progress goes to stderr, so `HELM="$(bash deploy/local/tools.sh helm)"` is safe.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HELM_VERSION="${TOLLGATE_HELM_VERSION:-v3.22.0}"

helm_bin() { printf '%s/tools/helm/%s/bin/helm' "$CACHE_ROOT" "$HELM_VERSION"; }

# Helm's release builds set its version with -ldflags; without them `helm version` would
# report whatever the source says, so set it the same way here.
helm_provision() {
  local bin log src started
  bin="$(helm_bin)"
  [ -x "$bin" ] && return 0
  require_cmd helm go "install Go 1.24 or newer (https://go.dev/dl/ or apt-get install golang-go) to build Helm"
  mkdir -p "$CACHE_ROOT/tools/helm/$HELM_VERSION/bin"
  log="$CACHE_ROOT/tools/helm/$HELM_VERSION/build.log"
  started="$(date +%s)"
  err "helm: building Helm $HELM_VERSION with Go, takes a few minutes the first time (log: $log)"
  export GOMODCACHE="$CACHE_ROOT/go/mod" GOCACHE="$CACHE_ROOT/go/build-helm"
  export GOFLAGS="-modcacherw -buildvcs=false" CGO_ENABLED=0
  src="$(go mod download -json "helm.sh/helm/v3@$HELM_VERSION" 2>>"$log" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" || true
  if [ -z "$src" ] || [ ! -d "$src" ]; then die "helm: could not download helm.sh/helm/v3@$HELM_VERSION (log: $log)"; fi
  if ! (cd "$src" && go build -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
    -o "$bin.tmp" ./cmd/helm) >>"$log" 2>&1; then
    err "helm: FAILED: go build; last 30 lines of $log:"
    tail -n 30 "$log" | sed 's/^/    /' >&2
    exit 1
  fi
  mv "$bin.tmp" "$bin"
  rm -rf "$GOCACHE"
  err "helm: built $bin in $(($(date +%s) - started))s"
}

[ $# -ge 1 ] || die "usage: $(basename "$0") helm [ARGS...]"
tool="$1"
shift
case "$tool" in
  helm)
    helm_provision
    if [ $# -eq 0 ]; then printf '%s\n' "$(helm_bin)"; else exec "$(helm_bin)" "$@"; fi
    ;;
  *) die "unknown tool '$tool' (known: helm)" ;;
esac
