"""Value checks ("probes"): what one is, where a notebook's are found, how values compare.

A probe is a piece of Python run after the notebook's cells, in the notebook's namespace; it
sets ``value``. The runner turns ``value`` into plain data (exact built-in types only; any other
object becomes ``{"__object__": type name}``) and the grader compares it with the value the same
probe gave on the instructor's solution. ``outcome(fn, *args)`` gives ``["ok", value]`` or
``["raised", "ValueError"]``. A grade cell earns its points only when its visible checks pass
in the student's process AND every probe of the cell equals the reference, so always-equal
objects, patched asserts and printed fake results earn nothing.

A notebook's probes are ``PROBES`` of ``probes.py`` in its folder,
``solutions/NN_name/probes.py`` (:mod:`grader.notebook_folders`). They live with the
instructor's notebook, never in the sandbox (a ``solutions`` or ``grader`` folder inside what
the sandbox mounts is covered by an empty one): the student's process sees a probe only while
it runs, one at a time after all cells ran, and nothing it does then reaches the feedback (a
failing probe shows the instructor's message, not the student's output). A probe file that
exists but does not import is an error (:class:`ProbeModuleError`), never "no probes": that
would silently drop every value check of the notebook. Where there is no probe file (a
student distribution has no ``solutions/``) :func:`probes_for` finds none, and ``workshop
check`` judges the visible checks only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from grader.notebook_folders import load_file, probes_file

__all__ = ["Probe", "ProbeModuleError", "probes_for", "same"]


@dataclass(frozen=True)
class Probe:
    """One value check of a grade cell.

    Attributes:
        name: A short label for the feedback.
        code: Python that sets ``value`` (run in the notebook's namespace after all cells).
        message: What the student reads when the value differs: what was expected and the
            input that showed it, described (the hidden inputs themselves are not leaked).
        relies_on: The sentences of the notebook's TODO text (the solution cell's docstring
            or the markdown cell before it) that state what this probe enforces, quoted
            exactly; ``tests/test_grading_fairness.py`` fails when one is not in the notebook.
    """

    name: str
    code: str
    message: str
    relies_on: tuple[str, ...] = ()


class ProbeModuleError(RuntimeError):
    """A probe module exists but cannot be used (it does not import, or has no PROBES)."""


def probes_for(notebook: Path) -> dict[str, list[Probe]]:
    """The probes of the instructor notebook ``notebook`` by grade_id (empty when it has no
    probe file, :func:`grader.notebook_folders.probes_file`).

    Raises:
        ProbeModuleError: the file exists but raises on import, or its ``PROBES`` is not a
            dict of lists of :class:`Probe`.
    """
    path = probes_file(notebook)
    if not path.is_file():  # no solutions/ at all: a student distribution
        return {}
    try:
        module = load_file(path)
    except Exception as e:  # any import error: say which file and why, never drop it
        raise ProbeModuleError(
            f"the probe file {path} does not import ({type(e).__name__}: {e}); fix it: "
            "without it no value check of the notebook would run"
        ) from e
    probes = getattr(module, "PROBES", None)
    if not isinstance(probes, dict) or not all(
        isinstance(items, list) and all(isinstance(p, Probe) for p in items)
        for items in probes.values()
    ):
        raise ProbeModuleError(f"{path}: PROBES must be a dict of grade_id -> list of Probe")
    return probes


def same(got, expected, tolerance: float = 1e-6) -> bool:
    """Plain-data equality in the grader's process; floats within ``tolerance``."""
    if type(got) is not type(expected):
        if type(got) in (int, float) and type(expected) in (int, float):
            return type(got) is not bool and math.isclose(got, expected, abs_tol=tolerance)
        return False
    if type(got) is float:
        return math.isclose(got, expected, rel_tol=tolerance, abs_tol=tolerance)
    if type(got) is list:
        return len(got) == len(expected) and all(
            same(a, b, tolerance) for a, b in zip(got, expected)
        )
    if type(got) is dict:
        return got.keys() == expected.keys() and all(
            same(got[k], expected[k], tolerance) for k in got
        )
    return got == expected
