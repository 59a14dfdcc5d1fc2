"""Benchmark: embedding throughput and memory.search latency at 1k, 10k and 100k memories.

Run from the project root:

    .venv/bin/python bench/bench_search.py --sizes 1000,10000,100000 --queries 50
    .venv/bin/python bench/bench_search.py --only worst --sizes 1000,10000,100000

Part 1 (``--only sentences``) builds an embedded harness in a temporary folder, fills its
memory with synthetic shipping sentences and prints markdown tables. The real model embeds a
pool of a few thousand sentences ONCE; memories beyond the pool reuse a pool vector plus a
little noise (and carry a reference number in their text), so 100k memories build in about a
minute instead of hours. Search latency is measured through ``memory.search(text)``, so the
query's embedding is INCLUDED.

Part 2 (``--only worst``) is the worst case for hybrid search, beside its floor, in ONE run:
notes of 12 words drawn from 16 domain words (every note matches every query's words, so the
keyword list ranks every note), 40 five-word queries, ``h.memory.search(q, k=5,
mode="hybrid")`` with a fresh query embedding, against the floor: one bare embedding call plus
a bare sqlite-vec KNN query over the same float vectors (k=5), timed query by query
interleaved with the search. The first ``--worst-real`` notes (10,000) go through
``h.memory.add_many`` and are timed against the bare embedding of the same texts; notes beyond
them reuse those vectors plus noise. Beside each size: recall@5 of hybrid search on the
catalog questions (:data:`CATALOG_QUESTIONS`, written for this check, never used to tune
anything), with the notes in the same memory scope as distractors, for the shipped search and
for the same statement with an exact float KNN as its vector list.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import search_worst_case

import agent_harness
from agent_harness.foundation.embeddings import DIMENSIONS, Embedder, get_embedder
from agent_harness.parts.memory import SEARCH_MODES, content_hash

# Hybrid p50 targets (ms) by size: the budget of one search_knowledge call in an agent turn.
TARGETS_P50_MS = {("hybrid", 10_000): 25.0, ("hybrid", 100_000): 100.0}

VESSELS = [
    "MSC Aurora",
    "Ever Given",
    "Maersk Elba",
    "CMA CGM Tage",
    "Hapag Berlin",
    "ONE Harmony",
    "Cosco Pride",
    "Yang Ming Unity",
    "HMM Algeciras",
    "Evergreen Ace",
    "Zim Atlantic",
    "Wan Hai 316",
    "OOCL Hong Kong",
    "APL Temasek",
    "Seaspan Raptor",
]
PORTS = [
    "Rotterdam",
    "Singapore",
    "Shanghai",
    "Felixstowe",
    "Hamburg",
    "Antwerp",
    "Algeciras",
    "Los Angeles",
    "Long Beach",
    "Busan",
    "Jebel Ali",
    "Santos",
    "Valencia",
    "Piraeus",
    "Colombo",
    "Tanjung Pelepas",
    "Savannah",
    "Ningbo",
    "Yokohama",
    "Durban",
]
CARGO = [
    "frozen salmon",
    "lithium batteries",
    "coffee beans",
    "auto parts",
    "pharmaceuticals",
    "cotton bales",
    "steel coils",
    "electronics",
    "bananas",
    "furniture",
    "paint drums",
    "machine tools",
    "wine",
    "solar panels",
    "rubber",
    "chemicals (class 3)",
]
CAUSES = [
    "port congestion",
    "a crane breakdown",
    "bad weather",
    "a customs inspection",
    "a labour strike",
    "a missed berth window",
    "engine trouble",
    "a canal closure",
    "fog in the approach channel",
    "a documentation error",
]
TEMPLATES = [
    "Vessel {vessel} was delayed {hours} hours at {port} because of {cause}.",
    "Container {box} with {cargo} is on hold at {port} pending {cause}.",
    "The voyage of {vessel} from {port} to {port2} arrived {days} days late.",
    "Reefer container {box} carrying {cargo} lost power for {hours} hours at {port}.",
    "{vessel} has a nominal capacity of {teu} TEU and usually calls at {port}.",
    "Customs at {port} cleared {n} containers of {cargo} after {hours} hours.",
    "Berth productivity at {port} fell to {n} moves per hour during {cause}.",
    "The user asked why {vessel} missed its ETA at {port}; the answer was {cause}.",
    "Hazmat cargo ({cargo}) on {vessel} must be stowed away from heat sources.",
    "Transshipment at {port} adds about {days} days to voyages bound for {port2}.",
    "Carrier schedules show {vessel} leaving {port} on day {n} with {teu} TEU booked.",
    "Cargo value for container {box} is {value} USD, declared as {cargo}.",
    "The position of {vessel} was last reported {n} nautical miles off {port}.",
    "Demurrage for {cargo} at {port} started after {days} free days.",
    "Preference: report delays at {port} in hours and use UTC timestamps.",
]
QUESTIONS = [
    "which vessels were delayed at {port}",
    "why did {vessel} arrive late",
    "containers with {cargo} on hold",
    "reefer power failures at {port}",
    "hazmat stowage rules for {cargo}",
    "what is the capacity of {vessel} in TEU",
    "customs clearance time at {port}",
    "delays caused by {cause}",
    "where is {vessel} now",
    "transshipment time via {port}",
]
KINDS = ["note"] * 5 + ["episode"] * 2 + ["finding", "tool_output", "preference"]


def fill(template: str, rng: random.Random) -> str:
    return template.format(
        vessel=rng.choice(VESSELS),
        port=rng.choice(PORTS),
        port2=rng.choice(PORTS),
        cargo=rng.choice(CARGO),
        cause=rng.choice(CAUSES),
        box=f"{rng.choice('MSKU TGHU CMAU HLXU OOLU'.split())}{rng.randrange(10**6, 10**7)}",
        hours=rng.randrange(2, 96),
        days=rng.randrange(1, 15),
        teu=rng.randrange(1_000, 24_000, 100),
        n=rng.randrange(3, 400),
        value=f"{rng.randrange(5_000, 2_000_000):,}",
    )


def sentence(rng: random.Random, n_words: int | None = None) -> str:
    """A shipping sentence; with ``n_words``, exactly that many words (joined sentences)."""
    if n_words is None:
        return fill(rng.choice(TEMPLATES), rng)
    words: list[str] = []
    while len(words) < n_words:
        words += fill(rng.choice(TEMPLATES), rng).split()
    return " ".join(words[:n_words])


def embedding_throughput(rng: random.Random) -> list[tuple[str, int, float, float]]:
    """(label, batch, sentences/s, mean tokens) at batch 1 and 32, for 10 and 60 words."""
    embedder = Embedder(cache_size=0)  # every text through the model, none from the cache
    embedder.embed([sentence(rng, 10)] * 32)  # warm-up
    rows = []
    for n_words, n_single, n_batches in ((10, 200, 20), (60, 100, 8)):
        texts = [sentence(rng, n_words) for _ in range(max(n_single, 32 * n_batches))]
        tokens = statistics.fmean(len(embedder.tokenizer.encode(t).ids) for t in texts)
        started = time.perf_counter()
        for text in texts[:n_single]:
            embedder.embed([text])
        rate = n_single / (time.perf_counter() - started)
        rows.append((f"{n_words} words", 1, rate, tokens))
        started = time.perf_counter()
        for b in range(n_batches):
            embedder.embed(texts[b * 32 : (b + 1) * 32])
        rate = 32 * n_batches / (time.perf_counter() - started)
        rows.append((f"{n_words} words", 32, rate, tokens))
    return rows


class SyntheticMemories:
    """Yields (row, vector) pairs: the pool first, then noisy variants of it."""

    def __init__(self, harness, pool_size: int, rng: random.Random, noise: float = 0.015):
        self.harness = harness
        self.rng = rng
        self.noise = noise
        self.np_rng = np.random.default_rng(7)
        texts = list(dict.fromkeys(sentence(rng) for _ in range(pool_size * 2)))[:pool_size]
        self.kinds = [rng.choice(KINDS) for _ in texts]
        started = time.perf_counter()
        self.vectors = harness.embed(texts)
        self.pool_seconds = time.perf_counter() - started
        self.texts = texts
        self.produced = 0

    def rows(self, n: int):
        scope = self.harness.scope
        for _ in range(n):
            i = self.produced
            j = i % len(self.texts)
            text, vector = self.texts[j], self.vectors[j]
            if i >= len(self.texts):
                text = f"{text} (ref {i})"
                vector = vector + self.np_rng.normal(0, self.noise, DIMENSIONS).astype(np.float32)
                vector /= np.linalg.norm(vector)
            self.produced += 1
            yield (
                {
                    "user_id": scope.user_id,
                    "agent_id": scope.agent_id,
                    "thread_id": f"t{i % 500}",
                    "kind": self.kinds[j],
                    "subject": None,
                    "content": text,
                    "metadata": json.dumps({"source": "bench", "n": i}),
                    "content_hash": content_hash(text),
                },
                vector,
            )


def insert(harness, memories: SyntheticMemories, n: int, batch: int = 2000) -> float:
    """Insert n memories through the backend's memories.insert; return rows per second."""
    backend = harness.backend
    started = time.perf_counter()
    pending = memories.rows(n)
    done = 0
    while done < n:
        with backend.transaction():  # one commit per batch, not per row
            for row, vector in pending:
                backend.memories.insert(row, vector)
                done += 1
                if done % batch == 0:
                    break
    return n / max(time.perf_counter() - started, 1e-9)


