"""A check's message is not corrupted by the bug it catches (issue 22, item 8).

Expectations are computed before the attendee's code runs, and the attendee's code gets copies
of what the expectations are built from: a ``disclose`` that appends to the ``offered`` list it
was given once made notebook 07's message show an expected list carrying the duplicates of the
bug itself. These tests run the released pure-Python check cells of 07's ``disclose`` with such
an answer and read the messages.
"""

from __future__ import annotations

import ast
import re

import nbformat
import pytest

from agent_harness.workshop import call_todo
from grader.notebook_folders import answers, notebook_path
from grader.release import release_notebook

NOTEBOOK = notebook_path("07_progressive_disclosure")


def _mutating_disclose(offered, tool_name, arguments, unlocks):
    """Wrong: extends the list it was given (duplicates and all) and returns it."""
    if tool_name not in offered:
        skills = [skill for skill, tools in unlocks.items() if tool_name in tools]
        return {
            "run": False,
            "error": f"{tool_name!r} is not offered; load one of {skills}",
            "offered": offered,
        }
    if tool_name == "load_skill":
        skill = (arguments or {}).get("name")
        if skill not in unlocks:
            return {
                "run": False,
                "error": "choose one of: " + ", ".join(unlocks),
                "offered": offered,
            }
        offered.extend(unlocks[skill])
    return {"run": True, "error": None, "offered": offered}


def _cells():
    nb = release_notebook(nbformat.read(NOTEBOOK, as_version=4))
    return {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        and c.metadata["nbgrader"]["grade_id"].startswith("disclose")
    }


def _failure(source: str) -> str:
    scope = {"call_todo": call_todo, "disclose": _mutating_disclose}
    with pytest.raises(AssertionError) as caught:
        exec(compile(source, "<check cell>", "exec"), scope)
    return str(caught.value)


def test_the_load_check_shows_the_expected_list_as_written():
    message = _failure(_cells()["disclose_load"])
    expected = [ast.literal_eval(m) for m in re.findall(r"expected (\[[^\]]*\])", message)]
    assert expected, message
    for names in expected:
        assert len(names) == len(set(names)), f"the expected list carries duplicates: {message}"
    # the second check: delay-triage's eta_estimate is offered already
    assert expected[0] == [
        "load_skill",
        "search_knowledge",
        "run_sql",
        "vessel_position",
        "eta_estimate",
        "ais_live_position",
        "delayed_voyages",
    ], message


@pytest.mark.parametrize(
    "grade_id", ["disclose_checks", "disclose_refuse", "disclose_unknown_skill"]
)
def test_the_other_disclose_checks_are_not_misled_by_a_mutated_list(grade_id):
    """These cells' answers do not depend on the mutation: the wrong answer passes them, as
    the partial-credit rule wants (the no-mutation cell catches it)."""
    scope = {"call_todo": call_todo, "disclose": _mutating_disclose}
    exec(compile(_cells()[grade_id], "<check cell>", "exec"), scope)


def test_the_no_mutation_check_catches_it():
    message = _failure(_cells()["disclose_no_mutation"])
    assert "must not change" in message, message


# --- issue 28, item 3: which case failed, and one bug costs one part ----------------------------


def _mutant(stem: str, label: str) -> str:
    """The source of a plausible wrong answer (MUTANTS of solutions/<stem>/answers.py)."""
    module = answers(stem)
    return next(src for items in module.MUTANTS.values() for text, src in items if text == label)


def _check_cells(stem: str) -> dict[str, str]:
    nb = release_notebook(nbformat.read(notebook_path(stem), as_version=4))
    return {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


@pytest.fixture(scope="module")
def shell(embedded_harness):
    """An IPython shell (check cells tidy up after the cell) with ``h`` and ``call_todo``."""
    from IPython.core.interactiveshell import InteractiveShell

    ipython = InteractiveShell.instance()
    ipython.user_ns.update(h=embedded_harness, call_todo=call_todo)
    return ipython


def _failure_of(shell, answer: str, check: str) -> BaseException | None:
    """Run the attendee's answer, then a check cell; the check's error (None: it passed)."""
    assert shell.run_cell(answer, store_history=False).error_in_exec is None
    return shell.run_cell(check, store_history=False).error_in_exec


def test_a_turn_without_events_given_none_is_named_as_that_case(shell):
    """A trail_tree that returns None for a turn without events was told only
    "trail_tree('chk_5d0e...') returns a dict, got None" (a random id, the case unsaid)."""
    wrong = _mutant("08_glass_box", "a turn without events gives None, as an unknown turn does")
    error = _failure_of(shell, wrong, _check_cells("08_glass_box")["trail_tree_checks"])
    message = str(error)
    assert isinstance(error, AssertionError), error
    assert message.startswith("a turn without events yet (still running, no answer)"), message
    assert "None is only for a turn_id that agent_turns does not have" in message, message
    assert "chk_" not in message, message


def test_a_wrong_document_loses_the_fields_part_only(shell):
    """The etag is checked against the attendee's own document: a document whose values are
    wrong fails the fields check and still earns the etag part (it lost both)."""
    wrong = _mutant("09_guardrails", "the cargo value without the quantity")
    cells = _check_cells("09_guardrails")
    assert isinstance(_failure_of(shell, wrong, cells["voyage_document_checks"]), AssertionError)
    assert _failure_of(shell, wrong, cells["voyage_document_etag"]) is None
    etag_bug = _mutant("09_guardrails", "the etag over unsorted keys")
    error = _failure_of(shell, etag_bug, cells["voyage_document_etag"])
    assert isinstance(error, AssertionError) and "expected for your document" in str(error)
