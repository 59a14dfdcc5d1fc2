"""Memory vectors on the embedded backend: bits for the scan, floats for the ranking.

``memory_vectors`` keeps each memory's sign bits (the nearest-neighbour scan) and its float32
vector (the candidates' exact re-score): a scope with at most the candidate count of memories
is ranked exactly, the vector a query shares with a memory always finds it, and a database
made before m014 keeps every vector. The keyword list keeps its best rows first. The query
embedding does not leave the model's threads spinning after it (they would take the core the
search's SQL needs next).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agent_harness.backends import Scope
from agent_harness.backends.embedded import MIGRATIONS, EmbeddedBackend
from agent_harness.backends.migrations import Migrations, apply_migrations
from agent_harness.foundation.embeddings import DIMENSIONS
from agent_harness.parts.memory import MemoryStore, content_hash

SCOPE = Scope("vectors-user", "vectors-agent")


def unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.normal(size=DIMENSIONS).astype(np.float32)
    return v / np.linalg.norm(v)


class FakeEmbedder:
    """Texts -> fixed random unit vectors (a text it has not seen gets a new one)."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        self.vectors: dict[str, np.ndarray] = {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        for text in texts:
            if text not in self.vectors:
                self.vectors[text] = unit(self.rng)
        return np.stack([self.vectors[t] for t in texts])


def row(text: str) -> dict:
    return {
        "user_id": SCOPE.user_id,
        "agent_id": SCOPE.agent_id,
        "thread_id": None,
        "kind": "note",
        "subject": None,
        "content": text,
        "metadata": json.dumps({}),
        "content_hash": content_hash(text),
    }


@pytest.fixture
def backend(tmp_path):
    b = EmbeddedBackend(tmp_path)
    b.migrate()
    yield b
    b.close()


def exact_top(embed: FakeEmbedder, query: str, k: int) -> list[tuple[str, float]]:
    """The k stored notes nearest to the query by cosine distance, worked out with numpy."""
    q = embed([query])[0]
    scored = [(t, float(1.0 - v @ q)) for t, v in embed.vectors.items() if t.startswith("note")]
    return sorted(scored, key=lambda p: (p[1], p[0]))[:k]


def test_a_scope_within_the_candidates_is_ranked_exactly(backend):
    embed = FakeEmbedder()
    store = MemoryStore(backend, SCOPE, embed)
    store.add_many([{"content": f"note {i}"} for i in range(80)])  # fewer than 100 candidates
    for query in ("query one", "query two", "query three"):
        hits = store.search(query, k=10, mode="vector")
        want = exact_top(embed, query, 10)
        assert [h.content for h in hits] == [t for t, _ in want]
        assert [h.score for h in hits] == pytest.approx([d for _, d in want], abs=1e-5)


def test_the_vector_of_a_memory_finds_it_first_in_a_large_scope(backend):
    embed = FakeEmbedder()
    store = MemoryStore(backend, SCOPE, embed)
    store.add_many([{"content": f"note {i}"} for i in range(1500)])  # far more than candidates
    for i in (3, 700, 1499):
        hits = store.search(f"note {i}", k=5, mode="vector")
        assert hits[0].content == f"note {i}" and hits[0].score == pytest.approx(0.0, abs=1e-5)


def test_a_database_from_before_m014_keeps_every_vector(tmp_path):
    old = Migrations("embedded", [m for m in MIGRATIONS if m.name < "m014"])
    backend = EmbeddedBackend(tmp_path)
    try:
        apply_migrations(backend, old)
        rng = np.random.default_rng(3)
        vectors = {}
        for i in range(40):
            memory_id = backend.db.insert(
                "INSERT INTO memories (user_id, agent_id, thread_id, kind, subject, content,"
                " metadata, content_hash) VALUES (:u, :a, NULL, 'note', NULL, :c, '{}', :h)",
                {"u": SCOPE.user_id, "a": SCOPE.agent_id, "c": f"old {i}", "h": f"h{i}"},
            )
            vectors[memory_id] = unit(rng)
            backend.execute(
                "INSERT INTO memory_vec (memory_id, embedding, scope, kind)"
                " VALUES (:id, :e, :s, 'note')",
                {
                    "id": memory_id,
                    "e": vectors[memory_id].tobytes(),
                    "s": f"{SCOPE.user_id}\x1f{SCOPE.agent_id}",
                },
            )
        assert backend.migrate() == [m.name for m in MIGRATIONS if m.name >= "m014"]
        stored = {
            r["memory_id"]: np.frombuffer(r["embedding"], dtype=np.float32)
            for r in backend.query("SELECT memory_id, embedding FROM memory_vectors")
        }
        assert set(stored) == set(vectors)
        assert all(np.array_equal(stored[i], vectors[i]) for i in vectors)
        store = MemoryStore(backend, SCOPE, lambda texts: np.stack([vectors[1]] * len(texts)))
        assert store.search("anything", k=1, mode="vector")[0].content == "old 0"
    finally:
        backend.close()


def test_the_keyword_list_keeps_the_best_rows_in_bm25_order(backend):
    store = MemoryStore(backend, SCOPE, FakeEmbedder())
    words = "vessel port crane berth".split()
    rng = np.random.default_rng(5)
    store.add_many(
        [
            {"content": " ".join(rng.choice(words, size=int(rng.integers(3, 12))))}
            for _ in range(300)
        ]
    )
    q = backend.text_query("vessel crane")
    everything = backend.query(
        "SELECT f.rowid AS id, -bm25(memory_fts) AS score FROM memory_fts f"
        " WHERE memory_fts MATCH :q",
        {"q": q},
    )
    want = sorted(everything, key=lambda r: (-r["score"], r["id"]))[:30]
    got = backend.query(
        backend.text_ranked_sql(),
        {"q": q, "per_list": 30, "user_id": SCOPE.user_id, "agent_id": SCOPE.agent_id},
    )
    assert [r["id"] for r in got] == [r["id"] for r in want]
    assert [r["r"] for r in got] == list(range(1, 31))


def test_the_query_embedding_leaves_no_thread_spinning():
    from agent_harness.foundation.embeddings import Embedder

    options = Embedder(cache_size=0).session.get_session_options()
    config = options.get_session_config_entry
    assert config("session.intra_op.allow_spinning") == "0"
    assert config("session.inter_op.allow_spinning") == "0"
