"""Memories on Oracle: one ``memories`` row holds the text (CLOB), metadata (JSON) and the vector
(``VECTOR(384, FLOAT32)``), indexed by HNSW (``FETCH APPROX``) and an Oracle Text CONTEXT index
(``SYNC (ON COMMIT)``); plus the SQL fragments hybrid search is built from
(:func:`agent_harness.memory.hybrid_sql`).
"""

from __future__ import annotations

import array
import re
from typing import Any

import numpy as np
import oracledb

from agent_harness.backends.base import BackendError, Scope
from agent_harness.backends.oracle.connection import iso_text
from agent_harness.backends.oracle.embeddings import MODEL_NAME, bind_text, memory_embed_text
from agent_harness.backends.oracle.text_query import contains_query
from agent_harness.embeddings import DIMENSIONS

__all__ = ["MemoryTables"]

_METADATA_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


class MemoryTables:
    """Mixin for :class:`~agent_harness.backends.oracle.OracleBackend`: memory rows and the
    search fragments. Needs ``self.conn``, ``self.transaction``, ``self.query``, ``self._clob``
    and ``self.embeds_in_database``."""

    def insert_memory(self, row: dict, vector: np.ndarray | None) -> int:
        with self.transaction(), self.conn.cursor() as cur:
            new_id = cur.var(oracledb.DB_TYPE_NUMBER)
            cur.execute(
                "INSERT INTO memories (user_id, agent_id, thread_id, kind, subject, content,"
                " metadata, content_hash) VALUES (:user_id, :agent_id, :thread_id, :kind,"
                " :subject, :content, JSON(:metadata), :content_hash) RETURNING id INTO :new_id",
                {
                    **self._memory_binds(row),
                    "user_id": row["user_id"],
                    "agent_id": row["agent_id"],
                    "thread_id": row["thread_id"],
                    "kind": row["kind"],
                    "new_id": new_id,
                },
            )
            memory_id = int(new_id.getvalue()[0])
            self._put_memory_vector(memory_id, row, vector)
        return memory_id

    def _memory_binds(self, row: dict) -> dict:
        return {
            "subject": row["subject"],
            "content": self._clob(row["content"]),
            "metadata": self._clob(row["metadata"]),
            "content_hash": row["content_hash"],
        }

    def _put_memory_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        with self.conn.cursor() as cur:
            if vector is not None:
                cur.execute(
                    "UPDATE memories SET embedding = :embedding WHERE id = :id",
                    embedding=self.vector_bind(vector),
                    id=memory_id,
                )
            elif self.embeds_in_database:
                cur.execute(
                    f"UPDATE memories SET embedding = VECTOR_EMBEDDING({MODEL_NAME}"
                    " USING :text AS DATA) WHERE id = :id",
                    text=bind_text(memory_embed_text(row["subject"], row["content"])),
                    id=memory_id,
                )
            else:
                raise BackendError("client-side embedding mode: every memory needs a vector")

    def update_memory(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(
                "UPDATE memories SET content = :content, subject = :subject,"
                " metadata = JSON(:metadata), content_hash = :content_hash,"
                " updated_at = SYSTIMESTAMP WHERE id = :id",
                {**self._memory_binds(row), "id": memory_id},
            )
            self._put_memory_vector(memory_id, row, vector)

    def delete_memory(self, scope: Scope, memory_id: int) -> bool:
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(
                "DELETE FROM memories WHERE id = :id AND user_id = :user_id"
                " AND agent_id = :agent_id",
                id=memory_id,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
            )
            return cur.rowcount > 0

    def list_memories(
        self, scope: Scope, where: list[tuple[str, str, Any]], limit: int
    ) -> list[dict]:
        clauses = ["m.user_id = :user_id", "m.agent_id = :agent_id"]
        binds: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        for i, (target, key, value) in enumerate(where):
            if not _METADATA_KEY.match(key):
                raise ValueError(f"filter key {key!r} is not valid: use letters, digits and _")
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            tests = []
            for j, item in enumerate(values):
                expr = f"m.{key}" if target == "column" else self._json_value(key, item)
                if item is None:
                    tests.append(f"{expr} IS NULL")
                    continue
                binds[f"w{i}_{j}"] = self._filter_value(target, item)
                tests.append(f"{expr} = :w{i}_{j}")
            clauses.append("(" + (" OR ".join(tests) or "1 = 0") + ")")
        binds["max_rows"] = limit
        return self.query(
            f"SELECT {self.memory_columns_sql()} FROM memories m WHERE {' AND '.join(clauses)}"
            " ORDER BY m.id DESC FETCH FIRST :max_rows ROWS ONLY",
            binds,
        )

    @staticmethod
    def _json_value(key: str, value: Any) -> str:
        # Numbers compare as numbers; text, booleans ('true'/'false') and null as text.
        path = f"'$.\"{key}\"'"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"JSON_VALUE(m.metadata, {path} RETURNING NUMBER NULL ON ERROR)"
        return f"JSON_VALUE(m.metadata, {path} RETURNING VARCHAR2(4000) NULL ON ERROR)"

    @staticmethod
    def _filter_value(target: str, value: Any) -> Any:
        if target == "metadata" and isinstance(value, bool):
            return "true" if value else "false"
        return int(value) if isinstance(value, bool) else value

    def memory_columns_sql(self, alias: str = "m") -> str:
        a = alias
        return (
            f"{a}.id, {a}.user_id, {a}.agent_id, {a}.thread_id, {a}.kind, {a}.subject,"
            f" {a}.content, JSON_SERIALIZE({a}.metadata RETURNING CLOB) AS metadata,"
            f" {a}.content_hash, {iso_text(f'{a}.created_at')} AS created_at,"
            f" {iso_text(f'{a}.updated_at')} AS updated_at"
        )

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

    def top_k_sql(self) -> str:
        return "FETCH FIRST :k ROWS ONLY"

    def text_query(self, text: str) -> str:
        """Each word becomes ``{word}`` (``}`` doubled), joined by ACCUM; see
        :func:`~agent_harness.backends.oracle.text_query.contains_query`."""
        return contains_query(text)

    def vector_bind(self, vector: np.ndarray) -> array.array:
        values = np.asarray(vector, dtype=np.float32)
        if values.shape != (DIMENSIONS,):
            raise BackendError(
                f"expected a vector of {DIMENSIONS} floats, got shape {values.shape}"
            )
        bound = array.array("f")
        bound.frombytes(values.tobytes())
        return bound
