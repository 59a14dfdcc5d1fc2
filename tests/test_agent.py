"""The agent loop, driven by the offline model: dispatch, errors, budget, offload, episodes."""

from __future__ import annotations

import json

import pytest

from agent_harness.agent.agent_loop import FORCE_FINAL, agent_turn


@pytest.fixture
def llm(harness):
    model = harness.llm
    assert model.mode == "offline"
    model.offline.reset()
    yield model
    model.offline.reset()


def test_a_demo_prompt_dispatches_the_scripted_tool(harness, llm):
    result = agent_turn(harness, "Which voyages are delayed in the Pacific?", thread_id="t-agent")
    assert [c.name for c in result.tool_calls] == ["delayed_voyages"]
    assert result.tool_calls[0].ok and not result.forced_final
    assert result.answer.startswith("[offline replay]")
    first, second = llm.offline.requests[-2:]
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"delayed_voyages", "run_sql", "search_knowledge"} <= offered
    assert "Question: Which voyages are delayed in the Pacific?" in first["messages"][1]["content"]
    assert "Skills you can load" in first["messages"][1]["content"]
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and "PACIFIC" in tool_message["content"]


def test_unknown_tool_and_bad_arguments_become_error_observations(harness, llm):
    llm.offline.enqueue(
        {
            "tool_calls": [
                {"name": "launch_rockets", "arguments": {}},
                {"name": "run_sql", "arguments": {"query": "x"}},
            ]
        }
    )
    llm.offline.enqueue("done")
    result = agent_turn(harness, "anything at all", thread_id="t-agent")
    assert result.answer == "done"
    assert [c.ok for c in result.tool_calls] == [False, False]
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    assert "not available" in tool_messages[0]["content"]
    assert "missing required argument 'sql'" in tool_messages[1]["content"]


def test_max_iterations_forces_a_final_answer_without_tools(harness, llm):
    for _ in range(2):
        llm.offline.enqueue({"tool_calls": [{"name": "exec_js", "arguments": {"code": "1"}}]})
    llm.offline.enqueue("forced answer")
    result = agent_turn(harness, "loop forever", thread_id="t-agent", max_iterations=2)
    assert result.iterations == 2 and result.forced_final
    assert result.answer == "forced answer"
    last = llm.offline.requests[-1]
    assert "tools" not in last and last["messages"][-1]["content"] == FORCE_FINAL


def test_zero_budget_answers_at_once(harness, llm):
    llm.offline.enqueue("no time")
    result = agent_turn(harness, "Which voyages are delayed?", budget_seconds=0)
    assert result.forced_final and result.tool_calls == [] and result.answer == "no time"


def test_big_outputs_are_offloaded_and_fetched_whole(harness, llm):
    container = json.loads(
        harness.tools.call(
            "run_sql",
            {
                "sql": "SELECT container_no FROM supplychain.cargo_items GROUP BY container_no "
                "ORDER BY COUNT(*) DESC, container_no"
            },
        )
    )["rows"][0][0]
    full = harness.tools.call("container_manifest", {"container_no": container})
    assert len(full) > 600
    result = agent_turn(
        harness, f"Show the full manifest of container {container}", thread_id="t-offload"
    )
    names = [c.name for c in result.tool_calls]
    assert names == ["container_manifest", "fetch_tool_output"]
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    call_id = result.tool_calls[0].id
    assert tool_messages[0]["content"] == (
        full[:600] + f"...[+{len(full) - 600} chars. full output: "
        f"fetch_tool_output(tool_call_id='{call_id}')]"
    )
    fetched = json.loads(tool_messages[1]["content"])
    assert fetched["tool_output"] == full  # whole, never cut again
    assert result.request_chars[1] < result.request_chars[2]


def test_offload_off_sends_everything(harness, llm):
    result = agent_turn(harness, "List hazardous containers", offload=False)
    tool_message = [m for m in result.messages if m["role"] == "tool"][0]
    assert len(tool_message["content"]) == result.tool_calls[0].output_chars > 600


def test_each_turn_is_stored_as_an_episode(harness, llm):
    result = agent_turn(harness, "Which containers are on customs hold?", thread_id="t-episode")
    episodes = harness.memory.list(metadata_filter={"kind": "episode", "thread_id": "t-episode"})
    assert episodes[0].id == result.episode_id
    assert episodes[0].metadata["tools"] == ["containers_on_hold"]
    assert "customs hold" in episodes[0].content