def latencies(memory, queries: list[str], mode: str, k: int) -> list[float]:
    for query in queries[:3]:  # warm-up: page cache, prepared statements
        memory.search(query, k=k, mode=mode)
    out = []
    for query in queries:
        get_embedder().clear_cache()  # time the query's embedding, not a cache hit
        started = time.perf_counter()
        memory.search(query, k=k, mode=mode)
        out.append((time.perf_counter() - started) * 1000)
    return out


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="memory counts, ascending")
    parser.add_argument("--queries", type=int, default=50, help="queries per mode and size")
    parser.add_argument("--k", type=int, default=10, help="results per search")
    parser.add_argument("--pool", type=int, default=3000, help="sentences embedded for real")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--only", choices=("all", "sentences", "worst"), default="all", help="which part to run"
    )
    parser.add_argument(
        "--worst-real", type=int, default=10_000, help="worst-case notes embedded for real"
    )
    parser.add_argument("--worst-queries", type=int, default=40, help="worst-case queries")
    args = parser.parse_args(argv)
    sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip())
    rng = random.Random(args.seed)
    print(f"load average at start: {_load()} ({os.cpu_count()} CPUs; other work skews timings)\n")
    if args.only in ("all", "sentences"):
        sentences(args, sizes, rng)
    if args.only in ("all", "worst"):
        with tempfile.TemporaryDirectory(prefix="bench-search-worst-") as folder:
            harness = agent_harness.connect(
                backend="embedded", data_dir=Path(folder), prepare=False
            )
            try:
                search_worst_case.run(
                    harness, sizes, args.worst_real, args.worst_queries, args.seed
                )
            finally:
                harness.close()
    print(f"\nload average at end: {_load()}")
    return 0


