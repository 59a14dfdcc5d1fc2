"""What attendees write and see (issue 22, items 1-3): cells they add run in their place,
``workshop check`` gives exactly grading's visible verdicts, and the grades export to Canvas,
Gradescope and a plain CSV.

One batch of ten notebook-00 submissions, each a way attendees really work (a helper cell, an
exploration cell, an edited pre-built cell, a tamper, a loop, an exit...), graded once with
``grade_batch`` and checked one by one with ``workshop check``'s function.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner

from grader.check import check_notebook, format_report
from grader.grade import grade_batch
from grader.notebook_folders import notebook_path
from grader.release import ROOT
from grader.sandbox import Limits

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="workshop grade runs on Linux and macOS (WSL on Windows)"
)

SOLUTION = nbformat.read(notebook_path("00_setup"), as_version=4)
RELEASED = nbformat.read(ROOT / "notebooks" / "00_setup.ipynb", as_version=4)
CORRECT = next(c.source for c in SOLUTION.cells if c.metadata.get("nbgrader", {}).get("solution"))
HEAD = "def top_carriers_by_teu(n):\n"
BODY = CORRECT.split('"""', 2)[2]
WRONG = HEAD + BODY.replace("DESC, c.name", "ASC, c.name")
SQL = BODY.split('"""', 2)[1]
HELPER = f'TOP_SQL = """{SQL}"""\n'
USES_HELPER = HEAD + BODY.replace(f'"""{SQL}"""', "TOP_SQL")
#: hal_loops burns a core until the cell time-out ends it, in the batch and in his check;
#: 00_setup's slowest cell takes about 0.2 CPU-s, so 5 s leaves the others a wide margin.
TIMEOUT_CELL, TIMEOUT_NOTEBOOK = 5.0, 60.0

#: student -> (TODO cell, [(position, kind, source)]): position = index in the released cells
#: before which the extra cell goes ("todo": just before the TODO, "check": just before the
#: first check cell, "end": at the end); kind "added" inserts a new cell, "edit" replaces the
#: pre-built cell at that position.
CASES = {
    "alice": (CORRECT, []),
    "bob_wrong": (WRONG, []),
    "carol_untouched": (None, []),
    "dan_helper_above_todo": (USES_HELPER, [("todo", "added", HELPER)]),
    "eve_explores": (
        CORRECT,
        [
            ("check", "added", "print(top_carriers_by_teu(2))\n_mine = top_carriers_by_teu(4)\n"),
            ("end", "added", "import pandas as pd\npd.DataFrame(_mine)\n"),
        ],
    ),
    "fay_tampers": (
        WRONG,
        [
            (
                "check",
                "added",
                "import ast\n"
                "class _NoAsserts(ast.NodeTransformer):\n"
                "    def visit_Assert(self, node):\n"
                "        return ast.Pass()\n"
                "get_ipython().ast_transformers.append(_NoAsserts())\n"
                "call_todo = lambda fn, *a, **k: fn(*a, **k)\n",
            )
        ],
    ),
    "gus_helper_in_prebuilt_cell": (USES_HELPER, [("todo-1", "edit", HELPER)]),
    "hal_loops": ("while True:\n    pass\n" + CORRECT, []),
    "ivy_exits": ("import os\nos._exit(3)\n", []),
    "jon_always_equal": (
        HEAD + "    class Anything(list):\n        def __eq__(self, other):\n"
        "            return True\n    return Anything([('x', 1)] * int(n))\n",
        [],
    ),
}


def _notebook(todo: str | None, extras: list) -> nbformat.NotebookNode:
    nb = nbformat.reads(nbformat.writes(RELEASED), as_version=4)
    cells = nb.cells
    todo_at = next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("solution"))
    check_at = next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade"))
    if todo is not None:
        cells[todo_at].source = todo
    where = {"todo": todo_at, "todo-1": todo_at - 1, "check": check_at, "end": len(cells)}
    for position, kind, source in sorted(extras, key=lambda e: -where[e[0]]):
        if kind == "edit":
            at = max(i for i in range(where[position] + 1) if cells[i].cell_type == "code")
            cells[at].source = source + cells[at].source
        else:
            cells.insert(where[position], nbformat.v4.new_code_cell(source))
    return nb


