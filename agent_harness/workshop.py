"""Small helpers the workshop notebooks use around the attendee's TODO functions."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

__all__ = ["call_todo", "hybrid_binds", "window_binds"]


def call_todo(fn: Callable[..., Any], *args, **kwargs) -> Any:
    """Call the attendee's function; a TODO still raising NotImplementedError becomes an
    AssertionError that says so, so the check cell stops with a clear message.

    The notebook shows that error as the check cell's line and the message, once: this helper's
    frame is marked ``__tracebackhide__`` (pytest and IPython skip such frames) and, because
    IPython always shows the frame an exception was raised in, the error carries IPython's
    ``_render_traceback_`` hook, which renders it without the hidden frames. An error raised
    inside the attendee's own function is left alone: its traceback shows their lines.
    """
    __tracebackhide__ = True
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        error = AssertionError(
            f"{getattr(fn, '__name__', 'this function')} is not implemented yet: replace "
            "'raise NotImplementedError()' in the TODO cell above with your code, run that "
            "cell, then run this one again."
        )
        error._render_traceback_ = lambda: _render_without_hidden_frames(error)
        raise error from None


def _without_hidden_frames(tb: TracebackType | None) -> TracebackType | None:
    """A copy of the traceback without the frames that set ``__tracebackhide__``."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_locals.get("__tracebackhide__"):
            kept.append(tb)
        tb = tb.tb_next
    shown = None
    for entry in reversed(kept):
        shown = TracebackType(shown, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return shown


def _render_without_hidden_frames(error: BaseException) -> list[str]:
    """IPython's own rendering of ``error`` (its structured traceback), hidden frames left out."""
    from IPython import get_ipython

    tb = _without_hidden_frames(error.__traceback__)
    shell = get_ipython()
    if shell is None:  # not an IPython shell calling: Python's plain format
        return traceback.format_exception(type(error), error, tb)
    return shell.InteractiveTB.structured_traceback(type(error), error, tb)


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
