"""Tool retrieval at scale: recall@1, recall@5 and nDCG@10 of vector, keyword and hybrid ranking.

    python bench/bench_tool_retrieval.py                      # the generated 1,100-tool catalogue
    python bench/bench_tool_retrieval.py --size 200 --one-by-one
    python bench/bench_tool_retrieval.py --tools tools.jsonl --queries queries.jsonl
    python bench/bench_tool_retrieval.py --tools ... --queries ... --modes hybrid --floor

Every run opens a fresh embedded harness in a temporary folder with an EMPTY registry (no
workshop tools, so only the dataset's tools compete), loads the tools with ONE
``h.tools.define_many`` call (``--one-by-one`` also times ``h.tools.define`` per tool in a
second fresh harness) and asks every question through ``h.tools.rank(question, k=10,
mode=...)``, the public API. Tools are defined for retrieval only: calling one raises.

Data files (JSON Lines, UTF-8):

* ``--tools``: one OpenAI tools entry per line, ``{"type": "function", "function": {"name",
  "description", "parameters"}}``; an optional ``"category"`` beside ``"function"`` is kept.
* ``--queries``: ``{"query": "...", "tools": ["needed_tool", ...]}`` per line; a query
  naming a tool that is not in the tools file is skipped (and counted).

Public datasets rarely follow the registry's naming rules, so names and categories are
adapted first (and counted): a name outside OpenAI's ``^[a-zA-Z0-9_-]{1,64}$`` has every other
character replaced by ``_`` (cut to 64, a numeric suffix if two collide), in the tools and the
questions alike; a category becomes a lower-case word (``"Food & Drink"`` -> ``food_drink``).
A published default that does not fit its argument (``"false"`` for a boolean) is kept but
never filled in (``define_many`` warns; here they are counted).

Metrics, per mode, over the queries:

* recall@1: the first tool is one of the needed ones;
* recall@5: EVERY needed tool is in the top 5 (a two-tool question counts only with both);
* nDCG@10: binary relevance, ideal DCG over min(needed, 10) tools;
* p50 / p95 latency of one ``rank`` call (the query's embedding included).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool_catalog import generate  # noqa: E402

import agent_harness  # noqa: E402
from agent_harness.foundation.embeddings import get_embedder  # noqa: E402
from agent_harness.tools import (  # noqa: E402
    ToolDefinitionError,
    ToolDefinitionWarning,
    ToolRegistry,
)
from agent_harness.tools.implementations import build_tool  # noqa: E402
from agent_harness.tools.parameter_rows import unfitting_defaults  # noqa: E402
from agent_harness.tools.relevance import IRRELEVANT, calibrate_floor  # noqa: E402
from agent_harness.tools.tool_definitions import definition_from_entry  # noqa: E402

MODES = ("vector", "keyword", "hybrid")
#: Tools loaded for retrieval only: a call says so.
RETRIEVAL_ONLY = {
    "type": "javascript",
    "source": "throw new Error('defined for the retrieval benchmark only');",
}


def read_jsonl(path: str) -> list[dict]:
    """The records of a JSON Lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def open_harness(folder: str):
    """A fresh embedded harness whose registry holds no tool yet."""
    h = agent_harness.connect(backend="embedded", data_dir=folder, prepare=False)
    h.tools = ToolRegistry(h, tools={}, always_on=())
    return h


_NOT_NAME = re.compile(r"[^a-zA-Z0-9_-]+")


def category_word(category: object) -> str:
    """A dataset's category as the registry's lower-case word (``"general"`` when none is left)."""
    word = re.sub(r"[^a-z0-9]+", "_", str(category or "").lower()).strip("_")
    if word and not word[0].isalpha():
        word = "c_" + word
    return word[:40].rstrip("_") or "general"


def adapt(entries: list[dict], queries: list[dict]) -> tuple[list[dict], list[dict], int]:
    """Entries and queries with names and categories the registry accepts; how many renamed."""
    renamed, taken, seen, out = {}, set(), set(), []
    for entry in entries:
        function = dict(entry.get("function") or {})
        name = str(function.get("name") or "")
        first, _ = name not in seen, seen.add(name)
        safe = _NOT_NAME.sub("_", name).strip("_")[:64] or "tool"
        candidate, n = safe, 1
        while candidate in taken:
            n += 1
            candidate = f"{safe[: 64 - len(str(n)) - 1]}_{n}"
        taken.add(candidate)
        if candidate != name and first:  # a repeated name keeps its questions on the first
            renamed[name] = candidate
        function["name"] = candidate
        entry = {**entry, "function": function}
        if "category" in entry:
            entry["category"] = category_word(entry["category"])
        out.append(entry)
    queries = [{**q, "tools": [renamed.get(t, t) for t in q["tools"]]} for q in queries]
    return out, queries, len(renamed)


