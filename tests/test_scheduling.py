"""How the parallel run hands out work (tests/conftest.py): grouped modules go to one worker
whole, the long single tests are sent before the quick ones, and every module named there
exists (a renamed module would otherwise silently lose its place)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import GROUPED, SEND_EARLY, SHARES_UNITS_WITH, send_order, work_unit

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_named_by_the_scheduler_exists():
    named = [*GROUPED, *SEND_EARLY, *SHARES_UNITS_WITH, *SHARES_UNITS_WITH.values()]
    assert [m for m in named if not (ROOT / m).is_file()] == []


def test_a_module_with_shared_fixtures_is_one_unit():
    ids = [
        "tests/test_grader_check.py::test_each_attendee_gets_the_right_score[alice-expected0]",
        "tests/test_grader_check.py::test_check_gives_exactly_the_visible_part_of_grading[bob]",
    ]
    assert {work_unit(i) for i in ids} == {"tests/test_grader_check.py"}
    assert (
        work_unit("tests/test_memory.py::test_a[embedded]")
        == "tests/test_memory.py::test_a[embedded]"
    )


def test_bigger_units_first_then_the_long_single_tests():
    units = {
        "tests/test_memory.py::test_a": {"a": False},
        "tests/test_nbgrader_direct.py::test_b": {"b": False},
        "tests/test_grader_check.py": {"c": False, "d": False},
        "tests/test_zz.py::test_e": {"e": False},
    }
    order = [scope for scope, _ in sorted(units.items(), key=send_order)]
    assert order == [
        "tests/test_grader_check.py",
        "tests/test_nbgrader_direct.py::test_b",
        "tests/test_memory.py::test_a",
        "tests/test_zz.py::test_e",
    ]
