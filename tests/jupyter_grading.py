"""Grade a notebook executed in Jupyter (nbclient) with the grading path's own assembly and
scoring: the tests use it to run notebooks like a classroom kernel does.

:func:`assemble` builds the notebook with :func:`grader.assembly.assemble`, keeping the hidden
tests (as ``nbgrader autograde`` does; ``workshop grade`` runs value checks instead);
:func:`execute` runs it in a fresh kernel; :func:`score` turns the executed notebook's error
outputs into a :class:`grader.execute.NotebookRun` and scores it with
:func:`grader.scoring.score_notebook` (visible checks only: value checks need the runner).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import nbformat

from grader.answers import read_answers
from grader.assembly import assemble as assemble_cells
from grader.execute import NotebookRun, prepare_template
from grader.release import release_notebook
from grader.results import GradeRow, Status
from grader.scoring import score_notebook
from grader.sources import Source, meta

__all__ = [
    "LocalSocketKernelManager",
    "assemble",
    "execute",
    "score",
    "grade_notebook",
    "prepare_template",
]


def _local_sockets_manager():
    from jupyter_client import AsyncKernelManager
    from jupyter_core.paths import jupyter_runtime_dir
    from traitlets import default

    from agent_harness.interfaces.lab import ipc_fits

    class LocalSocketKernelManager(AsyncKernelManager):
        """A kernel over local (ipc) sockets where their paths fit, as ``workshop lab`` starts
        them. Over TCP the client picks five free ports and the kernel binds them later: a
        kernel started at the same moment by the other test worker can take one in between
        (``ZMQError: Address already in use``, "Kernel died before replying to kernel_info",
        seen in a full run). A socket file named after the kernel cannot be taken that way."""

        @default("transport")
        def _transport_default(self) -> str:
            return "ipc" if ipc_fits(os.environ) else "tcp"

        def _ip_default(self) -> str:
            # jupyter_client's default for ipc is "kernel-ipc" when no connection file is
            # named yet: a path relative to each side's folder, and the kernel runs in the
            # notebook's. The sockets go to Jupyter's runtime folder instead, named per kernel.
            if self.transport != "ipc":
                return super()._ip_default()
            runtime = jupyter_runtime_dir()
            os.makedirs(runtime, exist_ok=True)
            return os.path.join(runtime, f"kernel-{uuid.uuid4().hex}-ipc")

    return LocalSocketKernelManager


#: The kernel manager of every kernel the tests start (nbclient's and papermill's
#: ``kernel_manager_class``).
LocalSocketKernelManager = _local_sockets_manager()


def _source(nb: nbformat.NotebookNode, released: nbformat.NotebookNode | None = None) -> Source:
    grade_cells = [
        (meta(c)["grade_id"], float(meta(c).get("points", 0)))
        for c in nb.cells
        if c.cell_type == "code" and meta(c).get("grade")
    ]
    return Source("notebook", nb, released or nb, grade_cells, {}, set())


def assemble(source: nbformat.NotebookNode, submission: nbformat.NotebookNode | None):
    """The notebook to run: the grading assembly with the hidden tests kept (as ``nbgrader
    autograde`` restores them), the submission's TODO cells and added cells in.

    Returns:
        (notebook, missing): ``missing`` lists solution grade_ids the submission lacks; those
        keep the released stub (so their checks fail).
    """
    graded = _source(source, release_notebook(source))
    answers = read_answers(submission, graded)
    nb = nbformat.v4.new_notebook(metadata=source.metadata)
    for cell in assemble_cells(graded, answers, hidden_tests=True):
        code = nbformat.v4.new_code_cell(cell["source"])
        original = source.cells[cell["at"]] if cell["kind"] != "added" else None
        if original is not None and meta(original):
            code.metadata["nbgrader"] = dict(meta(original))
        nb.cells.append(code)
    solutions = [meta(c)["grade_id"] for c in source.cells if meta(c).get("solution")]
    return nb, [grade_id for grade_id in solutions if grade_id not in answers.cells]


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
            kernel_manager_class=LocalSocketKernelManager,
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
    code = [c for c in nb.cells if c.cell_type == "code"]
    run = NotebookRun(status=ended)
    for index, cell in enumerate(code):
        info = meta(cell)
        grade_id = info.get("grade_id") if info.get("grade") else None
        run.cells.append({"grade_id": grade_id, "label": f"code cell {index + 1}"})
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
