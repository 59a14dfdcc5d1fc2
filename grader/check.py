"""``workshop check NOTEBOOK.ipynb``: the attendee's self-check, the visible half of grading.

The notebook is read, assembled, run and judged by the very functions ``workshop grade`` uses
(:func:`grader.answers.read_answers`, :func:`grader.assembly.assemble`, the sandboxed runner
of :mod:`grader.execute`, :func:`grader.scoring.judge_cells`) with grading's limits, so each
grade cell's visible verdict and message are those grading gives. Only the value checks are
left out: their inputs are hidden, they run at grading (the report says how many).

nbgrader's validate and autograde run different pipelines and can disagree (nbgrader#1844);
here the difference is one argument (``reference=None``).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.answers import read_answers
from grader.caches import find_embeddings, prepare_bytecode, shared_template
from grader.collect import match_notebook
from grader.execute import run_submission
from grader.feedback import format_points, plain_text, redact
from grader.results import Status
from grader.sandbox import Limits
from grader.scoring import CellResult, judge_cells, undone_notes
from grader.sources import GradingError, load_sources

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
    """

    notebook: str
    results: list[CellResult] = field(default_factory=list)
    hidden_checks: int = 0
    notes: list[str] = field(default_factory=list)
    run_status: tuple[str, str] = ("ok", "")
    hidden_lines: set[str] = field(default_factory=set)

    @property
    def passed(self) -> bool:
        """True when every grade cell's visible checks pass."""
        return bool(self.results) and all(r.visible == Status.OK for r in self.results)


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
        source_dir: The instructor notebooks (default: ``solutions/``).
        template: A prepared database folder (default: :func:`shared_template`).

    Raises:
        GradingError: the file is no workshop notebook, or grading could not start.
    """
    path = Path(path)
    if not path.is_file():
        raise GradingError(f"{path} is not a file: give the notebook's path, e.g. 00_setup.ipynb")
    sources = {s.name: s for s in load_sources(source_dir)}
    name = match_notebook(path, list(sources))
    if name is None:
        raise GradingError(
            f"{path.name} is not one of the workshop's notebooks ({', '.join(sources)}); keep "
            "the file name it was handed out with"
        )
    source = sources[name]
    answers = read_answers(path, source)
    template = Path(template) if template else shared_template()
    prepare_bytecode()
    find_embeddings(list(sources.values()))
    with tempfile.TemporaryDirectory(prefix="workshop-check-") as job:
        run = run_submission(
            [source],
            {name: answers},
            Path(job),
            template,
            Limits.for_grading(memory_mb, timeout_notebook),
            timeout_cell,
            timeout_notebook,
            use_bwrap,
        )[name]
    return CheckReport(
        notebook=name,
        results=judge_cells(source, run, None, answers.dropped),
        hidden_checks=source.probe_count(),
        notes=answers.notes + undone_notes(run),
        run_status=(str(run.status), run.reason),
        hidden_lines=source.hidden_lines,
    )


def format_report(report: CheckReport) -> str:
    """The report as the terminal (and ``%workshop_check``) shows it."""
    lines = [f"{report.notebook}: visible checks, run as grading runs them"]
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
    lines.append(f"{report.hidden_checks} hidden checks run at grading")
    lines += [f"note: {note}" for note in report.notes]
    return "\n".join(lines)
