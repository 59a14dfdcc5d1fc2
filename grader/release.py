"""Generate the student notebooks in notebooks/ from the instructor sources in solutions/
(solutions/NN_name/NN_name.ipynb), without ever overwriting an attendee's work.

The released notebook is made with the same steps as ``nbgrader generate_assignment`` (nbgrader's
own preprocessors), without a course folder or a gradebook:

1. ClearSolutions: the code between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes
   ``# YOUR CODE HERE`` + ``raise NotImplementedError(...)``, whose message names the TODO (so
   a pre-built cell that calls an unfilled TODO says which one to fill in first).
2. ClearHiddenTests: ``### BEGIN HIDDEN TESTS`` .. ``### END HIDDEN TESTS`` is removed.
3. ClearOutput: no outputs, no execution counts.
4. The notebook metadata JupyterLab writes when it opens a notebook (the kernelspec and the
   kernel's ``language_info``), so opening a released notebook changes nothing, and a digest of
   its cells (``metadata.workshop.released``), so release can tell later whether the file still
   holds only what it wrote.

Order matters: solutions are cleared before hidden tests so a hidden test can never leak a
solution, and outputs last so nothing computed from a solution survives.

Attendees work in notebooks/. :func:`release_all` writes only the notebooks that are missing
or out of date (:func:`differences`: the instructor's cells, compared by id; TODO cells,
cells an attendee added, outputs and JupyterLab's metadata do not count), and never one that
holds work (:func:`attendee_work`: its cells differ from what release wrote): it refuses and
names it; ``force=True`` first copies it into ``notebooks/backups/``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.notebook_folders import SOLUTIONS, notebook_paths

__all__ = [
    "BACKUPS",
    "CODE_STUB",
    "ROOT",
    "ReleaseReport",
    "attendee_work",
    "differences",
    "release_all",
    "release_notebook",
    "released_digest",
    "stale_notebooks",
]

ROOT = Path(__file__).resolve().parent.parent
CODE_STUB = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
BACKUPS = "backups"  # the folder inside notebooks/ where --force keeps what it replaces
_STUB_RAISE = "raise NotImplementedError()"


def _stub_message(grade_id: str) -> str:
    """The stub's raise, naming the TODO (what a pre-built cell that calls it shows)."""
    text = f"TODO {grade_id} is not done yet: fill in its cell and run it first"
    return f"raise NotImplementedError({text!r})"


def jupyterlab_metadata() -> dict:
    """The notebook metadata JupyterLab writes when it starts this project's kernel: the
    kernelspec and the kernel's ``language_info`` (taken from ipykernel itself)."""
    from ipykernel.ipkernel import IPythonKernel
    from ipykernel.kernelspec import KERNEL_NAME, get_kernel_dict

    spec = get_kernel_dict()
    return {
        "kernelspec": {
            "display_name": spec["display_name"],
            "language": spec["language"],
            "name": KERNEL_NAME,
        },
        "language_info": json.loads(json.dumps(IPythonKernel.language_info)),
    }


