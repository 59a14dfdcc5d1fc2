"""Memories on SQLite: the row in ``memories``, its words in ``memory_fts`` (FTS5, BM25, kept in
step by triggers) and its vector in ``memory_vec`` (sqlite-vec, partitioned by scope); plus the
SQL fragments hybrid search is built from (:func:`agent_harness.memory.hybrid_sql`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agent_harness.backends.base import BackendError, Scope
from agent_harness.backends.embedded.migrations import NOW
from agent_harness.backends.tokens import query_tokens
from agent_harness.embeddings import DIMENSIONS

__all__ = ["MemoryTables"]

SCOPE_SEP = "\x1f"  # unit separator: cannot be typed by accident into a user or agent id


def _bindable(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    return value


class MemoryTables:
    """Mixin for :class:`~agent_harness.backends.embedded.EmbeddedBackend`: memory rows and the
    search fragments. Needs ``self.conn``, ``self._lock`` and ``self.query``."""

    @staticmethod
    def _scope_key(user_id: str, agent_id: str) -> str:
        return f"{user_id}{SCOPE_SEP}{agent_id}"

    def insert_memory(self, row: dict, vector: np.ndarray | None) -> int:
        with self._lock, self.conn:
            memory_id = self.conn.execute(
                "INSERT INTO memories (user_id, agent_id, thread_id, kind, subject, content,"
                " metadata, content_hash) VALUES (:user_id, :agent_id, :thread_id, :kind,"
                " :subject, :content, :metadata, :content_hash) RETURNING id",
                row,
            ).fetchall()[0][0]
            self._put_memory_vector(memory_id, row, vector)
        return memory_id

    def _put_memory_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        if vector is None:
            raise BackendError("the embedded backend needs a vector for every memory")
        self.conn.execute("DELETE FROM memory_vec WHERE memory_id = ?", (memory_id,))
        self.conn.execute(
            "INSERT INTO memory_vec (memory_id, embedding, scope, kind) VALUES (?, ?, ?, ?)",
            (
                memory_id,
                self.vector_bind(vector),
                self._scope_key(row["user_id"], row["agent_id"]),
                row["kind"],
            ),
        )

    def update_memory(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        with self._lock, self.conn:
            self.conn.execute(
                "UPDATE memories SET content = :content, subject = :subject, metadata = :metadata,"
                f" content_hash = :content_hash, updated_at = {NOW} WHERE id = :id",
                {**row, "id": memory_id},
            )
            self._put_memory_vector(memory_id, row, vector)

    def delete_memory(self, scope: Scope, memory_id: int) -> bool:
        with self._lock, self.conn:
            deleted = self.conn.execute(
                "DELETE FROM memories WHERE id = ? AND user_id = ? AND agent_id = ? RETURNING id",
                (memory_id, scope.user_id, scope.agent_id),
            ).fetchall()
            self.conn.execute("DELETE FROM memory_vec WHERE memory_id = ?", (memory_id,))
        return bool(deleted)

    def list_memories(
        self, scope: Scope, where: list[tuple[str, str, Any]], limit: int
    ) -> list[dict]:
        clauses = ["m.user_id = :user_id", "m.agent_id = :agent_id"]
        binds: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        for i, (target, key, value) in enumerate(where):
            expr = f"m.{key}" if target == "column" else f"json_extract(m.metadata, '$.{key}')"
            if isinstance(value, (list, tuple)):
                names = [f"w{i}_{j}" for j in range(len(value))]
                binds.update({n: _bindable(v) for n, v in zip(names, value)})
                inner = ", ".join(f":{n}" for n in names) or "NULL"
                clauses.append(f"{expr} IN ({inner})")
            elif value is None:
                clauses.append(f"{expr} IS NULL")
            else:
                binds[f"w{i}"] = _bindable(value)
                clauses.append(f"{expr} = :w{i}")
        binds["limit"] = limit
        return self.query(
            f"SELECT {self.memory_columns_sql()} FROM memories m WHERE {' AND '.join(clauses)}"
            " ORDER BY m.id DESC LIMIT :limit",
            binds,
        )

    def memory_columns_sql(self, alias: str = "m") -> str:
        return ", ".join(
            f"{alias}.{c}"
            for c in (
                "id",
                "user_id",
                "agent_id",
                "thread_id",
                "kind",
                "subject",
                "content",
                "metadata",
                "content_hash",
                "created_at",
                "updated_at",
            )
        )

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

    def top_k_sql(self) -> str:
        return "LIMIT :k"

    def text_query(self, text: str) -> str:
        """Each word becomes a quoted FTS5 string, joined by OR: no operator survives.

        ``\\w+`` keeps letters and digits of any script, so quotes, ``*``, ``-``, ``NEAR``,
        parentheses and column filters are never passed to FTS5 as syntax. At most 64
        distinct words are kept, common stop words dropped (see :func:`query_tokens`); no words
        gives ``""``, a valid query that matches nothing.
        """
        tokens = query_tokens(text)
        return " OR ".join(f'"{t}"' for t in tokens) if tokens else '""'

    def vector_bind(self, vector: np.ndarray) -> bytes:
        array = np.asarray(vector, dtype=np.float32)
        if array.shape != (DIMENSIONS,):
            raise BackendError(f"expected a vector of {DIMENSIONS} floats, got shape {array.shape}")
        return array.tobytes()
