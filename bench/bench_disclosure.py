"""Tool-schema tokens and task success per tool strategy on the workshop's demo questions.

    .venv/bin/python bench/bench_disclosure.py            # offline replay model
    WORKSHOP_LLM=live OPENAI_API_KEY=... .venv/bin/python bench/bench_disclosure.py --live

Runs each demo question (agent_harness.agent.strategy_eval.demo_questions) in a fresh thread under
``all``, ``retrieve``, ``disclose`` and ``disclose+retrieve`` on a fresh copy of the prepared
embedded database, and prints per strategy: model requests, tool-schema tokens per request and
per turn (tiktoken cl100k_base), their share of ``all``, and how many tasks succeeded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", action="store_true", help="use the live model (needs a key)")
    parser.add_argument("--k", type=int, default=5, help="tools picked by retrieval")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--detail", action="store_true", help="print every question's calls")
    args = parser.parse_args()
    os.environ["WORKSHOP_LLM"] = "live" if args.live else "offline"

    import agent_harness
    from agent_harness.agent.strategy_eval import compare_strategies, summary
    from agent_harness.parts.token_count import method

    with tempfile.TemporaryDirectory() as data:
        h = agent_harness.connect(data_dir=data)
        started = time.perf_counter()
        runs = compare_strategies(h, k=args.k)
        seconds = time.perf_counter() - started
        model = h.llm.model
        h.close()
    rows = summary(runs)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"model {model}; tokens: {method()}; {len(runs)} turns in {seconds:.1f} s")
    header = ["strategy", "requests", "tok/request", "share", "tok/turn", "share", "succeeded"]
    print("  ".join(f"{h:>17}" if i == 0 else f"{h:>11}" for i, h in enumerate(header)))
    for r in rows:
        print(
            f"{r['strategy']:>17}  {r['requests']:>11}  {r['tokens_per_request']:>11}"
            f"  {r.get('share_of_all_per_request', ''):>11}  {r['tokens_per_turn']:>11}"
            f"  {r.get('share_of_all_per_turn', ''):>11}  {r['succeeded']:>8}/{r['questions']}"
        )
    if args.detail:
        for run in runs:
            print(
                f"{run.strategy:>17} {'ok ' if run.succeeded else 'BAD'} {run.question[:50]:50}"
                f" {run.calls} {run.tool_tokens}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
