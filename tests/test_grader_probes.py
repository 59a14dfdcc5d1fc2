"""The grader's value checks (solutions/<notebook>/probes.py) catch what the hidden tests catch.

``workshop grade`` runs every grade cell WITHOUT its hidden region and compares the probes'
values on a submission with their values on the instructor's solution. These tests send
answers through the real grading path (sandboxed runner, probes, ``score_notebook``), one
notebook per run, and check that:

1. every grade cell of every notebook has probes;
2. the instructor's solutions score full marks, every probe giving a value;
3. every plausible wrong answer (``MUTANTS`` of solutions/<notebook>/answers.py) scores 0 on
   the grade cell that checks it (there, without the hidden tests), and a probe alone tells it
   from the solution (except the few mutants about how the code is written: VISIBLE_ONLY);
4. answers that pass the visible checks but are wrong on hidden inputs score 0, by a failed
   value check (``WRONG`` of the same file);
5. look-alike objects (``__eq__`` always True, subclasses of built-in types) score 0 the same
   way (``ALWAYS_EQUAL``);

and that other correct answers (``CORRECT``) score full marks, so the probes are no stricter
than the hidden tests and their values do not change from one run to the next.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from grader.grade import (
    NotebookRun,
    Source,
    cut_after,
    load_sources,
    score_notebook,
)
from grader.notebook_folders import answers
from grader.results import GradeRow
from grader.value_checks import same

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="workshop grade runs on Linux and macOS (WSL on Windows)"
)

SOURCES = {source.name: source for source in load_sources()}
TIMEOUT_CELL, TIMEOUT_NOTEBOOK = 60.0, 300.0
# Mutants about HOW the code is written, which only the visible checks can see (they watch the
# statements sent and read the function's source); their values are right.
VISIBLE_ONLY = {
    ("02_retrieval", "writes LIMIT :k instead of TOP_K (runs on SQLite only)"),
    ("02_retrieval", "no SQL of its own: wraps h.memory.search(mode='hybrid')"),
}


def _tables(name: str, empty) -> dict:
    """The table ``name`` of every notebook's answers.py (solutions/<notebook>/answers.py), by
    notebook, leaving out the notebooks that have none."""
    found = {notebook: getattr(answers(notebook), name, empty) for notebook in SOURCES}
    return {notebook: table for notebook, table in found.items() if table}


MUTANTS, WRONG, ALWAYS_EQUAL, VISIBLE, CORRECT, COVERED_BY = (
    _tables(name, {})
    for name in ("MUTANTS", "WRONG", "ALWAYS_EQUAL", "VISIBLE", "CORRECT", "COVERED_BY")
)
MORE_CORRECT = _tables("MORE_CORRECT", [])


def _meta(cell) -> dict:
    """A cell's nbgrader metadata ({} when it has none)."""
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _solutions(source: Source) -> dict[str, str]:
    """The instructor's solution cells of a notebook, by grade_id."""
    return {
        _meta(c)["grade_id"]: c.source
        for c in source.notebook.cells
        if c.cell_type == "code" and _meta(c).get("solution")
    }


def _checks_of(source: Source, solution_id: str) -> str:
    """The grade cell that checks a solution cell: the first grade cell after it."""
    found = _todo_checks(source, solution_id)
    assert found, f"{source.name}: no grade cell after {solution_id}"
    return found[0]


