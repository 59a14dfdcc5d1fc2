"""The correction that sticks (notebook 08, seed 001 section 4): the agent answers, the user
corrects it, the correction is stored with remember, and in a new thread it comes back as a
memory hit that changes the answer. The control: without the stored memory the new thread's
answer is the first one again, so the memory is what changed it."""

from __future__ import annotations

import pytest

from agent_harness.agent.agent_loop import agent_turn
from agent_harness.agent.knowledge_hits import hit_for_call, hits_of
from agent_harness.glass_box import PanelHooks

QUESTION = "How many berths does our European hub have?"
CORRECTION = "No: our European hub is Hamburg (DEHAM), not Rotterdam."


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


def _port(turn) -> str:
    (call,) = [c for c in turn.tool_calls if c.name == "port_info"]
    return call.arguments


def test_the_second_answer_differs_because_of_the_stored_memory(h):
    first = agent_turn(h, QUESTION, "hub-1")
    assert _port(first) == '{"port": "NLRTM"}' and "Rotterdam" in first.answer
    corrected = agent_turn(h, CORRECTION, "hub-1")
    (stored,) = corrected.tool_calls
    assert stored.name == "remember" and stored.ok
    memory_id = h.memory.list(metadata_filter={"kind": "correction"})[-1].id

    hooks = PanelHooks(h)
    second = agent_turn(h, QUESTION, "hub-2", hooks=[*h.turn_hooks, hooks])
    assert _port(second) == '{"port": "DEHAM"}' and "Hamburg" in second.answer
    assert second.answer != first.answer
    # the memory hit that did it: in the stored trail, and marked on the panel
    hits = hits_of(h.provenance.explain(second.turn_id))
    assert memory_id in [hit["memory_id"] for hit in hits]
    assert hit_for_call(hits, _port(second), QUESTION)["memory_id"] == memory_id
    marked = [n for n in hooks.tree["events"][0]["children"] if n["detail"].get("supplied")]
    assert [n["detail"]["memory_id"] for n in marked] == [memory_id]

    h.memory.delete(memory_id)  # the control: the same question without the memory
    control = agent_turn(h, QUESTION, "hub-3")
    assert _port(control) == '{"port": "NLRTM"}' and "Rotterdam" in control.answer
