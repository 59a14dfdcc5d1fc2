"""The instructor's notebooks as grading reads them: released version, grade cells, probes.

Every grade cell must have at least one value check (``solutions/NN_name/probes.py``): a
grade cell without one would be scored by its visible checks alone, which run in the
student's process, so :func:`load_sources` refuses to grade such a notebook and names what to
write.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, replace
from pathlib import Path

import nbformat

from grader.cache_paths import hidden_markers, released_notebook
from grader.notebook_folders import SOLUTIONS, notebook_paths
from grader.value_checks import Probe, ProbeModuleError, probes_for

__all__ = [
    "GradingError",
    "Source",
    "cut_after",
    "hidden_pattern",
    "load_source",
    "load_sources",
    "meta",
    "text_of",
]


@functools.lru_cache(maxsize=1)
def hidden_pattern() -> re.Pattern:
    """The hidden-test regions, from nbgrader's ClearHiddenTests delimiters (one source)."""
    return re.compile("{}(.*?){}".format(*map(re.escape, hidden_markers())), re.S)


class GradingError(RuntimeError):
    """The batch cannot be graded (the message says why and what to do)."""


def meta(cell) -> dict:
    """A cell's nbgrader metadata ({} when it has none)."""
    found = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
    return found if isinstance(found, dict) else {}


def text_of(cell) -> str | None:
    """A cell's source as one string (None when it is not text)."""
    source = cell.get("source") if isinstance(cell, dict) else None
    if isinstance(source, list):
        source = "".join(str(s) for s in source)
    return source if isinstance(source, str) else None


@dataclass
class Source:
    """One instructor notebook and what grading needs from it."""

    name: str
    notebook: nbformat.NotebookNode
    released: nbformat.NotebookNode
    grade_cells: list[tuple[str, float]]
    probes: dict[str, list[Probe]]
    hidden_lines: set[str]

    def probe_count(self) -> int:
        """How many value checks grading runs on this notebook (the hidden checks)."""
        return sum(len(self.probes.get(grade_id, [])) for grade_id, _ in self.grade_cells)


def _grade_cells(nb) -> list[tuple[str, float]]:
    return [
        (meta(c)["grade_id"], float(meta(c).get("points", 0)))
        for c in nb.cells
        if c.cell_type == "code" and meta(c).get("grade")
    ]


def _hidden_lines(nb) -> set[str]:
    return {
        line.strip()
        for c in nb.cells
        for region in hidden_pattern().findall(c.source)
        for line in region.splitlines()
        if len(line.strip()) > 3
    }


def _check_probes(name: str, grade_cells, probes: dict) -> None:
    """Refuse a notebook with a grade cell that has no value check, or probes for no cell."""
    grade_ids = [g for g, _ in grade_cells]
    without = [g for g in grade_ids if not probes.get(g)]
    unknown = sorted(set(probes) - set(grade_ids))
    problems = []
    if without:
        problems.append(
            f"{name}: grade cells without a value check: {', '.join(without)}. Every grade "
            f"cell needs at least one probe in solutions/{name}/probes.py (PROBES[grade_id]); "
            "its visible checks alone run in the student's process and a patched assert would "
            "earn its points"
        )
    if unknown:
        problems.append(
            f"{name}: solutions/{name}/probes.py has probes for cells the notebook does not "
            f"grade: {', '.join(unknown)} (a renamed grade_id?)"
        )
    if problems:
        raise GradingError("nothing was graded:\n  " + "\n  ".join(problems))


def load_source(path: Path) -> Source:
    """One instructor notebook, its released version and its probes (checked)."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    released = released_notebook(path)
    grade_cells = _grade_cells(nb)
    try:
        probes = probes_for(path)
    except ProbeModuleError as e:
        raise GradingError(f"nothing was graded: {e}") from e
    _check_probes(path.stem, grade_cells, probes)
    return Source(path.stem, nb, released, grade_cells, probes, _hidden_lines(nb))


def load_sources(folder: Path | None = None) -> list[Source]:
    """The instructor's notebooks (``solutions/`` by default; :mod:`grader.notebook_folders`), in
    order.

    Raises:
        GradingError: no notebooks, a probe module that does not import, or a grade cell
            without a value check.
    """
    folder = Path(folder or SOLUTIONS)
    paths = notebook_paths(folder)
    if not paths:
        raise GradingError(
            f"no instructor notebooks (NN_name/NN_name.ipynb or NN_name.ipynb) in {folder}"
        )
    return [load_source(path) for path in paths]


def cut_after(source: Source, grade_id: str, keep_probes: bool = True) -> Source:
    """The notebook up to and including the cell ``grade_id``: later cells cannot change the
    scores of these cells, so a run that only needs them can skip the rest. Its grade cells
    and (with ``keep_probes``) its probes are those of the kept cells: the probes keep their
    positions, so their values compare with a whole run's."""
    ids = [meta(c).get("grade_id") for c in source.notebook.cells]
    end = ids.index(grade_id) + 1
    notebook, released = copy.deepcopy(source.notebook), copy.deepcopy(source.released)
    notebook.cells, released.cells = notebook.cells[:end], released.cells[:end]
    kept = set(ids[:end])
    return replace(
        source,
        notebook=notebook,
        released=released,
        grade_cells=[(g, p) for g, p in source.grade_cells if g in kept],
        probes={g: v for g, v in source.probes.items() if g in kept} if keep_probes else {},
    )
