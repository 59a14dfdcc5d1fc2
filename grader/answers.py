"""What grading takes from a submitted notebook: the TODO cells and the cells the attendee added.

Each cell of the submission is matched to the instructor's released notebook, by its cell id
first (JupyterLab keeps ids) and else by its text:

* a TODO (solution) cell gives the answer of its ``grade_id``;
* a check cell or a pre-built cell is the instructor's: the released version runs, whatever
  the submission holds (an edited one is reported, and names defined only in an edited
  pre-built cell are named, since they will not exist);
* any other code cell was added by the attendee: it runs in its place, after the cell it
  follows in the submission (see :mod:`grader.assembly`), in the same sandbox.
"""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.sources import Source, meta, text_of

__all__ = ["AddedCell", "Answers", "read_answers", "defined_names"]


@dataclass(frozen=True)
class AddedCell:
    """A code cell the attendee added.

    Attributes:
        after: Index in the released notebook's cells of the cell it follows (-1: the top).
        source: Its code.
        number: Its position among the code cells of the attendee's notebook (1-based).
    """

    after: int
    source: str
    number: int


@dataclass
class Answers:
    """What grading takes from one submitted notebook.

    Attributes:
        cells: The student's solution cells by grade_id ({} for a missing or broken file).
        added: The code cells the student added, in their notebook's order.
        dropped: Names the student defined only in pre-built cells they edited (grading runs
            pre-built cells as released, so these names do not exist there).
        notes: What the student should know about how their notebook was read, one sentence
            each.
    """

    cells: dict[str, str] = field(default_factory=dict)
    added: list[AddedCell] = field(default_factory=list)
    dropped: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


#: Submissions are read in parallel threads, and CPython 3.11's AST construction keeps its
#: recursion depth in interpreter-wide state: two ``ast.parse`` at once can fail with
#: "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905).
_AST_LOCK = threading.Lock()


def defined_names(source: str) -> set[str]:
    """Top-level names a cell defines (def, class, assignment, import); {} if it does not parse."""
    try:
        with _AST_LOCK:
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def _read(submission) -> list[dict]:
    """The submission's cells (a path, a notebook, or None); [] when unreadable."""
    if submission is None:
        return []
    try:
        nb = submission if isinstance(submission, dict) else nbformat.read(submission, 4)
        cells = nb.get("cells", [])
    except Exception:  # unreadable JSON, wrong format: every answer is missing
        return []
    return [c for c in cells if isinstance(c, dict)] if isinstance(cells, list) else []


class _Matcher:
    """Finds the released cell a submitted cell is, each at most once: by cell id first
    (claimed for the whole notebook before any text is compared, so a copy of a cell placed
    above the original does not take its place), then by text among the unclaimed cells."""

    def __init__(self, source: Source, cells: list[dict]):
        self.cells = source.released.cells
        self.used: set[int] = set()
        by_id = {c.get("id"): i for i, c in enumerate(self.cells) if c.get("id")}
        self.claims: dict[int, int] = {}  # id(submitted cell) -> released index
        claimed: set[int] = set()
        for cell in cells:
            index = by_id.get(cell.get("id"))
            if index is not None and index not in claimed:
                if self.cells[index].cell_type == cell.get("cell_type"):
                    self.claims[id(cell)] = index
                    claimed.add(index)
        self.claimed = claimed

    def find(self, cell: dict, text: str) -> int | None:
        if id(cell) in self.claims:
            return self.claims[id(cell)]
        for index, released in enumerate(self.cells):
            if index in self.used or index in self.claimed:
                continue
            if released.cell_type != cell.get("cell_type"):
                continue
            if released.source.strip() == text.strip():
                return index
        return None


def read_answers(submission: Path | dict | None, source: Source | None = None) -> Answers:
    """The student's solution cells and added cells, and notes on how the notebook was read.

    Args:
        submission: The submitted notebook (a path or a notebook; None: not submitted).
        source: The instructor notebook; without it only the solution cells are read.
    """
    answers = Answers()
    cells = _read(submission)
    if source is None:
        for cell in cells:
            info, text = meta(cell), text_of(cell)
            if info.get("solution") and isinstance(info.get("grade_id"), str) and text is not None:
                answers.cells.setdefault(info["grade_id"], text)
        return answers
    released = source.released.cells
    matcher = _Matcher(source, cells)
    edited: list[str] = []
    seen_checks: set[str] = set()
    anchor, code_number = -1, 0
    for cell in cells:
        text = text_of(cell)
        if text is None or cell.get("cell_type") not in ("code", "markdown"):
            continue
        if cell.get("cell_type") == "code":
            code_number += 1
        index = _match(cell, text, source, matcher, answers)
        if index is None:
            if cell.get("cell_type") == "code" and text.strip():
                answers.added.append(AddedCell(anchor, text, code_number))
            continue
        matcher.used.add(index)
        anchor = index
        original = released[index]
        info = meta(original)
        if original.cell_type != "code" or info.get("solution"):
            continue
        if info.get("grade"):
            seen_checks.add(info["grade_id"])
        if text.strip() != original.source.strip():
            if info.get("grade"):
                answers.notes.append(
                    f"the check cell {info['grade_id']} was edited in your notebook; grading "
                    "ran the original check"
                )
            else:
                edited.append(text)
    _note_missing_checks(source, seen_checks, answers)
    _note_dropped(source, edited, answers)
    return answers


def _match(cell: dict, text: str, source: Source, matcher: _Matcher, answers: Answers):
    """The released index of a submitted cell (recording a TODO answer), or None if added."""
    info = meta(cell)
    grade_id = info.get("grade_id")
    released = source.released.cells
    if cell.get("cell_type") == "code" and isinstance(grade_id, str):
        for index, original in enumerate(released):
            same_role = meta(original).get("solution") == bool(info.get("solution"))
            if meta(original).get("grade_id") == grade_id and same_role:
                if index in matcher.used:
                    return None  # a copy of a TODO or check cell: the attendee's own cell
                if info.get("solution"):
                    answers.cells[grade_id] = text
                return index
    index = matcher.find(cell, text)
    if index is not None and meta(released[index]).get("solution"):
        answers.cells.setdefault(meta(released[index])["grade_id"], text)
    return index


def _note_missing_checks(source: Source, seen: set[str], answers: Answers) -> None:
    for cell in source.released.cells:
        grade_id = meta(cell).get("grade_id")
        if meta(cell).get("grade") and grade_id not in seen:
            answers.notes.append(
                f"the check cell {grade_id} is missing from your notebook; grading ran the "
                "original check"
            )


def _note_dropped(source: Source, edited: list[str], answers: Answers) -> None:
    """Name what only edited pre-built cells define: grading runs those cells as released."""
    if not edited:
        return
    code = [c for c in source.released.cells if c.cell_type == "code"]
    runs = set().union(*(defined_names(c.source) for c in code if not meta(c).get("solution")))
    runs |= set().union(*map(defined_names, answers.cells.values()))
    runs |= set().union(*(defined_names(a.source) for a in answers.added))
    dropped = set().union(*map(defined_names, edited)) - runs
    if dropped:
        answers.dropped = dropped
        answers.notes.append(
            "your notebook defines " + ", ".join(sorted(dropped)) + " in a pre-built cell you "
            "edited; grading runs the pre-built cells as released, so these names do not "
            "exist there: define them in a cell of your own or in the TODO cell"
        )