def test_a_model_that_ignores_the_forced_final_still_gives_an_answer(harness, llm):
    for _ in range(2):
        llm.offline.enqueue({"tool_calls": [{"name": "exec_js", "arguments": {"code": "1"}}]})
    result = agent_turn(harness, "stubborn", max_iterations=1)
    assert result.forced_final and "no final answer" in result.answer


def test_forced_final_after_tools_quotes_what_the_tools_returned(harness, llm):
    result = agent_turn(harness, "Which voyages are delayed in the Pacific?", max_iterations=1)
    assert result.forced_final and [c.name for c in result.tool_calls] == ["delayed_voyages"]
    assert "delayed_voyages" in result.answer and "PACIFIC" in result.answer


# --- a turn that fails ends cleanly (issue 18, item 14) ------------------------------------------
class _ModelDown:
    """A model whose second request raises, as an API outage would."""

    model = "flaky-model"

    def __init__(self, harness):
        self.real, self.requests = harness.llm, 0

    def complete(self, messages, tools=None):
        self.requests += 1
        if self.requests == 2:
            raise ConnectionError("model API: 503 Service Unavailable")
        return self.real.complete(messages, tools=tools)


def test_a_model_call_that_raises_marks_the_turn_failed_and_ends_its_spans(harness, llm):
    from agent_harness.agent.turns import TurnHooks
    from agent_harness.parts.observability import capture_spans

    seen = []

    class Watch(TurnHooks):
        def on_turn_end(self, turn):
            seen.append("end")

        def on_turn_error(self, turn, error):
            seen.append(("error", turn.status, type(error).__name__))

    hooks = [*harness.turn_hooks, Watch()]
    with capture_spans() as spans, pytest.raises(ConnectionError) as raised:
        agent_turn(
            harness,
            "Which voyages are delayed in the Pacific?",
            thread_id="t-fails",
            llm=_ModelDown(harness),
            hooks=hooks,
        )
    assert seen == [("error", "failed", "ConnectionError")]  # one stage, never on_turn_end
    assert "503" in str(raised.value)
    turn_id = next(t for t in harness.provenance.turns(5) if t["thread_id"] == "t-fails")["turn_id"]
    row = harness.provenance.explain(turn_id)
    assert row["status"] == "failed" and row["answer"] is None
    error = [e for e in row["events"] if e["kind"] == "error"]
    assert error and "503 Service Unavailable" in error[0]["detail"]["message"]
    assert "[failed]" in harness.provenance.render(turn_id)
    names = [s.name for s in spans]
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert "invoke_agent supplychain-agent" in names and len(chats) == 2  # all ended
    failed = [s for s in spans if s.status.status_code.name == "ERROR"]
    assert [s.name for s in failed] == [chats[1].name, "invoke_agent supplychain-agent"]
    assert failed[0].attributes["error.type"] == "ConnectionError" and failed[0].events
    from opentelemetry import trace

    assert not trace.get_current_span().get_span_context().is_valid  # no span left current


def test_hook_stages_are_explicit_methods(harness):
    from agent_harness.agent.turns import STAGES, HookRunner, TurnHooks
    from agent_harness.tools.dispatch import HookFailures

    runner = HookRunner([], HookFailures())
    assert all(callable(getattr(runner, stage)) for stage in STAGES)
    assert set(STAGES) == {n for n in vars(TurnHooks) if n.startswith(("on_", "before_"))}
    with pytest.raises(AttributeError):
        runner.on_turn_strat  # a typo is an error, not a counted "hook failure"  # noqa: B018


def test_a_hook_failure_is_logged_with_its_traceback(harness, llm, caplog):
    import logging

    from agent_harness.agent.turns import TurnHooks

    class Broken(TurnHooks):
        def on_turn_start(self, turn):
            raise RuntimeError("provenance store down")

    harness.tools.hook_failures.take()
    with caplog.at_level(logging.WARNING):
        agent_turn(harness, "Which voyages are delayed in the Pacific?", hooks=[Broken()])
    assert harness.tools.hook_failures.take() == {"Broken.on_turn_start": 1}
    logged = [r for r in caplog.records if "Broken.on_turn_start" in r.getMessage()]
    assert logged and logged[0].exc_info and "provenance store down" in caplog.text
    assert "Traceback" in caplog.text and "in on_turn_start" in caplog.text


def test_the_suite_guard_reports_hook_failures_left_behind(harness):
    from agent_harness.tools.dispatch import HookFailures, unreported_hook_failures

    failures = HookFailures()
    failures.record(object(), "on_turn_end", RuntimeError("x"))
    assert unreported_hook_failures() == ["object.on_turn_end: RuntimeError: x"]
    assert unreported_hook_failures() == []
