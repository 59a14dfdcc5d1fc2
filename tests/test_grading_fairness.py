"""Grading fairness (issue 11): grade only what is written, partial credit, complete feedback,
code outside the TODO cells, edited check cells, one grading path.

These tests need no notebook run (the notebook runs are in tests/test_grader_probes.py, which
also holds the visible-check cases, and tests/test_notebooks.py for the mutants).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from grader.grade import (
    NotebookRun,
    Source,
    load_sources,
    meta,
    read_answers,
    score_notebook,
)
from grader.release import release_notebook
from grader.results import GradeRow, Status
from grader.sources import hidden_pattern
from grader.value_checks import Probe

SOURCES = {source.name: source for source in load_sources()}


def _squash(text: str) -> str:
    return " ".join(text.split())


def _todo_text(source: Source, grade_id: str) -> str:
    """What the attendee reads for the TODO a grade cell checks: the markdown cells since the
    previous TODO's checks and the released solution cell (its docstring)."""
    cells = source.released.cells
    at = next(i for i, c in enumerate(cells) if meta(c).get("grade_id") == grade_id)
    solution = max(i for i in range(at) if meta(cells[i]).get("solution"))
    start = max((i for i in range(solution) if meta(cells[i]).get("grade")), default=-1)
    parts = [c.source for c in cells[start + 1 : solution + 1] if c.cell_type == "markdown"]
    return _squash("\n".join(parts + [cells[solution].source]))


PROBES = [
    (name, grade_id, probe)
    for name, source in SOURCES.items()
    for grade_id, probes in source.probes.items()
    for probe in probes
]


@pytest.mark.parametrize(
    "name, grade_id, probe", PROBES, ids=[f"{n}/{g}/{p.name}" for n, g, p in PROBES]
)
def test_every_probe_relies_only_on_sentences_the_notebook_states(name, grade_id, probe):
    """Item 1: each value check names the instruction sentences it enforces, and each of them is
    in the TODO's text the attendee reads (the docstring or the markdown before it)."""
    assert probe.relies_on, f"{name}/{grade_id}/{probe.name}: which sentences does it enforce?"
    text = _todo_text(SOURCES[name], grade_id)
    for sentence in probe.relies_on:
        assert _squash(sentence) in text, (
            f"{name}/{grade_id}/{probe.name} relies on {sentence!r}, which the notebook does not "
            "state: state it in the TODO, or stop checking it"
        )


def test_the_unknown_tool_error_need_not_name_the_tool():
    """Item 1, the finding: 04's docstring never asks the error to name the tool."""
    source = SOURCES["04_agent_loop"]
    text = "\n".join(
        p.code for probes in source.probes.values() for p in probes if p.name == "unknown tool"
    )
    assert 'named=("teleport_vessel"' not in text
    checks = [c.source for c in source.notebook.cells if meta(c).get("grade")]
    assert not any('"teleport_vessel" in _obs' in c for c in checks)


@pytest.mark.parametrize("name", list(SOURCES))
def test_each_todo_is_graded_in_several_cells_with_points_spread(name):
    """Item 2: one behaviour per grade cell, so one bug loses one part: every TODO of every
    notebook has at least two grade cells, the first named <function>_checks, the others
    <function>_<behaviour>, each worth part of the TODO's points (halves at most)."""
    source = SOURCES[name]
    cells = source.notebook.cells
    todos = 0
    for i, cell in enumerate(cells):
        grade_id = meta(cell).get("grade_id")
        if not meta(cell).get("solution"):
            continue
        todos += 1
        checks = []
        for later in cells[i + 1 :]:
            if meta(later).get("solution"):
                break
            if meta(later).get("grade"):
                checks.append(meta(later))
        assert len(checks) >= 2, f"{name}/{grade_id}: one grade cell"
        ids = [c["grade_id"] for c in checks]
        assert ids[0] == f"{grade_id}_checks", f"{name}/{grade_id}: the first is {ids[0]}"
        assert all(g.startswith(f"{grade_id}_") for g in ids), f"{name}/{grade_id}: {ids}"
        total = sum(c["points"] for c in checks)
        for c in checks:
            assert 0 < c["points"] < total and float(2 * c["points"]).is_integer(), (name, c)
    assert todos, f"{name} has no TODO"


def _source_with_probes(probes: dict[str, list[Probe]]) -> Source:
    nb = nbformat.v4.new_notebook()
    for grade_id in probes:
        cell = nbformat.v4.new_code_cell("pass")
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "points": 1.0}
        nb.cells.append(cell)
    return Source("nb", nb, nb, [(g, 1.0) for g in probes], probes, set())


