"""Feedback pages for participants, and the safe-text helpers every grading output uses.

A participant's page shows their points and the checks' messages, never hidden test source.
Student names and messages are untrusted (a submission chooses its folder's name and can make
a check fail with any message), so on a page:

* everything is HTML-escaped (the page is a Jinja2 template with autoescape,
  ``templates/feedback.html``), and the page loads nothing and forbids scripts
  (a Content-Security-Policy), so even a missed escape could not run code;
* terminal escape codes and control characters are removed;
* a message line that shows a line of a hidden test (a traceback through a hidden check, say)
  becomes ``[hidden check]``: the engine passes only messages, this is the second lock.

Pages are written atomically (:func:`grader.files.atomic_write_text`): a reader never sees
half a page, and a failure leaves the previous page as it was.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import jinja2

from grader.files import atomic_write_text
from grader.results import STATUSES, GradeRow

__all__ = [
    "HIDDEN_MARK",
    "FORMULA_START",
    "STATUS_MEANINGS",
    "feedback_filename",
    "format_points",
    "group_rows",
    "plain_text",
    "redact",
    "render_feedback",
    "shorten",
    "sort_rows",
    "spreadsheet_safe",
    "write_feedback",
    "write_feedback_pages",
]

#: What replaces a message line that shows hidden test source.
HIDDEN_MARK = "[hidden check]"
#: Longest message shown on a page.
PAGE_MESSAGE_LIMIT = 2000
#: What each status means, in the words a participant reads on the page.
STATUS_MEANINGS = {
    "ok": "the checks passed.",
    "failed": "a check failed, or a value differed from the expected one (the message lists "
    "every failing check).",
    "timeout": "the time limit stopped the notebook before or during this cell.",
    "crashed": "the notebook's process died (it exited, or hit a memory or process limit).",
    "missing": "the submission has no such notebook.",
}

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# IPython traceback gutters: "----> 5 " (the failing line) and "      4 " (context lines).
_GUTTER = re.compile(r"^\s*-*>?\s*\d+\s")
# A piece of a hidden line at least this long counts as showing it (a capped traceback).
_FRAGMENT_MIN = 12


# --- helpers shared by every output ----------------------------------------------------------


def plain_text(text: str) -> str:
    """Text without terminal escape codes and control characters (newlines and tabs kept)."""
    text = _ANSI.sub("", str(text)).replace("\r\n", "\n")
    return _CONTROL.sub("", text)


def shorten(text: str, limit: int) -> str:
    """The text, cut to ``limit`` characters with an ellipsis when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: What a spreadsheet runs as a formula at the start of a cell (OWASP "CSV injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str, read_back: bool = False) -> str:
    """``text`` with a leading apostrophe when a spreadsheet would run it as a formula.

    With ``read_back`` (grades.csv, which the grader reads again to resume a batch) a leading
    apostrophe gets one too, so reading removes exactly one; an export is never read back, so
    there an apostrophe is left as written.
    """
    starts = (*FORMULA_START, "'") if read_back else FORMULA_START
    return "'" + text if text.startswith(starts) else text


def format_points(value: float) -> str:
    """Points as people write them: 2, 0.5, 1.333."""
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.4g}"


def sort_rows(rows: Iterable[GradeRow]) -> list[GradeRow]:
    """Rows by student, then notebook (numbered names sort in series order); the grade cells of
    a notebook keep the order they were given in (the notebook's order)."""
    return sorted(rows, key=lambda row: (row.student, row.notebook))


def group_rows(rows: Iterable[GradeRow], key: Callable[[GradeRow], object]) -> dict:
    """Rows grouped by ``key``, groups and rows in the order first seen."""
    groups: dict = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return groups


# --- hidden lines ----------------------------------------------------------------------------


def _squash(text: str) -> str:
    return " ".join(text.split())


def _needles(hidden_lines: Iterable[str] | None) -> list[str]:
    """Hidden lines worth looking for: a line of only brackets or commas reveals nothing."""
    found = {_squash(plain_text(line)) for line in hidden_lines or ()}
    return sorted(n for n in found if any(ch.isalnum() for ch in n))


def _shows_hidden(line: str, needles: list[str]) -> bool:
    squashed = _squash(line)
    if any(needle in squashed for needle in needles):
        return True
    fragment = _squash(_GUTTER.sub("", line))
    return len(fragment) >= _FRAGMENT_MIN and any(fragment in needle for needle in needles)


