"""The disclosure target on the demo questions (offline replay): tool-schema tokens per request
with ``disclose`` at most 15% of ``all``, with no loss of task success."""

from __future__ import annotations

from agent_harness.agent.strategy_eval import compare_strategies, demo_questions, summary


def test_disclose_sends_at_most_15_percent_of_the_tool_tokens_and_loses_no_task(harness):
    questions = demo_questions(harness)
    runs = compare_strategies(harness, ["all", "retrieve", "disclose"], questions)
    rows = {r["strategy"]: r for r in summary(runs)}
    failed = [(r.strategy, r.question, r.calls) for r in runs if not r.succeeded]
    assert failed == []
    assert rows["disclose"]["share_of_all_per_request"] <= 0.15, rows
    assert rows["disclose"]["tokens_per_turn"] < rows["retrieve"]["tokens_per_turn"]
    # every disclosing turn that needed a tool outside the always-on set loaded a skill
    loads = [r for r in runs if r.strategy == "disclose" and r.calls[0][0] == "load_skill"]
    assert len(loads) >= len(questions) // 2
