"""Memories on Oracle: the vector is the row's own ``VECTOR(384, FLOAT32)`` column (HNSW index,
``FETCH APPROX``), computed in SQL with ``VECTOR_EMBEDDING`` in the in-database mode; the words
are indexed by an Oracle Text CONTEXT index (``SYNC (ON COMMIT)``). The row itself is written
by the shared :class:`~agent_harness.backends.roles.memories.MemoryTable`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agent_harness.backends.connection import Connection
from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.embeddings import MODEL_NAME, bind_text, memory_embed_text
from agent_harness.backends.roles.memories import MemoryTable

__all__ = ["OracleMemories"]


class OracleMemories(MemoryTable):
    """``memories`` with its VECTOR column and CONTEXT index.

    Args:
        db: The harness owner's connection.
        in_database: Says whether the database embeds (then a memory may come without vector).
    """

    def __init__(self, db: Connection, in_database: Callable[[], bool]) -> None:
        super().__init__(db)
        self.in_database = in_database

    def store_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        if vector is not None:
            self.db.execute(
                "UPDATE memories SET embedding = :embedding WHERE id = :id",
                {"embedding": self.dialect.vector_bind(vector), "id": memory_id},
            )
        elif self.in_database():
            self.db.execute(
                f"UPDATE memories SET embedding = VECTOR_EMBEDDING({MODEL_NAME}"
                " USING :text AS DATA) WHERE id = :id",
                {
                    "text": bind_text(memory_embed_text(row["subject"], row["content"])),
                    "id": memory_id,
                },
            )
        else:
            raise BackendError("client-side embedding mode: every memory needs a vector")

    def vector_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # The HNSW index serves only ORDER BY VECTOR_DISTANCE(..., COSINE) FETCH APPROX, so the
        # tie-break on id and the ranks come one level up.
        return (
            "SELECT knn.id, ROW_NUMBER() OVER (ORDER BY knn.score, knn.id) AS r, knn.score"
            " FROM (SELECT mv.id, VECTOR_DISTANCE(mv.embedding, :qv, COSINE) AS score"
            " FROM memories mv WHERE mv.user_id = :user_id AND mv.agent_id = :agent_id"
            + self.kinds_sql("mv.kind", n_kinds, exclude)
            + " ORDER BY VECTOR_DISTANCE(mv.embedding, :qv, COSINE)"
            " FETCH APPROX FIRST :per_list ROWS ONLY) knn"
        )

    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # SCORE(1) belongs to CONTAINS(..., 1): higher is better (0..100).
        return (
            "SELECT ft.id, ROW_NUMBER() OVER (ORDER BY ft.score DESC, ft.id) AS r, ft.score"
            " FROM (SELECT mt.id, SCORE(1) AS score FROM memories mt"
            " WHERE CONTAINS(mt.content, :q, 1) > 0"
            " AND mt.user_id = :user_id AND mt.agent_id = :agent_id"
            + self.kinds_sql("mt.kind", n_kinds, exclude)
            + " ORDER BY SCORE(1) DESC, mt.id FETCH FIRST :per_list ROWS ONLY) ft"
        )
