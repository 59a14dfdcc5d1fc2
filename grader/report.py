"""The output side of ``workshop grade``: grades.csv, the terminal summary, nbgrader's gradebook.

Feedback pages live in :mod:`grader.feedback` and are re-exported here, so the grading engine
needs only this module. Student names and messages are untrusted text:

* grades.csv: a cell a spreadsheet would run as a formula (``=`` ``+`` ``-`` ``@`` tab, carriage
  return) gets a leading apostrophe; messages are one line of at most ``MESSAGE_LIMIT``
  characters; the file is written atomically and read back exactly (to resume a batch);
* the terminal summary: terminal escape codes are removed from names.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from pathlib import Path

from grader.feedback import (
    HIDDEN_MARK,
    STATUS_MEANINGS,
    feedback_filename,
    format_points,
    group_rows,
    plain_text,
    redact,
    render_feedback,
    shorten,
    sort_rows,
    spreadsheet_safe,
    write_feedback,
    write_feedback_pages,
)
from grader.files import atomic_write_text
from grader.results import COLUMNS, STATUSES, GradeRow

__all__ = [
    "COURSE_ID",
    "HIDDEN_MARK",
    "MESSAGE_LIMIT",
    "STATUS_MEANINGS",
    "feedback_filename",
    "read_grades_csv",
    "redact",
    "render_feedback",
    "summary_table",
    "write_feedback",
    "write_feedback_pages",
    "write_grades_csv",
    "write_gradebook",
]

#: Longest message kept in grades.csv (the feedback page keeps more).
MESSAGE_LIMIT = 300
#: The course id of grader/nbgrader_config.py (the gradebook's course).
COURSE_ID = "agent-harness-workshop"


# --- grades.csv ------------------------------------------------------------------------------


def _escape_cell(value: str) -> str:
    return spreadsheet_safe(value, read_back=True)  # read_grades_csv removes exactly one "'"


def _unescape_cell(value: str) -> str:
    return value[1:] if value.startswith("'") else value


def _one_line(message: str, limit: int = MESSAGE_LIMIT) -> str:
    lines = (line.strip() for line in message.splitlines())
    return shorten(" | ".join(line for line in lines if line), limit)


def _exact(value: float) -> str:
    """A number that reads back exactly: 2, 0.5, 0.3333333333333333."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _csv_record(row: GradeRow, hidden_lines) -> list[str]:
    names = [_escape_cell(str(v)) for v in (row.student, row.notebook, row.grade_id)]
    points = [_exact(row.points), _exact(row.max_points)]
    message = _one_line(redact(row.message or "", hidden_lines))
    return [*names, *points, _escape_cell(str(row.status)), _escape_cell(message)]


def write_grades_csv(rows: list[GradeRow], path, *, hidden_lines=None) -> Path:
    """Write grades.csv atomically: one row per (student, notebook, grade cell).

    Args:
        rows: The grade rows, in any order. They are sorted by student, then notebook; within
            a notebook the given order is kept (the grade cells' order in the notebook).
        path: Where to write (the folder is created).
        hidden_lines: Optional stripped lines of hidden tests to redact from messages.

    Returns:
        The path written.
    """
    buffer = io.StringIO()
    # "\r\n" (the CSV standard) also makes the writer quote a field holding a lone "\r".
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in sort_rows(rows):
        writer.writerow(_csv_record(row, hidden_lines))
    # surrogateescape: a folder name that is not valid UTF-8 still round-trips exactly.
    return atomic_write_text(path, buffer.getvalue(), errors="surrogateescape")


def _row_from_record(record: dict) -> GradeRow | None:
    """A GradeRow from a CSV record, or None when the record is damaged."""
    try:
        row = GradeRow(
            student=_unescape_cell(record["student"]),
            notebook=_unescape_cell(record["notebook"]),
            grade_id=_unescape_cell(record["grade_id"]),
            points=float(record["points"]),
            max_points=float(record["max_points"]),
            status=_unescape_cell(record["status"]),
            message=_unescape_cell(record["message"] or ""),
        )
    except (TypeError, ValueError, AttributeError):
        return None
    return row if row.status in STATUSES else None


