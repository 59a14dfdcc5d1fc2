"""Which harness a tool runs against while it is being called.

Tools are plain functions (so the schema comes from their own arguments only); the registry sets
the harness for the duration of a call. Called outside the registry (a notebook calling a tool
function directly), tools use the process's default harness from :func:`agent_harness.connect`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["current", "current_agent", "using"]

_CURRENT: ContextVar = ContextVar("agent_harness_current", default=None)
_AGENT: ContextVar = ContextVar("agent_harness_agent", default=None)


@contextmanager
def using(harness, agent: str | None = None) -> Iterator[None]:
    """Make ``harness`` (and the agent running the call, if any) current inside the block."""
    token = _CURRENT.set(harness)
    agent_token = _AGENT.set(agent)
    try:
        yield
    finally:
        _AGENT.reset(agent_token)
        _CURRENT.reset(token)


def current_agent() -> str | None:
    """The name of the agent whose turn made the running call (None: no agent)."""
    return _AGENT.get()


def current():
    """The harness of the running tool call, else the default one."""
    harness = _CURRENT.get()
    if harness is None:
        from agent_harness.harness import default_harness

        harness = default_harness()
    return harness