def _text(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def released_digest(nb) -> str:
    """A digest of a notebook's cells as an attendee could change them (id, type, source);
    outputs and metadata are left out."""
    cells = [[c.get("id"), c.get("cell_type"), _text(c)] for c in nb.get("cells", [])]
    return hashlib.sha256(json.dumps(cells).encode("utf-8")).hexdigest()[:16]


def cell_digest(source: str) -> str:
    """A digest of one cell's source (``metadata.workshop.cells`` keeps one per released code
    cell other than the TODO cells, so a check can tell them from cells an attendee added or
    edited, without the instructor's notebook)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def release_metadata(nb, name: str | None = None) -> dict:
    """What a released notebook records about itself (``metadata.workshop``): ``released``, a
    digest of its cells as written; ``cells``, the digest of each code cell by cell id, TODO
    cells left out (the attendee's); ``notebook``, which workshop notebook it is."""
    found = {"released": released_digest(nb)}
    if name:
        found["notebook"] = name
    found["cells"] = {
        cell.get("id"): cell_digest(_text(cell))
        for cell in nb.get("cells", [])
        if cell.get("cell_type") == "code" and not _todo(cell) and cell.get("id")
    }
    return found


def release_notebook(nb: nbformat.NotebookNode, name: str | None = None) -> nbformat.NotebookNode:
    """The student version of one source notebook (a new object; the input is not changed).

    Args:
        nb: The instructor's notebook.
        name: Which workshop notebook it is (e.g. ``08_glass_box``), recorded in its metadata.
    """
    from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions

    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    resources: dict = {"language": "python"}
    nb, _ = ClearSolutions(code_stub=CODE_STUB, enforce_metadata=True).preprocess(nb, resources)
    nb, _ = ClearHiddenTests(enforce_metadata=True).preprocess(nb, resources)
    nb, _ = ClearOutput().preprocess(nb, resources)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        info = cell.metadata.get("nbgrader", {})
        if info.get("solution") and _STUB_RAISE in cell.source:
            cell.source = cell.source.replace(_STUB_RAISE, _stub_message(info["grade_id"]), 1)
    nb.metadata.update(jupyterlab_metadata())
    nb.metadata["workshop"] = release_metadata(nb, name)
    return nb


def _rendered(path: Path) -> tuple[nbformat.NotebookNode, str]:
    nb = release_notebook(nbformat.read(path, as_version=4), path.stem)
    return nb, nbformat.writes(nb) + "\n"


def _read(path: Path):
    """A notebook file as a plain dict (None when it does not parse)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _todo(cell) -> bool:
    return bool((cell.get("metadata", {}).get("nbgrader", {}) or {}).get("solution"))


def _stubbed(text: str) -> str:
    """A TODO cell's text with its stub's raise in one form (older releases had no message)."""
    return re.sub(r"raise NotImplementedError\(.*\)", _STUB_RAISE, text)


def attendee_work(current, released=None) -> list[str]:
    """What in a notebook file is an attendee's (empty: nothing).

    A released notebook records a digest of its cells (``metadata.workshop.released``): cells
    changed or added since then are work. A file without the digest (written by an older
    release) is compared with ``released``: a TODO cell that is not its stub, or a cell the
    release does not have, is work (without ``released``: a TODO cell without its stub).
    """
    if current is None:
        return []
    recorded = (current.get("metadata", {}).get("workshop") or {}).get("released")
    if recorded is not None:
        if released_digest(current) == recorded:
            return []
        return [
            "cells changed or added since release wrote it (TODO cells filled in, cells "
            "added or edited)"
        ]
    stubs = {}
    if released is not None:
        stubs = {c.get("id"): _stubbed(c.source) for c in released.cells if _todo(c)}
    work = []
    for cell in current.get("cells", []):
        if not _todo(cell):
            continue
        text = _stubbed(_text(cell))
        if (text != stubs[cell.get("id")]) if cell.get("id") in stubs else _STUB_RAISE not in text:
            grade_id = (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id")
            work.append(f"TODO {grade_id} filled in")
    if released is not None:
        known = {c.get("id") for c in released.cells}
        added = [c for c in current.get("cells", []) if c.get("id") not in known]
        if added:
            work.append(f"{len(added)} cell(s) added")
    return work


def differences(current, released) -> list[str]:
    """What makes ``current`` (a notebook file's content) out of date against ``released``.

    Only what release owns counts: each released cell must be there, by id, in the same order,
    with the same type, source and nbgrader metadata. When the file holds an attendee's work
    (:func:`attendee_work`) the TODO cells and the cells they added are theirs and not compared.
    Outputs, execution counts and the metadata JupyterLab rewrites (kernelspec, language_info)
    never count.
    """
    if current is None:
        return ["not a readable notebook"]
    theirs = bool(attendee_work(current, released))
    cells = {c.get("id"): c for c in current.get("cells", []) if c.get("id")}
    found, order = [], []
    for cell in released.cells:
        mine = cells.get(cell.get("id"))
        if mine is None:
            found.append(f"cell {cell.get('id')} is missing")
            continue
        order.append(cell.get("id"))
        if mine.get("cell_type") != cell.cell_type:
            found.append(f"cell {cell.id} is {mine.get('cell_type')}, not {cell.cell_type}")
        elif (not theirs or not _todo(cell)) and (
            _text(mine) != cell.source
            or (mine.get("metadata", {}).get("nbgrader") or None)
            != (cell.metadata.get("nbgrader") or None)
        ):
            found.append(f"cell {cell.id} differs")
    ids = [c.get("id") for c in current.get("cells", []) if c.get("id") in set(order)]
    if ids != order:
        found.append("the cells are in another order")
    if not theirs and len(current.get("cells", [])) != len(released.cells):
        found.append("it has cells the release does not have")
    mine = current.get("metadata", {}).get("workshop")
    if not theirs and mine != released.metadata.get("workshop"):
        found.append("what it records about its release (metadata.workshop) is out of date")
    return found


@dataclass
class ReleaseReport:
    """What :func:`release_all` did.

    Attributes:
        written: Notebooks written (they were missing or out of date and held no work).
        up_to_date: Notebooks left alone: already what release would write (attendees' TODO
            cells, added cells and outputs kept).
        refused: Notebooks out of date that hold an attendee's work, by name, with why; not
            written (use ``force`` to back them up and replace them).
        backups: Copies made before replacing (``force``), in ``notebooks/backups/``.
        removed: Notebooks without a source that were removed (held no work, or backed up).
    """

    written: list[Path] = field(default_factory=list)
    up_to_date: list[Path] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)
    backups: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


def _backup(path: Path, target: Path) -> Path:
    folder = target / BACKUPS
    folder.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    copy = folder / f"{path.stem}.{stamp}{path.suffix}"
    n = 1
    while copy.exists():
        n += 1
        copy = folder / f"{path.stem}.{stamp}-{n}{path.suffix}"
    shutil.copy2(path, copy)
    return copy


def release_all(
    source: Path = SOLUTIONS, target: Path = ROOT / "notebooks", force: bool = False
) -> ReleaseReport:
    """Bring notebooks/ up to date with solutions/, keeping every attendee's work.

    Args:
        source: The instructor notebooks.
        target: The student notebooks.
        force: Replace out-of-date notebooks that hold work too, each copied into
            ``target/backups/`` first.
    """
    target.mkdir(parents=True, exist_ok=True)
    report = ReleaseReport()
    sources = notebook_paths(source)
    for path in sources:
        out = target / path.name
        released, text = _rendered(path)
        current = _read(out) if out.exists() else None
        if current is not None and not differences(current, released):
            report.up_to_date.append(out)
            continue
        work = attendee_work(current, released)
        if work and not force:
            report.refused[out.name] = work
            continue
        if work:
            report.backups.append(_backup(out, target))
        out.write_text(text, encoding="utf-8")
        report.written.append(out)
    names = {f"{p.stem}.ipynb" for p in sources}
    for old in sorted(target.glob("[0-9][0-9]_*.ipynb")):
        if old.name in names:
            continue
        work = attendee_work(_read(old))
        if work and not force:
            report.refused[old.name] = ["it has no source in solutions/ and holds work"]
            continue
        if work:
            report.backups.append(_backup(old, target))
        old.unlink()
        report.removed.append(old)
    return report


def stale_notebooks(source: Path = SOLUTIONS, target: Path = ROOT / "notebooks") -> list[str]:
    """Names of student notebooks that are missing, out of date (:func:`differences`) or have
    no source any more."""
    stale = []
    sources = notebook_paths(source)
    for path in sources:
        out = target / path.name
        if not out.exists() or differences(_read(out), _rendered(path)[0]):
            stale.append(path.name)
    extra = {p.name for p in target.glob("[0-9][0-9]_*.ipynb")} - {p.name for p in sources}
    return stale + sorted(extra)
