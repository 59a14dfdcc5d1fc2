"""The grading runner: executes one student's notebooks inside the sandbox.

This file runs as a plain script (``python runner.py``) in the per-submission sandbox and imports
nothing from the ``grader`` package, so the sandbox needs only this file, the Python
environment and ``agent_harness``: never the solutions, the probes or other submissions.

Protocol (one JSON object per line): the grader writes commands to the runner's stdin and
reads events from its stdout.

* ``{"op": "run", "notebook": name, "cells": [{"source": ..., "grade_id": ...}, ...],
  "timeout_cell": s, "timeout_notebook": s}``: the runner forks a child from its warm process
  (imports done once), the child copies the prepared database, runs the cells in a fresh
  IPython shell and reports ``cell`` events. When the cells are done the runner sends
  ``{"event": "cells_done"}`` and waits for ``{"op": "probes", "probes": [...]}``; the child
  evaluates each probe's code (which sets ``value``) and returns the value as plain data.
* ``{"event": "notebook_done", "status": ok|timeout|crashed, ...}`` ends a notebook.

The student's code runs in the child, whose stdin/stdout/stderr are /dev/null: it reaches the
runner only through the child's event pipe, and everything it sends is treated as untrusted by
the grader (values are compared outside, in the grader's process).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import select
import shutil
import signal
import sys
import time

MAX_MESSAGE = 2000
MAX_ITEMS = 200_000
GRACE_S = 2.0


# --- plain data ----------------------------------------------------------------------------
class _Budget:
    def __init__(self, n: int):
        self.left = n

    def take(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise ValueError("value too large")


def plain(value, _budget: _Budget | None = None, _depth: int = 0):
    """Turn a value into plain JSON data using exact types only.

    Subclasses of built-in types and unknown objects become ``{"__object__": type name}``,
    so an object that claims to equal anything is never equal to an expected value.
    """
    budget = _budget or _Budget(MAX_ITEMS)
    budget.take()
    if _depth > 50:
        return {"__object__": "too deep"}
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if kind is list or kind is tuple:
        return [plain(item, budget, _depth + 1) for item in value]
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) not in (str, int, float, bool) and key is not None:
                return {"__object__": "dict with non-plain keys"}
            out[str(key)] = plain(item, budget, _depth + 1)
        return out
    if kind is bytes:
        return {"__bytes__": value.hex()}
    if kind in (_dt.date, _dt.datetime):
        return value.isoformat()
    module = getattr(kind, "__module__", "")
    if module == "numpy" and hasattr(value, "item") and getattr(value, "shape", None) == ():
        return plain(value.item(), budget, _depth + 1)
    if module.startswith("agent_harness") and hasattr(kind, "__dataclass_fields__"):
        fields = kind.__dataclass_fields__
        return {"__type__": kind.__name__} | {
            name: plain(object.__getattribute__(value, name), budget, _depth + 1) for name in fields
        }
    return {"__object__": getattr(kind, "__qualname__", "object")}


def outcome(fn, *args, **kwargs):
    """Call ``fn``: ``["ok", plain value]`` or ``["raised", exception type name]``."""
    try:
        return ["ok", plain(fn(*args, **kwargs))]
    except Exception as e:  # the probe records what a student's function raised
        return ["raised", type(e).__name__]


def _short(text) -> str:
    text = str(text)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


# --- the child: one notebook ---------------------------------------------------------------
def _send(stream, event: dict) -> None:
    stream.write(json.dumps(event) + "\n")
    stream.flush()


def _error_of(result) -> list[str] | None:
    error = result.error_before_exec or result.error_in_exec
    if error is None:
        return None
    try:
        return [type(error).__name__, _short(error)]
    except Exception:  # a hostile __str__
        return [type(error).__name__, ""]


def _child(command: dict, events, probes_in, job_dir: str, template: str) -> None:
    """Run one notebook's cells, then its probes (in the forked child)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.setsid()
    work = os.path.join(job_dir, command["notebook"])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data_dir = os.path.join(work, ".workshop")
    if template:
        shutil.copytree(template, data_dir)
    os.chdir(work)
    os.environ["WORKSHOP_DATA_DIR"] = data_dir
    os.environ["HOME"] = work
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    exits = []

    def on_exit(shell, etype, value, tb, tb_offset=None):  # IPython swallows SystemExit
        exits.append(["SystemExit", f"the cell called exit ({_short(value)})"])

    shell.set_custom_exc((SystemExit,), on_exit)
    for index, cell in enumerate(command["cells"]):
        _send(events, {"event": "cell_start", "index": index})
        exits.clear()
        result = shell.run_cell(cell["source"], store_history=False)
        error = _error_of(result) or (exits[0] if exits else None)
        _send(events, {"event": "cell_end", "index": index, "error": error})
    _send(events, {"event": "cells_done"})
    request = json.loads(probes_in.readline() or "{}")
    namespace = shell.user_ns
    for index, probe in enumerate(request.get("probes", [])):
        _send(events, {"event": "probe_start", "index": index})
        scope = dict(namespace)
        scope.update({"plain": plain, "outcome": outcome})
        try:
            exec(compile(probe["code"], f"<probe {index}>", "exec"), scope)
            value = ["ok", plain(scope.get("value"))]
        except BaseException as e:  # a student's function may raise anything, even SystemExit
            value = ["raised", type(e).__name__]
        try:
            _send(events, {"event": "probe_end", "index": index, "value": value})
        except (TypeError, ValueError):
            _send(events, {"event": "probe_end", "index": index, "value": ["unsendable", ""]})
    _send(events, {"event": "probes_done"})


