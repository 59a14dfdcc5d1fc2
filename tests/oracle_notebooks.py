"""Run a solution notebook with ``backend = "oracle"`` on the stand-in, cell by cell, and record
what each cell sends and which statements the stand-in's privileges refuse.

Canned rows do not satisfy the check cells, and need not: a cell may fail for that (errors are
allowed, the next cell runs), but no statement may be refused for privileges, because on
Oracle that refusal (ORA-01031 / ORA-00942 / PLS-00201) is what stops the notebook. Each cell
runs in this process (the fake replaces ``oracledb.connect``), with a time limit.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path

import oracledb

from agent_harness import workshop
from agent_harness.tools.decorator import REGISTERED
from tests.oracle_fake import FakeOracle

__all__ = ["CellTrace", "NotebookTrace", "trace_notebook"]

ROOT = Path(__file__).resolve().parent.parent
CELL_LIMIT_S = 60


@dataclass
class CellTrace:
    """One code cell: its index, the statements it sent ``(user, sql)``, the refusals, and the
    error it ended with (None: it ran to the end)."""

    index: int
    sent: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    error: str | None = None


@dataclass
class NotebookTrace:
    name: str
    cells: list[CellTrace]
    checked: int  # statements the privilege check passed

    @property
    def refused(self) -> list[tuple[int, str, str, str]]:
        return [(c.index, *r) for c in self.cells for r in c.refused]


class _CellTimeout(BaseException):
    """A BaseException: code under test that catches ``Exception`` (a library's retry, a
    tool's error report) must not swallow it and run on with no limit left."""


@contextlib.contextmanager
def _limit(seconds: int):
    """Stop a cell that runs too long (POSIX main thread; elsewhere no limit)."""
    usable = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def stop(signum, frame):
        raise _CellTimeout(f"cell ran over {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def trace_notebook(path: Path, data_dir: Path) -> NotebookTrace:
    """Run ``path``'s code cells on a fresh stand-in (as ``workshop setup`` left Oracle)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    fake = FakeOracle(canned=True)
    saved_connect = oracledb.connect
    saved_env = dict(os.environ)
    oracledb.connect = fake.connect
    os.environ.update(
        {
            "WORKSHOP_BACKEND": "oracle",
            "WORKSHOP_LLM": "offline",
            "WORKSHOP_DATA_DIR": str(data_dir),
            "WORKSHOP_ONNX_MODEL": "none",
        }
    )
    namespace: dict = {"__name__": "__main__", "display": lambda *a, **k: None}
    cells: list[CellTrace] = []
    pending: list = []  # after_this_cell's clean-ups, run when their cell has run
    saved_after = workshop.after_this_cell
    # The notebooks @register tools into this process's REGISTERED (03's ports_in_region...):
    # they are taken out again, or every later test of this worker would see them.
    registered_before = set(REGISTERED)
    workshop.after_this_cell = lambda fn, *args, **kwargs: pending.append((fn, args, kwargs))
    try:
        for index, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                source += '\nbackend = "oracle"\nllm_mode = "offline"\n'
            trace = CellTrace(index)
            before_sent, before_refused = len(fake.sent), len(fake.world.refusals)
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
                _limit(CELL_LIMIT_S),
            ):
                try:
                    exec(compile(source, f"{path.name}[{index}]", "exec"), namespace)
                except BaseException as e:  # noqa: BLE001 - any failure: the next cell runs
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    trace.error = f"{type(e).__name__}: {str(e)[:200]}"
                while pending:
                    fn, args, kwargs = pending.pop()
                    with contextlib.suppress(Exception):
                        fn(*args, **kwargs)
            trace.sent = [(s.user, s.sql) for s in fake.sent[before_sent:]]
            trace.refused = list(fake.world.refusals[before_refused:])
            cells.append(trace)
    finally:
        for harness in [v for v in namespace.values() if hasattr(v, "backend")]:
            with contextlib.suppress(Exception):
                harness.close()
        with contextlib.suppress(Exception):  # 08's panel: widgets closed now, not at exit
            import ipywidgets

            ipywidgets.Widget.close_all()
        for name in set(REGISTERED) - registered_before:
            with contextlib.suppress(Exception):
                del REGISTERED[name]
        workshop.after_this_cell = saved_after
        oracledb.connect = saved_connect
        os.environ.clear()
        os.environ.update(saved_env)
    return NotebookTrace(path.name, cells, fake.world.checked)