@pytest.fixture(scope="module")
def batch(tmp_path_factory, template):
    base = tmp_path_factory.mktemp("attendees")
    source = base / "source"
    source.mkdir()
    shutil.copy(notebook_path("00_setup"), source)
    subs, out = base / "submitted", base / "results"
    for student, (todo, extras) in CASES.items():
        folder = subs / student / "workshop"
        folder.mkdir(parents=True)
        nbformat.write(_notebook(todo, extras), folder / "00_setup.ipynb")
    rows = grade_batch(
        subs,
        out,
        workers=2,
        timeout_cell=TIMEOUT_CELL,
        timeout_notebook=TIMEOUT_NOTEBOOK,
        source_dir=source,
        limits=Limits.for_grading(timeout_notebook=TIMEOUT_NOTEBOOK),
    )
    by_student = {}
    for row in rows:
        by_student.setdefault(row.student, []).append(row)
    return {"rows": by_student, "subs": subs, "out": out, "source": source}


def _total(rows) -> tuple[float, str]:
    bad = [r.status for r in rows if r.status != "ok"]
    return sum(r.points for r in rows), str(bad[0]) if bad else "ok"


@pytest.mark.parametrize(
    "student, expected",
    [
        ("alice", (1.0, "ok")),
        ("bob_wrong", (0.0, "failed")),
        ("carol_untouched", (0.0, "failed")),
        ("dan_helper_above_todo", (1.0, "ok")),
        ("eve_explores", (1.0, "ok")),
        ("fay_tampers", (0.0, "failed")),
        ("gus_helper_in_prebuilt_cell", (0.0, "failed")),
        ("hal_loops", (0.0, "timeout")),
        ("ivy_exits", (0.0, "crashed")),
        ("jon_always_equal", (0.0, "failed")),
    ],
)
def test_each_attendee_gets_the_right_score(batch, student, expected):
    """Item 22.1: a helper cell above the TODO and exploration cells after it earn full marks
    (the helper constant earned 0/1 before); a tampering added cell earns nothing."""
    assert _total(batch["rows"][student]) == expected, batch["rows"][student]


def test_a_tampering_added_cell_fails_the_visible_check_and_is_reported(batch):
    rows = batch["rows"]["fay_tampers"]
    assert all("visible check:" in r.message for r in rows), rows
    problems = (batch["out"] / "problems.txt").read_text(encoding="utf-8")
    assert "fay_tampers: 00_setup: your added cell" in problems
    assert "IPython ast transformers" in problems and "grading undid it" in problems


def test_a_helper_in_an_edited_prebuilt_cell_is_explained(batch):
    rows = batch["rows"]["gus_helper_in_prebuilt_cell"]
    assert any("TOP_SQL is defined in a pre-built cell you edited" in r.message for r in rows)


@pytest.fixture(scope="module")
def checks(batch, template):
    """``workshop check`` on each of the ten submissions (the same timeouts)."""
    found = {}
    for student in CASES:
        path = batch["subs"] / student / "workshop" / "00_setup.ipynb"
        found[student] = check_notebook(
            path,
            batch["source"],
            timeout_cell=TIMEOUT_CELL,
            timeout_notebook=TIMEOUT_NOTEBOOK,
            template=template,
        )
    return found


@pytest.mark.parametrize("student", list(CASES))
def test_check_gives_exactly_the_visible_part_of_grading(batch, checks, student):
    """Item 22.2: for every grade cell, ``workshop check`` and ``workshop grade`` give the same
    visible verdict and message (nbgrader's validate and autograde can disagree: #1844)."""
    graded = {r.grade_id: r.visible for r in batch["rows"][student]}
    checked = {r.grade_id: (r.visible, r.visible_message) for r in checks[student].results}
    assert checked == graded


