"""Build the notebook that runs for a submission, as an ordered list of small named steps.

Like nbgrader's converters (``autograde`` = ClearOutput, DeduplicateIds, OverwriteCells, ...),
assembling is a pipeline: each step reads and changes one :class:`Assembly`, and
:data:`ASSEMBLY` lists them in order. ``workshop grade``, ``workshop check`` and the Jupyter
path of the tests (tests/jupyter_grading.py) all build their notebooks here.

The order matters: the released cells come first, so nothing of the submission can replace a
check cell or a pre-built cell; the hidden tests go back into the check cells only when
asked (stock nbgrader's way); the TODO cells are filled next; the attendee's added cells go
in last, each after the cell it follows in their notebook.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.answers import Answers
from grader.sources import Source, meta

__all__ = [
    "ASSEMBLY",
    "Assembly",
    "assemble",
    "released_cells",
    "restore_hidden_tests",
    "fill_solutions",
    "insert_added_cells",
]

#: The kinds of cell the runner distinguishes (the guard watches ``added`` cells).
KINDS = ("instructor", "check", "solution", "added")


@dataclass
class Assembly:
    """The notebook being assembled for one run.

    Attributes:
        source: The instructor notebook.
        answers: The submission's answers; None = the instructor's solutions (the reference).
        hidden_tests: Run the check cells with their hidden tests (how stock nbgrader scores);
            ``workshop grade`` never does: its hidden checks are the value probes.
        cells: The code cells to run, in order: ``{"source", "grade_id", "kind", "label",
            "at"}`` (``at``: index in the released notebook, for ordering).
    """

    source: Source
    answers: Answers | None
    hidden_tests: bool = False
    cells: list[dict] = field(default_factory=list)


def released_cells(assembly: Assembly) -> None:
    """1. Every code cell as released: pre-built cells, check cells (hidden tests removed),
    TODO stubs; each labelled by its position among the released code cells."""
    number = 0
    for index, cell in enumerate(assembly.source.released.cells):
        if cell.cell_type != "code":
            continue
        number += 1
        info = meta(cell)
        kind = "solution" if info.get("solution") else "check" if info.get("grade") else None
        assembly.cells.append(
            {
                "source": cell.source,
                "grade_id": info.get("grade_id") if info.get("grade") else None,
                "solution_id": info.get("grade_id") if info.get("solution") else None,
                "kind": kind or "instructor",
                "label": f"code cell {number}",
                "at": index,
            }
        )


def restore_hidden_tests(assembly: Assembly) -> None:
    """2. Only with ``hidden_tests``: the check cells as the instructor wrote them."""
    if not assembly.hidden_tests:
        return
    for cell in assembly.cells:
        if cell["kind"] == "check":
            cell["source"] = assembly.source.notebook.cells[cell["at"]].source


def fill_solutions(assembly: Assembly) -> None:
    """3. The TODO cells: the attendee's answer by grade_id (the released stub when they have
    none), or the instructor's solution for the reference run."""
    for cell in assembly.cells:
        if cell["kind"] != "solution":
            continue
        if assembly.answers is None:
            cell["source"] = assembly.source.notebook.cells[cell["at"]].source
        else:
            cell["source"] = assembly.answers.cells.get(cell["solution_id"], cell["source"])


def insert_added_cells(assembly: Assembly) -> None:
    """4. The attendee's added cells, each right after the cell it follows in their notebook
    (several after the same cell keep their order); they run like any other cell."""
    if assembly.answers is None or not assembly.answers.added:
        return
    last = len(assembly.source.released.cells) - 1
    placed = [((cell["at"], 0, 0), cell) for cell in assembly.cells]
    for order, added in enumerate(assembly.answers.added):
        if added.after > last:
            continue  # after a cell a shortened source does not have (tests cut notebooks)
        cell = {
            "source": added.source,
            "grade_id": None,
            "solution_id": None,
            "kind": "added",
            "label": f"your added cell (code cell {added.number} of your notebook)",
            "at": added.after,
        }
        placed.append(((added.after, 1, order), cell))
    assembly.cells = [cell for _, cell in sorted(placed, key=lambda item: item[0])]


#: The assembly, in order (see the module docstring for why this order).
ASSEMBLY = (released_cells, restore_hidden_tests, fill_solutions, insert_added_cells)


def assemble(
    source: Source, answers: Answers | dict[str, str] | None, hidden_tests: bool = False
) -> list[dict]:
    """The code cells to run for one notebook: :data:`ASSEMBLY` applied in order.

    Args:
        source: The instructor notebook.
        answers: What the submission holds (or only its solution cells by grade_id); None =
            the instructor's solutions (the reference).
        hidden_tests: Keep the hidden tests in the check cells (stock nbgrader's way).
    """
    if isinstance(answers, dict):  # solution cells by grade_id, nothing added
        answers = Answers(cells=dict(answers))
    assembly = Assembly(source, answers, hidden_tests)
    for step in ASSEMBLY:
        step(assembly)
    return assembly.cells
