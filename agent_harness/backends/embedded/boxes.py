"""The toolbox's and the skillbox's vectors on SQLite: ``vec0`` tables keyed by the row's id
(cosine distance); the rows themselves are written by the shared
:class:`~agent_harness.backends.roles.boxes.IndexedBoxes`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent_harness.backends.roles.boxes import IndexedBoxes

__all__ = ["EmbeddedBoxes", "VECTOR_TABLES"]

#: Each box's vector table.
VECTOR_TABLES = {"toolbox": "toolbox_vec", "skillbox": "skillbox_vec"}


class EmbeddedBoxes(IndexedBoxes):
    """Toolbox and skillbox vectors in their ``vec0`` tables."""

    def store_vector(self, box: str, name: str, vector: np.ndarray) -> None:
        vectors = VECTOR_TABLES[box]
        box_id = self.db.query(f"SELECT id FROM {box} WHERE name = :name", {"name": name})[0]["id"]
        self.db.execute(f"DELETE FROM {vectors} WHERE id = :id", {"id": box_id})
        self.db.execute(
            f"INSERT INTO {vectors} (id, embedding) VALUES (:id, :embedding)",
            {"id": box_id, "embedding": self.dialect.vector_bind(vector)},
        )

    def delete_vectors(self, box: str, ids: Sequence[int]) -> None:
        for box_id in ids:
            self.db.execute(f"DELETE FROM {VECTOR_TABLES[box]} WHERE id = :id", {"id": box_id})

    def nearest(self, box: str, vector: np.ndarray, k: int) -> list[str]:
        rows = self.db.query(
            f"SELECT b.name FROM {VECTOR_TABLES[box]} v JOIN {box} b ON b.id = v.id"
            " WHERE v.embedding MATCH :qv AND v.k = :k ORDER BY v.distance, b.name",
            {"qv": self.dialect.vector_bind(vector), "k": int(k)},
        )
        return [r["name"] for r in rows]
