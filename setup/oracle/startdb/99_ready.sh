#!/bin/bash
# 99_ready.sh: tell the health check that the workshop's start-up work is done.
#
# What: writes the marker file /run/workshop/ready (override: WORKSHOP_READY_FILE).
# Why:  the image's healthcheck.sh runs one query: is FREEPDB1 open READ WRITE in V$PDBS. The
#       image's container-entrypoint.sh opens the database first and runs the start-up scripts
#       after that, so nothing in healthcheck.sh waits for them: it can pass while
#       01_vector_pool.sh is about to restart the instance or 02_users.sh has not created the
#       users yet (gvenzl/oci-oracle-free: healthcheck.sh, container-entrypoint.sh).
#       docker-compose.yml's health check is `test -f /run/workshop/ready && healthcheck.sh`,
#       so `docker compose up --wait` returns only when the vector pool is set and the users
#       exist.
# When: every container start, last (scripts run in alphabetical order). /run/workshop is a
#       tmpfs in docker-compose.yml, so the marker disappears when the container stops and a
#       marker from an earlier start can never make a restarting database look ready.
#
# Written to be safe both when executed and when sourced by the entrypoint (see 01_*.sh).
set -Eeuo pipefail

workshop_ready() {
    local marker="${WORKSHOP_READY_FILE:-/run/workshop/ready}"
    if ! { mkdir -p "$(dirname "${marker}")" && date -u +%FT%TZ > "${marker}"; } 2>/dev/null; then
        echo "WORKSHOP: ERROR: cannot write ${marker}; start the database with docker-compose.yml" >&2
        echo "WORKSHOP: (it mounts a writable tmpfs at /run/workshop)." >&2
        return 1
    fi
    echo "WORKSHOP: start-up scripts done; health check can report healthy (${marker})."
}

workshop_ready
