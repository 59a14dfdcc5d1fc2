"""The workshop notebooks: solutions run, student versions stop at their first TODO, grading
gives full marks to solutions, 0 to untouched notebooks and 0 to plausible wrong answers.

Every run uses a fresh process and a fresh copy of a prepared embedded database (the
``template`` fixture of conftest.py: prepared once per test run), with the offline model:
a fresh Jupyter kernel where Jupyter is the point (papermill, what an attendee sees), else a
process forked from one of the session's warm grading runners (conftest.py's
``warm_runners``: the sweeps with the hidden tests, as stock nbgrader scores).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from grader.grade import cut_after, load_sources, score_notebook
from grader.notebook_folders import answers, notebook_path, notebook_paths
from grader.release import ROOT, release_notebook, stale_notebooks
from tests.deadlines import PATIENCE_S
from tests.jupyter_grading import LocalSocketKernelManager, execute, score

#: The instructor notebooks, one folder each (solutions/NN_name/NN_name.ipynb).
PATHS = notebook_paths()
SOURCES = {source.name: source for source in load_sources()}


def _stem(path: Path) -> str:
    """A notebook's test id: its name."""
    return path.stem


def _mutants(name: str) -> list[tuple[str, str, str]]:
    """The plausible wrong answers of a notebook (MUTANTS of its answers.py)."""
    return [
        (grade_id, label, source)
        for grade_id, items in getattr(answers(name), "MUTANTS", {}).items()
        for label, source in items
    ]


MUTANTS = [(path.stem, *m) for path in PATHS for m in _mutants(path.stem)]


def _run(nb, tmp_path: Path, template: Path, timeout: float = 120):
    workdir = tmp_path / f"run-{time.monotonic_ns()}"
    workdir.mkdir()
    return execute(nb, workdir, template, timeout_cell=timeout)


def _solution_ids(nb) -> list[str]:
    return [
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    ]


def _checks_of(nb, solution_id: str) -> list[str]:
    """The grade cells of a TODO: those after its solution cell, up to the next solution cell."""
    cells, found = nb.cells, []
    start = next(
        i
        for i, c in enumerate(cells)
        if c.metadata.get("nbgrader", {}).get("grade_id") == solution_id
    )
    for later in cells[start + 1 :]:
        meta = later.metadata.get("nbgrader", {})
        if meta.get("solution"):
            break
        if meta.get("grade"):
            found.append(meta["grade_id"])
    assert found, f"no grade cell after {solution_id}"
    return found


def _covering(name: str, solution_id: str, label: str, nb) -> str:
    """The grade cell covering a mutant's broken behaviour (COVERED_BY of the notebook's
    answers.py, else the TODO's first grade cell)."""
    covered = getattr(answers(name), "COVERED_BY", {})
    return covered.get(label) or _checks_of(nb, solution_id)[0]


def _up_to(nb, grade_id: str):
    """The notebook's cells up to and including the cell ``grade_id``."""
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    nb.cells = nb.cells[: ids.index(grade_id) + 1]
    return nb


def _solution_sources(nb) -> dict[str, str]:
    """The instructor's solution cells by grade_id."""
    return {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


def test_there_are_ten_numbered_notebooks():
    """The notebooks are the folders of solutions/, numbered 00, 01, ... without a gap (ten
    today; tests/test_notebook_folders.py shows every tool finds the same ones)."""
    names = [path.stem for path in PATHS]
    assert len(names) >= 10, names
    assert [name[:3] for name in names] == [f"{n:02d}_" for n in range(len(names))], names


def test_student_notebooks_are_generated_and_up_to_date():
    assert stale_notebooks() == [], "run `workshop release` to regenerate notebooks/"


@pytest.mark.parametrize("folder", ["notebooks", "solutions"])
def test_no_outputs_are_stored(folder):
    paths = PATHS if folder == "solutions" else sorted((ROOT / folder).glob("*.ipynb"))
    assert paths, folder
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), path


@pytest.mark.parametrize("path", PATHS, ids=_stem)
def test_solution_metadata_follows_nbgrader(path):
    nb = nbformat.read(path, as_version=4)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    assert sum("parameters" in t for t in tags) == 1
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
    solutions = _solution_ids(nb)
    assert solutions, "every notebook has at least one TODO"
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
        if meta.get("grade"):
            assert meta.get("locked") and meta.get("points", 0) > 0
            assert "### BEGIN HIDDEN TESTS" in cell.source, meta["grade_id"]
    student = release_notebook(nb)
    text = json.dumps(student.cells)
    assert "BEGIN HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text


