"""What the glass box costs a turn: its hooks and its rendering, per event (target <= 5 ms).

    .venv/bin/python bench/bench_glass_box.py [--rounds 3]

Runs the 12 demo questions (agent_harness.agent.strategy_eval.demo_questions, offline model) through
two ``GlassBox`` panels, one retrieving tools and one as the agent ``supplychain-analyst``
(progressive disclosure: skills loaded, tools unlocked), on a fresh copy of the prepared embedded
database. The panels are ipywidgets widgets without a browser: the cost measured is the
kernel's (the hooks build the trail, the budget is counted, the trail and meter HTML are
rendered and set on the widgets). Every stage of every turn is
one event (:attr:`PanelHooks.timings` times each, its redraw included); it prints the events'
p50, p95 and max per stage and overall, the overhead per turn, and the same turns' wall time
without the panel for comparison. The first round warms up (tiktoken, the embedding cache) and
is not counted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="measured rounds of 12 turns")
    args = parser.parse_args()
    os.environ.setdefault("WORKSHOP_LLM", "offline")

    import agent_harness
    from agent_harness.agent.agent_loop import agent_turn
    from agent_harness.agent.strategy_eval import demo_questions
    from agent_harness.glass_box import GlassBox

    with tempfile.TemporaryDirectory() as data:
        h = agent_harness.connect(data_dir=data)
        questions = [q.question for q in demo_questions(h)]
        boxes = [GlassBox(h), GlassBox(h, agent="supplychain-analyst")]
        events: list[tuple[str, float]] = []
        panel_turns, plain_turns = [], []
        for round_ in range(args.rounds + 1):
            for question, box in [(q, b) for b in boxes for q in questions]:
                box.hooks.timings = []
                box.new_thread()
                started = time.perf_counter()
                box.ask(question)
                elapsed = (time.perf_counter() - started) * 1000
                started = time.perf_counter()
                agent_turn(
                    h, question, f"bench-plain-{round_}", strategy=box.strategy, agent=box.agent
                )
                plain = (time.perf_counter() - started) * 1000
                if round_:  # round 0 warms up
                    events += box.hooks.timings
                    panel_turns.append((elapsed, sum(ms for _, ms in box.hooks.timings)))
                    plain_turns.append(plain)
        h.close()
    every = [ms for _, ms in events]
    print(
        f"{len(panel_turns)} turns, {len(every)} events (hooks + trail and meter rendering, "
        "widgets updated; offline model)"
    )
    print(f"{'stage':<20} {'events':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for stage in dict.fromkeys(s for s, _ in events):
        values = [ms for s, ms in events if s == stage]
        print(
            f"{stage:<20} {len(values):>7} {_p(values, 0.5):>8.2f} {_p(values, 0.95):>8.2f}"
            f" {max(values):>8.2f}"
        )
    print(
        f"{'every event':<20} {len(every):>7} {_p(every, 0.5):>8.2f} {_p(every, 0.95):>8.2f}"
        f" {max(every):>8.2f}   mean {statistics.fmean(every):.2f} ms (target <= 5 ms)"
    )
    per_turn = [overhead for _, overhead in panel_turns]
    print(
        f"per turn: {statistics.fmean(per_turn):.1f} ms of panel work "
        f"({len(every) / len(panel_turns):.1f} events); turn wall time "
        f"{statistics.median(t for t, _ in panel_turns):.0f} ms with the panel, "
        f"{statistics.median(plain_turns):.0f} ms without (medians)"
    )
    return 0 if _p(every, 0.95) <= 5.0 else 1


if __name__ == "__main__":
    sys.exit(main())