def redact(message: str, hidden_lines: Iterable[str] | None = None) -> str:
    """A message with every line that shows hidden test source replaced by ``[hidden check]``.

    Args:
        message: The message for the student (a check's error, maybe a traceback).
        hidden_lines: Stripped, non-empty lines of the hidden test regions.

    Returns:
        The message without terminal escape codes; a line that contains a hidden line, or is
        a long enough piece of one (a traceback line cut short), is replaced, and consecutive
        replacements are merged. Whitespace differences do not hide a line.
    """
    needles = _needles(hidden_lines)
    out: list[str] = []
    for line in plain_text(message).splitlines():
        if needles and _shows_hidden(line, needles):
            if not out or out[-1] != HIDDEN_MARK:
                out.append(HIDDEN_MARK)
        else:
            out.append(line)
    return "\n".join(out)


# --- the page --------------------------------------------------------------------------------

# The page is templates/feedback.html; autoescape escapes every value put into it, so no value
# reaches the page unescaped, whatever the submission wrote.
_PAGES = jinja2.Environment(
    loader=jinja2.PackageLoader("grader", "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)


def _totals(rows: list[GradeRow]) -> tuple[float, float]:
    return sum(r.points for r in rows), sum(r.max_points for r in rows)


def _row_view(row: GradeRow, hidden_lines) -> dict:
    return {
        "grade_id": row.grade_id,
        "points": format_points(row.points),
        "max_points": format_points(row.max_points),
        "css": row.status if row.status in STATUSES else "unknown",
        "status": row.status,
        "message": shorten(redact(row.message or "", hidden_lines), PAGE_MESSAGE_LIMIT),
    }


def _notebook_view(notebook: str, rows: list[GradeRow], hidden_lines) -> dict:
    points, max_points = map(format_points, _totals(rows))
    rows_shown = [_row_view(row, hidden_lines) for row in rows]
    return {"name": notebook, "points": points, "max_points": max_points, "rows": rows_shown}


def render_feedback(rows: list[GradeRow], title: str, hidden_lines=None, notes=()) -> str:
    """One student's feedback page as a self-contained HTML document.

    Args:
        rows: The student's grade rows.
        title: The page's title (escaped like everything else).
        hidden_lines: Optional lines of hidden tests; message lines showing one are redacted.
        notes: What grading dropped or replaced in the submission (edited check cells, code
            outside the TODO cells), shown above the tables.

    Returns:
        The HTML text: the overall total, the notes, a table per notebook with its total, a
        legend.
    """
    rows = sort_rows(rows)
    points, max_points = map(format_points, _totals(rows))
    notebooks = group_rows(rows, lambda r: r.notebook)
    return _PAGES.get_template("feedback.html").render(
        title=title,
        points=points,
        max_points=max_points,
        notes=[plain_text(note) for note in notes],
        notebooks=[_notebook_view(nb, nb_rows, hidden_lines) for nb, nb_rows in notebooks.items()],
        meanings=STATUS_MEANINGS,
    )


def write_feedback(
    rows_of_one_student: list[GradeRow], path, title=None, hidden_lines=None, notes=()
):
    """Write one student's feedback page atomically.

    Args:
        rows_of_one_student: The grade rows of a single student.
        path: Where to write the page.
        title: The page title; default "Feedback for STUDENT".
        hidden_lines: Optional stripped lines of hidden tests to redact from messages.
        notes: Optional notes on how the notebooks were read (see :func:`render_feedback`).

    Returns:
        The path written.

    Raises:
        ValueError: The rows belong to more than one student.
    """
    students = sorted({row.student for row in rows_of_one_student})
    if len(students) > 1:
        raise ValueError(f"write_feedback takes one student's rows, got {len(students)} students")
    if title is None:
        title = f"Feedback for {students[0]}" if students else "Feedback"
    page = render_feedback(rows_of_one_student, title, hidden_lines, notes)
    return atomic_write_text(path, page, errors="replace")


def feedback_filename(student: str) -> str:
    """A safe file name for a student's page: no folders, no dot files, no collisions."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", student)[:80] or "student"
    if safe != student:
        digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()[:8]
        safe = f"{safe}-{digest}"
    return f"{safe}.html"


def write_feedback_pages(rows: list[GradeRow], folder, hidden_lines=None) -> dict[str, Path]:
    """Write one feedback page per student into ``folder`` (see :func:`feedback_filename`).

    Returns:
        The page written for each student, by student name.
    """
    pages = {}
    for student, student_rows in group_rows(sort_rows(rows), lambda r: r.student).items():
        path = Path(folder) / feedback_filename(student)
        pages[student] = write_feedback(student_rows, path, hidden_lines=hidden_lines)
    return pages
