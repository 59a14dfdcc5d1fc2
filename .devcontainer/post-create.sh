#!/bin/bash
# Runs once, when the codespace (or local dev container) is created.
#
# 1. Installs the workshop with the project's own command, into .venv (pinned versions), and
#    prepares the EMBEDDED database too: it needs no server, so the notebooks work even if
#    Oracle does not start (switch with WORKSHOP_BACKEND=embedded, see docs/oracle.md).
# 2. Pulls the Oracle image now, so that post-start.sh (which starts it) has less to do.
# Oracle itself is started and loaded by post-start.sh, which also runs after every restart.
set -euo pipefail
cd "$(dirname "$0")/.."

WORKSHOP_BACKEND=embedded python3 setup/bootstrap.py setup

# dockerd (docker-in-docker feature) starts with the container; give it a moment.
for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
docker compose pull oracle || echo "post-create: could not pull the Oracle image now; post-start will retry."
