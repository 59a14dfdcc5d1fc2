"""Grade a notebook executed in Jupyter (nbclient), with the same assembly and scoring as
``workshop grade`` (:mod:`grader.grade`): the tests use it to run notebooks like a classroom
kernel does.

:func:`assemble` builds the notebook to run like :func:`grader.grade.cells_to_run` does, but
keeps the hidden tests (as ``nbgrader autograde`` does; ``workshop grade`` runs value checks
instead);
:func:`score` turns the executed notebook's error outputs into a :class:`grader.grade.NotebookRun`
and scores it with :func:`grader.grade.score_notebook` (visible checks only: value checks need
the grading runner).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import nbformat

from grader.grade import NotebookRun, Source, meta, prepare_template, read_answers, score_notebook
from grader.release import release_notebook
from grader.results import GradeRow, Status

__all__ = ["assemble", "execute", "score", "grade_notebook", "prepare_template"]


def _source(nb: nbformat.NotebookNode, released: nbformat.NotebookNode | None = None) -> Source:
    grade_cells = [
        (meta(c)["grade_id"], float(meta(c).get("points", 0)))
        for c in nb.cells
        if c.cell_type == "code" and meta(c).get("grade")
    ]
    return Source("notebook", nb, released or nb, grade_cells, {}, set())


def assemble(source: nbformat.NotebookNode, submission: nbformat.NotebookNode | None):
    """The notebook to run: the source with its hidden tests (as ``nbgrader autograde`` restores
    them), the student's solution cells swapped in (read like :func:`grader.grade.read_answers`),
    the released stub where the submission lacks one.

    Returns:
        (notebook, missing): ``missing`` lists solution grade_ids the submission lacks; those
        keep the released stub (so their checks fail).
    """
    stubs = {meta(c).get("grade_id"): c.source for c in release_notebook(source).cells}
    answers = {}
    if submission is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "submission.ipynb"
            nbformat.write(submission, path)
            answers = read_answers(path).cells
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(source), as_version=4))
    missing = []
    for cell in nb.cells:
        grade_id = meta(cell).get("grade_id")
        if cell.cell_type == "code" and meta(cell).get("solution"):
            if grade_id in answers:
                cell.source = answers[grade_id]
            else:
                cell.source = stubs.get(grade_id, "raise NotImplementedError()")
                missing.append(grade_id)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb, missing


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
    status = Status.OK
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
        status = Status.TIMEOUT
    except DeadKernelError:
        status = Status.CRASHED
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return nb, status


def score(nb, run_status: str = "ok", missing: list[str] | None = None) -> list[GradeRow]:
    """Score every grade cell of an executed notebook (visible checks; ``missing`` is unused:
    a missing answer kept its stub, so its checks failed)."""
    ended = Status(run_status) if run_status in ("ok", "timeout") else Status.CRASHED
    run = NotebookRun(status=ended)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for index, cell in enumerate(code):
        if cell.get("execution_count") is not None:
            run.executed.add(index)
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            run.errors[index] = [str(errors[0].get("ename")), str(errors[0].get("evalue"))[:2000]]
    return score_notebook("", _source(nb), run, [])


def grade_notebook(
    source_path: Path, submission_path: Path | None, template: Path | None, timeout_cell: float = 60
) -> list[GradeRow]:
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
