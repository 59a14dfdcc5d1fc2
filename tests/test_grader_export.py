"""``workshop export`` on hand-made grades (no grading run): rosters, Canvas layouts,
Gradescope's shape, the plain CSV (issue 22, item 3). The export of a real graded batch is in
tests/test_grader_check.py."""

from __future__ import annotations

import csv
import io

import pytest

from grader.export import (
    canvas_csv,
    canvas_problems,
    gradescope_results,
    plain_csv,
    student_grades,
)
from grader.results import GradeRow
from grader.roster import match_roster, read_roster


def _rows() -> list[GradeRow]:
    rows = []
    for student, points, status in (
        ("ann", (0.5, 0.5, 1.0), "ok"),
        ("Ben.Lee", (0.5, 0.0, 0.0), "failed"),
        ("cat", (0.0, 0.0, 0.0), "missing"),
    ):
        for (notebook, grade_id, most), got in zip(
            [("00_setup", "a_checks", 0.5), ("00_setup", "a_ties", 0.5), ("01_memory", "b", 1.0)],
            points,
        ):
            row_status = status if got < most else "ok"
            rows.append(GradeRow(student, notebook, grade_id, got, most, row_status, "msg"))
    return rows


def test_a_generic_roster_matches_by_id_case_and_punctuation_aside(tmp_path):
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(
        "\ufeffname,student_id,section\nAnn A,ANN,1\nBen Lee,ben.lee,2\nDee D,dee,1\n",
        encoding="utf-8",
    )
    roster = read_roster(roster_file)
    grades = student_grades(_rows())
    matched = match_roster(list(grades), roster)
    assert set(matched.matched) == {"ann", "Ben.Lee"}
    assert matched.not_in_roster == ["cat"]
    assert [m.name for m in matched.not_graded] == ["Dee D"]
    text = canvas_csv(grades, "Workshop", False, roster, matched)
    assert canvas_problems(text) == []
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[2] == ["Ann A", "", "", "ANN", "1", "2"]  # the roster's own id, verbatim
    assert rows[4] == ["Dee D", "", "", "dee", "1", ""]  # in the roster, nothing graded: blank


def test_per_notebook_columns_and_no_submission_blank():
    grades = student_grades(_rows())
    text = canvas_csv(grades, "Workshop", per_notebook=True)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][5:] == ["Workshop: 00_setup", "Workshop: 01_memory"]
    assert rows[1][5:] == ["1", "1"]
    by_login = {r[3]: r[5:] for r in rows[2:]}
    assert by_login == {"ann": ["1", "1"], "Ben.Lee": ["0.5", "0"], "cat": ["", ""]}


def test_canvas_problems_catches_what_the_importer_rejects():
    assert canvas_problems("Name,Id\nx,1\n")[0].startswith("Invalid header row")
    bad = "Student,ID,SIS User ID,SIS Login ID,Section,Final Score\nx,1,,,,1.234\n"
    problems = canvas_problems(bad)
    assert any("totals column" in p for p in problems)
    assert any("Points Possible" in p for p in problems)
    assert any("2 decimals" in p for p in problems)


def test_gradescope_statuses_other_than_ok_are_failed_tests_that_say_why():
    grades = student_grades(_rows())
    results = gradescope_results(grades["cat"], visibility="after_published")
    assert results["score"] == 0 and results["visibility"] == "after_published"
    assert {t["status"] for t in results["tests"]} == {"failed"}
    assert all(t["output"].startswith("[missing]") for t in results["tests"])
    assert [t["number"] for t in results["tests"]] == ["0.1", "0.2", "1.1"]
    with pytest.raises(ValueError, match="Gradescope's shape"):
        gradescope_results(grades["ann"], visibility="sometimes")


def test_plain_csv_lists_statuses_and_roster_students_without_a_submission(tmp_path):
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text("login,name\nann,Ann A\nzed,Zed Z\n", encoding="utf-8")
    grades = student_grades(_rows())
    matched = match_roster(list(grades), read_roster(roster_file))
    rows = list(csv.DictReader(io.StringIO(plain_csv(grades, matched))))
    by_student = {r["student"]: r for r in rows}
    assert by_student["ann"]["name"] == "Ann A" and by_student["ann"]["total"] == "2"
    assert by_student["Ben.Lee"]["status"] == "00_setup: failed; 01_memory: failed"
    assert by_student["cat"]["status"] == "no submission" and by_student["cat"]["total"] == ""
    assert by_student["zed"]["status"] == "no submission" and by_student["zed"]["name"] == "Zed Z"


def test_a_roster_without_an_id_column_is_refused(tmp_path):
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text("first,last\nAnn,A\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no column to match students by"):
        read_roster(roster_file)