@dataclass(frozen=True)
class Case:
    """One run of one notebook with some solution cells replaced.

    Attributes:
        kind: mutant, wrong, always_equal or correct.
        notebook: The notebook's name.
        label: What the replaced answers do.
        replaced: The replaced solution cells by grade_id (the others keep the solution).
        checks: The grade cell that must score 0 (None: every cell must score full marks).
    """

    kind: str
    notebook: str
    label: str
    replaced: dict[str, str] = field(hash=False, compare=False)
    checks: str | None = None

    @property
    def id(self) -> str:
        """The case's test id: kind, notebook and the start of the label."""
        return f"{self.kind}:{self.notebook}:{self.label[:50]}"

    @property
    def until(self) -> str | None:
        """The last grade cell a run of this case needs: a case that replaces one TODO is
        judged on that TODO's grade cells only, so the cells after them are not run (None:
        every cell, for other correct answers, which must score full marks everywhere)."""
        if self.checks is None or len(self.replaced) != 1:
            return None
        return _todo_checks(SOURCES[self.notebook], next(iter(self.replaced)))[-1]


def _todo_checks(source: Source, solution_id: str) -> list[str]:
    """The grade cells of a TODO: after its solution cell, up to the next solution cell."""
    cells, found = source.notebook.cells, []
    start = next(i for i, c in enumerate(cells) if _meta(c).get("grade_id") == solution_id)
    for later in cells[start + 1 :]:
        if _meta(later).get("solution"):
            break
        if _meta(later).get("grade"):
            found.append(_meta(later)["grade_id"])
    return found


def _source(name: str, until: str | None) -> Source:
    """A notebook's source; with ``until`` (the last grade cell of one TODO), cut after it and
    with the probes of that TODO's grade cells only: a case that replaces one TODO is judged
    on those cells alone, against the solution's run of the same source (``_reference_key``),
    so the earlier TODOs' value checks need not run."""
    if until is None:
        return SOURCES[name]
    cut = cut_after(SOURCES[name], until)
    todo = set(_todo_checks(cut, _todo_of(cut, until)))
    return replace(cut, probes={g: v for g, v in cut.probes.items() if g in todo})


def _todo_of(source: Source, grade_id: str) -> str:
    """The solution cell (TODO) a grade cell checks: the last solution cell before it."""
    cells = source.notebook.cells
    end = next(i for i, c in enumerate(cells) if _meta(c).get("grade_id") == grade_id)
    return next(_meta(c)["grade_id"] for c in reversed(cells[:end]) if _meta(c).get("solution"))


def _reference_key(name: str, until: str | None) -> str:
    """The key of the solution's run a case's values compare with: the whole notebook, or the
    solution cut at the same cell with the same probes (a value check may read what later
    cells made: 08's trail tree compares the latest turns, so a cut run's values would differ
    from a whole run's whatever the answer)."""
    return f"reference:{name}" if until is None else f"reference:{name}:{until}"


def _wrong_cases(kind: str, table: dict) -> list[Case]:
    """Cases from ``{notebook: {solution grade_id: [(label, source), ...]}}``; a case must score
    0 on the grade cell of its notebook's ``COVERED_BY[label]`` (default: the TODO's first grade
    cell)."""
    return [
        Case(
            kind,
            name,
            label,
            {grade_id: source},
            COVERED_BY.get(name, {}).get(label) or _checks_of(SOURCES[name], grade_id),
        )
        for name, by_id in table.items()
        for grade_id, items in by_id.items()
        for label, source in items
    ]


MUTANT_CASES = _wrong_cases("mutant", MUTANTS)
WRONG_CASES = _wrong_cases("wrong", WRONG)
ALWAYS_EQUAL_CASES = _wrong_cases("always_equal", ALWAYS_EQUAL)
VISIBLE_CASES = _wrong_cases("visible", VISIBLE)
CORRECT_CASES = [
    Case("correct", name, "other correct answers", dict(replaced))
    for name, replaced in CORRECT.items()
] + [
    Case("correct", name, label, dict(replaced))
    for name, items in MORE_CORRECT.items()
    for label, replaced in items
]
CASES = MUTANT_CASES + WRONG_CASES + ALWAYS_EQUAL_CASES + VISIBLE_CASES + CORRECT_CASES


