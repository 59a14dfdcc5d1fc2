"""Progressive disclosure in the agent loop: skills unlock tools, nothing else leaks, access
levels hold at dispatch, every unlock is in the provenance trail (offline model)."""

from __future__ import annotations

import json
import uuid

import pytest

from agent_harness.agent.agent_loop import agent_turn
from agent_harness.agent.disclosure import STARTER_TOOLS, STRATEGIES, make_strategy
from agent_harness.parts.token_count import schemas_tokens


@pytest.fixture
def llm(harness):
    model = harness.llm
    model.offline.reset()
    yield model
    model.offline.reset()


def _thread() -> str:
    return f"t-disclose-{uuid.uuid4().hex[:8]}"


def _names(request) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def test_a_turn_starts_small_and_a_loaded_skill_appends_its_tools(harness, llm):
    turn = agent_turn(
        harness, "Which voyages are delayed in the Pacific?", _thread(), strategy="disclose"
    )
    assert [c.name for c in turn.tool_calls] == ["load_skill", "delayed_voyages"]
    assert all(c.ok for c in turn.tool_calls) and not turn.forced_final
    first, second, third = (_names(r) for r in llm.offline.requests)
    assert first == list(STARTER_TOOLS)
    assert second[: len(first)] == first  # appended after the ones sent: cache-friendly
    assert second[len(first) :] == ["delayed_voyages", "eta_estimate"]
    assert third[: len(second)] == second  # (+ fetch_tool_output: the list was offloaded)
    unlock = turn.unlocks[0]
    assert (unlock.skill, unlock.reason, unlock.added) == (
        "delayed-voyage-triage",
        "load_skill",
        ["delayed_voyages", "eta_estimate"],
    )
    shown = turn.tool_calls[0].shown
    assert shown.startswith("# Delayed Voyage Triage")
    assert shown.endswith("[tools unlocked: delayed_voyages, eta_estimate]")
    system, user = llm.offline.requests[0]["messages"][:2]
    assert "- delayed-voyage-triage: Use when asked which voyages are delayed" in system["content"]
    assert "[unlocks: delayed_voyages, eta_estimate]" in system["content"]
    assert "Skills you can load" not in user["content"]
    assert turn.tool_tokens[0] == schemas_tokens(harness.tools.schemas(list(STARTER_TOOLS)))
    assert turn.tool_tokens[1] > turn.tool_tokens[0] and turn.strategy == "disclose"
    assert turn.agent == "supplychain-analyst"


def test_skills_loaded_in_a_thread_stay_unlocked(harness, llm):
    thread = _thread()
    agent_turn(harness, "Which voyages are delayed in the Pacific?", thread, strategy="disclose")
    llm.offline.reset()
    again = agent_turn(harness, "Which voyages are delayed?", thread, strategy="disclose")
    assert [c.name for c in again.tool_calls] == ["delayed_voyages"]  # no second load_skill
    first = _names(llm.offline.requests[0])
    assert first[:3] == list(STARTER_TOOLS) and first[-2:] == ["delayed_voyages", "eta_estimate"]
    assert again.unlocks[0].reason == "thread"
    other = agent_turn(harness, "Which voyages are delayed?", _thread(), strategy="disclose")
    assert other.tool_calls[0].name == "load_skill"


def _big_container(harness) -> str:
    rows = json.loads(
        harness.tools.call(
            "run_sql",
            {
                "sql": "SELECT container_no FROM supplychain.cargo_items GROUP BY container_no"
                " ORDER BY COUNT(*) DESC, container_no"
            },
        )
    )["rows"]
    return rows[0][0]


def test_fetch_tool_output_appears_only_once_an_output_was_offloaded(harness, llm):
    thread = _thread()
    container = _big_container(harness)
    turn = agent_turn(
        harness, f"Show the manifest of container {container}", thread, strategy="disclose"
    )
    names = [c.name for c in turn.tool_calls]
    assert names == ["load_skill", "container_manifest", "fetch_tool_output"], names
    requests = [_names(r) for r in llm.offline.requests]
    assert "fetch_tool_output" not in requests[0] + requests[1]
    assert requests[2][-1] == "fetch_tool_output"  # appended after the offload
    assert turn.unlocks[-1].reason == "offload"
    llm.offline.reset()
    agent_turn(harness, "What does capacity_teu mean?", thread, strategy="disclose")
    assert "fetch_tool_output" in _names(llm.offline.requests[0])  # the thread has outputs


