"""Small helpers the workshop notebooks use around the attendee's TODO functions.

* :func:`call_todo`: the first call of a TODO function in a check cell; an unfinished TODO
  becomes a clear "not implemented yet" message.
* :func:`after_this_cell` and :func:`replace_for_this_cell`: tidying up after a check cell
  without ``try``/``finally`` in the cell. Jupyter's kernel (ipykernel 7 with IPython 9, and
  earlier: ipykernel issue 1211) draws a cell's traceback arrow on the line the cell's frame
  ran LAST, so an error that leaves a cell through a ``finally`` clause points at the clean-up
  line (``_tidy()``) instead of the check that failed. Registered clean-up runs after the cell
  instead, so the arrow stays on the failed check.
* :func:`hybrid_binds`, :func:`window_binds`: bind values the TODO statements use.
* :func:`show_json`: a tool's JSON answer printed in lines broken between words (a notebook's
  output area wraps one long line wherever the width ends, in the middle of a word).
* :func:`unused_id`: an id for a check's own memories that no memory uses yet.
"""

from __future__ import annotations

import atexit
import itertools
import json
import textwrap
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

__all__ = [
    "after_this_cell",
    "call_todo",
    "hybrid_binds",
    "replace_for_this_cell",
    "show_json",
    "unused_id",
    "window_binds",
]

#: Clean-up registered by the running cell, run in reverse order once it has finished.
_PENDING: list[tuple[Callable[..., Any], tuple, dict]] = []


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
            f"{getattr(fn, '__name__', 'this function')} is not implemented yet: in the TODO "
            "cell above, put your code in place of the 'raise NotImplementedError(...)' line, "
            "run that cell, then run this one again."
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


def after_this_cell(fn: Callable[..., Any], *args, **kwargs) -> None:
    """Run ``fn(*args, **kwargs)`` once the notebook cell running now has finished, whether its
    checks passed or failed (a ``finally`` that does not move the traceback's arrow).

    Clean-ups run in the reverse order of registration (the last registered first, as nested
    ``finally`` clauses would), all of them even when one raises (the first error is then
    raised again, and IPython prints it under the cell). Outside IPython (a plain Python
    process) they run when the process exits.

    Args:
        fn: What to run (e.g. the check's ``_tidy``).
        *args: Its positional arguments.
        **kwargs: Its keyword arguments.
    """
    shell = _ipython()
    if shell is None:
        atexit.register(fn, *args, **kwargs)
        return
    if not _PENDING:
        shell.events.register("post_execute", _run_pending)
    _PENDING.append((fn, args, kwargs))


def _ipython():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the notebooks extra
        return None
    return get_ipython()


def _run_pending() -> None:
    """IPython's ``post_execute`` hook: the running cell's clean-ups, last first."""
    shell = _ipython()
    if shell is not None:
        shell.events.unregister("post_execute", _run_pending)
    first: BaseException | None = None
    while _PENDING:
        fn, args, kwargs = _PENDING.pop()
        try:
            fn(*args, **kwargs)
        except Exception as e:  # run every clean-up, report the first failure
            first = first or e
    if first is not None:
        raise first


_MISSING = object()


def replace_for_this_cell(owner: Any, name: str, value: Any) -> Any:
    """Set ``owner.name = value`` until the running cell has finished (see
    :func:`after_this_cell`); then the attribute is what it was (an attribute the instance did
    not have of its own is removed again, so its class's method shows through).

    Returns:
        What ``owner.name`` was before (e.g. the real method a spy calls).
    """
    before = getattr(owner, name)
    own = vars(owner).get(name, _MISSING) if hasattr(owner, "__dict__") else before
    setattr(owner, name, value)

    def restore() -> None:
        if own is _MISSING:
            vars(owner).pop(name, None)
        else:
            setattr(owner, name, own)

    after_this_cell(restore)
    return before


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


def show_json(text: str, width: int = 88) -> None:
    """Print a JSON answer (or any text) in lines of at most ``width`` characters, broken
    between words, never inside one (a word longer than the line gets a line of its own).

    Args:
        text: What ``h.tools.call`` returned (JSON text); text that is not JSON prints as is.
        width: The longest line.
    """
    try:
        text = json.dumps(json.loads(text), ensure_ascii=False)
    except (TypeError, ValueError):
        pass
    print(
        "\n".join(
            textwrap.wrap(
                str(text),
                width,
                subsequent_indent="    ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    )


#: The numbers :func:`unused_id` gave out in this process (one counter for every prefix).
_GIVEN = itertools.count(1)


def unused_id(harness, prefix: str = "call_check") -> str:
    """``<prefix>_<n>``: an id no memory of the harness's scope has as its subject, and one
    this process has not given out before (two ids asked for in a row differ even before
    either is stored).

    A fresh run of a notebook gets the same ids every time (1, 2, 3, ... on a database that
    holds none of them), so the texts a check stores ("<id>: <content>") are the same from
    run to run and their vectors come from the embedder's cache instead of the model. An id an
    earlier run left behind (a cell that stopped before its clean-up) is skipped, never
    reused. A random id would be unique too, but every run would embed its texts afresh.
    """
    while True:
        candidate = f"{prefix}_{next(_GIVEN)}"
        holders = harness.memory.list(metadata_filter={"subject": candidate}, limit=1)
        if all(m.subject != candidate for m in holders):  # what a backend found, checked
            return candidate
