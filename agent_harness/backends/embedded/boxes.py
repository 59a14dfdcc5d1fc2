"""The toolbox, the skillbox and the scratchpad on SQLite.

Toolbox and skillbox rows live in plain tables, their vectors in ``vec0`` tables keyed by the
same id (cosine distance); the scratchpad is one table keyed by scope and path.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent_harness.backends.base import Scope
from agent_harness.backends.embedded.migrations import NOW
from agent_harness.backends.roles import in_list

__all__ = ["Boxes"]

BOXES = {"toolbox": "toolbox_vec", "skillbox": "skillbox_vec"}


class Boxes:
    """Mixin for :class:`~agent_harness.backends.embedded.EmbeddedBackend`: toolbox, skillbox
    and scratchpad. Needs ``self.conn``, ``self._lock``, ``self.query`` and ``self.vector_bind``."""

    def upsert_indexed(self, box: str, key: str, fields: dict, vector: np.ndarray | None) -> None:
        vec_table = BOXES[box]
        columns = ["name", *fields]
        updates = ", ".join(f"{c} = excluded.{c}" for c in fields)
        with self._lock, self.conn:
            box_id = self.conn.execute(
                f"INSERT INTO {box} ({', '.join(columns)}) VALUES"
                f" ({', '.join(':' + c for c in columns)}) ON CONFLICT (name) DO UPDATE SET"
                f" {updates}, updated_at = {NOW} RETURNING id",
                {"name": key, **fields},
            ).fetchall()[0][0]
            self.conn.execute(f"DELETE FROM {vec_table} WHERE id = ?", (box_id,))
            self.conn.execute(
                f"INSERT INTO {vec_table} (id, embedding) VALUES (?, ?)",
                (box_id, self.vector_bind(vector)),
            )

    def delete_indexed(self, box: str, keys: Sequence[str]) -> None:
        vec_table = BOXES[box]
        with self._lock, self.conn:
            for key in keys:
                for (box_id,) in self.conn.execute(
                    f"DELETE FROM {box} WHERE name = ? RETURNING id", (key,)
                ).fetchall():
                    self.conn.execute(f"DELETE FROM {vec_table} WHERE id = ?", (box_id,))

    def indexed_rows(self, box: str, names: Sequence[str] | None = None) -> list[dict]:
        if box not in BOXES:  # the name is put into SQL: only known tables
            raise ValueError(f"unknown box {box!r}; use one of {sorted(BOXES)}")
        where, binds = in_list("name", "n", None if names is None else list(names))
        return self.query(f"SELECT * FROM {box} WHERE {where}1 = 1 ORDER BY name", binds)

    def nearest_indexed(self, box: str, vector: np.ndarray, k: int, text: str = "") -> list[str]:
        if k <= 0:
            return []
        rows = self.query(
            f"SELECT b.name FROM {BOXES[box]} v JOIN {box} b ON b.id = v.id"
            " WHERE v.embedding MATCH :qv AND v.k = :k ORDER BY v.distance, b.name",
            {"qv": self.vector_bind(vector), "k": int(k)},
        )
        return [r["name"] for r in rows]

    # --- scratchpad ---------------------------------------------------------------------------
    def scratch_put(self, scope: Scope, path: str, content: str, append: bool) -> int:
        new = "scratch_files.content || excluded.content" if append else "excluded.content"
        with self._lock, self.conn:
            # One statement: an append is atomic even with several writers.
            return self.conn.execute(
                "INSERT INTO scratch_files (user_id, agent_id, path, content)"
                " VALUES (:u, :a, :p, :c) ON CONFLICT (user_id, agent_id, path) DO UPDATE SET"
                f" content = {new}, updated_at = {NOW} RETURNING length(content)",
                {"u": scope.user_id, "a": scope.agent_id, "p": path, "c": content},
            ).fetchall()[0][0]

    def scratch_get(self, scope: Scope, path: str) -> str | None:
        rows = self.query(
            "SELECT content FROM scratch_files WHERE user_id = ? AND agent_id = ? AND path = ?",
            (scope.user_id, scope.agent_id, path),
        )
        return rows[0]["content"] if rows else None

    def scratch_paths(self, scope: Scope) -> list[dict]:
        return self.query(
            "SELECT path, length(content) AS size, updated_at FROM scratch_files"
            " WHERE user_id = ? AND agent_id = ? ORDER BY path",
            (scope.user_id, scope.agent_id),
        )
