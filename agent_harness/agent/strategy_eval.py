"""Compare how a turn picks its tools: tool-schema tokens and task success per strategy.

Runs the workshop's demo questions (one per scripted scenario of the offline model, the same
kinds of questions notebooks 04-07 ask) through the agent loop with each strategy, each
question in a fresh thread, and counts, per model request, the tokens of the tool schemas
sent (:mod:`agent_harness.parts.token_count`), and per question whether the task succeeded: every
tool the question needs ran and returned a result, and the answer was not forced. With a live
model (``WORKSHOP_LLM=live`` and a key) the same code measures the real model.

``bench/bench_disclosure.py`` prints the table; notebook 07 plots it; a test holds the
offline figures to the target (disclose <= 15% of all, no loss of success).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field

from agent_harness.agent.agent_loop import agent_turn
from agent_harness.agent.disclosure import STRATEGIES

__all__ = ["DemoQuestion", "demo_questions", "StrategyRun", "compare_strategies", "summary"]


@dataclass(frozen=True)
class DemoQuestion:
    """A question and the tools that must run for it to count as answered (``a|b``: either)."""

    question: str
    needs: tuple[str, ...]


def _first(harness, sql: str) -> str:
    return json.loads(harness.tools.call("run_sql", {"sql": sql}))["rows"][0][0]


def demo_questions(harness) -> list[DemoQuestion]:
    """The demo questions, with real voyage and container codes from this database."""
    voyage = _first(
        harness,
        "SELECT v.voyage_code FROM supplychain.voyages v JOIN supplychain.containers c"
        " ON c.voyage_id = v.voyage_id GROUP BY v.voyage_code ORDER BY COUNT(*) DESC,"
        " v.voyage_code",
    )
    container = _first(
        harness,
        "SELECT container_no FROM supplychain.cargo_items GROUP BY container_no"
        " ORDER BY COUNT(*) DESC, container_no",
    )
    return [
        DemoQuestion("Which voyages are delayed in the Pacific?", ("delayed_voyages",)),
        DemoQuestion(
            "Where is the vessel EVER GIVEN right now according to the live AIS feed?",
            ("ais_live_position|vessel_position",),
        ),
        DemoQuestion("Where is the vessel EVER GIVEN now?", ("vessel_position",)),
        DemoQuestion("How many vessels does each carrier operate?", ("run_sql",)),
        DemoQuestion(f"What is the cargo value of voyage {voyage}?", ("cargo_value",)),
        DemoQuestion("Which containers are on customs hold?", ("containers_on_hold",)),
        DemoQuestion("Which hazardous containers are on board?", ("hazmat_containers",)),
        DemoQuestion(
            f"Show the manifest of container {container}",
            ("container_manifest", "fetch_tool_output"),
        ),
        DemoQuestion("What does capacity_teu mean?", ("search_knowledge",)),
        DemoQuestion("Remember that berth 7 at NLRTM is closed until Friday.", ("remember",)),
        DemoQuestion("Compute the 90th percentile of 12, 5, 33, 8, 21, 17", ("exec_js",)),
        DemoQuestion("Which skills help with port congestion?", ("load_skill",)),
    ]


@dataclass
class StrategyRun:
    """One question under one strategy.

    Attributes:
        strategy: The strategy.
        question: The question.
        tool_tokens: Tool-schema tokens of each model request that sent tools.
        calls: ``(tool, ok)`` per call, in order.
        succeeded: Every needed tool ran and returned a result, and the answer was not forced.
        turn_id: The turn (its provenance trail).
    """

    strategy: str
    question: str
    tool_tokens: list[int] = field(default_factory=list)
    calls: list[tuple[str, bool]] = field(default_factory=list)
    succeeded: bool = False
    turn_id: str = ""


def _succeeded(needs: tuple[str, ...], calls: list[tuple[str, bool]], forced: bool) -> bool:
    ok = {name for name, good in calls if good}
    return not forced and all(any(n in ok for n in need.split("|")) for need in needs)


def compare_strategies(
    harness, strategies=STRATEGIES, questions=None, agent=None, k=5, progress=False
):
    """Run every question under every strategy (each in a fresh thread).

    Args:
        harness: The harness (its LLM answers: offline replay unless a live model is set).
        strategies: Strategy names.
        questions: :class:`DemoQuestion` items (default :func:`demo_questions`).
        agent: The agent for every strategy (default: none for ``all`` / ``retrieve``, the
            default agent for the disclosing ones).
        k: Tools retrieval picks.
        progress: Show a progress bar of the agent turns (a notebook cell that runs them
            all says how far it is instead of sitting silent).

    Returns:
        A list of :class:`StrategyRun`.
    """
    from tqdm.auto import tqdm

    questions = questions or demo_questions(harness)
    runs = []
    turns = [(strategy, item) for strategy in strategies for item in questions]
    for strategy, item in tqdm(turns, desc="agent turns", unit="turn", disable=not progress):
        thread = f"eval-{strategy}-{uuid.uuid4().hex[:8]}"
        turn = agent_turn(harness, item.question, thread, strategy=strategy, agent=agent, k_tools=k)
        calls = [(c.name, c.ok) for c in turn.tool_calls]
        runs.append(
            StrategyRun(
                strategy,
                item.question,
                [t for t in turn.tool_tokens if t],
                calls,
                _succeeded(item.needs, calls, turn.forced_final),
                turn.turn_id,
            )
        )
    return runs


def summary(runs: list[StrategyRun]) -> list[dict]:
    """Per strategy: requests, mean tool tokens per request and per turn, share of ``all``
    (when it was run), tasks succeeded."""
    rows = []
    for strategy in dict.fromkeys(r.strategy for r in runs):
        mine = [r for r in runs if r.strategy == strategy]
        tokens = [t for r in mine for t in r.tool_tokens]
        rows.append(
            {
                "strategy": strategy,
                "questions": len(mine),
                "requests": len(tokens),
                "tokens_per_request": round(sum(tokens) / max(1, len(tokens)), 1),
                "tokens_per_turn": round(sum(tokens) / max(1, len(mine)), 1),
                "succeeded": sum(r.succeeded for r in mine),
            }
        )
    base = next((r for r in rows if r["strategy"] == "all"), None)
    for row in rows:
        if base:
            row["share_of_all_per_request"] = round(
                row["tokens_per_request"] / base["tokens_per_request"], 3
            )
            row["share_of_all_per_turn"] = round(
                row["tokens_per_turn"] / base["tokens_per_turn"], 3
            )
    return rows
