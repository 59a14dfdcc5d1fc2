"""Small helpers the workshop notebooks use around the attendee's TODO functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["call_todo", "hybrid_binds", "window_binds"]


def call_todo(fn: Callable[..., Any], *args, **kwargs) -> Any:
    """Call the attendee's function; a TODO still raising NotImplementedError becomes an
    AssertionError that says so, so the check cell stops with a clear message."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise AssertionError(
            f"{getattr(fn, '__name__', 'this function')} is not implemented yet: replace "
            "'raise NotImplementedError()' in the TODO cell above with your code, run that "
            "cell, then run this one again."
        ) from None


def hybrid_binds(harness, query: str, k: int = 5, per_list: int = 30, rrf_k: int = 60) -> dict:
    """The bind values for the hybrid search statement: the query's vector (:qv), its safe
    full-text form (:q), the memory scope, and :k, :per_list, :rrf_k."""
    return {
        "qv": harness.memory.query_vector(query),
        "q": harness.backend.text_query(query),
        "user_id": harness.scope.user_id,
        "agent_id": harness.scope.agent_id,
        "k": int(k),
        "per_list": int(per_list),
        "rrf_k": int(rrf_k),
    }


def window_binds(harness, window_calls: int = 20, window_minutes: float = 60) -> dict:
    """The bind values for a telemetry window: ``:window_calls`` and ``:since`` (the start of
    the time window, in the form the backend's ``started_at`` column compares with)."""
    import datetime as dt

    since = harness.tools.clock() - dt.timedelta(minutes=float(window_minutes))
    return {
        "window_calls": int(window_calls),
        "since": harness.backend.telemetry.time_bind(since),
    }