def read_grades_csv(path) -> list[GradeRow]:
    """Read a grades.csv written by :func:`write_grades_csv` (to resume a batch).

    Args:
        path: The grades.csv file.

    Returns:
        Its rows in file order; [] when the file does not exist or is empty. Damaged rows are
        left out, so resuming grades those submissions again.

    Raises:
        ValueError: The file is not a grades.csv (its header lacks a column).
    """
    path = Path(path)
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8-sig", errors="surrogateescape") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None:
            return []
        absent = [c for c in COLUMNS if c not in reader.fieldnames]
        if absent:
            raise ValueError(
                f"{path} is not a grades.csv: it has no column {', '.join(absent)} "
                f"(expected {', '.join(COLUMNS)}); move it away or choose another --out folder"
            )
        records = [_row_from_record(record) for record in reader]
    return [row for row in records if row is not None]


# --- the terminal summary --------------------------------------------------------------------


def _printable(text: str, width: int = 24) -> str:
    return shorten(" ".join(plain_text(text).split()), width)


def _labels(notebooks: list[str]) -> dict[str, str]:
    """Short column labels: the numbers of numbered notebooks ("02"), else the names."""
    numbers = [re.match(r"(\d+)_", nb) for nb in notebooks]
    if all(numbers) and len({m.group(1) for m in numbers}) == len(notebooks):
        return {nb: m.group(1) for nb, m in zip(notebooks, numbers)}
    return {nb: _printable(nb.removesuffix(".ipynb"), 16) for nb in notebooks}


def _table(lines: list[list[str]]) -> list[str]:
    """Aligned columns: the first to the left, the others to the right."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return ["  ".join(_align(line, widths)).rstrip() for line in lines]


def _align(cells: list[str], widths: list[int]) -> list[str]:
    first = [cells[0].ljust(widths[0])]
    return first + [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:])]


def _score(rows: list[GradeRow]) -> str:
    points = sum(r.points for r in rows)
    return f"{format_points(points)}/{format_points(sum(r.max_points for r in rows))}"


def _student_lines(rows: list[GradeRow], notebooks: list[str]) -> list[str]:
    labels = _labels(notebooks)
    lines = [["student", *(labels[nb] for nb in notebooks), "total"]]
    for student, student_rows in group_rows(rows, lambda r: r.student).items():
        by_notebook = group_rows(student_rows, lambda r: r.notebook)
        scores = [_score(by_notebook[nb]) if nb in by_notebook else "-" for nb in notebooks]
        lines.append([_printable(student), *scores, _score(student_rows)])
    return _table(lines)


def _cell_lines(rows: list[GradeRow]) -> list[str]:
    lines = [["grade cell", "full marks", "average", *STATUSES]]
    for (nb, grade_id), cell_rows in group_rows(rows, lambda r: (r.notebook, r.grade_id)).items():
        n = len(cell_rows)
        full = sum(1 for r in cell_rows if r.max_points > 0 and r.points >= r.max_points)
        average = sum(r.points for r in cell_rows) / n
        most = format_points(max(r.max_points for r in cell_rows))
        counts = [str(sum(1 for r in cell_rows if r.status == s)) for s in STATUSES]
        name = _printable(f"{nb.removesuffix('.ipynb')}/{grade_id}", 48)
        lines.append([name, f"{full}/{n}", f"{average:.2f}/{most}", *counts])
    return _table(lines)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _totals_line(rows: list[GradeRow]) -> str:
    notebooks = group_rows(rows, lambda r: (r.student, r.notebook)).values()

    def count(status: str) -> int:
        return sum(1 for nb_rows in notebooks if any(r.status == status for r in nb_rows))

    students = len({r.student for r in rows})
    return (
        f"graded {_plural(len(notebooks), 'notebook')} of {_plural(students, 'student')}: "
        f"{count('timeout')} timed out, {count('crashed')} crashed, {count('missing')} missing"
    )


def summary_table(rows: list[GradeRow]) -> str:
    """A plain-text summary of a batch for the terminal.

    Args:
        rows: All grade rows of the batch.

    Returns:
        Three blocks: a line per student (points per notebook and in total); a line per grade
        cell (students with full marks, average points, a count per status); a last line with
        the notebooks graded and how many of them timed out, crashed or were missing.
    """
    if not rows:
        return "no grades to summarise"
    rows = sort_rows(rows)
    notebooks = sorted({r.notebook for r in rows})
    blocks = [_student_lines(rows, notebooks), _cell_lines(rows), [_totals_line(rows)]]
    return "\n\n".join("\n".join(block) for block in blocks)


# --- nbgrader's gradebook --------------------------------------------------------------------


def _db_url(gradebook) -> str:
    text = str(gradebook)
    return text if "://" in text else f"sqlite:///{Path(text).resolve()}"


def _write_row(gb, row: GradeRow, assignment: str) -> str | None:
    """Set one autoscore; returns a warning when the gradebook has no such cell (or differs)."""
    from nbgrader.api import MissingEntry

    notebook = row.notebook.removesuffix(".ipynb")  # nbgrader names notebooks without it
    where = f"{assignment}/{notebook}/{row.grade_id}"
    try:
        grade = gb.find_grade(row.grade_id, notebook, assignment, row.student)
    except MissingEntry:
        return f"{where}: no such grade cell in the gradebook; skipped"
    grade.auto_score = float(row.points)
    # nbgrader's own rule (SaveAutoGrades): a grade with a manual score stays up for review.
    grade.needs_manual_grade = grade.manual_score is not None
    if float(grade.cell.max_score) != float(row.max_points):
        return (
            f"{where}: worth {format_points(grade.cell.max_score)} in the gradebook but "
            f"{format_points(row.max_points)} in the grades (the gradebook's maximum is kept)"
        )
    return None


def _write_student(gb, student: str, rows: list[GradeRow], assignments: dict) -> list[str]:
    """Add the student and their submissions if missing, then set each row's autoscore."""
    from nbgrader.api import InvalidEntry, MissingEntry

    try:
        gb.update_or_create_student(student)
    except InvalidEntry as exc:
        return [f"student {student!r}: the gradebook refused it ({exc}); skipped"]
    problems: list[str | None] = []
    submitted: set[str] = set()
    for row in rows:
        assignment = assignments.get(row.notebook)
        if assignment is None:
            problems.append(f"{row.notebook}: no assignment of the gradebook given; skipped")
            continue
        if assignment not in submitted:
            try:
                gb.update_or_create_submission(assignment, student)
            except (InvalidEntry, MissingEntry) as exc:
                problems.append(f"{assignment} of {student!r}: no submission ({exc}); skipped")
                continue
            submitted.add(assignment)
        problems.append(_write_row(gb, row, assignment))
    gb.db.commit()
    return [p for p in problems if p]


