"""A class roster, and matching graded students to it by student id.

A graded student's id is their submission's folder or zip name (what nbgrader calls the
student id). A roster is a CSV file: a Canvas gradebook export (``Student, ID, SIS User ID,
SIS Login ID, Section``), or any CSV with an id column (``student_id``, ``id``, ``login``,
``username``, ``email``...) and optionally a name and a section. A graded student matches the
roster row whose ``SIS Login ID``, ``SIS User ID``, ``ID`` or id column equals their id
(compared as the grader names folders: case and unsafe characters aside). Names are never
used to match: they differ between platforms.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from grader.collect import safe_student_name

__all__ = ["Member", "Roster", "RosterMatch", "read_roster", "match_roster"]

#: Identity columns of a Canvas gradebook export, in its order.
CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: Id columns of other rosters, tried in this order (case-insensitive).
ID_COLUMNS = (
    "sis login id",
    "sis user id",
    "student_id",
    "student id",
    "login",
    "username",
    "user",
    "id",
    "email",
    "student",
)
NAME_COLUMNS = ("student", "name", "full name", "sortable name")


@dataclass(frozen=True)
class Member:
    """One student of the roster.

    Attributes:
        ids: Every id this row can be matched by, normalised.
        name: Their name as the roster writes it ("" when it has none).
        identity: The roster's identity columns, verbatim (a Canvas export's Student, ID, SIS
            User ID, SIS Login ID, Section).
        line: Its line number in the roster file (for messages).
        raw_id: Its first id as the roster writes it.
    """

    ids: tuple[str, ...]
    name: str
    identity: dict
    line: int
    raw_id: str = ""


@dataclass
class Roster:
    """The students of a roster file, and whether it is a Canvas gradebook export."""

    members: list[Member]
    canvas: bool
    columns: list[str]
    path: Path | None = None


@dataclass
class RosterMatch:
    """Graded students matched to roster members.

    Attributes:
        matched: graded student id -> roster member.
        not_in_roster: graded students no roster row has (their grades cannot be imported).
        not_graded: roster members with no graded submission.
        ambiguous: graded students that match several roster rows (not matched).
    """

    matched: dict[str, Member] = field(default_factory=dict)
    not_in_roster: list[str] = field(default_factory=list)
    not_graded: list[Member] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)

    def report(self, total: int) -> list[str]:
        """What an instructor reads: how many matched, and who did not, by name."""
        lines = [f"roster: {len(self.matched)} of {total} graded students matched"]
        if self.not_in_roster:
            lines.append(
                "graded but not in the roster (left out of a Canvas file; their id is the "
                "submission's folder or zip name, which must equal the roster's SIS Login ID, "
                "SIS User ID, ID or id column): " + ", ".join(self.not_in_roster)
            )
        if self.ambiguous:
            lines.append(
                "matching several roster rows (not exported): " + ", ".join(self.ambiguous)
            )
        if self.not_graded:
            names = [m.name or m.raw_id or f"line {m.line}" for m in self.not_graded]
            lines.append(
                "in the roster without a graded submission (exported blank): " + ", ".join(names)
            )
        return lines


def _key(value: str) -> str:
    return safe_student_name(value.strip()).lower() if value and value.strip() else ""


def read_roster(path: Path) -> Roster:
    """Read a roster CSV (a Canvas export or any CSV with an id column).

    Raises:
        ValueError: no header, or no column to match students by (the message lists them).
    """
    path = Path(path)
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{path}: empty roster")
    header = [h.strip() for h in rows[0]]
    canvas = len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    lower = [h.lower() for h in header]
    id_columns = [i for name in ID_COLUMNS for i, h in enumerate(lower) if h == name]
    if canvas:
        id_columns = [header.index(h) for h in ("SIS Login ID", "SIS User ID", "ID") if h in header]
    if not id_columns:
        raise ValueError(
            f"{path}: no column to match students by; name one of: "
            + ", ".join(ID_COLUMNS)
            + f" (found: {', '.join(header)})"
        )
    name_column = next((lower.index(n) for n in NAME_COLUMNS if n in lower), None)
    members = []
    for number, row in enumerate(rows[1:], start=2):
        cells = row + [""] * (len(header) - len(row))
        first = cells[0].strip()
        if not any(c.strip() for c in cells) or "Points Possible" in first:
            continue  # blank rows and Canvas's Points Possible row
        if canvas and first in ("Muted", "") and not any(cells[i].strip() for i in id_columns):
            continue
        ids = tuple(dict.fromkeys(k for k in (_key(cells[i]) for i in id_columns) if k))
        raw_id = next((cells[i].strip() for i in id_columns if cells[i].strip()), "")
        name = cells[name_column].strip() if name_column is not None else ""
        identity = {h: cells[i] for i, h in enumerate(header) if not canvas or h in CANVAS_IDENTITY}
        members.append(Member(ids, name, identity, number, raw_id))
    return Roster(members, canvas, header, path)


def match_roster(students: list[str], roster: Roster) -> RosterMatch:
    """Match graded student ids to roster members by id."""
    result = RosterMatch()
    by_id: dict[str, list[Member]] = {}
    for member in roster.members:
        for key in member.ids:
            by_id.setdefault(key, []).append(member)
    for student in students:
        found = by_id.get(_key(student), [])
        unique = list({m.line: m for m in found}.values())
        if len(unique) == 1:
            result.matched[student] = unique[0]
        elif unique:
            result.ambiguous.append(student)
        else:
            result.not_in_roster.append(student)
    taken = {m.line for m in result.matched.values()}
    result.not_graded = [m for m in roster.members if m.line not in taken]
    return result
