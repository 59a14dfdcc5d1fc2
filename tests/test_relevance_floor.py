"""The relevance floor: below it no tool is offered by rank, so a question no tool is for gets
the always-on tools alone and the agent says it has no tool for it; the floor's default is the
measured one (agent_harness/tools/relevance.py), and the demo tasks still succeed."""

from __future__ import annotations

import pytest

from agent_harness.agent.agent_loop import agent_turn
from agent_harness.agent.llm.scenarios import ANSWER_NO_TOOL, BASIC_TOOLS
from agent_harness.tools.policy import RELEVANCE_FLOOR
from agent_harness.tools.relevance import (
    IRRELEVANT,
    RELEVANT,
    calibrate_floor,
    choose_floor,
    measure_floor,
    named_identifiers,
    reaches_floor,
)

NONSENSE = "zzzz qqqq purple elephant poetry"


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


def _offered(h, question, **kwargs):
    return [s["function"]["name"] for s in h.tools.retrieve(question, **kwargs)]


def test_the_default_floor_is_the_measured_one(h):
    measured = measure_floor(h.tools)
    print(measured.summary())
    assert len(measured.relevant) == len(RELEVANT) and len(measured.irrelevant) == len(IRRELEVANT)
    assert abs(measured.floor - RELEVANCE_FLOOR) <= 0.005, measured.summary()
    assert measured.missed == [] and measured.offered == [], measured.summary()
    assert h.tools.policy().relevance_floor == RELEVANCE_FLOOR


def test_the_nonsense_question_gets_no_domain_tool(h):
    print(NONSENSE, "->", _offered(h, NONSENSE))
    assert _offered(h, NONSENSE) == list(h.tools.always_on)
    without = _offered(h, NONSENSE, floor=-1)  # the floor off: five tools of the rank again
    assert len(without) == len(h.tools.always_on) + 5 and "scratch_write" in without


def test_the_floor_is_a_setting(h):
    h.tools.set_policy(relevance_floor=-1)
    try:
        assert len(_offered(h, NONSENSE)) == len(h.tools.always_on) + 5
    finally:
        h.tools.set_policy(relevance_floor=RELEVANCE_FLOOR)
    assert _offered(h, NONSENSE) == list(h.tools.always_on)


def test_relevant_questions_keep_the_tool_they_need(h):
    """The floor trims the tail of the rank (tools below it), never the tool a question needs."""
    for question, needed in [
        ("Which voyages are delayed in the Pacific?", "delayed_voyages"),
        ("How far is Busan from Tokyo?", "port_distance"),
        ("What is the latest position and speed of MSC OSCAR?", "vessel_position"),
    ]:
        floored, whole = _offered(h, question), _offered(h, question, floor=-1)
        assert needed in floored and set(floored) <= set(whole), (question, floored)
        similarity = {r["name"]: r["similarity"] for r in h.tools.rank(question, k=None)}
        dropped = set(whole) - set(floored)
        assert all(similarity[n] < RELEVANCE_FLOOR for n in dropped), (question, dropped)


def test_a_question_that_spells_an_identifier_passes_the_floor(h):
    tool = h.tools.get("container_manifest")
    assert named_identifiers(tool) == {"container_manifest", "container_no"}
    low = {"name": "container_manifest", "similarity": 0.05}
    assert not reaches_floor(low, 0.3, "what about it", tool)
    assert reaches_floor(low, 0.3, "container_no please", tool)
    assert reaches_floor(low, 0.3, "call container_manifest", tool)
    assert reaches_floor({"similarity": None}, 0.3, "anything", tool)  # keyword rows
    assert not reaches_floor(low, 0.3, "the container number", tool)


def test_choose_floor():
    assert choose_floor([0.6, 0.7], [0.1, 0.2]) == 0.4  # the middle of the gap
    assert choose_floor([0.3, 0.6, 0.7], [0.1, 0.35]) == pytest.approx(0.475)  # fewest errors
    with pytest.raises(ValueError):
        choose_floor([], [0.1])


def test_the_agent_says_it_has_no_tool_for_it(h):
    turn = agent_turn(h, NONSENSE, "floor-nonsense")
    assert set(turn.offered_names) <= BASIC_TOOLS and turn.tool_calls == []
    assert ANSWER_NO_TOOL in turn.answer
    h.tools.set_policy(relevance_floor=-1)
    try:  # without the floor, a domain tool is offered and the model does not say so
        before = agent_turn(h, NONSENSE, "floor-nonsense")
    finally:
        h.tools.set_policy(relevance_floor=RELEVANCE_FLOOR)
    assert not set(before.offered_names) <= BASIC_TOOLS and ANSWER_NO_TOOL not in before.answer


def test_the_offline_models_basic_tools_are_the_always_on_sets(h):
    from agent_harness.agent.disclosure import STARTER_TOOLS
    from agent_harness.tools.registry import ALWAYS_ON

    assert BASIC_TOOLS == set(ALWAYS_ON) | set(STARTER_TOOLS)


def test_the_twelve_demo_tasks_still_succeed(h):
    from agent_harness.agent.strategy_eval import compare_strategies

    runs = compare_strategies(h, ["retrieve"])
    for run in runs:
        print(f"{'ok ' if run.succeeded else 'BAD'} {run.question}")
    assert len(runs) == 12 and all(r.succeeded for r in runs)


def test_asking_for_every_tool_is_not_a_choice(h):
    """k >= the registry size returns every tool, as retrieve's contract says: no floor."""
    everything = {s["function"]["name"] for s in h.tools.retrieve(NONSENSE, k=10_000)}
    assert everything == set(h.tools.names()) - set(h.tools.open_tools())
    assert _offered(h, NONSENSE, k=5) == list(h.tools.always_on)


# --- issue 27: one floor per registry -----------------------------------------------------------
def test_the_workshop_registry_keeps_its_measured_floor_when_calibrated(h):
    """Calibrated on its own 56 questions, the workshop's registry loses no recall at the
    measured floor: calibration keeps it (and the irrelevant questions stay without a tool)."""
    questions = [{"query": q, "tools": [tool]} for q, tool in RELEVANT]
    found = calibrate_floor(h.tools, questions, k=5)
    assert found.floor == RELEVANCE_FLOOR and found.questions == len(RELEVANT)
    assert found.recall_with >= found.recall_without - 0.005
    offered = [q for q in IRRELEVANT if _offered(h, q, always_on=False, floor=found.floor)]
    assert offered == []


def test_a_registry_whose_questions_score_low_gets_a_lower_floor(h):
    """A question whose needed tool scores below the workshop's floor but is ranked in the
    first five (by its keywords): a registry asked such questions calibrates a floor below that
    tool's similarity, so retrieve offers it again."""
    question = "hs_code chapter heading tariff lookup of goods number 8471"
    rows = h.tools.rank(question, k=None, include_open=True, mode="hybrid")
    needed = next(r for r in rows[:5] if r["similarity"] < RELEVANCE_FLOOR)
    found = calibrate_floor(h.tools, [{"query": question, "tools": [needed["name"]]}], k=5)
    assert found.floor <= needed["similarity"] < RELEVANCE_FLOOR
    assert needed["name"] in _offered(h, question, always_on=False, floor=found.floor)