@pytest.mark.parametrize("path", PATHS, ids=_stem)
def test_solution_runs_with_papermill_and_scores_full_marks(path, tmp_path, template):
    import papermill

    workdir = tmp_path / "work"
    shutil.copytree(template, workdir / ".workshop")
    out = tmp_path / "out.ipynb"
    os.environ["WORKSHOP_DATA_DIR"] = str(workdir / ".workshop")
    try:
        papermill.execute_notebook(
            str(path),
            str(out),
            parameters={"backend": "embedded", "llm_mode": "offline"},
            kernel_name="python3",
            cwd=str(workdir),
            progress_bar=False,
            kernel_manager_class=LocalSocketKernelManager,
            execution_timeout=PATIENCE_S,  # a cell that hangs fails the test, with its name
        )
    finally:
        os.environ.pop("WORKSHOP_DATA_DIR", None)
    results = score(nbformat.read(out, as_version=4))
    assert results and all(r.status == "ok" and r.points == r.max_points for r in results), results


@pytest.mark.parametrize("path", PATHS, ids=_stem)
def test_student_notebook_stops_with_an_assertion_at_the_first_todo(path, student_notebook_runs):
    nb, _ = student_notebook_runs[path.stem]  # a fresh Jupyter kernel (conftest.py)
    first_error = next(
        (
            i
            for i, c in enumerate(nb.cells)
            if c.cell_type == "code"
            and any(o.get("output_type") == "error" for o in c.get("outputs", []))
        ),
        None,
    )
    assert first_error is not None, "the untouched student notebook must stop somewhere"
    cell = nb.cells[first_error]
    error = next(o for o in cell.outputs if o.get("output_type") == "error")
    assert error["ename"] == "AssertionError", (error["ename"], error["evalue"])
    first_grade = next(
        i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade")
    )
    assert first_error == first_grade, "cells before the first check must run without error"


@pytest.mark.parametrize("path", PATHS, ids=_stem)
def test_untouched_student_notebook_scores_zero_on_every_todo(path, mutant_runs):
    source, run = mutant_runs[(path.stem, None, UNTOUCHED)]
    assert run.status == "ok", f"the run did not complete: {run.status} {run.reason}"
    results = score_notebook("untouched", source, run, [])
    assert results and all(r.points == 0 for r in results), results


#: Plausible wrong answers each TODO needs, by notebook number (docs/notebook-authoring.md:
#: at least three; issue 9: at least eight for the self-healing registry and the notebook
#: after it). A notebook listed here is held to it as soon as it exists.
MUTANTS_PER_TODO = {"06": 8, "07": 8, "08": 8, "09": 8}


@pytest.mark.parametrize("path", PATHS, ids=_stem)
def test_every_todo_has_enough_mutants(path):
    needed = MUTANTS_PER_TODO.get(path.stem[:2], 3)
    ids = _solution_ids(nbformat.read(path, as_version=4))
    mutants = _mutants(path.stem)
    for grade_id in ids:
        found = sum(m[0] == grade_id for m in mutants)
        assert found >= needed, f"{path.stem}/{grade_id}: {found} mutants, at least {needed}"
    module = answers(path.stem)
    labels = {
        label
        for table in ("MUTANTS", "WRONG", "ALWAYS_EQUAL", "VISIBLE")
        for items in getattr(module, table, {}).values()
        for label, _ in items
    }
    covered = getattr(module, "COVERED_BY", {})
    assert set(covered) <= labels, f"{path.stem}: COVERED_BY names unknown answers"


#: The key of an untouched notebook's run among the mutants' (its grade_id: None).
UNTOUCHED = "the untouched student notebook"


class _MutantRuns(dict):
    """Runs WITH the hidden tests (as stock nbgrader scores), made on first use, one notebook
    at a time, shared between the session's two warm runners (conftest.py's
    ``warm_runners``), each running its share one after the other (each run in a fresh
    process with a fresh copy of the database): each mutant's, by ``(notebook, grade_id,
    label)``, and the untouched student notebook's (the released TODO stubs in their cells),
    by ``(notebook, None, UNTOUCHED)``."""

    def __init__(self, runners) -> None:
        super().__init__()
        self.runners = runners

    def __missing__(self, key):
        name = key[0]
        todo = [m for m in MUTANTS if m[0] == name and m[:3] not in self]
        jobs = []
        if (name, None, UNTOUCHED) not in self:  # the whole notebook: dealt out first
            todo.insert(0, (name, None, UNTOUCHED, None))
            jobs.append((dataclasses.replace(SOURCES[name], probes={}), {}))
        for _, grade_id, _label, source in todo[len(jobs) :]:
            original = SOURCES[name]
            answers = {**_solution_sources(original.notebook), grade_id: source}
            jobs.append(
                (
                    cut_after(
                        original, _checks_of(original.notebook, grade_id)[-1], keep_probes=False
                    ),
                    answers,
                )
            )
        shares = len(self.runners)
        chunks = [list(range(len(jobs)))[i::shares] for i in range(shares)]

        def run(runner, indexes):
            return runner.run([jobs[i] for i in indexes], 120, 600, hidden_tests=True)

        with ThreadPoolExecutor(max_workers=shares) as pool:
            for indexes, runs in zip(chunks, pool.map(run, self.runners, chunks)):
                for i, notebook_run in zip(indexes, runs):
                    self[todo[i][:3]] = (jobs[i][0], notebook_run)
        return self[key]


