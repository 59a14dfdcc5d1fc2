"""``%workshop_check``: ``workshop check`` from inside a notebook, for attendees who never open
a terminal.

In a cell::

    %load_ext grader.magics
    %workshop_check

checks the notebook this kernel was started for (JupyterLab tells the kernel its path), as
saved: save it first (Ctrl+S). ``%workshop_check path/to/notebook.ipynb`` checks another one.
It prints exactly what ``workshop check`` prints: each graded part, its points, whether its
visible checks pass when grading runs the notebook, and how many hidden checks grading adds.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["load_ipython_extension", "notebook_path", "workshop_check"]


def notebook_path(namespace: dict | None = None) -> Path | None:
    """The notebook this kernel runs, as JupyterLab (``__session__``, ``JPY_SESSION_NAME``) or
    VS Code (``__vsc_ipynb_file__``) tell it; None when neither does."""
    namespace = namespace or {}
    for found in (
        namespace.get("__session__"),
        namespace.get("__vsc_ipynb_file__"),
        os.environ.get("JPY_SESSION_NAME"),
    ):
        if isinstance(found, str) and found.endswith(".ipynb"):
            return Path(found)
    return None


def workshop_check(line: str = "", namespace: dict | None = None) -> str:
    """Check a notebook as grading runs it; returns the report (the magic prints it)."""
    from grader.check import check_notebook, format_report
    from grader.sources import GradingError

    path = Path(line.strip()) if line.strip() else notebook_path(namespace)
    if path is None:
        return (
            "workshop check: this kernel does not know its notebook's file; name it: "
            "%workshop_check notebooks/00_setup.ipynb"
        )
    try:
        return format_report(check_notebook(path))
    except GradingError as e:
        return f"workshop check: {e}"


def load_ipython_extension(ipython) -> None:
    """Register ``%workshop_check`` (called by ``%load_ext grader.magics``)."""

    def magic(line: str = "") -> None:
        print(
            "checking the saved notebook as grading runs it (the first check prepares the "
            "grader's database, up to a minute; later ones take seconds)...",
            flush=True,
        )
        print(workshop_check(line, ipython.user_ns))

    magic.__doc__ = workshop_check.__doc__
    ipython.register_magic_function(magic, "line", "workshop_check")
