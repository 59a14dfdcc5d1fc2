"""Part 2 of bench_search.py: hybrid search on its worst case, beside its floor, in ONE run.

The corpus: notes of 12 words drawn from 16 domain words, so every note matches every
query's words and the keyword list must rank every note of the scope; 40 queries of five of
those words. Hybrid search is timed through ``h.memory.search(q, k=5, mode="hybrid")`` with
the query's embedding computed fresh (the embedder's cache cleared), and query by query,
interleaved with it, the **floor**: one bare embedding call (the same model, cache cleared)
plus a bare sqlite-vec KNN query over the same float vectors (``SELECT memory_id, distance
FROM floor_vec WHERE embedding MATCH :qv AND k = 5``, a vec0 float table in the same database
file). Targets: hybrid p50 <= 1.5x the floor's p50, hybrid p95 <= 2x the floor's p50.

Inserts: the first ``real`` notes go through ``h.memory.add_many`` (the embedding, the row,
its FTS5 entry and its vectors, one transaction per 1,000), each 1,000 right after the bare
embedding of the same texts, and the two sums are compared (target <= 1.2x). Notes beyond
them reuse those vectors plus a little noise, inserted through the backend (the search cost
does not depend on how the vectors were made).

Recall: :data:`CATALOG_QUESTIONS`, 50 questions about the demo schema written for this check
(never used to tune anything), each with the catalog memory (a table, a column or a
relationship fact of ``h.catalog``) that answers it. The catalog is scanned into the same
memory scope as the notes, so at each size the notes are distractors. recall@5 = the share of
questions whose answer is among the 5 best of hybrid search; printed for the shipped search
and for the same statement with an exact float KNN (``floor_vec``) as its vector list, which
is what the vector list ranked before the bit scan.
"""

from __future__ import annotations

import random
import statistics
import time

import numpy as np

from agent_harness.foundation.embeddings import DIMENSIONS, Embedder, get_embedder
from agent_harness.parts.memory import content_hash, hybrid_sql
from agent_harness.supplychain import TABLES, generate

__all__ = ["CATALOG_QUESTIONS", "WORDS", "run"]

#: The 16 domain words the notes and the queries are drawn from.
WORDS = (
    "vessel delayed port congestion reefer container customs hold berth crane cargo"
    " manifest voyage eta hazmat transshipment"
).split()
TARGET_P50, TARGET_P95, TARGET_INSERT = 1.5, 2.0, 1.2