def _known_assignments(gb, rows: list[GradeRow], assignment_of_notebook) -> dict[str, str]:
    """The gradebook assignment of each notebook of ``rows`` that has one."""
    known = {a.name for a in gb.assignments}
    given = {nb.removesuffix(".ipynb"): name for nb, name in assignment_of_notebook.items()}
    found = {}
    for notebook in {r.notebook for r in rows}:
        name = given.get(notebook.removesuffix(".ipynb"))
        if name in known:
            found[notebook] = name
    return found


def write_gradebook(
    rows: list[GradeRow],
    gradebook_url_or_path,
    assignment_of_notebook: dict[str, str],
    course_id: str = COURSE_ID,
) -> list[str]:
    """Write the scores into nbgrader's gradebook, so formgrader and ``nbgrader export`` show them.

    The gradebook must already know the assignments, notebooks and grade cells (``nbgrader
    generate_assignment`` records them). Students and submissions are created when missing;
    each grade cell's autoscore is set (a manual score given in formgrader still wins).

    Args:
        rows: The grade rows.
        gradebook_url_or_path: A database URL (``sqlite:///course/gradebook.db``) or the path of
            a gradebook.db file.
        assignment_of_notebook: The nbgrader assignment of each notebook (name with or without
            ``.ipynb``), e.g. ``{"00_setup": "workshop"}``.
        course_id: The gradebook's course id.

    Returns:
        Warnings, one per notebook without a known assignment, grade cell unknown to the
        gradebook, or student it refused (those rows are skipped).
    """
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    rows = sort_rows(rows)
    problems: list[str] = []
    with warnings.catch_warnings():
        # nbgrader's add_submission builds objects in a way SQLAlchemy warns about, harmlessly.
        warnings.simplefilter("ignore", SAWarning)
        with Gradebook(_db_url(gradebook_url_or_path), course_id=course_id) as gb:
            assignments = _known_assignments(gb, rows, assignment_of_notebook)
            for student, student_rows in group_rows(rows, lambda r: r.student).items():
                problems += _write_student(gb, student, student_rows, assignments)
    return list(dict.fromkeys(problems))