def _run_all(runners, jobs: dict) -> dict:
    """Run ``{key: (notebook, answers, until)}`` on the session's warm runners (conftest.py's
    ``warm_runners``), each taking a share one after the other (each run in a fresh process
    with a fresh copy of the database). Whole-notebook runs (no ``until``) are dealt out
    first, so the runners' shares end at about the same time."""
    items = sorted(jobs.items(), key=lambda item: item[1][2] is not None)
    chunks = [items[i :: len(runners)] for i in range(len(runners))]

    def run(runner, chunk):
        jobs = [(_source(name, until), answers) for _, (name, answers, until) in chunk]
        return runner.run(jobs, TIMEOUT_CELL, TIMEOUT_NOTEBOOK)

    with ThreadPoolExecutor(max_workers=len(runners)) as pool:
        done = pool.map(run, runners, chunks)
        return {key: run for chunk, runs in zip(chunks, done) for (key, _), run in zip(chunk, runs)}


class _RunsByNotebook(dict):
    """Runs by key, made on first use, all the runs of one notebook at a time.

    So a pytest-xdist worker runs only the notebooks whose tests it was sent (tests/conftest.py
    sends this module's tests one notebook at a time), and no run is made twice.
    """

    def __init__(self, runners, jobs: dict) -> None:
        super().__init__()
        self._runners, self._jobs = runners, jobs

    def __missing__(self, key: str) -> NotebookRun:
        notebook = self._jobs[key][0]
        todo = {k: job for k, job in self._jobs.items() if job[0] == notebook and k not in self}
        self.update(_run_all(self._runners, todo))
        return self[key]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A folder for job folders of runs a test makes itself."""
    return tmp_path_factory.mktemp("probe-jobs")


class _References:
    """The instructor's solutions' runs by notebook name, out of the module's runs."""

    def __init__(self, runs: _RunsByNotebook) -> None:
        self._runs = runs

    def __getitem__(self, name: str) -> NotebookRun:
        return self._runs[_reference_key(name, None)]


@pytest.fixture(scope="module")
def module_runs(warm_runners) -> _RunsByNotebook:
    """Every run this module reads, made one notebook at a time: the instructor's solution
    (key ``reference:<notebook>``), the solution cut after each TODO some case replaces (key
    ``reference:<notebook>:<grade cell>``) and every case of CASES (key: the case's id) in one
    batch, so the solution's runs share the runners with the cases' instead of running alone."""
    jobs = {_reference_key(name, None): (name, None, None) for name in SOURCES}
    for case in CASES:
        jobs[_reference_key(case.notebook, case.until)] = (case.notebook, None, case.until)
    for case in CASES:
        answers = _solutions(SOURCES[case.notebook]) | case.replaced
        jobs[case.id] = (case.notebook, answers, case.until)
    return _RunsByNotebook(warm_runners, jobs)


@pytest.fixture(scope="module")
def reference(module_runs) -> _References:
    """The instructor's solutions, one run per notebook."""
    return _References(module_runs)


@pytest.fixture(scope="module")
def case_runs(module_runs) -> _RunsByNotebook:
    """Every case of CASES, by case id."""
    return module_runs


def _rows(case: Case, case_runs) -> dict[str, GradeRow]:
    """A case's scores by grade_id, against the reference's probe values.

    The run itself must complete (every cell and probe ran): a score of 0 from a crashed or
    timed-out run would prove nothing about the probes.
    """
    run = case_runs[case.id]
    assert run.status == "ok", f"{case.id}: the run did not complete: {run.status} {run.reason}"
    expected = case_runs[_reference_key(case.notebook, case.until)].probe_values
    rows = score_notebook("case", _source(case.notebook, case.until), run, expected)
    return {row.grade_id: row for row in rows}


# --- 1. coverage --------------------------------------------------------------------------------


