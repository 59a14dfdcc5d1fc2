"""The grader's outputs: grades.csv, feedback pages, the terminal summary, nbgrader's gradebook.

Names and messages are untrusted: the tests feed formulas, markup, escape codes and hidden test
lines through every output and check none of them gets through.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import files, report
from grader.notebook_folders import notebook_path
from grader.results import COLUMNS, STATUSES, GradeRow

ROOT = Path(__file__).resolve().parent.parent


def _row(student, notebook, grade_id, points, max_points, status="ok", message=""):
    return GradeRow(student, notebook, grade_id, float(points), float(max_points), status, message)


def _raw_records(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8", errors="surrogateescape") as f:
        return list(csv.reader(f))


# --- grades.csv ------------------------------------------------------------------------------


def test_csv_round_trip_keeps_every_field(tmp_path):
    rows = [
        _row("zoë 山田", "02_retrieval.ipynb", "hybrid_rrf_search_checks", 1 / 3, 3, "failed", "x"),
        _row('o"brien, jr', "00_setup.ipynb", "top_carriers_by_teu_checks", 0.5, 1, "timeout"),
        _row("=HYPERLINK(1)", "00_setup.ipynb", "top_carriers_by_teu_checks", 0, 1, "crashed"),
        _row("'quoted", "00_setup.ipynb", "top_carriers_by_teu_checks", 0, 1, "missing", "-1"),
        _row("bad\udcffbytes", "00_setup.ipynb", "top_carriers_by_teu_checks", 1, 1, "ok", "@x"),
        _row("two\rline\nname", "00_setup.ipynb", "top_carriers_by_teu_checks", 1, 1, "ok"),
    ]
    path = report.write_grades_csv(rows, tmp_path / "out" / "grades.csv")

    back = report.read_grades_csv(path)

    assert _raw_records(path)[0] == COLUMNS
    assert sorted(back, key=repr) == sorted(rows, key=repr)


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cells_that_start_like_a_formula_get_an_apostrophe(tmp_path, start):
    rows = [
        _row(f"{start}cmd|' /C calc'!A0", "00_setup", "g", 0, 1, "failed", f"{start}1+1"),
        _row("plain", "00_setup", "g", 1, 1, "ok", "fine"),
    ]
    path = report.write_grades_csv(rows, tmp_path / "grades.csv")

    records = {r[0]: r for r in _raw_records(path)[1:]}

    evil = records[f"'{start}cmd|' /C calc'!A0"]
    assert evil[-1] in (f"'{start}1+1", "1+1")  # messages are stripped of tabs and returns too
    assert records["plain"][-1] == "fine"
    dangerous = ("=", "+", "-", "@", "\t", "\r")
    assert all(not cell.startswith(dangerous) for r in records.values() for cell in r)


def test_one_formula_rule_for_grades_csv_and_the_exports():
    """grades.csv and the exports guard the same formula starts (grader.feedback.FORMULA_START);
    only grades.csv, which the grader reads back, guards a leading apostrophe too."""
    from grader.export import _safe
    from grader.feedback import FORMULA_START

    assert FORMULA_START == ("=", "+", "-", "@", "\t", "\r")
    for start in FORMULA_START:
        assert _safe(f"{start}1") == report._escape_cell(f"{start}1") == f"'{start}1"
    assert _safe("'quoted") == "'quoted"
    assert report._escape_cell("'quoted") == "''quoted"


def test_csv_messages_are_one_line_and_capped(tmp_path):
    message = "Traceback:\n  line one\r\n\n  line two\n" + "x" * 1000
    rows = [_row("alice", "00_setup", "g", 0, 1, "failed", message)]
    path = report.write_grades_csv(rows, tmp_path / "grades.csv")

    lines = path.read_text(encoding="utf-8").splitlines()
    stored = report.read_grades_csv(path)[0].message

    assert len(lines) == 2
    assert stored.startswith("Traceback: | line one | line two | xxx")
    assert len(stored) <= report.MESSAGE_LIMIT


def test_csv_order_is_student_then_notebook_then_given_cell_order(tmp_path):
    rows = [
        _row("bob", "02_retrieval", "retrieve_knowledge_checks", 0, 2),
        _row("alice", "02_retrieval", "retrieve_knowledge_checks", 2, 2),
        _row("bob", "00_setup", "top_carriers_by_teu_checks", 0, 1),
        _row("alice", "02_retrieval", "hybrid_rrf_search_checks", 3, 3),
        _row("alice", "00_setup", "top_carriers_by_teu_checks", 1, 1),
    ]
    path = report.write_grades_csv(rows, tmp_path / "grades.csv")

    order = [(r[0], r[1], r[2]) for r in _raw_records(path)[1:]]

    assert order == [
        ("alice", "00_setup", "top_carriers_by_teu_checks"),
        ("alice", "02_retrieval", "retrieve_knowledge_checks"),
        ("alice", "02_retrieval", "hybrid_rrf_search_checks"),
        ("bob", "00_setup", "top_carriers_by_teu_checks"),
        ("bob", "02_retrieval", "retrieve_knowledge_checks"),
    ]


def test_csv_write_failure_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "grades.csv"
    report.write_grades_csv([_row("alice", "00_setup", "g", 1, 1)], path)
    before = path.read_bytes()

    with pytest.raises(ValueError):
        report.write_grades_csv([_row("bob", "00_setup", "g", 1, 1), _bad_row()], path)

    def refuse(*args):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        report.write_grades_csv([_row("bob", "00_setup", "g", 0, 1)], path)

    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"]


def _bad_row() -> GradeRow:
    return GradeRow("carol", "00_setup", "g", "not a number", 1.0, "ok")  # type: ignore[arg-type]


def test_read_grades_csv_missing_empty_damaged_and_foreign_files(tmp_path):
    assert report.read_grades_csv(tmp_path / "nothing.csv") == []
    (tmp_path / "empty.csv").write_text("")
    assert report.read_grades_csv(tmp_path / "empty.csv") == []

    damaged = tmp_path / "damaged.csv"
    damaged.write_text(
        ",".join(COLUMNS)
        + "\nalice,00_setup,g,1,1,ok,\nbob,00_setup,g,one,1,ok,\ncarol,00_setup,g,0,1,weird,\n"
        + "dave,00_setup\n"
    )
    assert [r.student for r in report.read_grades_csv(damaged)] == ["alice"]

    foreign = tmp_path / "foreign.csv"
    foreign.write_text("student_id,score\nalice,3\n")
    with pytest.raises(ValueError, match="not a grades.csv"):
        report.read_grades_csv(foreign)


# --- feedback pages --------------------------------------------------------------------------

HIDDEN = {"assert secret_value(h) == 42", "expected = compute_reference(h)", ")"}
TRACEBACK = (
    "---------------------------------------------------------------------------\n"
    "AssertionError                            Traceback (most recent call last)\n"
    "Cell In[7], line 3\n"
    "      1 check_visible(h)\n"
    "      2 expected   =  compute_reference(h)\n"
    "----> 3 assert \x1b[38;5;28msecret_value\x1b[39m(h) \x1b[38;5;241m==\x1b[39m 42\n"
    "AssertionError: hybrid search returned 3 rows, not 5\n"
    "----> 9 assert secret_value(h) ="
)


def test_feedback_escapes_untrusted_names_and_messages(tmp_path):
    student = "<script>alert('name')</script> Zoë"
    rows = [
        _row(student, "00_setup", "g", 0, 1, "failed", '<img src=x onerror="alert(1)">'),
        _row(student, "<b>nb</b>", "<i>id</i>", 1, 1, "<u>ok</u>"),
    ]
    page = report.write_feedback(rows, tmp_path / "page.html").read_text(encoding="utf-8")

    assert "<script" not in page.lower()
    assert "<img" not in page and "<b>nb" not in page and "<i>id" not in page
    # markupsafe's entities (Jinja2's autoescape): &#39; and &#34; for the quotes
    assert "&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt; Zoë" in page
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page
    assert "Content-Security-Policy" in page
    assert "://" not in page and "<link" not in page  # loads nothing


def test_feedback_never_shows_a_hidden_line(tmp_path):
    rows = [_row("alice", "02_retrieval", "hybrid_rrf_search_checks", 0, 3, "failed", TRACEBACK)]

    page = report.write_feedback(rows, tmp_path / "p.html", hidden_lines=HIDDEN).read_text()
    report.write_grades_csv(rows, tmp_path / "grades.csv", hidden_lines=HIDDEN)
    csv_text = (tmp_path / "grades.csv").read_text()

    for text in (page, csv_text):
        assert "secret_value" not in text and "compute_reference" not in text
        assert "\x1b" not in text
        assert report.HIDDEN_MARK in text
        assert "check_visible(h)" in text
        assert "hybrid search returned 3 rows, not 5" in text
    assert "secret_value" in report.write_feedback(rows, tmp_path / "open.html").read_text()


def test_feedback_totals_per_notebook_and_overall(tmp_path):
    rows = [
        _row("alice", "02_retrieval", "retrieve_knowledge_checks", 2, 2),
        _row("alice", "02_retrieval", "hybrid_rrf_search_checks", 0, 3, "failed", "wrong"),
        _row("alice", "00_setup", "top_carriers_by_teu_checks", 0.5, 1, "timeout"),
    ]
    page = report.write_feedback(rows, tmp_path / "alice.html").read_text()

    assert "<h2>00_setup: 0.5 / 1</h2>" in page
    assert "<h2>02_retrieval: 2 / 5</h2>" in page
    assert "Total: <strong>2.5 / 6</strong>" in page
    assert page.index("00_setup") < page.index("02_retrieval")
    assert all(f"<dt class='status-{s}'>{s}</dt>" in page for s in STATUSES)
    with pytest.raises(ValueError, match="one student"):
        report.write_feedback(rows + [_row("bob", "00_setup", "g", 1, 1)], tmp_path / "x.html")


def test_feedback_pages_stay_in_their_folder(tmp_path):
    rows = [
        _row("../../escape", "00_setup", "g", 1, 1),
        _row(".hidden", "00_setup", "g", 1, 1),
        _row("a/b", "00_setup", "g", 1, 1),
        _row("a_b", "00_setup", "g", 0, 1, "failed"),
    ]
    folder = tmp_path / "feedback"

    pages = report.write_feedback_pages(rows, folder)

    assert sorted(pages) == sorted(r.student for r in rows)
    assert len({p.name for p in pages.values()}) == 4
    assert all(p.parent == folder and not p.name.startswith(".") for p in pages.values())
    assert pages["a_b"].name == "a_b.html"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["feedback"]


# --- the terminal summary --------------------------------------------------------------------


def _batch() -> list[GradeRow]:
    return [
        _row("alice", "00_setup", "top_carriers_by_teu_checks", 1, 1),
        _row("alice", "02_retrieval", "retrieve_knowledge_checks", 2, 2),
        _row("alice", "02_retrieval", "hybrid_rrf_search_checks", 3, 3),
        _row("bob", "00_setup", "top_carriers_by_teu_checks", 0, 1, "timeout"),
        _row("bob", "02_retrieval", "retrieve_knowledge_checks", 2, 2),
        _row("bob", "02_retrieval", "hybrid_rrf_search_checks", 0, 3, "crashed"),
        _row("\x1b[31mcarol", "00_setup", "top_carriers_by_teu_checks", 0, 1, "failed"),
        _row("\x1b[31mcarol", "02_retrieval", "retrieve_knowledge_checks", 0, 2, "missing"),
        _row("\x1b[31mcarol", "02_retrieval", "hybrid_rrf_search_checks", 0, 3, "missing"),
    ]


def test_summary_table_counts():
    text = report.summary_table(_batch())
    lines = {line.split()[0]: line.split() for line in text.splitlines() if line.strip()}

    assert "\x1b" not in text
    assert lines["student"] == ["student", "00", "02", "total"]
    assert lines["alice"][1:] == ["1/1", "5/5", "6/6"]
    assert lines["bob"][1:] == ["0/1", "2/5", "2/6"]
    assert lines["carol"][1:] == ["0/1", "0/5", "0/6"]
    assert lines["grade"][5:] == list(STATUSES)
    # full marks, average, then ok failed timeout crashed missing
    assert lines["00_setup/top_carriers_by_teu_checks"][1:] == ["1/3", "0.33/1", *"11100"]
    assert lines["02_retrieval/retrieve_knowledge_checks"][1:] == ["2/3", "1.33/2", *"20001"]
    assert lines["02_retrieval/hybrid_rrf_search_checks"][1:] == ["1/3", "1.00/3", *"10011"]
    assert text.splitlines()[-1] == (
        "graded 6 notebooks of 3 students: 1 timed out, 1 crashed, 1 missing"
    )


# --- nbgrader's gradebook --------------------------------------------------------------------


def _nbgrader(args, cwd):
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A course whose gradebook stock ``nbgrader generate_assignment`` filled (two notebooks)."""
    course = tmp_path_factory.mktemp("course")
    (course / "source" / "workshop").mkdir(parents=True)
    shutil.copy(ROOT / "grader" / "nbgrader_config.py", course)
    for name in ("00_setup", "02_retrieval"):
        shutil.copy(notebook_path(name), course / "source" / "workshop")
    _nbgrader(["generate_assignment", "workshop", "--force"], course)
    return course


