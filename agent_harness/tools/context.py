"""Which harness a tool runs against while it is being called.

Tools are plain functions (so the schema comes from their own arguments only); the registry
sets the harness (and the agent making the call) for the duration of a call, and a tool reads
it with :func:`current`. Outside a call there is no current harness: a tool function called
directly raises :class:`NoCurrentHarness` saying what to do, instead of connecting a harness of
its own behind the caller's back. To run a tool function by hand, make a harness current::

    with using(h):
        find_vessel("maersk")

This module holds context variables only: it imports nothing of the harness.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["current", "current_agent", "using", "NoCurrentHarness"]

_CURRENT: ContextVar = ContextVar("agent_harness_current", default=None)
_AGENT: ContextVar = ContextVar("agent_harness_agent", default=None)


class NoCurrentHarness(RuntimeError):
    """A tool that reads the harness ran outside a tool call and outside ``using(h)``."""


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
    """The harness of the running tool call.

    Raises:
        NoCurrentHarness: Called outside a tool call with no harness made current.
    """
    harness = _CURRENT.get()
    if harness is None:
        raise NoCurrentHarness(
            "no harness for this tool: it reads the harness of the call running it. Call the"
            " tool through h.tools.call('name', {...}) (the registry sets the harness), or run"
            " the function inside `with using(h):` (from agent_harness.tools.context import"
            " using)"
        )
    return harness
