"""Score a notebook's run: each grade cell's visible checks, then its value checks.

A grade cell earns its points only when its visible checks ran without an error in the
student's process AND every value check (probe) of the cell equals the instructor's
solution's value, compared here, in the grader's process. :func:`judge_cells` keeps the two
parts apart (:class:`CellResult`): ``workshop check`` shows the visible part, ``workshop
grade`` both; both come from this one function, so they cannot disagree on the visible part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grader.execute import NotebookRun
from grader.results import GradeRow, Status
from grader.sources import Source
from grader.value_checks import same

__all__ = ["CellResult", "judge_cells", "score_notebook", "undone_notes"]

_MISSING = object()
_NAME_ERROR = re.compile(r"NameError: name '(\w+)' is not defined")


@dataclass
class CellResult:
    """One grade cell's outcome, visible and hidden parts apart.

    Attributes:
        grade_id: The grade cell.
        max_points: What it is worth.
        visible: The visible checks' verdict from the run alone (ok, failed, timeout,
            crashed): what ``workshop check`` shows.
        visible_message: Why the visible checks did not pass ("" when they did).
        value_failures: One line per value check that differed, then, when they did not all
            run, why ("value checks did not finish: ..."); [] when not judged (a check).
        value_status: The status the value checks leave (ok, failed, timeout, crashed).
    """

    grade_id: str
    max_points: float
    visible: Status
    visible_message: str = ""
    value_failures: list[str] = field(default_factory=list)
    value_status: Status = Status.OK

    @property
    def status(self) -> Status:
        """The cell's status: the visible verdict, unless it passed and a value check did not."""
        return self.visible if self.visible != Status.OK else self.value_status

    @property
    def points(self) -> float:
        return self.max_points if self.status == Status.OK else 0.0

    def message(self) -> str:
        """Every failing check, the visible one first, one per line."""
        failures = [self.visible_message] if self.visible != Status.OK else []
        failures += self.value_failures
        return "\n".join(f"- {f}" for f in failures) if len(failures) > 1 else "".join(failures)

    def row(self, student: str, notebook: str) -> GradeRow:
        """The grades.csv row (it carries the visible part, which the CSV does not keep)."""
        row = GradeRow(
            student,
            notebook,
            self.grade_id,
            self.points,
            self.max_points,
            self.status,
            self.message(),
        )
        row.visible = (self.visible, self.visible_message)
        return row


def _explain_name_error(message: str, dropped) -> str:
    found = _NAME_ERROR.search(message or "")
    if found and found.group(1) in dropped:
        return (
            f"{message} ({found.group(1)} is defined in a pre-built cell you edited, which "
            "grading runs as released: define it in a cell of your own or in the TODO cell)"
        )
    return message


def _verdict(run: NotebookRun, index: int, previous: int) -> tuple[Status, str]:
    """Status and message of the grade cell at ``index`` from the run alone (before probes)."""
    if index not in run.executed and index not in run.errors:
        return Status.stopped(run.status), run.reason or "the run stopped before this cell"
    if index not in run.errors:
        return Status.OK, ""
    ename, evalue = run.errors[index]
    hits = [(i, why) for i, why in sorted(run.limit_hits.items()) if i <= index]
    if hits:
        cell, why = hits[-1]
        label = _label(run, cell)
        if why == "timeout":
            return Status.TIMEOUT, (
                f"{label} exceeded the time limit and was interrupted; "
                f"then this check failed: {ename}: {evalue}"
            )
        return Status.CRASHED, (
            f"{label} ran out of memory; then this check failed: {ename}: {evalue}"
        )
    message = f"visible check: {ename}: {evalue}"
    earlier = [i for i in run.errors if previous < i < index]
    if earlier:
        first = run.errors[earlier[0]]
        message += f" (an earlier cell, {_label(run, earlier[0])}, raised {first[0]}: {first[1]})"
    return Status.FAILED, message


def _label(run: NotebookRun, index: int) -> str:
    if 0 <= index < len(run.cells) and run.cells[index].get("label"):
        return run.cells[index]["label"]
    return f"code cell {index + 1}"


def _positions(run: NotebookRun, source: Source) -> dict[str, int]:
    if run.cells:
        return {c["grade_id"]: i for i, c in enumerate(run.cells) if c.get("grade_id")}
    from grader.assembly import assemble  # a run made without its cells: as released

    cells = assemble(source, {})
    return {c["grade_id"]: i for i, c in enumerate(cells) if c.get("grade_id")}


def judge_cells(
    source: Source,
    run: NotebookRun,
    reference: list | None,
    dropped: set[str] | frozenset = frozenset(),
) -> list[CellResult]:
    """Judge each grade cell of a run.

    Args:
        source: The instructor notebook.
        run: What happened.
        reference: The instructor's solution's probe values, ``(index, value)``; None = judge
            the visible checks only (``workshop check``: the value checks run at grading).
        dropped: Names the student defined only in edited pre-built cells; a NameError for
            one of them says so.
    """
    position = _positions(run, source)
    values, expected = dict(run.probe_values), dict(reference or [])
    results, probe_index, previous = [], 0, -1
    for grade_id, points in source.grade_cells:
        index = position[grade_id]
        probes = source.probes.get(grade_id, [])
        first_probe, probe_index = probe_index, probe_index + len(probes)
        status, message = _verdict(run, index, previous)
        result = CellResult(grade_id, points, status, _explain_name_error(message, dropped))
        previous = index
        results.append(result)
        if reference is None or status not in (Status.OK, Status.FAILED):
            continue
        for offset, probe in enumerate(probes):
            value = values.get(first_probe + offset, _MISSING)
            if value is _MISSING:
                result.value_status = Status.stopped(run.status)
                reason = run.reason or "the run stopped"
                result.value_failures.append(f"value checks did not finish: {reason}")
                break
            if not same(value, expected.get(first_probe + offset)):
                result.value_status = Status.FAILED
                result.value_failures.append(f"value check '{probe.name}': {probe.message}")
    return results


def score_notebook(
    student: str,
    source: Source,
    run: NotebookRun | None,
    reference: list,
    dropped: set[str] | frozenset = frozenset(),
) -> list[GradeRow]:
    """Score each grade cell: its visible checks ran clean AND its probes equal the reference.

    The message lists EVERY failing check of the cell (the visible check's error, then each
    value check that differed, with the instructor's description of its input and of what was
    expected), one per line.
    """
    if run is None:
        return [
            GradeRow(student, source.name, gid, 0.0, pts, Status.MISSING, "notebook not submitted")
            for gid, pts in source.grade_cells
        ]
    return [r.row(student, source.name) for r in judge_cells(source, run, reference, dropped)]


def undone_notes(run: NotebookRun | None) -> list[str]:
    """One note per added cell whose changes to what the checks rely on were undone."""
    if run is None:
        return []
    return [
        f"{_label(run, index)} changed what the checks rely on ("
        + ", ".join(what[:8])
        + (", ..." if len(what) > 8 else "")
        + "); grading undid it after the cell ran"
        for index, what in sorted(run.undone.items())
    ]