_S = "SUPPLYCHAIN."
#: (question, the subjects that answer it): written for this check, held out from tuning.
CATALOG_QUESTIONS: list[tuple[str, tuple[str, ...]]] = [
    ("How many twenty-foot containers fit on a ship?", ("VESSELS.CAPACITY_TEU",)),
    ("the most weight a vessel can carry in tons", ("VESSELS.DEADWEIGHT_TONS",)),
    ("when was the ship built", ("VESSELS.YEAR_BUILT",)),
    ("which country is the ship registered in", ("VESSELS.FLAG",)),
    ("cruising speed of the vessel", ("VESSELS.SERVICE_SPEED_KNOTS",)),
    ("seven digit ship identification number", ("VESSELS.IMO_NUMBER",)),
    ("who operates this ship", ("VESSELS.CARRIER_ID", "VESSELS.CARRIER_ID->CARRIERS")),
    ("four letter code of a shipping line", ("CARRIERS.SCAC_CODE",)),
    ("city of the shipping company's head office", ("CARRIERS.HEADQUARTERS",)),
    ("year the shipping line was established", ("CARRIERS.FOUNDED_YEAR",)),
    ("UN/LOCODE of a harbour", ("PORTS.PORT_CODE",)),
    ("how many berths does the terminal have", ("PORTS.BERTHS",)),
    ("deepest draft allowed into the port", ("PORTS.MAX_DRAFT_M",)),
    ("which ocean does the port face", ("PORTS.OCEAN_REGION",)),
    ("latitude of the container terminal", ("PORTS.LATITUDE",)),
    ("in which country is the port", ("PORTS.COUNTRY",)),
    ("when will the voyage arrive", ("VOYAGES.ETA_DATE",)),
    ("actual arrival day of a finished voyage", ("VOYAGES.ACTUAL_ARRIVAL_DATE",)),
    ("date the ship left port", ("VOYAGES.DEPARTURE_DATE",)),
    ("is the voyage delayed or completed", ("VOYAGES.STATUS",)),
    ("length of the sea route in nautical miles", ("VOYAGES.DISTANCE_NM",)),
    ("carrier voyage reference like MAE-2501W", ("VOYAGES.VOYAGE_CODE",)),
    ("port where the voyage starts", ("VOYAGES.ORIGIN_PORT", "VOYAGES.ORIGIN_PORT->PORTS")),
    ("destination harbour of the sailing", ("VOYAGES.DEST_PORT", "VOYAGES.DEST_PORT->PORTS")),
    ("which ocean the route mostly crosses", ("VOYAGES.OCEAN_REGION",)),
    ("speed over ground reported by AIS", ("VESSEL_POSITIONS.SPEED_KNOTS",)),
    ("compass heading of the ship", ("VESSEL_POSITIONS.HEADING_DEG",)),
    ("is the ship moored, anchored or under way", ("VESSEL_POSITIONS.NAV_STATUS",)),
    ("time of the position report", ("VESSEL_POSITIONS.RECORDED_AT",)),
    ("track of AIS position fixes of a ship", ("VESSEL_POSITIONS",)),
    ("which vessel sent this position report", ("VESSEL_POSITIONS.IMO_NUMBER",)),
    ("ISO 6346 container number", ("CONTAINERS.CONTAINER_NO",)),
    ("temperature setting of a refrigerated container", ("CONTAINERS.REEFER_TEMP_C",)),
    ("dangerous goods class of a container", ("CONTAINERS.HAZMAT_CLASS",)),
    ("company receiving the goods", ("CONTAINERS.CONSIGNEE",)),
    ("shipper who sends the cargo", ("CONTAINERS.CONSIGNOR",)),
    ("is the box 20 or 40 foot long", ("CONTAINERS.SIZE_FT",)),
    ("container held by customs", ("CONTAINERS.STATUS",)),
    ("weight of the loaded box including its tare", ("CONTAINERS.GROSS_WEIGHT_KG",)),
    ("dry, reefer, open top or hazmat equipment", ("CONTAINERS.CONTAINER_TYPE",)),
    ("harmonized system tariff code of the goods", ("CARGO_ITEMS.HS_CODE",)),
    ("price of one unit in cents", ("CARGO_ITEMS.UNIT_VALUE_CENTS",)),
    ("number of cartons in a manifest line", ("CARGO_ITEMS.QUANTITY",)),
    ("UN number of hazardous cargo like UN1263", ("CARGO_ITEMS.UN_NUMBER",)),
    ("net weight of a line of goods", ("CARGO_ITEMS.WEIGHT_KG",)),
    ("what the goods are, as declared", ("CARGO_ITEMS.DESCRIPTION",)),
    ("the manifest lines inside each container", ("CARGO_ITEMS",)),
    ("the ocean carriers that run the fleet", ("CARRIERS",)),
    (
        "how do I join cargo items to their container",
        ("CARGO_ITEMS.CONTAINER_NO->CONTAINERS", "CARGO_ITEMS.CONTAINER_NO"),
    ),
    (
        "link a voyage to the vessel sailing it",
        ("VOYAGES.IMO_NUMBER->VESSELS", "VOYAGES.IMO_NUMBER"),
    ),
]

FLOOR_SQL = "SELECT memory_id, distance FROM floor_vec WHERE embedding MATCH :qv AND k = 5"
_EXACT_VECTOR_LIST = (  # the vector list before the bit scan: exact float KNN (one scope here)
    "SELECT knn.id, ROW_NUMBER() OVER (ORDER BY knn.score, knn.id) AS r, knn.score"
    " FROM (SELECT c.id, c.d * c.d / 2.0 AS score"
    " FROM (SELECT memory_id AS id, distance AS d FROM floor_vec"
    " WHERE embedding MATCH :qv AND k = :per_list) c"
    " JOIN memories fm ON fm.id = c.id"
    " WHERE fm.user_id = :user_id AND fm.agent_id = :agent_id"
    " ORDER BY score, c.id LIMIT :per_list) knn"
)


