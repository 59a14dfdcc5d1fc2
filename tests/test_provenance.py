"""Decision provenance and turn spans: the trail of a turn, its tree, and the two questions."""

from __future__ import annotations

import pytest

from agent_harness.agent.agent_loop import TurnHooks, agent_turn
from agent_harness.parts.observability import capture_spans
from agent_harness.tools.supplychain.live_feeds import AIS_FEED

LIVE = "Where is the vessel EVER GIVEN right now according to the live AIS feed?"


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


def _kinds(nodes, depth=0):
    out = []
    for node in nodes:
        out.append((depth, node["kind"], node["name"]))
        out += _kinds(node["children"], depth + 1)
    return out


def test_a_turn_leaves_its_whole_trail(h):
    turn = agent_turn(h, "Which voyages are delayed in the Pacific?", thread_id="t-prov")
    tree = h.provenance.explain(turn.turn_id)
    assert tree["question"] == turn.question and tree["status"] == "answered"
    assert tree["answer"] == turn.answer and tree["model"] == "offline-replay"
    assert tree["total_tokens"] == turn.usage()["total_tokens"] > 0
    assert tree["thread_id"] == "t-prov" and tree["duration_ms"] > 0
    kinds = _kinds(tree["events"])
    roots = [k for d, k, _ in kinds if d == 0]
    assert roots == ["knowledge", "tools_offered", "model_step", "model_step", "answer"]
    hits = tree["events"][0]["children"]  # the memories the context carried (knowledge_hits)
    assert hits and {c["kind"] for c in hits} == {"memory_hit"}
    offered = tree["events"][1]
    assert offered["detail"]["count"] == len(turn.offered) == len(offered["children"])
    assert [c["name"] for c in offered["children"]] == turn.offered_names
    assert offered["detail"]["schema_bytes"] == sum(
        c["detail"]["schema_bytes"] for c in offered["children"]
    )
    call = tree["events"][2]["children"][0]
    assert (call["kind"], call["name"], call["ok"]) == ("tool_call", "delayed_voyages", True)
    record = turn.tool_calls[0]
    assert call["telemetry_id"] == record.result.telemetry_id
    telemetry = h.tools.telemetry(tool="delayed_voyages")
    assert any(r["id"] == call["telemetry_id"] and r["turn_id"] == turn.turn_id for r in telemetry)
    assert [c["kind"] for c in call["children"]] == (["offload"] if record.offloaded else [])
    assert tree["events"][2]["detail"]["usage"]["prompt_tokens"] > 0
    text = h.provenance.render(turn.turn_id)
    assert "tool_call delayed_voyages ok" in text and text.startswith(f"turn {turn.turn_id}")


def test_which_turns_used_a_tool_and_failed_and_what_was_never_called(h):
    h.tools.set_policy(min_calls=50)  # keep the flaky tool offered in every turn
    AIS_FEED.configure(failure_rate=1.0, hang_share=0.0, seed=1)
    try:
        failed = agent_turn(h, LIVE, thread_id="t-prov")
        AIS_FEED.configure(failure_rate=0.0)
        fine = agent_turn(h, LIVE, thread_id="t-prov")
    finally:
        AIS_FEED.configure(failure_rate=0.6, hang_share=0.3, seed=7)
        h.tools.set_policy(min_calls=10)
    assert [c.name for c in failed.tool_calls] == ["ais_live_position", "vessel_position"]
    assert [c.name for c in fine.tool_calls] == ["ais_live_position"]
    bad = {r["turn_id"] for r in h.provenance.turns_using("ais_live_position", failed=True)}
    good = {r["turn_id"] for r in h.provenance.turns_using("ais_live_position", failed=False)}
    every = {r["turn_id"] for r in h.provenance.turns_using("ais_live_position")}
    assert failed.turn_id in bad and fine.turn_id not in bad
    assert fine.turn_id in good and {failed.turn_id, fine.turn_id} <= every
    never = {r["tool"]: r["turns"] for r in h.provenance.offered_never_called(fine.turn_id)}
    assert set(never) == set(fine.offered_names) - {"ais_live_position"}
    assert all(n == 1 for n in never.values())


def test_an_unknown_turn_says_which_turns_exist(h):
    with pytest.raises(KeyError, match="latest turns"):
        h.provenance.explain("turn_nope")


def test_a_failing_hook_never_breaks_the_turn(h):
    class Broken(TurnHooks):
        def on_tool_call(self, turn, step, record):
            raise RuntimeError("provenance store down")

    h.tools.hook_failures.take()
    turn = agent_turn(h, "Which voyages are delayed in the Pacific?", hooks=[Broken()])
    assert turn.answer.startswith("[offline replay]")
    assert h.tools.hook_failures.take() == {"Broken.on_tool_call": 1}


def test_the_spans_of_one_turn_nest(h):
    with capture_spans() as spans:
        turn = agent_turn(h, "Which voyages are delayed in the Pacific?", thread_id="t-span")
    by_name = {s.name: s for s in spans}
    root = by_name["invoke_agent supplychain-agent"]
    assert root.parent is None and root.attributes["gen_ai.conversation.id"] == "t-span"
    chats = [s for s in spans if s.name == "chat offline-replay"]
    tools = [s for s in spans if s.name.startswith("execute_tool")]
    assert len(chats) == len(turn.steps) == 2 and len(tools) == 1
    assert all(s.parent.span_id == root.context.span_id for s in chats + tools)
    assert tools[0].attributes["gen_ai.tool.call.id"] == turn.tool_calls[0].id
    assert chats[0].attributes["gen_ai.usage.input_tokens"] == turn.steps[0].usage["prompt_tokens"]
