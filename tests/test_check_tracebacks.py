"""A failing check cell shows the failed check, in Jupyter's own kernel (issue 22, item 7).

ipykernel (7.4 with IPython 9.18, and earlier: ipykernel issue 1211) draws a cell frame's
arrow on the line that frame ran last: an error leaving the cell through a ``finally`` clause
pointed at the clean-up (``_tidy()``, ``_drop(...)``, ``del h.backend.query``) instead of the
assert that failed. Check cells now tidy up with ``after_this_cell`` (agent_harness/workshop.py)
and hold no ``finally``; these tests read the cells, and run notebooks in a real kernel
(nbclient + ipykernel, as JupyterLab does) with answers that fail their checks.
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import nbformat
import pytest

from grader.notebook_folders import answers, notebook_paths
from grader.release import release_notebook
from tests.jupyter_grading import execute

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SOLUTIONS = notebook_paths()
CLEAN_UP = re.compile(
    r"_tidy\(|_drop|_restore\(|del h\.|= _real\b|\bfinally\b|memory\.delete\(|undefine\("
)


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _finally_clauses(source: str) -> list[int]:
    return [
        node.finalbody[0].lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Try) and node.finalbody
    ]


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_no_check_cell_tidies_up_in_a_finally_clause(path):
    """No check cell holds a ``finally``: neither what an attendee runs (the released cells)
    nor the hidden tests grading adds (their failures are reported the same way)."""
    found = {
        _meta(cell)["grade_id"]: _finally_clauses(cell.source)
        for cell in nbformat.read(path, as_version=4).cells
        if _meta(cell).get("grade")
    }
    assert not {k: v for k, v in found.items() if v}, found


def _frames(traceback: list[str]) -> list[tuple[str, str | None]]:
    """(frame header, the line its arrow points at) for each frame of a kernel traceback."""
    lines = ANSI.sub("", "\n".join(traceback)).splitlines()
    frames: list[list] = []
    for line in lines:
        if re.match(r"^(Cell In\[\d+\], line \d+|File \S.*, line \d+)", line):
            frames.append([line, None])
        elif frames and re.match(r"^-*> ?\s*\d+ ", line):
            frames[-1][1] = re.sub(r"^-*> ?\s*\d+ ", "", line)
    return [(header, arrow) for header, arrow in frames]


def _mutants(name: str):
    """The VISIBLE wrong answers of a notebook's answers.py."""
    return getattr(answers(name), "VISIBLE", {})


def _notebook(path: Path, wrong: bool):
    """The released notebook, cut after its last check cell; with ``wrong``, the solutions
    with the first VISIBLE wrong answer of each TODO that has one (the rest untouched)."""
    source = nbformat.read(path, as_version=4)
    nb = release_notebook(source)
    if wrong:
        answers = {grade_id: items[0][1] for grade_id, items in _mutants(path.stem).items()}
        for cell, original in zip(nb.cells, source.cells):
            info = _meta(cell)
            if info.get("solution"):
                cell.source = answers.get(info["grade_id"], original.source)
    last = max(i for i, c in enumerate(nb.cells) if _meta(c).get("grade"))
    nb.cells = nb.cells[: last + 1]
    return nb


CASES = [(p, False) for p in SOLUTIONS] + [(p, True) for p in SOLUTIONS if _mutants(p.stem)]


@pytest.mark.parametrize(
    "path, wrong", CASES, ids=[f"{p.stem}:{'wrong' if w else 'untouched'}" for p, w in CASES]
)
def test_the_arrow_points_at_the_failed_check_in_jupyters_kernel(
    path, wrong, tmp_path, template, student_notebook_runs
):
    if wrong:
        nb, status = execute(
            _notebook(path, wrong), tmp_path / f"run-{time.monotonic_ns()}", template, 120
        )
    else:  # the untouched notebook's run in a fresh kernel (conftest.py; its later cells too)
        nb, status = student_notebook_runs[path.stem]
    assert status == "ok"
    failed = 0
    for cell in nb.cells:
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if not _meta(cell).get("grade") or not errors:
            continue
        failed += 1
        frames = _frames(errors[0]["traceback"])
        where = f"{_meta(cell)['grade_id']} ({errors[0]['ename']}: {errors[0]['evalue'][:80]})"
        cells = [(h, a) for h, a in frames if h.startswith("Cell In")]
        assert cells, f"{where}: no cell frame in {frames}"
        for header, arrow in cells:
            assert arrow and not CLEAN_UP.search(arrow), f"{where}: {header} points at {arrow!r}"
        innermost = cells[-1][1]
        if errors[0]["ename"] == "AssertionError":
            assert re.search(r"\bassert\b|call_todo\(|raise AssertionError", innermost), (
                f"{where}: the arrow is on {innermost!r}, not on the failed check"
            )
    assert failed, "the answers should fail some checks"
