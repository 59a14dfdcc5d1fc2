"""``workshop export``: grades.csv to Canvas's gradebook import, Gradescope's results.json, or a
plain CSV with one row per student.

* Canvas (its ``GradebookImporter``, shared/facts/lms-export.md): the header ``Student, ID,
  SIS User ID, SIS Login ID, Section`` then one column per assignment (``Title`` or, copied
  from a Canvas export given as the roster, ``Title (id)`` so Canvas matches it by id); the
  ``Points Possible`` row; numbers with a period and at most two decimals; blank, not 0, where
  nothing was submitted. A title Canvas would drop as a totals column ("Final Score...") is
  refused.
* Gradescope (autograder ``results.json``): one test per grade cell with ``score``,
  ``max_score``, ``status``, ``output`` (the feedback message: never hidden test source) and
  ``visibility``; checked against :data:`GRADESCOPE_SCHEMA`, a JSON Schema written from
  Gradescope's specification, before it is written.
* csv: student, name, points per notebook, total, max_points and a status column (a crashed or
  timed-out notebook does not look like a plain 0).

Students are matched to a roster by id (:mod:`grader.roster`); who did not match is reported.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.feedback import redact, spreadsheet_safe
from grader.files import atomic_write_text
from grader.gradescope_schema import GRADESCOPE_SCHEMA
from grader.results import GradeRow, Status
from grader.roster import CANVAS_IDENTITY, Roster, RosterMatch

__all__ = [
    "FORMATS",
    "GRADESCOPE_SCHEMA",
    "StudentGrade",
    "canvas_csv",
    "canvas_problems",
    "gradescope_results",
    "plain_csv",
    "student_grades",
]

FORMATS = ("canvas", "gradescope", "csv")
#: Header words Canvas's importer drops as totals columns (gradebook_importer.rb).
_CANVAS_TOTALS = re.compile(
    r"Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
    r"Override Score|Override Grade|Override Status"
)
_TITLE_WITH_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z")


@dataclass
class StudentGrade:
    """One student's grades: points per notebook, total, and what did not end ``ok``."""

    student: str
    rows: list[GradeRow] = field(default_factory=list)

    def notebooks(self) -> dict[str, tuple[float, float]]:
        """notebook -> (points, max points), in the rows' order."""
        found: dict[str, tuple[float, float]] = {}
        for row in self.rows:
            points, most = found.get(row.notebook, (0.0, 0.0))
            found[row.notebook] = (points + row.points, most + row.max_points)
        return found

    def submitted(self, notebook: str | None = None) -> bool:
        """Whether anything (or this notebook) was submitted."""
        rows = [r for r in self.rows if notebook is None or r.notebook == notebook]
        return any(r.status != Status.MISSING for r in rows)

    @property
    def total(self) -> float:
        return sum(r.points for r in self.rows)

    @property
    def max_total(self) -> float:
        return sum(r.max_points for r in self.rows)

    def status(self) -> str:
        """``ok``, ``no submission``, or each notebook that did not end ok with its status."""
        if not self.submitted():
            return "no submission"
        worst: dict[str, str] = {}
        for row in self.rows:
            if row.status != Status.OK and row.notebook not in worst:
                worst[row.notebook] = str(row.status)
        return "; ".join(f"{nb}: {status}" for nb, status in worst.items()) or "ok"


def student_grades(rows: list[GradeRow]) -> dict[str, StudentGrade]:
    """The rows of grades.csv grouped by student (in file order)."""
    grades: dict[str, StudentGrade] = {}
    for row in rows:
        grades.setdefault(row.student, StudentGrade(row.student)).rows.append(row)
    return grades


def _number(value: float) -> str:
    """At most two decimals, a period, no trailing zeros (Canvas compares at 2 decimals)."""
    text = f"{round(float(value), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _safe(text: str) -> str:
    """A cell a spreadsheet would run as a formula gets a leading apostrophe (an export is not
    read back, so an apostrophe the text starts with stays as it is)."""
    return spreadsheet_safe(text)


# --- Canvas ---------------------------------------------------------------------------------
def _canvas_columns(title: str, notebooks: list[str], per_notebook: bool, roster) -> list[str]:
    titles = [f"{title}: {nb}" for nb in notebooks] if per_notebook else [title]
    for name in titles:
        if _CANVAS_TOTALS.search(name):
            raise ValueError(
                f"the column title {name!r} contains a word Canvas drops as a totals column "
                f"({_CANVAS_TOTALS.pattern.replace('|', ', ')}): choose another --title"
            )
    existing = {}
    for header in roster.columns if roster is not None and roster.canvas else []:
        found = _TITLE_WITH_ID.match(header)
        if found:
            existing[found.group(1)] = header  # "Title (123)": Canvas matches it by id
    return [existing.get(name, name) for name in titles]