def usable(entries: list[dict]) -> tuple[list[dict], dict[str, str]]:
    """The entries ``define_many`` accepts, and why the others were left out (by name)."""
    kept, refused = [], {}
    for entry in entries:
        entry = {k: v for k, v in entry.items() if k in ("type", "function", "category")}
        try:
            build_tool(definition_from_entry(entry, RETRIEVAL_ONLY))
        except (ToolDefinitionError, TypeError, ValueError) as e:
            refused[str(entry.get("function", {}).get("name"))] = str(e)
            continue
        kept.append(entry)
    return kept, refused


def load(h, entries: list[dict], one_by_one: bool = False) -> float:
    """Define the tools (one ``define_many`` call, or ``define`` per tool); seconds taken."""
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolDefinitionWarning)  # counted by main()
        if one_by_one:
            for entry in entries:
                function = entry["function"]
                h.tools.define(
                    function["name"],
                    function.get("description") or "",
                    function.get("parameters") or {"type": "object", "properties": {}},
                    RETRIEVAL_ONLY,
                    category=entry.get("category", "general"),
                )
        else:
            h.tools.define_many(entries, implementation=RETRIEVAL_ONLY)
    return time.perf_counter() - started


def score(ranked: list[str], needed: list[str]) -> tuple[float, float, float]:
    """recall@1, recall@5 (all needed in the top 5) and nDCG@10 of one ranking."""
    gold = set(needed)
    top = ranked[:10]
    dcg = sum(1 / math.log2(i + 2) for i, name in enumerate(top) if name in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    return float(bool(top) and top[0] in gold), float(gold <= set(ranked[:5])), dcg / ideal


def evaluate(h, queries: list[dict], modes=MODES) -> dict[str, dict]:
    """Per mode: recall@1, recall@5, nDCG@10 (means) and p50/p95 milliseconds per query."""
    results = {}
    for mode in modes:
        h.tools.rank("warm up", k=10, mode=mode)
        totals, times, complete = [0.0, 0.0, 0.0], [], {1: [], 2: []}
        for q in queries:
            get_embedder().clear_cache()  # time the query's embedding, not a cache hit
            started = time.perf_counter()
            rows = h.tools.rank(q["query"], k=10, mode=mode)
            times.append((time.perf_counter() - started) * 1000)
            values = score([r["name"] for r in rows], q["tools"])
            for i, value in enumerate(values):
                totals[i] += value
            complete[min(len(q["tools"]), 2)].append(values[1])
        n = max(len(queries), 1)
        results[mode] = {
            "recall@1": totals[0] / n,
            "recall@5": totals[1] / n,
            "ndcg@10": totals[2] / n,
            "recall@5_one_tool": statistics.mean(complete[1]) if complete[1] else None,
            "recall@5_two_or_more": statistics.mean(complete[2]) if complete[2] else None,
            "p50_ms": statistics.median(times) if times else 0.0,
            "p95_ms": statistics.quantiles(times, n=20)[-1] if len(times) > 1 else 0.0,
        }
    return results


def _retrieved_recall(h, queries: list[dict], floor: float, k: int = 5) -> float:
    """recall@k of ``h.tools.retrieve`` (hybrid, no always-on tools) at a floor."""
    hits = 0
    for q in queries:
        offered = {
            t["function"]["name"] for t in h.tools.retrieve(q["query"], k, False, floor=floor)
        }
        hits += set(q["tools"]) <= offered
    return hits / max(len(queries), 1)


def floor_report(h, queries: list[dict]) -> dict:
    """The relevance floor on this registry, in one run: calibrated on every 5th question
    (:func:`~agent_harness.tools.relevance.calibrate_floor`), then recall@5 of the OTHER
    questions through ``retrieve`` with no floor, with the workshop's fixed floor and with the
    calibrated one; and how many of the workshop's irrelevant questions get a tool by rank."""
    calibration = [q for i, q in enumerate(queries) if i % 5 == 0]
    held_out = [q for i, q in enumerate(queries) if i % 5 != 0]
    fixed = h.tools.policy().relevance_floor
    found = calibrate_floor(h.tools, calibration)
    report = {"calibrated_on": len(calibration), "evaluated_on": len(held_out)}
    for label, floor in (("none", -1.0), ("fixed", fixed), ("calibrated", found.floor)):
        report[label] = {
            "floor": floor,
            "recall@5": _retrieved_recall(h, held_out, floor),
            "irrelevant_offered": sum(
                bool(h.tools.retrieve(q, 5, False, floor=floor)) for q in IRRELEVANT
            ),
        }
    return report


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tools", help="tools JSONL (OpenAI function entries)")
    parser.add_argument("--queries", help="queries JSONL ({query, tools})")
    parser.add_argument("--size", type=int, help="generated catalogue: keep this many tools")
    parser.add_argument("--seed", type=int, default=7, help="generated catalogue: seed")
    parser.add_argument("--max-queries", type=int, help="evaluate at most this many queries")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--one-by-one", action="store_true", help="also time define per tool")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also: the relevance floor calibrated on every 5th question, recall@5 of the others"
        " with and without it",
    )
    args = parser.parse_args(argv)
    if bool(args.tools) != bool(args.queries):
        parser.error("give both --tools and --queries, or neither (the generated catalogue)")
    if args.tools:
        entries, queries, source = read_jsonl(args.tools), read_jsonl(args.queries), args.tools
    else:
        entries, queries = generate(seed=args.seed, n_tools=args.size)
        source = f"generated catalogue (seed {args.seed})"
    entries, queries, renamed = adapt(entries, queries)
    entries, refused = usable(entries)
    unfilled = sum(
        len(unfitting_defaults(e["function"]["name"], e["function"].get("parameters")))
        for e in entries
    )
    names = {e["function"]["name"] for e in entries}
    skipped = [q for q in queries if not set(q["tools"]) <= names]
    queries = [q for q in queries if set(q["tools"]) <= names][: args.max_queries]
    report: dict = {"source": source, "tools": len(entries), "refused": refused}
    report["renamed"] = renamed
    report["defaults_not_filled"] = unfilled
    with tempfile.TemporaryDirectory() as folder:
        h = open_harness(folder)
        report["define_many_s"] = load(h, entries)
        report["queries"] = len(queries)
        report["two_tool_queries"] = sum(len(q["tools"]) > 1 for q in queries)
        report["skipped_queries"] = len(skipped)
        report["modes"] = evaluate(h, queries, args.modes.split(","))
        if args.floor:
            report["floor"] = floor_report(h, queries)
        h.close()
    if args.one_by_one:
        with tempfile.TemporaryDirectory() as folder:
            h = open_harness(folder)
            report["define_one_by_one_s"] = load(h, entries, one_by_one=True)
            h.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return report
    print(
        f"{source}: {report['tools']} tools ({len(refused)} refused, {renamed} renamed),"
        f" {len(queries)} queries"
    )
    print(f"  ({report['two_tool_queries']} need two tools; {len(skipped)} skipped;", end=" ")
    print(f"{unfilled} published defaults that do not fit are kept but not filled)")
    print(f"load: define_many {report['define_many_s']:.1f} s", end="")
    if "define_one_by_one_s" in report:
        print(f", define one by one {report['define_one_by_one_s']:.1f} s", end="")
    print()
    print(
        f"{'mode':<8} {'recall@1':>8} {'recall@5':>8} {'nDCG@10':>8} {'p50 ms':>7} {'p95 ms':>7}"
        "   recall@5 by tools needed: 1 | 2+"
    )
    show = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    for mode, r in report["modes"].items():
        print(
            f"{mode:<8} {r['recall@1']:>8.3f} {r['recall@5']:>8.3f} {r['ndcg@10']:>8.3f}"
            f" {r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f}"
            f"   {show(r['recall@5_one_tool']):>25} | {show(r['recall@5_two_or_more'])}"
        )
    if "floor" in report:
        f = report["floor"]
        print(
            f"relevance floor (calibrated on {f['calibrated_on']} questions, recall@5 of the other"
            f" {f['evaluated_on']} through retrieve; irrelevant: of {len(IRRELEVANT)} questions"
            " no tool is for, how many get one by rank):"
        )
        for label in ("none", "fixed", "calibrated"):
            row = f[label]
            print(
                f"  {label:<10} floor {row['floor']:>6.3f}  recall@5 {row['recall@5']:.4f}"
                f"  irrelevant offered {row['irrelevant_offered']}/{len(IRRELEVANT)}"
            )
    for name, why in list(refused.items())[:5]:
        print(f"  refused {name}: {why}")
    return report


if __name__ == "__main__":
    main()