def test_the_feedback_lists_every_failing_check():
    """Item 2: every failing check of a cell is in its message (main showed only the first)."""
    probes = {"cell": [Probe(f"p{i}", "value = 1", f"input {i}: expected {i}") for i in range(3)]}
    source = _source_with_probes(probes)
    run = NotebookRun(status=Status.OK, executed={0}, errors={0: ["AssertionError", "visible"]})
    run.probe_values = [(0, ["ok", 0]), (1, ["ok", 1]), (2, ["ok", 0])]
    reference = [(0, ["ok", 1]), (1, ["ok", 1]), (2, ["ok", 1])]
    (row,) = score_notebook("s", source, run, reference)
    assert row.status == Status.FAILED and row.points == 0
    assert "visible check: AssertionError: visible" in row.message
    assert "value check 'p0': input 0: expected 0" in row.message
    assert "value check 'p2': input 2: expected 2" in row.message
    assert "'p1'" not in row.message


def test_status_is_an_enum_that_reads_as_text():
    row = GradeRow("s", "nb", "g", 0.0, 1.0, "timeout")
    assert row.status is Status.TIMEOUT and row.status == "timeout" and f"{row.status}" == "timeout"


def test_hidden_markers_come_from_nbgrader_settings():
    from nbgrader.preprocessors import ClearHiddenTests

    settings = ClearHiddenTests()
    text = f"a\n{settings.begin_test_delimeter}\nsecret\n{settings.end_test_delimeter}\n"
    assert hidden_pattern().findall(text) == ["\nsecret\n"]


def _submission(tmp_path, edit):
    source = SOURCES["00_setup"]
    nb = release_notebook(source.notebook)
    edit(nb)
    path = tmp_path / "00_setup.ipynb"
    nbformat.write(nb, path)
    return read_answers(path, source)


def test_an_added_cell_runs_in_its_place(tmp_path):
    """Issue 22 item 1 (was issue 11 item 6): a helper in an extra cell above the TODO is an
    added cell that runs just before the TODO, so nothing is dropped and no note is needed."""
    from grader.assembly import assemble

    def edit(nb):
        at = next(i for i, c in enumerate(nb.cells) if meta(c).get("solution"))
        nb.cells.insert(at, nbformat.v4.new_code_cell('TOP_SQL = "SELECT 1"\nimport numbers'))
        nb.cells[at + 1].source = "def top_carriers_by_teu(n):\n    return TOP_SQL\n"

    answers = _submission(tmp_path, edit)
    assert answers.dropped == set() and answers.notes == [], answers
    cells = assemble(SOURCES["00_setup"], answers)
    kinds = [c["kind"] for c in cells]
    at = kinds.index("solution")
    assert kinds[at - 1] == "added" and cells[at - 1]["source"].startswith("TOP_SQL")
    assert "your added cell (code cell" in cells[at - 1]["label"]


def test_names_defined_only_in_an_edited_prebuilt_cell_are_reported(tmp_path):
    """A pre-built cell runs as released: a helper added into one is named in the notes, and
    the NameError says why."""

    def edit(nb):
        at = next(i for i, c in enumerate(nb.cells) if meta(c).get("solution"))
        prebuilt = max(i for i in range(at) if nb.cells[i].cell_type == "code")
        nb.cells[prebuilt].source = 'TOP_SQL = "SELECT 1"\n' + nb.cells[prebuilt].source
        nb.cells[at].source = "def top_carriers_by_teu(n):\n    return TOP_SQL\n"

    answers = _submission(tmp_path, edit)
    assert answers.dropped == {"TOP_SQL"}, answers.dropped
    assert any("TOP_SQL" in note and "pre-built cell you edited" in note for note in answers.notes)
    source = _source_with_probes({"top_carriers_by_teu_checks": []})
    run = NotebookRun(status=Status.OK, executed={0})
    run.errors = {0: ["NameError", "name 'TOP_SQL' is not defined"]}
    (row,) = score_notebook("s", source, run, [], answers.dropped)
    assert "TOP_SQL is defined in a pre-built cell you edited" in row.message


def test_an_untouched_notebook_has_no_notes(tmp_path):
    answers = _submission(tmp_path, lambda nb: None)
    assert answers.notes == [] and answers.dropped == set()