def sentences(args, sizes: list[int], rng: random.Random) -> None:
    """Part 1: synthetic sentences, every mode, the query's embedding included."""
    print("## Embedding throughput (all-MiniLM-L6-v2 int8 ONNX)\n")
    print("| sentences | tokens (mean) | batch | sentences/s |")
    print("|---|---:|---:|---:|")
    for label, batch, rate, tokens in embedding_throughput(rng):
        print(f"| {label} | {tokens:.0f} | {batch} | {rate:,.0f} |")

    with tempfile.TemporaryDirectory(prefix="bench-search-") as folder:
        harness = agent_harness.connect(backend="embedded", data_dir=Path(folder), prepare=False)
        try:
            print(f"\n{harness.describe()}")
            memories = SyntheticMemories(harness, min(args.pool, sizes[-1]), rng)
            print(
                f"pool: {len(memories.texts):,} sentences embedded in"
                f" {memories.pool_seconds:.1f} s"
                f" ({len(memories.texts) / memories.pool_seconds:,.0f}/s)\n"
            )
            queries = [fill(rng.choice(QUESTIONS), rng) for _ in range(args.queries)]
            query_embed = latencies_embed(harness, queries)

            print("## Inserts (memories.insert: row + FTS5 + vectors, one commit per 2,000 rows)\n")
            print("| from | to | rows/s |\n|---:|---:|---:|")
            results: dict[tuple[str, int], list[float]] = {}
            for size in sizes:
                start = memories.produced
                rate = insert(harness, memories, size - start)
                print(f"| {start:,} | {size:,} | {rate:,.0f} |")
                for mode in SEARCH_MODES:
                    results[(mode, size)] = latencies(harness.memory, queries, mode, args.k)
            assert harness.memory.count() == sizes[-1]
        finally:
            harness.close()

    print(
        f"\n## memory.search latency, ms ({args.queries} queries, k={args.k},"
        " query embedding included)\n"
    )
    print(
        f"query embedding alone: p50 {percentile(query_embed, 50):.1f} ms,"
        f" p95 {percentile(query_embed, 95):.1f} ms\n"
    )
    print("| memories | mode | p50 | p95 | mean | target p50 |\n|---:|---|---:|---:|---:|---|")
    for size in sizes:
        for mode in SEARCH_MODES:
            values = results[(mode, size)]
            target = TARGETS_P50_MS.get((mode, size))
            verdict = ""
            if target is not None:
                ok = percentile(values, 50) < target
                verdict = f"< {target:g} ({'met' if ok else 'MISSED'})"
            print(
                f"| {size:,} | {mode} | {percentile(values, 50):.1f} |"
                f" {percentile(values, 95):.1f} | {statistics.fmean(values):.1f} | {verdict} |"
            )


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # not available on Windows
        return "n/a"


def latencies_embed(harness, queries: list[str]) -> list[float]:
    """The query-embedding share of each search (one text, batch 1)."""
    harness.embed(queries[:3])
    out = []
    for query in queries:
        get_embedder().clear_cache()
        started = time.perf_counter()
        harness.embed([query])
        out.append((time.perf_counter() - started) * 1000)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