def test_the_check_report_shows_points_and_the_hidden_checks(checks):
    text = format_report(checks["jon_always_equal"])
    assert "top_carriers_by_teu_checks" in text and "0.5 pt" in text
    assert "4 hidden checks run at grading" in text
    assert checks["alice"].passed and not checks["bob_wrong"].passed


def test_cli_check_exits_1_on_a_failing_visible_check(batch, template, monkeypatch):
    import grader.check as check_module
    from agent_harness.interfaces.cli import cli

    monkeypatch.setattr(check_module, "shared_template", lambda: template)
    runner = CliRunner()
    good = batch["subs"] / "alice" / "workshop" / "00_setup.ipynb"
    bad = batch["subs"] / "bob_wrong" / "workshop" / "00_setup.ipynb"
    args = ["--source", str(batch["source"])]
    result = runner.invoke(cli, ["check", str(good), *args])
    assert result.exit_code == 0 and "hidden checks run at grading" in result.output, result.output
    result = runner.invoke(cli, ["check", str(bad), *args])
    assert result.exit_code == 1 and "FAILED" in result.output, result.output
    other = batch["subs"].parent / "notes.ipynb"
    other.write_text("{}")
    result = runner.invoke(cli, ["check", str(other), *args])
    assert result.exit_code != 0 and "not one of the workshop's notebooks" in result.output


def test_the_cell_magic_prints_the_same_report(batch, template, monkeypatch, capsys):
    """Item 22.2: %workshop_check in a notebook (an IPython extension)."""
    from IPython.core.interactiveshell import InteractiveShell

    import grader.check as check_module
    from grader.magics import notebook_path

    monkeypatch.setattr(check_module, "shared_template", lambda: template)
    path = batch["subs"] / "alice" / "workshop" / "00_setup.ipynb"
    assert notebook_path({"__session__": str(path)}) == path
    shell = InteractiveShell.instance()
    shell.extension_manager.load_extension("grader.magics")
    shell.user_ns["__session__"] = str(path)
    shell.run_line_magic("workshop_check", "")
    out = capsys.readouterr().out
    assert "00_setup: visible checks" in out and "4 hidden checks run at grading" in out, out


# --- item 22.3: export ---------------------------------------------------------------------------
def _export(batch, *args) -> tuple[int, str]:
    from agent_harness.interfaces.cli import cli

    result = CliRunner().invoke(cli, ["export", str(batch["out"]), *args])
    return result.exit_code, result.output


def _roster(path: Path, students: list[str]) -> Path:
    rows = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Workshop notebooks (4021)"]
    ]
    rows.append(["    Points Possible", "", "", "", "", "1"])
    for number, student in enumerate(students, start=100):
        rows.append([f"Student {number}", str(number), f"S{number}", student, "A", ""])
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def test_canvas_export_matches_the_roster_by_id_and_imports(batch, tmp_path):
    from grader.export import canvas_problems

    roster = _roster(tmp_path / "canvas.csv", [*list(CASES)[:8], "zoe_no_submission"])
    out = tmp_path / "canvas-import.csv"
    code, output = _export(batch, "--format", "canvas", "--out", str(out), "--roster", str(roster))
    assert code == 0, output
    assert "roster: 8 of 10 graded students matched" in output
    assert "not in the roster" in output and "ivy_exits, jon_always_equal" in output
    assert "without a graded submission (exported blank): Student 108" in output  # zoe
    text = out.read_text(encoding="utf-8")
    assert canvas_problems(text) == []
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Workshop notebooks (4021)",
    ]
    assert rows[1][0] == "    Points Possible" and rows[1][5] == "1"
    by_login = {row[3]: row for row in rows[2:]}
    assert by_login["alice"][5] == "1" and by_login["bob_wrong"][5] == "0"
    assert by_login["zoe_no_submission"][5] == ""  # blank, not 0