def test_edited_and_deleted_check_cells_are_reported(tmp_path):
    """While in the grader: an edited check cell is replaced by the original, and said so."""

    def edit(nb):
        checks = [c for c in nb.cells if meta(c).get("grade")]
        checks[0].source = "pass"
        nb.cells.remove(checks[1])

    notes = _submission(tmp_path, edit).notes
    assert any("top_carriers_by_teu_checks was edited" in n for n in notes), notes
    assert any("top_carriers_by_teu_ties is missing" in n for n in notes), notes


def test_feedback_page_and_problems_show_the_notes(tmp_path):
    from grader.feedback import render_feedback

    page = render_feedback(
        [GradeRow("s", "00_setup", "g", 0, 1, "failed", "x")], "t", notes=["<b>TOP_SQL</b> note"]
    )
    assert "&lt;b&gt;TOP_SQL&lt;/b&gt; note" in page


@pytest.mark.parametrize("name", list(SOURCES))
def test_every_notebook_says_to_keep_code_in_the_todo_cell(name):
    """Item 6: the first cell and every TODO tell attendees to keep their code in the TODO cell."""
    cells = SOURCES[name].released.cells
    assert "Keep all your code for a TODO inside its TODO cell" in cells[0].source
    for i, cell in enumerate(cells):
        if meta(cell).get("solution"):
            before = next(
                cells[k] for k in range(i - 1, -1, -1) if cells[k].cell_type == "markdown"
            )
            assert "Keep all your code for this TODO" in before.source, meta(cell)["grade_id"]


def test_one_grading_path_of_named_steps():
    """Issue 22 item 5: autograde.py is folded in; the batch and the notebook assembly are
    ordered lists of small named steps; every grader module stays under about 400 lines."""
    import importlib.util
    import inspect

    import grader.assembly as assembly
    import grader.grade as grade
    import tests.jupyter_grading as jupyter

    assert importlib.util.find_spec("grader.autograde") is None
    assert [step.__name__ for step in assembly.ASSEMBLY] == [
        "released_cells",
        "restore_hidden_tests",
        "fill_solutions",
        "insert_added_cells",
    ]
    assert [step.__name__ for step in grade.STEPS][:3] == [
        "load_instructor_notebooks",
        "collect_submissions",
        "skip_graded",
    ]
    for step in (*assembly.ASSEMBLY, *grade.STEPS):
        assert step.__doc__ and re.match(r"\d\. ", step.__doc__), step.__name__
    # workshop check runs a subset of the same steps (issue 29), with typed, fixed options
    import dataclasses

    import grader.check as check

    assert grade.CHECK_STEPS and set(grade.CHECK_STEPS) <= set(grade.STEPS)
    assert "run_steps(state, CHECK_STEPS)" in inspect.getsource(check)
    assert not re.search(r"\b(run_notebooks|judge_cells|read_answers)\(", inspect.getsource(check))
    with pytest.raises(dataclasses.FrozenInstanceError):
        grade.GradeOptions().force = True  # type: ignore[misc]
    text = inspect.getsource(jupyter)
    assert "assemble_cells(" in text and "score_notebook(" in text and "read_answers(" in text
    folder = Path(grade.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert all(lines <= 420 for lines in sizes.values()), sizes


def test_each_submission_of_a_batch_starts_three_notebooks_further(monkeypatch, tmp_path):
    """The batch's sandboxes run the same notebooks in turn; each submission starts three
    notebooks after the one before, so they do not all sleep in 06's cool-down at once. Every
    run still goes to its own notebook's score."""
    import grader.grade as grade
    from grader.collect import Submission
    from grader.execute import NotebookRun
    from grader.grade import GradeOptions, Grading

    sources = tuple(grade.load_sources())
    names = [s.name for s in sources]
    seen = []

    def run_notebooks(jobs, *args, **kwargs):
        seen.append([source.name for source, _ in jobs])
        return [NotebookRun(reason=source.name) for source, _ in jobs]

    monkeypatch.setattr(grade, "run_notebooks", run_notebooks)
    state = Grading(GradeOptions(check=True), out=tmp_path, sources=sources)
    from grader.notebook_folders import notebook_path

    paths = {name: notebook_path(name) for name in names}
    for index in range(4):
        graded = grade._grade_one(state, Submission(f"s{index}", dict(paths)), index)
        assert {name: run.reason for name, run in graded.runs.items()} == {n: n for n in names}
    start = [names.index(order[0]) for order in seen]
    assert start == [(3 * i) % len(names) for i in range(4)]
    assert all(sorted(order) == sorted(names) for order in seen)
