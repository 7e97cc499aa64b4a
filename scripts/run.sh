#!/usr/bin/env bash
# The README's two commands, from a fresh clone with nothing typed before them:
#   npm run demo   → setup, then the narrated demo (which brings the stack up itself)
#   npm test       → setup, the infrastructure (deploy/local), every test
# (`pnpm demo` / `pnpm test` run the same.) Settings of the person's own shell that would change
# what the demo and the tests see — the tenant, environment and user the CLI defaults to — are
# cleared; both pin their own.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
what="${1:?usage: scripts/run.sh demo|test [args…]}"
shift
unset TOLLGATE_TENANT TOLLGATE_ENV TOLLGATE_USER
# shellcheck source=scripts/setup.sh
source scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$PATH"
case "$what" in
  demo) exec tsx scripts/demo.ts "$@" ;;
  test)
    bash deploy/local/up.sh
    exec vitest run "$@"
    ;;
  *) echo "scripts/run.sh: unknown command '$what' (demo or test)" >&2; exit 2 ;;
esac