# --- the runner: supervise one child per notebook ------------------------------------------
class _Lines:
    """Non-blocking line reader over a pipe fd."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = b""
        self.closed = False

    def read(self, timeout: float) -> list[dict] | None:
        """Complete lines available within ``timeout`` (None when the pipe closed)."""
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if ready:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                self.closed = True
            self.buffer += chunk
            if len(self.buffer) > 64 << 20:
                raise ValueError("the notebook sent too much data")
        lines = self.buffer.split(b"\n")
        self.buffer = lines.pop()
        events = []
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
        if self.closed and not events:
            return None
        return events


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def _run_notebook(command: dict, job_dir: str, template: str, out, stdin) -> None:
    events_r, events_w = os.pipe()
    probes_r, probes_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(events_r)
            os.close(probes_w)
            _child(
                command,
                os.fdopen(events_w, "w", encoding="utf-8"),
                os.fdopen(probes_r, "r", encoding="utf-8"),
                job_dir,
                template,
            )
        except BaseException:
            code = 70
        os._exit(code)
    os.close(events_w)
    os.close(probes_r)
    reader = _Lines(events_r)
    timeout_cell = float(command.get("timeout_cell", 60))
    deadline = time.monotonic() + float(command.get("timeout_notebook", 600))
    step_started, step, interrupted = time.monotonic(), None, False
    status, reason = "crashed", "the kernel died"
    try:
        while True:
            now = time.monotonic()
            if step is not None and now - step_started > timeout_cell and not interrupted:
                os.kill(pid, signal.SIGINT)  # like Jupyter's interrupt: the cell may go on
                interrupted = True
            if (step is not None and now - step_started > timeout_cell + GRACE_S) or now > deadline:
                status = "timeout"
                reason = (
                    f"{step or 'notebook'} exceeded the time limit"
                    if now <= deadline
                    else "the notebook exceeded its time limit"
                )
                _kill(pid)
                break
            batch = reader.read(0.2)
            if batch is None:
                break
            finished = False
            for event in batch:
                kind = event.get("event")
                if kind in ("cell_start", "probe_start"):
                    number = event.get("index", 0)
                    number = number + 1 if isinstance(number, int) else number
                    step = "code cell" if kind == "cell_start" else "value check"
                    step = f"{step} {number}"
                    step_started, interrupted = time.monotonic(), False
                elif kind in ("cell_end", "probe_end"):
                    if interrupted:
                        event["timed_out"] = True
                    step = None
                    _send(out, event)
                elif kind == "cells_done":
                    _send(out, {"event": "cells_done"})
                    os.write(probes_w, (stdin.readline() or "{}\n").encode("utf-8"))
                elif kind == "probes_done":
                    status, reason, finished = "ok", "", True
            if finished:
                break
    finally:
        _kill(pid)
        try:
            _, wait_status = os.waitpid(pid, 0)
        except ChildProcessError:
            wait_status = 0
        for fd in (events_r, probes_w):
            try:
                os.close(fd)
            except OSError:
                pass
    if status == "crashed" and os.WIFSIGNALED(wait_status):
        reason = f"the kernel died (signal {os.WTERMSIG(wait_status)})"
    elif status == "crashed" and os.WIFEXITED(wait_status):
        reason = f"the kernel exited (code {os.WEXITSTATUS(wait_status)})"
    _send(out, {"event": "notebook_done", "status": status, "reason": reason})


def _warm_up() -> None:
    """Import what every notebook imports and load the embedding model, once, before forking
    (single-threaded, so every forked notebook can use it)."""
    import IPython.core.interactiveshell  # noqa: F401
    import numpy  # noqa: F401

    import agent_harness  # noqa: F401
    import agent_harness.harness  # noqa: F401

    heavy_modules = (
        "pandas",
        "matplotlib.pyplot",
        "ipywidgets",
        "openai",
        "agent_harness.agent_loop",
        "agent_harness.workshop",
        "agent_harness.tools.registry",
        "agent_harness.tools.jsonschema_lib",  # jsonschema (tools as data load it on first use)
        "agent_harness.backends.embedded",  # apsw, sqlite-vec
        "agent_harness.llm.offline",
        "agent_harness.disclosure",
        "agent_harness.provenance",
        "mcp",  # the MCP SDK (notebook 07)
        "opentelemetry.sdk.trace",  # notebook 06's span exporter
        "matplotlib.figure",
    )
    for heavy in heavy_modules:  # what the notebooks import (optional ones may be missing)
        try:
            __import__(heavy)
        except ImportError:
            pass
    try:  # tiktoken's cl100k table (0.3 s), read once; counting starts no threads
        from agent_harness.token_count import method

        method()
    except ImportError:
        pass
    if os.environ.get("WORKSHOP_EMBED_THREADS") == "1":  # no thread pool: safe to share
        from agent_harness.embeddings import get_embedder

        get_embedder()


def main(argv: list[str]) -> int:
    """Serve commands from stdin until it closes."""
    job_dir, template = argv[1], argv[2] if len(argv) > 2 else ""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # nothing else may write into the protocol stream
    _warm_up()
    _send(out, {"event": "ready"})
    stdin = sys.stdin
    for line in stdin:
        command = json.loads(line)
        if command.get("op") == "run":
            _run_notebook(command, job_dir, template, out, stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
