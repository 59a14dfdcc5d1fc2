"""Value checks ("probes"): what one is, where a notebook's are found, how values compare.

The value checks themselves, one module per notebook, are ``PROBES`` of
``grader/probes/nb_<notebook>.py`` (see :mod:`grader.probes`, which says how they run). This
module holds what grading needs besides them, so that ``workshop check`` runs where the probes
are not (a student distribution has no ``grader/probes/``): there it judges the visible checks
only, and :func:`probes_for` finds none.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from dataclasses import dataclass

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


def probes_for(notebook: str) -> dict[str, list[Probe]]:
    """The probes of a notebook by grade_id (empty when the notebook has no probe module).

    Raises:
        ProbeModuleError: the module exists but raises on import, or its ``PROBES`` is not a
            dict of lists of :class:`Probe`.
    """
    name = f"grader.probes.nb_{notebook}"
    try:
        if importlib.util.find_spec(name) is None:
            return {}
    except ModuleNotFoundError:  # no grader/probes/ at all: a student distribution
        return {}
    try:
        module = importlib.import_module(name)
    except Exception as e:  # any import error: say which module and why, never drop it
        raise ProbeModuleError(
            f"the probe module {name} does not import ({type(e).__name__}: {e}); fix it: "
            "without it no value check of the notebook would run"
        ) from e
    probes = getattr(module, "PROBES", None)
    if not isinstance(probes, dict) or not all(
        isinstance(items, list) and all(isinstance(p, Probe) for p in items)
        for items in probes.values()
    ):
        raise ProbeModuleError(f"{name}.PROBES must be a dict of grade_id -> list of Probe")
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