def test_no_tool_leaks_a_call_to_anything_not_offered_is_refused(harness, llm):
    """Zero leaks: every tool that was not offered, called through the loop, is refused before
    it runs, and the refusal names the skill that would unlock it."""
    hidden = [n for n in harness.tools.names() if n not in STARTER_TOOLS]
    llm.offline.enqueue({"tool_calls": [{"name": n, "arguments": {}} for n in hidden]})
    llm.offline.enqueue("done")
    turn = agent_turn(harness, "anything at all", _thread(), strategy="disclose")
    assert [c.name for c in turn.tool_calls] == hidden
    for call in turn.tool_calls:
        assert call.result.error_type == "not_offered" and call.result.success is None, call.name
        unlockers = harness.skills.unlockers(call.name)
        if unlockers:
            assert "load_skill(" in call.shown and any(u in call.shown for u in unlockers)
    rows = harness.tools.telemetry(after_id=turn.tool_calls[0].result.telemetry_id - 1)
    assert {r["error_type"] for r in rows if r["turn_id"] == turn.turn_id} == {"not_offered"}


def test_access_levels_hold_at_dispatch(harness, llm):
    """A read-only agent may be offered every tool (strategy all) and still cannot write or
    run code: its skills grant read access only."""
    llm.offline.enqueue(
        {
            "tool_calls": [
                {"name": "remember", "arguments": {"content": "a fact"}},
                {"name": "exec_js", "arguments": {"code": "1 + 1"}},
                {"name": "port_info", "arguments": {"port": "NLRTM"}},
            ]
        }
    )
    llm.offline.enqueue("done")
    turn = agent_turn(harness, "x", _thread(), strategy="all", agent="supplychain-viewer")
    remember, exec_js, port_info = turn.tool_calls
    assert remember.result.error_type == exec_js.result.error_type == "access_denied"
    assert "needs write access" in remember.shown and "needs execute access" in exec_js.shown
    assert port_info.ok and remember.result.success is None  # refused before it ran
    llm.offline.enqueue({"tool_calls": [{"name": "exec_js", "arguments": {"code": "1 + 1"}}]})
    llm.offline.enqueue("done")
    analyst = agent_turn(harness, "x", _thread(), strategy="all", agent="supplychain-analyst")
    assert analyst.tool_calls[0].ok  # its skills grant execute


def test_a_skill_withholds_tools_its_agent_may_not_run(harness, llm):
    llm.offline.enqueue(
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "schema-discovery"}}]}
    )
    llm.offline.enqueue("done")
    turn = agent_turn(harness, "x", _thread(), strategy="disclose", agent="supplychain-viewer")
    unlock = turn.unlocks[0]
    assert unlock.added == [] and sorted(unlock.withheld) == ["remember", "scan_database"]
    assert "not available to this agent: " in turn.tool_calls[0].shown


def test_an_agent_loads_only_its_own_skills(harness, llm):
    name = f"narrow-{uuid.uuid4().hex[:6]}"
    harness.agents.define(name, "Only vessels.", "You find ships.", ["vessel-lookup"])
    try:
        llm.offline.enqueue(
            {"tool_calls": [{"name": "load_skill", "arguments": {"name": "cargo-valuation"}}]}
        )
        llm.offline.enqueue("done")
        turn = agent_turn(harness, "x", _thread(), strategy="disclose", agent=name)
        call = turn.tool_calls[0]
        assert call.result.error_type == "caller_error" and turn.unlocks == []
        assert f"not one of agent '{name}'" in call.shown and "vessel-lookup" in call.shown
    finally:
        harness.agents.delete(name)


def test_every_unlock_is_in_the_provenance_trail(harness, llm):
    turn = agent_turn(
        harness, "Which voyages are delayed in the Pacific?", _thread(), strategy="disclose"
    )
    tree = harness.provenance.explain(turn.turn_id)
    offered = next(e for e in tree["events"] if e["kind"] == "tools_offered")
    assert offered["detail"]["strategy"] == "disclose" and offered["detail"]["count"] == 3
    calls = [c for e in tree["events"] if e["kind"] == "model_step" for c in e["children"]]
    load = next(c for c in calls if c["name"] == "load_skill")
    (loaded,) = [c for c in load["children"] if c["kind"] == "skill_loaded"]
    assert loaded["name"] == "delayed-voyage-triage"
    assert [c["name"] for c in loaded["children"]] == ["delayed_voyages", "eta_estimate"]
    assert loaded["children"][0]["detail"]["position"] == 4
    assert loaded["children"][0]["detail"]["via"] == "delayed-voyage-triage"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_strategy_answers_the_demo_question(harness, llm, strategy):
    turn = agent_turn(
        harness, "Which containers are on customs hold?", _thread(), strategy=strategy
    )
    assert "containers_on_hold" in [c.name for c in turn.tool_calls if c.ok]
    first = _names(llm.offline.requests[0])
    if strategy == "all":
        assert sorted(first) == sorted(
            n for n in harness.tools.names() if n not in harness.tools.open_tools()
        )
    if strategy == "disclose+retrieve":
        assert first[:3] == list(STARTER_TOOLS) and "containers_on_hold" in first


def test_an_unknown_strategy_lists_the_strategies(harness):
    with pytest.raises(ValueError, match="all, retrieve, disclose, disclose\\+retrieve"):
        make_strategy(harness, "everything")