def canvas_csv(
    grades: dict[str, StudentGrade],
    title: str,
    per_notebook: bool = False,
    roster: Roster | None = None,
    matched: RosterMatch | None = None,
) -> str:
    """A Canvas gradebook import file (UTF-8, comma, RFC 4180 quoting, no BOM).

    Args:
        grades: By student id.
        title: The assignment's title in Canvas (one column, the total), or the prefix of one
            column per notebook with ``per_notebook``.
        roster, matched: With a roster, rows follow it (identity columns copied from a Canvas
            export) and graded students not in it are left out (see the match's report).
    """
    notebooks = list(next(iter(grades.values())).notebooks()) if grades else []
    columns = _canvas_columns(title, notebooks, per_notebook, roster)
    some = next(iter(grades.values()), StudentGrade(""))
    if per_notebook:
        maxima = [some.notebooks()[nb][1] for nb in notebooks]
    else:
        maxima = [some.max_total]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([*CANVAS_IDENTITY, *columns])
    writer.writerow(["    Points Possible", "", "", "", "", *map(_number, maxima)])

    def scores(grade: StudentGrade | None) -> list[str]:
        if grade is None or not grade.submitted():
            return [""] * len(columns)
        if not per_notebook:
            return [_number(grade.total)]
        by_notebook = grade.notebooks()
        return [_number(by_notebook[nb][0]) if grade.submitted(nb) else "" for nb in notebooks]

    if roster is None or matched is None:
        for student, grade in grades.items():
            writer.writerow([_safe(student), "", "", _safe(student), "", *scores(grade)])
        return buffer.getvalue()
    by_line = {member.line: student for student, member in matched.matched.items()}
    for member in roster.members:
        student = by_line.get(member.line)
        if roster.canvas:
            identity = [member.identity.get(h, "") for h in CANVAS_IDENTITY]
        else:
            login = member.raw_id
            section = next((v for k, v in member.identity.items() if k.lower() == "section"), "")
            identity = [member.name, "", "", login, section]
        writer.writerow([*map(_safe, identity), *scores(grades.get(student))])
    return buffer.getvalue()


def canvas_problems(text: str) -> list[str]:
    """What Canvas's importer would reject or misread in a file (empty when none)."""
    rows = list(csv.reader(io.StringIO(text)))
    problems = []
    if not rows or len(rows[0]) <= 3 or "Student" not in rows[0][0] or "ID" not in rows[0][1]:
        return ["Invalid header row: cell 1 must hold Student, cell 2 ID, more than 3 cells"]
    header = rows[0]
    identity = [h for h in header if h in CANVAS_IDENTITY]
    if not identity or "Section" not in identity[-1]:
        problems.append("the last identity column must be Section")
    assignments = header[len(identity) :]
    problems += [
        f"totals column would be dropped: {h}" for h in assignments if _CANVAS_TOTALS.search(h)
    ]
    if len(rows) < 2 or "Points Possible" not in rows[1][0]:
        problems.append("no Points Possible row under the header")
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            problems.append(f"line {number}: {len(row)} cells, the header has {len(header)}")
            continue
        for value in row[len(identity) :]:
            if value and not re.fullmatch(r"-?\d+(\.\d{1,2})?", value):
                problems.append(f"line {number}: {value!r} is not a number with 2 decimals")
    return problems


# --- Gradescope -----------------------------------------------------------------------------
def gradescope_results(grade: StudentGrade, visibility: str = "visible", hidden_lines=None) -> dict:
    """Gradescope's results.json for one student: one test per grade cell.

    Gradescope knows only ``passed``/``failed``: a timeout, crash or missing notebook is a
    failed test whose output starts with that status (and ``extra_data`` keeps it).

    Raises:
        ValueError: the result does not fit Gradescope's documented shape (a bug).
    """
    from jsonschema import Draft202012Validator

    tests, counters = [], {}
    for row in grade.rows:
        counters[row.notebook] = counters.get(row.notebook, 0) + 1
        number = row.notebook.split("_", 1)[0].lstrip("0") or "0"
        message = redact(row.message or "", hidden_lines)
        if row.status not in (Status.OK, Status.FAILED):
            message = f"[{row.status}] {message}".strip()
        tests.append(
            {
                "name": f"{row.notebook}: {row.grade_id}",
                "number": f"{number}.{counters[row.notebook]}",
                "score": round(float(row.points), 5),
                "max_score": round(float(row.max_points), 5),
                "status": "passed" if row.status == Status.OK else "failed",
                "output": message.replace("\r\n", "\n"),
                "output_format": "text",
                "visibility": visibility,
                "tags": [row.notebook, str(row.status)],
                "extra_data": {"status": str(row.status), "grade_id": row.grade_id},
            }
        )
    results = {
        "score": round(grade.total, 5),
        "output": f"{_number(grade.total)} of {_number(grade.max_total)} points ({grade.status()})",
        "output_format": "text",
        "visibility": visibility,
        "tests": tests,
    }
    errors = sorted(Draft202012Validator(GRADESCOPE_SCHEMA).iter_errors(results), key=str)
    if errors:
        raise ValueError(f"results.json does not fit Gradescope's shape: {errors[0].message}")
    return results


# --- plain CSV ------------------------------------------------------------------------------
def plain_csv(grades: dict[str, StudentGrade], matched: RosterMatch | None = None) -> str:
    """One row per student: student, name, points per notebook, total, max_points, status."""
    notebooks = list(next(iter(grades.values())).notebooks()) if grades else []
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["student", "name", *notebooks, "total", "max_points", "status"])
    names = {s: m.name for s, m in (matched.matched.items() if matched else [])}
    for student, grade in grades.items():
        by_notebook = grade.notebooks()
        points = [_number(by_notebook[nb][0]) if grade.submitted(nb) else "" for nb in notebooks]
        total = _number(grade.total) if grade.submitted() else ""
        row = [student, names.get(student, ""), *points, total, _number(grade.max_total)]
        writer.writerow([*map(_safe, row), grade.status()])
    for member in matched.not_graded if matched else []:
        ident = member.raw_id
        writer.writerow(
            [_safe(ident), _safe(member.name), *[""] * (len(notebooks) + 1), "", "no submission"]
        )
    return buffer.getvalue()


def write_export(text_or_json, path: Path) -> Path:
    """Write an export atomically (JSON with ``\\n`` line ends, CSV as built)."""
    if isinstance(text_or_json, dict):
        text_or_json = json.dumps(text_or_json, indent=2, ensure_ascii=False) + "\n"
    return atomic_write_text(path, text_or_json)