def test_case_ids_are_unique():
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("name", list(SOURCES))
def test_every_grade_cell_has_probes(name):
    source = SOURCES[name]
    grade_ids = [grade_id for grade_id, _ in source.grade_cells]
    assert grade_ids, f"{name} has no grade cells"
    for grade_id in grade_ids:
        probes = source.probes.get(grade_id, [])
        assert probes, f"{name}/{grade_id} has no probes"
        names = [probe.name for probe in probes]
        assert len(names) == len(set(names)), f"{name}/{grade_id}: duplicate probe names"
        for probe in probes:
            compile(probe.code, f"<{name}/{grade_id}/{probe.name}>", "exec")
            assert "value" in probe.code and probe.message, probe.name
    assert set(source.probes) <= set(grade_ids), f"{name}: probes for unknown grade cells"


@pytest.mark.parametrize("name", list(SOURCES))
def test_every_todo_has_probe_only_cases(name):
    wrong = WRONG.get(name, {}), VISIBLE.get(name, {})
    assert sum(len(items) for table in wrong for items in table.values()) >= 2, name
    for grade_id in _solutions(SOURCES[name]):
        assert grade_id in CORRECT.get(name, {}), (name, grade_id, "CORRECT")


@pytest.mark.parametrize("name", list(SOURCES))
def test_every_todo_has_three_differently_written_correct_answers(name):
    """Issue 11: at least three other correct answers per TODO (CORRECT and MORE_CORRECT),
    each written differently, so the checks are shown not to demand one way of writing it."""
    for grade_id in _solutions(SOURCES[name]):
        found = [CORRECT.get(name, {}).get(grade_id)] + [
            replaced.get(grade_id) for _, replaced in MORE_CORRECT.get(name, [])
        ]
        found = {" ".join(a.split()) for a in found if a}
        assert len(found) >= 3, f"{name}/{grade_id}: {len(found)} other correct answers"


def test_the_covering_cells_exist():
    """Every COVERED_BY entry of a notebook's answers.py names one of its wrong answers and one
    of its grade cells."""
    for name, covered in COVERED_BY.items():
        labels = {
            label
            for table in (MUTANTS, WRONG, ALWAYS_EQUAL, VISIBLE)
            for items in table.get(name, {}).values()
            for label, _ in items
        }
        grade_ids = {g for g, _ in SOURCES[name].grade_cells}
        for label, grade_id in covered.items():
            assert label in labels, f"{name}: COVERED_BY names an unknown case: {label!r}"
            assert grade_id in grade_ids, f"{name}: {label!r}: no grade cell {grade_id}"


def test_the_sweeps_start_with_the_texts_their_value_checks_embed(sweep_embeddings):
    """The runs of this module find what the value checks embed among the vectors they start
    with: conftest.py's ``sweep_embeddings`` collects them from the solutions' runs, value
    checks included (05's logs an output with a rare word; its text is in the file)."""
    import json

    texts = json.loads(sweep_embeddings.read_text(encoding="utf-8"))["texts"]
    assert any(text.startswith("call_probe_search_1: zanzibarquokka7c31 ") for text in texts)


# --- 2. the reference ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SOURCES))
def test_reference_scores_full_marks_with_a_value_for_every_probe(name, reference):
    source, run = SOURCES[name], reference[name]
    assert run.status == "ok", run.reason
    assert run.errors == {}, run.errors
    expected = sum(len(source.probes.get(g, [])) for g, _ in source.grade_cells)
    assert [index for index, _ in run.probe_values] == list(range(expected))
    raised = [(i, v) for i, v in run.probe_values if not (isinstance(v, list) and v[0] == "ok")]
    assert not raised, raised
    rows = score_notebook("reference", source, run, run.probe_values)
    assert rows and all(r.status == "ok" and r.points == r.max_points for r in rows), rows


CUT_POINTS = sorted({(case.notebook, case.until) for case in CASES if case.until})


