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
from grader.release import ROOT, release_notebook

NOTEBOOK = ROOT / "solutions" / "07_progressive_disclosure.ipynb"


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
