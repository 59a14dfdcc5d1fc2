"""Memories on SQLite: the vector in ``memory_vectors`` (sqlite-vec, partitioned by scope) and
the two ranked fragments of search; the row itself is written by the shared
:class:`~agent_harness.backends.roles.memories.MemoryTable`, its words kept in ``memory_fts``
(FTS5, BM25) by triggers.

The vector list scans **bits, then re-scores floats**: ``memory_vectors`` keeps each vector's
sign bits (``vec_quantize_binary``: 48 bytes instead of 1,536) for the nearest-neighbour scan
(Hamming distance), and the float32 vector beside them; the scan keeps ``4 * per_list``
candidates (at least 100), which are then ordered by their exact distance. A scope with at
most that many memories is therefore ranked exactly; beyond it the scan is an approximation
measured by ``bench/bench_search.py`` (how often the exact top results survive).
"""

from __future__ import annotations

import numpy as np

from agent_harness.backends.errors import BackendError
from agent_harness.backends.roles.memories import MemoryTable

__all__ = ["CANDIDATES_SQL", "EmbeddedMemories", "SCOPE_SEP"]

SCOPE_SEP = "\x1f"  # unit separator: cannot be typed by accident into a user or agent id
#: How many candidates the bit scan keeps for :per_list results (vec0 allows k <= 4096).
CANDIDATES_SQL = "min(max(4 * :per_list, 100), 4096)"


class EmbeddedMemories(MemoryTable):
    """``memories`` + ``memory_fts`` + ``memory_vectors``."""

    def store_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        if vector is None:
            raise BackendError("the embedded backend needs a vector for every memory")
        self.delete_vector(memory_id)
        self.db.execute(
            "INSERT INTO memory_vectors (memory_id, embedding_bits, scope, kind, embedding)"
            " VALUES (:id, vec_quantize_binary(:embedding), :scope, :kind, :embedding)",
            {
                "id": memory_id,
                "embedding": self.dialect.vector_bind(vector),
                "scope": f"{row['user_id']}{SCOPE_SEP}{row['agent_id']}",
                "kind": row["kind"],
            },
        )

    def delete_vector(self, memory_id: int) -> None:
        self.db.execute("DELETE FROM memory_vectors WHERE memory_id = :id", {"id": memory_id})

    def stored_vectors(self, kinds, keys):
        wanted = set(keys)
        hashes = sorted({content_hash for _, content_hash in wanted})
        if not hashes or not kinds:
            return {}
        binds = {f"h{i}": h for i, h in enumerate(hashes)} | self.kind_binds(kinds)
        rows = self.db.query(
            "SELECT m.subject, m.content_hash, v.embedding FROM memories m"
            " JOIN memory_vectors v ON v.memory_id = m.id"
            f" WHERE m.content_hash IN ({', '.join(':h' + str(i) for i in range(len(hashes)))})"
            + self.kinds_sql("m.kind", len(kinds), False),
            binds,
        )
        found = {}
        for row in rows:
            key = (row["subject"], row["content_hash"])
            if key in wanted and key not in found:
                found[key] = np.frombuffer(row["embedding"], dtype=np.float32).copy()
        return found

    def vector_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # The bit scan finds the candidates (vec0 allows one KNN per query, ordered by its own
        # distance); they are re-scored with the float vectors and ranked one level up.
        # Vectors are unit length, so the cosine distance is L2^2 / 2.
        return (
            "SELECT knn.id, ROW_NUMBER() OVER (ORDER BY knn.score, knn.id) AS r, knn.score"
            " FROM (SELECT c.id, c.d * c.d / 2.0 AS score"
            " FROM (SELECT v.memory_id AS id, vec_distance_l2(v.embedding, :qv) AS d"
            " FROM memory_vectors v"
            " WHERE v.embedding_bits MATCH vec_quantize_binary(:qv)"
            f" AND v.k = {CANDIDATES_SQL}"
            " AND v.scope = :user_id || char(31) || :agent_id"
            + self.kinds_sql("v.kind", n_kinds, exclude)
            + ") c ORDER BY c.d, c.id LIMIT :per_list) knn"
        )

    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # FTS5's rank is bm25(): more negative is better. The best :per_list rows are kept
        # first and only they are numbered (as on Oracle), not every matching row.
        return (
            "SELECT ft.id, ROW_NUMBER() OVER (ORDER BY ft.score DESC, ft.id) AS r, ft.score"
            " FROM (SELECT f.rowid AS id, -f.rank AS score"
            " FROM memory_fts f JOIN memories mt ON mt.id = f.rowid"
            " WHERE memory_fts MATCH :q AND mt.user_id = :user_id AND mt.agent_id = :agent_id"
            + self.kinds_sql("mt.kind", n_kinds, exclude)
            + " ORDER BY f.rank, f.rowid LIMIT :per_list) ft"
        )