@pytest.mark.parametrize("name, until", CUT_POINTS, ids=[f"{n}:{u}" for n, u in CUT_POINTS])
def test_the_solution_cut_after_a_todo_scores_full_marks_with_its_probes(name, until, case_runs):
    """What the cases that replace one TODO compare with: the solution cut after that TODO's
    last grade cell, running that TODO's probes, each giving a value."""
    source, run = _source(name, until), case_runs[_reference_key(name, until)]
    assert run.status == "ok", run.reason
    assert run.errors == {}, run.errors
    expected = sum(len(probes) for probes in source.probes.values())
    assert expected and [index for index, _ in run.probe_values] == list(range(expected))
    raised = [(i, v) for i, v in run.probe_values if not (isinstance(v, list) and v[0] == "ok")]
    assert not raised, raised
    rows = score_notebook("reference", source, run, run.probe_values)
    assert [r.grade_id for r in rows] == [g for g, _ in source.grade_cells]
    assert all(r.status == "ok" and r.points == r.max_points for r in rows), rows


# --- 3. the mutants -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", MUTANT_CASES, ids=[c.id for c in MUTANT_CASES])
def test_a_mutant_scores_zero_without_the_hidden_tests(case, case_runs):
    row = _rows(case, case_runs)[case.checks]
    assert row.points == 0, f"{case.label!r} passed {case.checks}: {row}"


@pytest.mark.parametrize("case", MUTANT_CASES, ids=[c.id for c in MUTANT_CASES])
def test_the_probes_alone_catch_a_mutant(case, case_runs):
    """Even with its visible checks passing, the grade cell would score 0 on a mutant."""
    source, run = _source(case.notebook, case.until), case_runs[case.id]
    got = dict(run.probe_values)
    expected = dict(case_runs[_reference_key(case.notebook, case.until)].probe_values)
    start, mine = 0, range(0)
    for grade_id, _ in source.grade_cells:
        count = len(source.probes.get(grade_id, []))
        if grade_id == case.checks:
            mine = range(start, start + count)
            break
        start += count
    caught = [i for i in mine if i not in got or not same(got[i], expected[i])]
    if (case.notebook, case.label) in VISIBLE_ONLY:
        assert not caught, f"{case.label!r} is now caught by a probe: drop it from VISIBLE_ONLY"
    else:
        assert caught, f"no probe of {case.checks} tells {case.label!r} from the solution"


# --- 4. and 5. wrong only on hidden inputs, look-alike objects ---------------------------------


@pytest.mark.parametrize(
    "case", WRONG_CASES + ALWAYS_EQUAL_CASES, ids=[c.id for c in WRONG_CASES + ALWAYS_EQUAL_CASES]
)
def test_an_answer_that_passes_the_visible_checks_fails_a_value_check(case, case_runs):
    row = _rows(case, case_runs)[case.checks]
    assert row.points == 0, f"{case.label!r} passed {case.checks}: {row}"
    passed_visible = "visible check:" not in row.message
    assert row.status == "failed" and "value check '" in row.message and passed_visible, (
        f"{case.label!r} should pass the visible checks and fail a value check: {row}"
    )


# --- 6. each graded behaviour has a visible check (issue 11, item 3) ---------------------------


@pytest.mark.parametrize("case", VISIBLE_CASES, ids=[c.id for c in VISIBLE_CASES])
def test_a_bug_in_a_graded_behaviour_fails_a_visible_check(case, case_runs):
    """Answers that once passed every visible check now fail the visible checks of the grade
    cell covering the behaviour, so an attendee finds the bug in class."""
    row = _rows(case, case_runs)[case.checks]
    assert row.points == 0 and "visible check:" in row.message, (case.label, row)


# --- other correct answers ----------------------------------------------------------------------


@pytest.mark.parametrize("case", CORRECT_CASES, ids=[c.id for c in CORRECT_CASES])
def test_other_correct_answers_score_full_marks(case, case_runs):
    rows = _rows(case, case_runs)
    assert all(r.status == "ok" and r.points == r.max_points for r in rows.values()), rows
