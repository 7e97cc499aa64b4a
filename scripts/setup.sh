#!/usr/bin/env bash
# Brings a checkout to a runnable state with nothing typed before: the pnpm version pinned in
# package.json (the one on PATH if it matches, else a private copy under .tollgate/tools), the
# frozen install (only when the lockfile or a manifest changed since the last one), the build
# (incremental). Idempotent: a second run reuses everything and says so.
# Source it to keep its PATH (scripts/run.sh does), or run it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
say() { printf '[setup] %s\n' "$*" >&2; }

PNPM_VERSION="$(node -p "require('./package.json').packageManager.split('@')[1]")"
private_pnpm="$root/.tollgate/tools/pnpm-$PNPM_VERSION"
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then
  say "pnpm $PNPM_VERSION: on PATH"
elif [ -x "$private_pnpm/node_modules/.bin/pnpm" ]; then
  export PATH="$private_pnpm/node_modules/.bin:$PATH"
  say "pnpm $PNPM_VERSION: reused from .tollgate/tools"
else
  say "pnpm $PNPM_VERSION: installing into .tollgate/tools (npm)"
  mkdir -p "$private_pnpm"
  npm install --prefix "$private_pnpm" --no-audit --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >&2
  export PATH="$private_pnpm/node_modules/.bin:$PATH"
fi

stamp="$root/node_modules/.tollgate-install"
# The manifests of the workspace only (a glob like */*/package.json would also match node_modules).
wanted="$(cat pnpm-lock.yaml pnpm-workspace.yaml package.json packages/*/package.json \
  packages/connectors/*/package.json services/*/package.json 2>/dev/null | sha256sum | cut -c1-64)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  say "dependencies: up to date (pnpm-lock.yaml unchanged)"
else
  say "dependencies: pnpm install --frozen-lockfile"
  pnpm install --frozen-lockfile >&2
  printf '%s\n' "$wanted" >"$stamp"
fi

say "build: pnpm build (incremental)"
started="$(date +%s)"
mkdir -p "$root/.tollgate"
if ! pnpm --silent build >"$root/.tollgate/build.log" 2>&1; then
  cat "$root/.tollgate/build.log" >&2
  say "build: FAILED (output above, also in .tollgate/build.log)"
  exit 1
fi
say "build: done in $(($(date +%s) - started)) s (output in .tollgate/build.log)"
