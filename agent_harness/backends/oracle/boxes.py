"""The toolbox's and the skillbox's vectors on Oracle: each row's own ``VECTOR`` column with an
HNSW index; the rows themselves are written by the shared
:class:`~agent_harness.backends.roles.boxes.IndexedBoxes`.
"""

from __future__ import annotations

import numpy as np

from agent_harness.backends.roles.boxes import IndexedBoxes

__all__ = ["OracleBoxes"]


class OracleBoxes(IndexedBoxes):
    """Toolbox and skillbox vectors in their ``embedding`` columns."""

    def store_vector(self, box: str, name: str, vector: np.ndarray) -> None:
        self.db.execute(
            f"UPDATE {box} SET embedding = :embedding WHERE name = :name",
            {"embedding": self.dialect.vector_bind(vector), "name": name},
        )

    def nearest(self, box: str, vector: np.ndarray, k: int) -> list[str]:
        # The HNSW index serves the approximate top k; the tie-break comes one level up.
        rows = self.db.query(
            "SELECT nb.name FROM (SELECT b.name,"
            " VECTOR_DISTANCE(b.embedding, :qv, COSINE) AS distance"
            f" FROM {box} b ORDER BY VECTOR_DISTANCE(b.embedding, :qv, COSINE)"
            " FETCH APPROX FIRST :k ROWS ONLY) nb ORDER BY nb.distance, nb.name",
            {"qv": self.dialect.vector_bind(vector), "k": int(k)},
        )
        return [r["name"] for r in rows]
