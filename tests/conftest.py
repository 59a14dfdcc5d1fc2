"""Shared fixtures: a prepared embedded harness per session, fresh scopes per test.

Oracle variants: tests parametrised with ``backend_name`` run on Oracle only when
``WORKSHOP_ORACLE_DSN`` points at a reachable database (the GitHub Actions Oracle job);
otherwise they are skipped with that reason. Tests of the Oracle backend alone use the
``oracle_harness`` fixture with the ``oracle`` mark and :data:`ORACLE_SKIP`.
"""

from __future__ import annotations

import os
import socket
import uuid

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("WORKSHOP_LLM", "offline")


def _oracle_reachable() -> bool:
    dsn = os.environ.get("WORKSHOP_ORACLE_DSN")
    if not dsn:
        return False
    host, _, rest = dsn.partition(":")
    port = int(rest.split("/")[0] or "1521")
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


ORACLE_REASON = (
    "no Oracle reachable (set WORKSHOP_ORACLE_DSN; runs in the GitHub Actions Oracle job)"
)
ORACLE_SKIP = pytest.mark.skipif(not _oracle_reachable(), reason=ORACLE_REASON)
BACKENDS = ["embedded", pytest.param("oracle", marks=[pytest.mark.oracle, ORACLE_SKIP])]


@pytest.fixture(scope="session", params=BACKENDS)
def backend_name(request) -> str:
    return request.param


@pytest.fixture(scope="session")
def harness(tmp_path_factory, backend_name):
    """A prepared harness (demo data, catalog facts, skills, tools) shared by the session."""
    import agent_harness

    data_dir = tmp_path_factory.mktemp(f"workshop-{backend_name}")
    h = agent_harness.connect(backend=backend_name, data_dir=data_dir)
    yield h
    h.close()


@pytest.fixture(scope="session")
def oracle_harness(tmp_path_factory):
    """A prepared harness on Oracle (use with the ``oracle`` mark and ``ORACLE_SKIP``)."""
    import agent_harness

    if not _oracle_reachable():
        pytest.skip(ORACLE_REASON)
    h = agent_harness.connect(backend="oracle", data_dir=tmp_path_factory.mktemp("oracle"))
    yield h
    h.close()


@pytest.fixture
def scope_harness(harness):
    """The shared harness seen through a fresh, empty memory scope (cheap isolation)."""
    from agent_harness.backends import Scope
    from agent_harness.memory import MemoryStore

    scope = Scope(f"test-{uuid.uuid4().hex[:8]}", "agent")
    return MemoryStore(harness.backend, scope, harness.embed)


@pytest.fixture
def memory(scope_harness):
    return scope_harness
