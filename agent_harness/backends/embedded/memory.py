"""Memories on SQLite: the vector in ``memory_vec`` (sqlite-vec, partitioned by scope) and the
two ranked fragments of search; the row itself is written by the shared
:class:`~agent_harness.backends.roles.memories.MemoryTable`, its words kept in ``memory_fts``
(FTS5, BM25) by triggers.
"""

from __future__ import annotations

import numpy as np

from agent_harness.backends.errors import BackendError
from agent_harness.backends.roles.memories import MemoryTable

__all__ = ["EmbeddedMemories", "SCOPE_SEP"]

SCOPE_SEP = "\x1f"  # unit separator: cannot be typed by accident into a user or agent id


class EmbeddedMemories(MemoryTable):
    """``memories`` + ``memory_fts`` + ``memory_vec``."""

    def store_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        if vector is None:
            raise BackendError("the embedded backend needs a vector for every memory")
        self.delete_vector(memory_id)
        self.db.execute(
            "INSERT INTO memory_vec (memory_id, embedding, scope, kind)"
            " VALUES (:id, :embedding, :scope, :kind)",
            {
                "id": memory_id,
                "embedding": self.dialect.vector_bind(vector),
                "scope": f"{row['user_id']}{SCOPE_SEP}{row['agent_id']}",
                "kind": row["kind"],
            },
        )

    def delete_vector(self, memory_id: int) -> None:
        self.db.execute("DELETE FROM memory_vec WHERE memory_id = :id", {"id": memory_id})

    def stored_vectors(self, kinds, keys):
        wanted = set(keys)
        hashes = sorted({content_hash for _, content_hash in wanted})
        if not hashes or not kinds:
            return {}
        binds = {f"h{i}": h for i, h in enumerate(hashes)} | self.kind_binds(kinds)
        rows = self.db.query(
            "SELECT m.subject, m.content_hash, v.embedding FROM memories m"
            " JOIN memory_vec v ON v.memory_id = m.id"
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
        # vec0 allows one ORDER BY distance on its KNN query: rank it one level up.
        return (
            "SELECT knn.id, ROW_NUMBER() OVER (ORDER BY knn.score, knn.id) AS r, knn.score"
            " FROM (SELECT v.memory_id AS id, v.distance * v.distance / 2.0 AS score"
            " FROM memory_vec v"
            " WHERE v.embedding MATCH :qv AND v.k = :per_list"
            " AND v.scope = :user_id || char(31) || :agent_id"
            + self.kinds_sql("v.kind", n_kinds, exclude)
            + " ORDER BY v.distance) knn"
        )

    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # FTS5's rank is bm25(): more negative is better.
        return (
            "SELECT f.rowid AS id, ROW_NUMBER() OVER (ORDER BY f.rank, f.rowid) AS r,"
            " -f.rank AS score FROM memory_fts f JOIN memories mt ON mt.id = f.rowid"
            " WHERE memory_fts MATCH :q AND mt.user_id = :user_id AND mt.agent_id = :agent_id"
            + self.kinds_sql("mt.kind", n_kinds, exclude)
            + " ORDER BY f.rank, f.rowid LIMIT :per_list"
        )
