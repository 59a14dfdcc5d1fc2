"""The diagnostics tools: explain_turn (a past turn's trail) and registry_health (stats and an
OODA dry run), read-only, in the diagnostics category, called by the agent itself."""

from __future__ import annotations

import json

import pytest

from agent_harness.agent.agent_loop import agent_turn


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


def test_they_are_read_only_tools_of_the_diagnostics_category(h):
    assert h.tools.categories()["diagnostics"] == ["explain_turn", "registry_health"]
    assert {h.tools.get(n).access_level for n in ("explain_turn", "registry_health")} == {"read"}


def test_explain_turn_tells_a_turn_from_its_trail(h):
    turn = agent_turn(h, "Which voyages are delayed in the Pacific?", "diag")
    told = json.loads(h.tools.call("explain_turn", {"turn_id": turn.turn_id}))
    assert told["question"] == turn.question and told["status"] == "answered"
    assert told["tools_offered"]["strategy"] == "retrieve"
    assert told["tools_offered"]["tools"] == turn.offered_names
    hits = told["memory_hits"]
    assert hits and all({"memory_id", "kind", "score"} <= set(hit) for hit in hits)
    (call,) = [c for step in told["model_steps"] for c in step["tool_calls"]]
    assert call["tool"] == "delayed_voyages" and call["ok"] is True
    assert call["arguments"] == json.loads(turn.tool_calls[0].arguments)
    assert told["answer"] == turn.answer[:300]
    latest = json.loads(h.tools.call("explain_turn", {}))  # the latest finished turn
    assert latest["turn_id"] == turn.turn_id
    unknown = json.loads(h.tools.call("explain_turn", {"turn_id": "turn_nope"}))
    assert "turn_nope" in unknown["error"] and turn.turn_id in unknown["error"]


def test_registry_health_reports_and_changes_nothing(h):
    for _ in range(3):
        h.tools.call("port_info", {"port": "NLRTM"})
    states = h.tools.states()
    transitions = h.tools.transitions()
    rows = len(h.tools.telemetry())
    health = json.loads(h.tools.call("registry_health", {}))
    assert health["tools"] == len(h.tools.names())
    assert any(b["tool"] == "port_info" and b["calls"] >= 3 for b in health["busiest"])
    assert "port_info" not in health["unused"] and "cargo_value" in health["unused"]
    assert h.tools.states() == states and h.tools.transitions() == transitions
    assert len(h.tools.telemetry()) == rows + 1  # its own call, nothing pruned


def test_the_agent_explains_itself(h):
    asked = agent_turn(h, "Which containers are on customs hold?", "diag-self")
    turn = agent_turn(h, "Explain what you did in your last turn", "diag-self")
    assert "explain_turn" in turn.offered_names
    (call,) = turn.tool_calls
    assert call.name == "explain_turn" and call.ok
    assert asked.turn_id in call.result.output and "containers_on_hold" in call.result.output
    health = agent_turn(h, "Which tools are failing or slow right now?", "diag-self")
    assert [c.name for c in health.tool_calls] == ["registry_health"]