def _scores(gradebook: Path, student: str) -> tuple[dict, float]:
    from nbgrader.api import Gradebook

    cells = [
        ("00_setup", "top_carriers_by_teu_checks"),
        ("02_retrieval", "retrieve_knowledge_checks"),
        ("02_retrieval", "hybrid_rrf_search_checks"),
    ]
    with Gradebook(f"sqlite:///{gradebook}", course_id=report.COURSE_ID) as gb:
        scores = {g: gb.find_grade(g, nb, "workshop", student).auto_score for nb, g in cells}
        manual = [gb.find_grade(g, nb, "workshop", student).needs_manual_grade for nb, g in cells]
        assert not any(manual)
        return scores, gb.find_submission("workshop", student).score


@pytest.mark.slow
def test_gradebook_round_trip(course):
    gradebook = course / "gradebook.db"
    where = {"00_setup": "workshop", "02_retrieval.ipynb": "workshop"}
    # The points of these grade cells in the solutions (the gradebook's source): 00's first
    # grade cell is worth 0.5, 02's first cells of its two TODOs 1 each.
    rows = _batch()[:6] + [
        _row("alice", "02_retrieval.ipynb", "no_such_cell", 1, 1),
        _row("alice", "99_bonus", "bonus_checks", 1, 1),
    ]
    rows[0] = _row("alice", "00_setup", "top_carriers_by_teu_checks", 0.5, 0.5)
    rows[1] = _row("alice", "02_retrieval.ipynb", "retrieve_knowledge_checks", 1, 1)
    rows[2] = _row("alice", "02_retrieval", "hybrid_rrf_search_checks", 1, 1)
    rows[3] = _row("bob", "00_setup", "top_carriers_by_teu_checks", 0, 0.5, "timeout")
    rows[4] = _row("bob", "02_retrieval", "retrieve_knowledge_checks", 1, 1)
    rows[5] = _row("bob", "02_retrieval", "hybrid_rrf_search_checks", 0, 1, "crashed")

    warnings = report.write_gradebook(rows, gradebook, where)

    assert warnings == [
        "workshop/02_retrieval/no_such_cell: no such grade cell in the gradebook; skipped",
        "99_bonus: no assignment of the gradebook given; skipped",
    ]
    alice, alice_total = _scores(gradebook, "alice")
    bob, bob_total = _scores(gradebook, "bob")
    assert alice == {
        "top_carriers_by_teu_checks": 0.5,
        "retrieve_knowledge_checks": 1,
        "hybrid_rrf_search_checks": 1,
    }
    assert (alice_total, bob_total) == (2.5, 1)

    regraded = [_row("bob", "02_retrieval", "hybrid_rrf_search_checks", 1, 1)]
    assert report.write_gradebook(regraded, f"sqlite:///{gradebook}", where) == []
    assert _scores(gradebook, "bob")[1] == 2
