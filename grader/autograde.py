"""Autograde one notebook: rebuild it from the instructor's source, execute it, score grade cells.

The notebook that runs is NOT the submission: it is the instructor's source notebook with only
its solution cells replaced by the student's cells of the same ``grade_id``. So deleted,
reordered, retyped or edited test cells change nothing, and the hidden tests come from the
source. A grade cell scores its points when it runs without an error (nbgrader's rule).

Execution uses a fresh kernel and a fresh copy of a prepared embedded database, so no
submission sees another's data.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.release import release_notebook

__all__ = ["CellResult", "assemble", "execute", "score", "grade_notebook", "prepare_template"]


@dataclass
class CellResult:
    """The score of one grade cell."""

    grade_id: str
    points: float
    max_points: float
    status: str  # ok, failed, timeout, crashed, missing
    message: str = ""


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def assemble(source: nbformat.NotebookNode, submission: nbformat.NotebookNode | None):
    """The notebook to run: the source, with the student's solution cells swapped in.

    Returns:
        (notebook, missing): ``missing`` lists solution grade_ids the submission lacks; those
        keep the released stub (so their checks fail).
    """
    student = {}
    if submission is not None:
        for cell in submission.cells:
            meta = _nbgrader(cell)
            if meta.get("solution") and meta.get("grade_id") and cell.cell_type == "code":
                student.setdefault(meta["grade_id"], cell.source)
    stubs = {_nbgrader(c).get("grade_id"): c.source for c in release_notebook(source).cells}
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(source), as_version=4))
    missing = []
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if meta.get("solution") and cell.cell_type == "code":
            grade_id = meta.get("grade_id")
            if grade_id in student:
                cell.source = student[grade_id]
            else:
                cell.source = stubs.get(grade_id, "raise NotImplementedError()")
                missing.append(grade_id)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb, missing


def prepare_template(folder: Path) -> Path:
    """A prepared embedded database folder to copy for every run (built once)."""
    import agent_harness

    folder = Path(folder)
    harness = agent_harness.connect(backend="embedded", data_dir=folder)
    harness.close()
    return folder


def execute(
    nb, workdir: Path, template: Path | None, timeout_cell: float = 60, kernel_name: str = "python3"
):
    """Run the notebook in a fresh kernel with its own data folder; errors are recorded, not
    raised. Returns the executed notebook and a status (ok, timeout or crashed)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    workdir = Path(workdir)
    data_dir = workdir / ".workshop"
    if template is not None and not data_dir.exists():
        shutil.copytree(template, data_dir)
    saved = {k: os.environ.get(k) for k in ("WORKSHOP_DATA_DIR", "WORKSHOP_LLM")}
    os.environ["WORKSHOP_DATA_DIR"] = str(data_dir)
    os.environ["WORKSHOP_LLM"] = "offline"
    status = "ok"
    try:
        client = NotebookClient(
            nb,
            timeout=timeout_cell,
            kernel_name=kernel_name,
            allow_errors=True,
            resources={"metadata": {"path": str(workdir)}},
        )
        client.execute()
    except CellTimeoutError:
        status = "timeout"
    except DeadKernelError:
        status = "crashed"
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return nb, status


def score(nb, run_status: str = "ok", missing: list[str] | None = None) -> list[CellResult]:
    """Score every grade cell of an executed notebook."""
    results = []
    reached = True
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if cell.cell_type != "code":
            continue
        executed = cell.get("execution_count") is not None
        if not meta.get("grade"):
            continue
        points = float(meta.get("points", 0))
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            message = f"{errors[0].get('ename')}: {errors[0].get('evalue')}"[:500]
            results.append(CellResult(meta["grade_id"], 0.0, points, "failed", message))
        elif not executed or not reached:
            reached = False
            results.append(
                CellResult(
                    meta["grade_id"],
                    0.0,
                    points,
                    run_status,
                    "not executed (the run stopped before this cell)",
                )
            )
        else:
            results.append(CellResult(meta["grade_id"], points, points, "ok"))
    return results


def grade_notebook(
    source_path: Path, submission_path: Path | None, template: Path | None, timeout_cell: float = 60
) -> list[CellResult]:
    """Assemble, execute and score one submission of one notebook."""
    source = nbformat.read(source_path, as_version=4)
    submission = None
    if submission_path is not None and Path(submission_path).exists():
        try:
            submission = nbformat.read(submission_path, as_version=4)
        except Exception:  # a broken file: every solution is missing
            submission = None
    nb, missing = assemble(source, submission)
    with tempfile.TemporaryDirectory(prefix="grade-") as workdir:
        nb, status = execute(nb, Path(workdir), template, timeout_cell)
    return score(nb, status, missing)
