"""What ``workshop check`` grades from in a student distribution: the released notebook itself.

A course hands out the released notebooks only (nbgrader's release and fetch, a JupyterHub, a
zip, a clone without ``solutions/`` and ``tests/``), so the instructor's
notebooks and the value checks are not there. The attendee's notebook still holds every check
cell and pre-built cell, and release recorded in its metadata (``metadata.workshop.cells``) the
digest of each of its code cells by cell id, TODO cells left out:

* a code cell whose id release recorded is the instructor's: it runs as it is; when its text no
  longer matches the digest it was edited, and the report says so (grading runs the original,
  which this notebook no longer holds);
* a recorded cell that is not there was deleted (named: grading runs it, this check cannot);
* any other code cell was added by the attendee: it runs as an added cell, in its place, watched
  as grading watches added cells (:mod:`grader.runner_guard`).

The visible checks then run exactly as ``workshop grade`` runs them (the same assembly, sandbox,
limits and messages); the hidden checks run at grading only.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat

from grader.release import cell_digest
from grader.sources import GradingError, Source, meta

__all__ = ["source_from_release"]


def _name(path: Path, recorded) -> str:
    if isinstance(recorded, str) and re.fullmatch(r"\d{2}_\w+", recorded):
        return recorded
    found = re.match(r"\d{2}_[A-Za-z0-9_]+", path.stem)
    if not found:
        raise GradingError(
            f"{path.name} does not say which workshop notebook it is; keep the file name it "
            "was handed out with (e.g. 08_glass_box.ipynb)"
        )
    return found.group(0)


def _label(cell, number: int) -> str:
    grade_id = meta(cell).get("grade_id")
    if meta(cell).get("grade"):
        return f"the check cell {grade_id}"
    return f"the pre-built code cell {number}"


def source_from_release(path: Path) -> tuple[Source, list[str]]:
    """The attendee's notebook as the source of its own visible checks.

    Args:
        path: A released workshop notebook, as the attendee saved it.

    Returns:
        The source (no value checks) and notes on how the notebook was read, one sentence each.

    Raises:
        GradingError: The file is not a released workshop notebook.
    """
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as e:  # any unreadable file: say what it is not
        raise GradingError(f"{path.name} is not a readable notebook ({e})") from e
    info = nb.metadata.get("workshop")
    if not isinstance(info, dict) or not info.get("released"):
        raise GradingError(
            f"{path.name} is not one of the workshop's released notebooks (it carries no "
            "release metadata): check the notebook you were handed out"
        )
    name = _name(path, info.get("notebook"))
    digests = info.get("cells")
    notes: list[str] = []
    released = copy.deepcopy(nb)
    if not isinstance(digests, dict):
        notes.append(
            "this notebook comes from an older release that does not record its cells, so "
            "cells you added or edited cannot be told apart from the released ones: every "
            "cell ran as it is in your notebook"
        )
    else:
        kept, seen, number = [], set(), 0
        for cell in released.cells:
            if cell.cell_type == "code":
                number += 1
            recorded = digests.get(cell.get("id"))
            if cell.cell_type != "code" or meta(cell).get("solution"):
                kept.append(cell)
            elif recorded is not None and cell.get("id") not in seen:
                seen.add(cell.get("id"))
                kept.append(cell)
                if cell_digest(cell.source) != recorded:
                    notes.append(
                        f"{_label(cell, number)} was edited in your notebook; grading runs it "
                        "as released, which your notebook no longer holds, so this check ran "
                        "your edited version"
                    )
            # else: a cell the attendee added (or a copy of a released one): it runs as added
        released.cells = kept
        for cell_id in digests:
            if cell_id not in seen:
                notes.append(
                    f"a released code cell (id {cell_id}) is missing from your notebook; "
                    "grading runs it, this check could not"
                )
    grade_cells = [
        (meta(c)["grade_id"], float(meta(c).get("points", 0)))
        for c in released.cells
        if c.cell_type == "code" and meta(c).get("grade") and meta(c).get("grade_id")
    ]
    return Source(name, released, released, grade_cells, {}, set()), notes
