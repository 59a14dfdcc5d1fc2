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


@pytest.fixture(scope="module")
def fresh_harness(tmp_path_factory, backend_name):
    """A prepared harness of its own for a test module that changes registry state (breaker
    states, policy, telemetry). On Oracle the database is shared: such tests use tool names
    of their own."""
    import agent_harness

    h = agent_harness.connect(
        backend=backend_name, data_dir=tmp_path_factory.mktemp(f"fresh-{backend_name}")
    )
    yield h
    h.close()


class FakeClock:
    """A clock the tests move by hand (``registry.clock = FakeClock(...)``)."""

    def __init__(self, start=None):
        import datetime as dt

        self.now = start or dt.datetime.now(dt.timezone.utc).replace(microsecond=0)

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        import datetime as dt

        self.now += dt.timedelta(seconds=seconds)


def make_tool(name: str, behaviour, category: str = "testing", timeout_s: float = 30.0):
    """A documented test tool named ``name`` whose body is ``behaviour(n)``."""
    from agent_harness.tools.definition import Tool

    def fn(n: int = 0) -> dict:
        """A test tool that answers or fails as the test says.

        Args:
            n: The call number, passed to the behaviour.
        """
        return behaviour(n)

    fn.__name__ = fn.__qualname__ = name
    return Tool.from_function(fn, category=category, timeout_s=timeout_s)