def test_canvas_refuses_a_title_canvas_would_drop(batch, tmp_path):
    code, output = _export(
        batch, "--format", "canvas", "--out", str(tmp_path / "x.csv"), "--title", "Final Score"
    )
    assert code != 0 and "totals column" in output


def test_gradescope_export_fits_the_documented_shape(batch, tmp_path):
    from jsonschema import Draft202012Validator

    from grader.gradescope_schema import GRADESCOPE_SCHEMA

    folder = tmp_path / "gradescope"
    code, output = _export(batch, "--format", "gradescope", "--out", str(folder))
    assert code == 0, output
    validator = Draft202012Validator(GRADESCOPE_SCHEMA)
    for student in CASES:
        results = json.loads((folder / f"{student}.json").read_text(encoding="utf-8"))
        assert not list(validator.iter_errors(results)), student
        assert [t["name"] for t in results["tests"]] == [
            "00_setup: top_carriers_by_teu_checks",
            "00_setup: top_carriers_by_teu_ties",
        ]
    hal = json.loads((folder / "hal_loops.json").read_text(encoding="utf-8"))
    assert hal["tests"][0]["status"] == "failed" and hal["tests"][0]["output"].startswith(
        "[timeout]"
    )
    one = tmp_path / "results.json"
    code, output = _export(batch, "--format", "gradescope", "--out", str(one), "--student", "alice")
    assert code == 0 and json.loads(one.read_text())["score"] == 1.0, output
    assert list(validator.iter_errors({"tests": [{"status": "passed"}]}))  # no score anywhere
    assert not list(validator.iter_errors({"tests": [{"score": 1, "status": "passed"}]}))
    assert list(validator.iter_errors({"score": 1, "tests": [{"sccore": 1}]}))  # a typo fails


def test_plain_csv_export_has_a_status_column(batch, tmp_path):
    out = tmp_path / "grades-by-student.csv"
    code, output = _export(batch, "--format", "csv", "--out", str(out))
    assert code == 0, output
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(out.read_text()))}
    assert rows["alice"]["total"] == "1" and rows["alice"]["status"] == "ok"
    assert rows["ivy_exits"]["status"] == "00_setup: crashed"
    assert rows["hal_loops"]["status"] == "00_setup: timeout"


# --- how a submission's cells are read (no run) ---------------------------------------------------
def _read(nb):
    from grader.answers import read_answers
    from grader.grade import load_sources

    (source,) = [s for s in load_sources() if s.name == "00_setup"]
    return read_answers(nb, source), source


def test_cells_are_matched_by_id_before_text():
    """A copy of a pre-built cell placed above the original is the attendee's own cell (it
    runs there); the original, found by its id, stays the instructor's."""
    nb = _notebook(CORRECT, [])
    prebuilt = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    copy = nbformat.v4.new_code_cell(nb.cells[prebuilt].source)
    nb.cells.insert(0, copy)
    answers, _ = _read(nb)
    assert [a.source for a in answers.added] == [copy.source]
    assert answers.added[0].after == -1 and answers.notes == []


def test_a_todo_cell_whose_metadata_was_lost_is_still_the_answer():
    nb = _notebook(CORRECT, [])
    todo = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    todo.metadata = {}
    answers, _ = _read(nb)
    assert answers.cells == {"top_carriers_by_teu": CORRECT} and answers.added == []


def test_a_copied_todo_cell_runs_as_an_added_cell():
    """nbgrader keeps the first of duplicated ids (DeduplicateIds); the copy still runs."""
    nb = _notebook(CORRECT, [])
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    copy = nbformat.v4.new_code_cell(WRONG, metadata=dict(nb.cells[at].metadata))
    nb.cells.insert(at + 1, copy)
    answers, source = _read(nb)
    assert answers.cells == {"top_carriers_by_teu": CORRECT}
    assert [a.source for a in answers.added] == [WRONG]
    assert source.released.cells[answers.added[0].after].metadata["nbgrader"]["solution"]
