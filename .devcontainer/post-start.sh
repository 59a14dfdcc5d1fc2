#!/bin/bash
# Runs every time the codespace (or local dev container) starts, after post-create.sh.
#
# Starts Oracle AI Database Free from docker-compose.yml and waits until it is healthy (vector
# pool set, users created: see setup/oracle/startdb/), then prepares the Oracle backend:
# SUPPLYCHAIN data, catalog memories, tools, skills. Both steps are idempotent, so a restart
# only re-checks. On failure it says what to do instead of leaving a half-ready workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
    echo "post-start: $1" >&2
    echo "post-start: see docs/oracle.md (Troubleshooting). The embedded backend is ready:" >&2
    echo "post-start:   export WORKSHOP_BACKEND=embedded" >&2
    exit 1
}

for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
docker info >/dev/null 2>&1 || fail "the Docker engine is not running (docker info failed)."

docker compose up -d --wait --wait-timeout 600 oracle \
    || { docker compose logs --tail 50 oracle || true; fail "Oracle did not become healthy."; }

WORKSHOP_BACKEND=oracle .venv/bin/workshop setup \
    || fail "workshop setup on Oracle failed (its message above says which step)."
