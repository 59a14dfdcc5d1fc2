"""``workshop check NOTEBOOK.ipynb``: the attendee's self-check, the visible half of grading.

The notebook is read, assembled, run and judged by grading's own steps
(``grader.grade.CHECK_STEPS``, a subset of ``STEPS``: the caches, then the submission's read,
assembly, sandboxed run and judgement) with grading's limits, so each grade cell's visible
verdict and message are those grading gives. Only the value checks are left out: their
inputs are hidden, they run at grading (the report says so).

Where the instructor's notebooks are (``solutions/``, or ``--source``) the check takes the
notebook asked from there, and only that one. Where they are not (a student distribution:
the released notebooks and the installed package, no ``solutions/``),
the released notebook itself is the source (:mod:`grader.from_release`). Either way it runs
the cells up to the last check cell (the pre-built cells after it cannot change a verdict),
and keeps what the run embedded for the next check of the same notebook: an attendee runs it
after every TODO.

nbgrader's validate and autograde run different pipelines and can disagree (nbgrader#1844);
here the difference is one argument (``reference=None``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.cache_paths import save_check_embeddings
from grader.caches import shared_template
from grader.collect import Submission, match_notebook
from grader.feedback import format_points, plain_text, redact
from grader.from_release import source_from_release
from grader.grade import CHECK_STEPS, GradeOptions, Grading, run_steps
from grader.notebook_folders import SOLUTIONS, notebook_paths
from grader.results import Status
from grader.sandbox import Limits
from grader.scoring import CellResult
from grader.sources import GradingError, Source, load_source

__all__ = ["CheckReport", "check_notebook", "format_report"]


@dataclass
class CheckReport:
    """What ``workshop check`` found in one notebook.

    Attributes:
        notebook: The workshop notebook it was matched to (e.g. ``00_setup``).
        results: Each grade cell's result (visible part only).
        hidden_checks: How many value checks grading adds.
        notes: How the notebook was read (added cells, edited cells), one sentence each.
        run_status: How the run ended (ok, timeout, crashed) and why.
        hidden_lines: Lines of the hidden tests, redacted from messages as the feedback does.
        from_release: True when the instructor's notebooks were not there and the released
            notebook itself was the source (a student distribution).
    """

    notebook: str
    results: list[CellResult] = field(default_factory=list)
    hidden_checks: int = 0
    notes: list[str] = field(default_factory=list)
    run_status: tuple[str, str] = ("ok", "")
    hidden_lines: set[str] = field(default_factory=set)
    from_release: bool = False

    @property
    def passed(self) -> bool:
        """True when every grade cell's visible checks pass."""
        return bool(self.results) and all(r.visible == Status.OK for r in self.results)


def instructor_source(path: Path, source_dir: Path | None = None) -> Source | None:
    """The instructor's notebook ``path`` is (from ``source_dir``, default ``solutions/``), or
    None when there are no instructor notebooks: a student distribution.

    Raises:
        GradingError: ``path`` is not one of them, or ``source_dir`` holds none.
    """
    folder = Path(source_dir) if source_dir is not None else SOLUTIONS
    paths = {p.stem: p for p in notebook_paths(folder)} if folder.is_dir() else {}
    names = sorted(paths)
    if not names:
        if source_dir is not None:
            raise GradingError(f"no instructor notebooks (NN_name.ipynb) in {folder}")
        return None
    name = match_notebook(path, names)
    if name is None:
        raise GradingError(
            f"{path.name} is not one of the workshop's notebooks ({', '.join(names)}); keep "
            "the file name it was handed out with"
        )
    return load_source(paths[name])


def check_notebook(
    path: Path,
    source_dir: Path | None = None,
    timeout_cell: float = 60.0,
    timeout_notebook: float = 300.0,
    memory_mb: int = 2048,
    use_bwrap: bool | None = None,
    template: Path | None = None,
) -> CheckReport:
    """Run one attendee notebook as grading runs it and judge its visible checks.

    Args:
        path: The attendee's notebook (its file name says which workshop notebook it is).
        source_dir: The instructor notebooks (default: ``solutions/`` when it holds them; else
            the released notebook itself is the source).
        template: A prepared database folder (default: :func:`shared_template`).

    Raises:
        GradingError: the file is no workshop notebook, or grading could not start.
    """
    path = Path(path)
    if not path.is_file():
        raise GradingError(f"{path} is not a file: give the notebook's path, e.g. 00_setup.ipynb")
    source, notes = instructor_source(path, source_dir), []
    from_release = source is None
    if source is None:
        source, notes = source_from_release(path)
    options = GradeOptions(
        timeout_cell=timeout_cell,
        timeout_notebook=timeout_notebook,
        use_bwrap=use_bwrap,
        limits=Limits.for_grading(memory_mb, timeout_notebook),
        check=True,
    )
    state = Grading(
        options,
        sources=(source,),
        todo=(Submission("check", {source.name: path}),),
        template=Path(template) if template else shared_template(),
    )
    (done,) = run_steps(state, CHECK_STEPS).graded
    run = done.runs[source.name]
    save_check_embeddings(source.name, run.embeddings)
    return CheckReport(
        notebook=source.name,
        results=done.cells[source.name],
        hidden_checks=source.probe_count(),
        notes=notes + done.notes[source.name],
        run_status=(str(run.status), run.reason),
        hidden_lines=source.hidden_lines,
        from_release=from_release,
    )


def format_report(report: CheckReport) -> str:
    """The report as the terminal (and ``%workshop_check``) shows it."""
    where = " of your notebook itself" if report.from_release else ""
    lines = [f"{report.notebook}: visible checks{where}, run as grading runs them"]
    width = max((len(r.grade_id) for r in report.results), default=0)
    for result in report.results:
        mark = "ok" if result.visible == Status.OK else str(result.visible).upper()
        points = f"{format_points(result.max_points)} pt"
        lines.append(f"  {mark:<8} {points:>7}  {result.grade_id:<{width}}".rstrip())
        if result.visible_message:
            message = plain_text(redact(result.visible_message, report.hidden_lines))
            lines += [f"           {line}" for line in message.splitlines()]
    passed = [r for r in report.results if r.visible == Status.OK]
    total = sum(r.max_points for r in report.results)
    earned = sum(r.max_points for r in passed)
    lines.append(
        f"visible checks pass in {len(passed)} of {len(report.results)} graded parts "
        f"({format_points(earned)} of {format_points(total)} points if the hidden checks agree)"
    )
    if report.from_release:
        lines.append(
            "hidden checks run at grading: they test the same behaviours on other inputs "
            "(the instructor's notebooks are not here, so this checked the cells of yours)"
        )
    else:
        lines.append(f"{report.hidden_checks} hidden checks run at grading")
    lines += [f"note: {note}" for note in report.notes]
    return "\n".join(lines)