def note(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(12))


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def run(harness, sizes: list[int], real: int, n_queries: int, seed: int) -> None:
    """Fill ``harness`` (a fresh, empty one) up to each size and print the tables."""
    rng, noise = random.Random(seed), np.random.default_rng(seed)
    backend, embedder = harness.backend, get_embedder()
    backend.migrate()
    backend.load_supplychain(TABLES, generate())
    harness.catalog_watch.check(force=True)  # the catalog facts: the recall check's answers
    backend.execute(
        f"CREATE VIRTUAL TABLE floor_vec USING vec0(memory_id INTEGER PRIMARY KEY,"
        f" embedding float[{DIMENSIONS}] distance_metric=l2)"
    )
    backend.execute("INSERT INTO floor_vec SELECT memory_id, embedding FROM memory_vectors")
    queries = [" ".join(rng.sample(WORDS, 5)) for _ in range(n_queries)]
    print("\n## Worst case: every note matches every query's words\n")
    print(
        f"notes of 12 words from {len(WORDS)} words; {len(queries)} five-word queries; the"
        f" catalog ({harness.memory.count()} facts) in the same scope\n"
    )
    recall, exact = _recall(harness)
    print(
        f"recall@5 on the {len(CATALOG_QUESTIONS)} catalog questions, the catalog alone:"
        f" {recall:.2f} (exact vector list: {exact:.2f}; target: unchanged, >= 0.96)\n"
    )

    texts = [note(rng) for _ in range(min(real, sizes[-1]))]
    bare = Embedder(cache_size=0)
    bare.embed(texts[:32])  # warm-up
    # Chunk by chunk, the bare embedding and then add_many of the same 1,000 texts: a change
    # of the machine's load hits both sides alike.
    bare_s = insert_s = 0.0
    vectors = []
    for start in range(0, len(texts), 1000):
        chunk = texts[start : start + 1000]
        started = time.perf_counter()
        vectors.extend(bare.embed(chunk))
        bare_s += time.perf_counter() - started
        embedder.clear_cache()  # add_many embeds the texts itself, not from the cache
        started = time.perf_counter()
        harness.memory.add_many([{"content": t} for t in chunk])
        insert_s += time.perf_counter() - started
    ratio = insert_s / bare_s
    verdict = "met" if ratio <= TARGET_INSERT else "MISSED"
    print(
        f"inserts: {len(texts):,} notes through add_many in {insert_s:.1f} s; the bare"
        f" embedding of the same texts {bare_s:.1f} s: {ratio:.2f}x (target <="
        f" {TARGET_INSERT}x: {verdict}; interleaved by 1,000)\n"
    )
    backend.execute(
        "INSERT INTO floor_vec SELECT memory_id, embedding FROM memory_vectors"
        " WHERE memory_id NOT IN (SELECT memory_id FROM floor_vec)"
    )

    print(
        "| notes | floor p50 (embed + KNN) | hybrid p50 | x floor | hybrid p95 | x floor"
        " | bit scan keeps exact top 5 | recall@5 (notes as distractors) | the same, exact"
        " vector list |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    done = len(texts)
    for size in sizes:
        if size > done:
            _fill_with_noise(harness, vectors, size - done, rng, noise)
            done = size
        floor, hybrid, kept = _latencies(harness, queries)
        recall, exact = _recall(harness)
        f50, h50, h95 = percentile(floor, 50), percentile(hybrid, 50), percentile(hybrid, 95)
        marks = (
            f"{h50 / f50:.2f}x {'met' if h50 <= TARGET_P50 * f50 else 'MISSED'}",
            f"{h95 / f50:.2f}x {'met' if h95 <= TARGET_P95 * f50 else 'MISSED'}",
        )
        print(
            f"| {size:,} | {f50:.1f} ms | {h50:.1f} ms | {marks[0]} | {h95:.1f} ms | {marks[1]}"
            f" | {kept:.0%} | {recall:.2f} | {exact:.2f} |"
        )
    print(
        f"\ntargets: hybrid p50 <= {TARGET_P50}x the floor's p50, p95 <= {TARGET_P95}x it;"
        " recall@5 unchanged from the exact vector list"
    )


def _fill_with_noise(harness, vectors, n: int, rng, noise) -> None:
    """n more notes: new texts, vectors of the embedded notes plus a little noise."""
    backend, scope = harness.backend, harness.scope
    pending = 0
    while pending < n:
        with backend.transaction():
            for _ in range(min(2000, n - pending)):
                vector = vectors[rng.randrange(len(vectors))]
                vector = vector + noise.normal(0, 0.015, DIMENSIONS).astype(np.float32)
                text = note(rng)
                memory_id = backend.memories.insert(
                    {
                        "user_id": scope.user_id,
                        "agent_id": scope.agent_id,
                        "thread_id": None,
                        "kind": "note",
                        "subject": None,
                        "content": text,
                        "metadata": "{}",
                        "content_hash": content_hash(text),
                    },
                    vector / np.linalg.norm(vector),
                )
                backend.execute(
                    "INSERT INTO floor_vec SELECT memory_id, embedding FROM memory_vectors"
                    " WHERE memory_id = :id",
                    {"id": memory_id},
                )
                pending += 1


def _latencies(harness, queries: list[str]) -> tuple[list[float], list[float], float]:
    """Per query, interleaved: the floor (bare embedding + bare KNN) and hybrid search; and
    the share of the exact top 5 that the shipped vector list keeps."""
    backend, embedder = harness.backend, get_embedder()
    for query in queries[:3]:  # warm-up: page cache, prepared statements
        harness.memory.search(query, k=5, mode="hybrid")
        backend.query(FLOOR_SQL, {"qv": backend.vector_bind(embedder.embed([query])[0])})
    floor, hybrid, kept = [], [], []
    binds = {"user_id": harness.scope.user_id, "agent_id": harness.scope.agent_id}
    for query in queries:
        embedder.clear_cache()
        started = time.perf_counter()
        vector = backend.vector_bind(embedder.embed([query])[0])
        exact = backend.query(FLOOR_SQL, {"qv": vector})
        floor.append((time.perf_counter() - started) * 1000)
        embedder.clear_cache()
        started = time.perf_counter()
        harness.memory.search(query, k=5, mode="hybrid")
        hybrid.append((time.perf_counter() - started) * 1000)
        shipped = backend.query(
            f"SELECT id FROM ({backend.vector_ranked_sql()}) WHERE r <= 5",
            {**binds, "qv": vector, "per_list": 30},  # as hybrid search runs it
        )
        top = {r["memory_id"] for r in exact}
        kept.append(len(top & {r["id"] for r in shipped}) / max(1, len(top)))
    return floor, hybrid, statistics.fmean(kept)


def _recall(harness) -> tuple[float, float]:
    """recall@5 on the catalog questions: the shipped search, and the same statement with an
    exact float KNN as its vector list."""
    backend = harness.backend
    exact_sql = hybrid_sql(backend).replace(backend.vector_ranked_sql(), _EXACT_VECTOR_LIST)
    found = {"shipped": 0, "exact": 0}
    for question, answers in CATALOG_QUESTIONS:
        wanted = {_S + a for a in answers}
        shipped = harness.memory.search(question, k=5, mode="hybrid")
        found["shipped"] += any(m.subject in wanted for m in shipped)
        rows = backend.query(
            exact_sql,
            {
                "qv": harness.memory.query_vector(question),
                "q": backend.text_query(question),
                "user_id": harness.scope.user_id,
                "agent_id": harness.scope.agent_id,
                "per_list": 30,
                "rrf_k": 60,
                "k": 5,
            },
        )
        found["exact"] += any(r["subject"] in wanted for r in rows)
    return found["shipped"] / len(CATALOG_QUESTIONS), found["exact"] / len(CATALOG_QUESTIONS)
