"""What grading produces: one row per (student, notebook, grade cell)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum

__all__ = ["GradeRow", "Status", "STATUSES", "COLUMNS"]


class Status(str, Enum):
    """How a grade cell ended. A ``str`` subclass: it equals, prints and sorts as its value.

    ok: the checks passed; failed: a check failed (or a value differed from the reference);
    timeout: the time limit stopped the run before or in this cell; crashed: the kernel died
    (exit, memory or process limit, a signal); missing: the submission has no such notebook.
    """

    OK = "ok"
    FAILED = "failed"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    MISSING = "missing"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def stopped(cls, value) -> Status:
        """The status of a run that stopped early: timeout stays timeout, the rest crashed."""
        return cls.TIMEOUT if value == cls.TIMEOUT else cls.CRASHED


#: The status values in the order reports show them.
STATUSES = tuple(s.value for s in Status)


@dataclass
class GradeRow:
    """The score of one grade cell of one notebook of one student."""

    student: str
    notebook: str
    grade_id: str
    points: float
    max_points: float
    status: str
    #: A message for the student: every failing check of the cell, each with what was expected
    #: and the input that showed it (hidden inputs described, never hidden test source).
    message: str = ""
    #: The visible checks' own verdict ``(status, message)``, what ``workshop check`` shows;
    #: set by grading, not written to grades.csv (None for a row read back from it).
    visible: tuple | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.status in STATUSES:
            self.status = Status(self.status)

    def as_dict(self) -> dict:
        """The row as a plain dict (the CSV columns, in order)."""
        return {name: getattr(self, name) for name in COLUMNS}


#: The grades.csv columns, in order.
COLUMNS = [f.name for f in fields(GradeRow) if f.name != "visible"]
