"""What grading produces: one row per (student, notebook, grade cell)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

__all__ = ["GradeRow", "STATUSES", "COLUMNS"]

#: ok: the checks passed; failed: a check failed (or a value differed from the reference);
#: timeout: the time limit stopped the run before or in this cell; crashed: the kernel died
#: (exit, memory or process limit, a signal); missing: the submission has no such notebook.
STATUSES = ("ok", "failed", "timeout", "crashed", "missing")


@dataclass
class GradeRow:
    """The score of one grade cell of one notebook of one student."""

    student: str
    notebook: str
    grade_id: str
    points: float
    max_points: float
    status: str
    #: A message for the student: the visible check's error, or the instructor's message of a
    #: value check that differed. Never hidden test source.
    message: str = ""

    def as_dict(self) -> dict:
        """The row as a plain dict (the CSV columns, in order)."""
        return asdict(self)


COLUMNS = [f.name for f in fields(GradeRow)]