@pytest.fixture(scope="module")
def mutant_runs(warm_runners) -> _MutantRuns:
    return _MutantRuns(warm_runners)


@pytest.mark.parametrize(
    "name, grade_id, label, source", MUTANTS, ids=[f"{m[0]}:{m[1]}:{m[2][:40]}" for m in MUTANTS]
)
def test_a_plausible_wrong_answer_scores_zero_on_its_todo(
    name, grade_id, label, source, mutant_runs
):
    original = SOURCES[name].notebook
    cut, run = mutant_runs[(name, grade_id, label)]
    assert run.status == "ok", f"{label!r}: the run did not complete: {run.status} {run.reason}"
    # The rule (docs/notebook-authoring.md): the TODO loses marks, and the grade cell covering
    # the broken behaviour scores 0.
    cells = _checks_of(original, grade_id)
    rows = {r.grade_id: r for r in score_notebook("mutant", cut, run, []) if r.grade_id in cells}
    covering = _covering(name, grade_id, label, original)
    assert covering in rows, f"{covering} is not a grade cell of {grade_id}"
    assert sum(r.points for r in rows.values()) < sum(r.max_points for r in rows.values()), label
    assert rows[covering].points == 0, f"{label!r} passed {covering}: {rows[covering]}"


# --- rule d: a check's outcome does not depend on what the attendee ran before -----------------

#: What an attendee may have run before the checks, per notebook: code run right after the
#: setup cell. 02: notes, an episode and a logged tool output about TEU and vessels; in the demo
#: data the probe query's top 5 hold two memories whose scores tie, after this they do not.
ATTENDEE_ACTIVITY = {
    "02_retrieval": """
for _kind, _text in [
    ("note", "Our biggest ships carry about 24,000 TEU; TEU means twenty-foot equivalent unit."),
    ("note", "TEU TEU: remember to report capacity in TEU, never tons."),
    ("episode", "Question: which vessels have the largest capacity?\\nAnswer: the EVER class."),
    ("note", "Unit conversion: one 40-foot container counts as two 20-foot units."),
    ("tool_output", "run_sql output: name, capacity_teu rows for vessels"),
]:
    h.memory.add(_text, kind=_kind, subject="attendee", thread_id="attendee-activity")
""",
}

ACTIVITY_CASES = [
    (name, label, grade_id, source)
    for name in ATTENDEE_ACTIVITY
    for grade_id, label, source in [(None, "the solution", None), *_mutants(name)]
    if source is None or "tie-break" in label
]


def _visible_outcomes(name: str, tmp_path: Path, template: Path, replace, activity: str):
    """Which grade cells pass their VISIBLE checks (hidden tests removed), with ``activity``
    run right after the setup cell and the solution cell ``replace[0]`` replaced."""
    source = nbformat.read(notebook_path(name), as_version=4)
    nb = release_notebook(source)
    for cell, original in zip(nb.cells, source.cells):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = original.source
            if meta["grade_id"] == replace[0]:
                cell.source = replace[1]
    setup = next(i for i, c in enumerate(nb.cells) if "agent_harness.connect(" in c.source)
    if activity:
        nb.cells.insert(setup + 1, nbformat.v4.new_code_cell(activity))
    last = [
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    ]
    nb = _up_to(nb, last[-1])
    nb, status = _run(nb, tmp_path, template)
    return {r.grade_id: r.points == r.max_points for r in score(nb, status, [])}


@pytest.mark.parametrize(
    "name, label, grade_id, source",
    ACTIVITY_CASES,
    ids=[f"{c[0]}:{c[1][:40]}" for c in ACTIVITY_CASES],
)
def test_visible_checks_give_the_same_outcome_after_attendee_activity(
    name, label, grade_id, source, tmp_path, template
):
    """Rule d (docs/notebook-authoring.md): the same answer passes and fails the same visible
    checks whether or not the attendee stored memories first (here a tie-break bug, which the
    old check caught only when the demo data happened to hold a tie)."""
    fresh = _visible_outcomes(name, tmp_path, template, (grade_id, source), "")
    after = _visible_outcomes(name, tmp_path, template, (grade_id, source), ATTENDEE_ACTIVITY[name])
    assert after == fresh, f"{label}: {fresh} without the activity, {after} with it"
    if source is None:
        assert all(fresh.values()), fresh
    else:
        original = nbformat.read(notebook_path(name), as_version=4)
        covering = _covering(name, grade_id, label, original)
        assert not fresh[covering], f"{label} passed the visible checks of {covering}"
