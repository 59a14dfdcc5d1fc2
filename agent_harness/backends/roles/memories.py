"""Memory rows, written once for both dialects, and the search fragments each dialect supplies.

A memory is one ``memories`` row (text, metadata JSON, content hash, timestamps) plus a vector
stored where the dialect keeps vectors (a ``vec0`` table on SQLite, a ``VECTOR`` column on
Oracle: :meth:`MemoryTable.store_vector`). Search is composed from SQL fragments (a
vector-ranked subquery, a text-ranked subquery, a top-k clause) so hybrid Reciprocal Rank Fusion
is ONE statement on both backends (:func:`agent_harness.parts.memory.hybrid_sql`).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

import numpy as np

from agent_harness.backends.connection import Connection
from agent_harness.backends.roles.common import Scope, check_key

__all__ = ["MEMORY_COLUMNS", "FILTER_COLUMNS", "MemoryTable"]

#: A memory's columns, in the order every read returns them.
MEMORY_COLUMNS = (
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
#: The columns a ``(column, key, value)`` filter may name; other keys filter the metadata.
FILTER_COLUMNS = ("id", "kind", "subject", "thread_id", "content_hash")


class MemoryTable(abc.ABC):
    """The ``memories`` table: rows written here once; vectors and search per dialect.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect

    # --- what a dialect supplies --------------------------------------------------------------
    @abc.abstractmethod
    def store_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        """Store (or replace) a memory's vector; runs inside the row's transaction."""

    def delete_vector(self, memory_id: int) -> None:
        """Remove a deleted memory's vector (nothing to do where it lives in the row)."""
        return None

    def stored_vectors(
        self, kinds: Sequence[str], keys: Sequence[tuple[str | None, str]]
    ) -> dict[tuple[str | None, str], np.ndarray]:
        """The vectors already stored, in any scope, for memories of these kinds with these
        ``(subject, content_hash)`` keys ({} where a dialect does not read vectors back).

        A memory's vector embeds ``subject: content``, so a stored one with the same subject and
        content is the vector the model would compute again."""
        return {}

    # SQL fragments for search. Binds they use: :qv, :q, :per_list, :user_id, :agent_id, :k,
    # :rrf_k and :kind0.. for the kinds filter. Each ranked fragment returns (id, r, score).
    @abc.abstractmethod
    def vector_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        """Subquery: memories of the scope ranked by cosine distance to :qv, best :per_list."""

    @abc.abstractmethod
    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        """Subquery: memories of the scope ranked by full-text score for :q, best :per_list."""

    # --- written once -------------------------------------------------------------------------
    def top_k_sql(self) -> str:
        """The clause that keeps the first :k rows of an ordered query."""
        return self.dialect.limit("k")

    def text_query(self, text: str) -> str:
        """Turn any user text into a safe full-text query string (never raises)."""
        return self.dialect.text_query(text)

    def vector_bind(self, vector: np.ndarray) -> Any:
        """The bind value for a query vector."""
        return self.dialect.vector_bind(vector)

    def columns_sql(self, alias: str = "m") -> str:
        """The select list of :data:`MEMORY_COLUMNS` for ``alias`` (metadata as JSON text,
        times as ISO text)."""
        d, a = self.dialect, alias
        parts = []
        for column in MEMORY_COLUMNS:
            if column == "metadata":
                parts.append(f"{d.json_out(f'{a}.metadata')} AS metadata")
            elif column in ("created_at", "updated_at"):
                parts.append(f"{d.time_text(f'{a}.{column}')} AS {column}")
            else:
                parts.append(f"{a}.{column}")
        return ", ".join(parts)

    @staticmethod
    def kinds_sql(column: str, n_kinds: int, exclude: bool) -> str:
        """The ``AND column [NOT] IN (:kind0, ...)`` filter of a ranked fragment ("" if none)."""
        if not n_kinds:
            return ""
        names = ", ".join(f":kind{i}" for i in range(n_kinds))
        return f" AND {column} {'NOT IN' if exclude else 'IN'} ({names})"

    @staticmethod
    def kind_binds(kinds: Sequence[str] | None) -> dict[str, str]:
        """Binds :kind0, :kind1, ... for a kinds filter."""
        return {f"kind{i}": k for i, k in enumerate(kinds or ())}

    def _text_binds(self, row: dict) -> dict:
        return {
            "subject": row["subject"],
            "content": self.db.text(row["content"]),
            "metadata": self.db.text(row["metadata"]),
            "content_hash": row["content_hash"],
        }

    def insert(self, row: dict, vector: np.ndarray | None) -> int:
        """Insert one memory (keys: user_id, agent_id, thread_id, kind, subject, content,
        metadata (JSON text), content_hash) with its vector; return the new id."""
        with self.db.transaction():
            memory_id = self.db.insert(
                "INSERT INTO memories (user_id, agent_id, thread_id, kind, subject, content,"
                " metadata, content_hash) VALUES (:user_id, :agent_id, :thread_id, :kind,"
                f" :subject, :content, {self.dialect.json_in('metadata')}, :content_hash)",
                {
                    **self._text_binds(row),
                    "user_id": row["user_id"],
                    "agent_id": row["agent_id"],
                    "thread_id": row["thread_id"],
                    "kind": row["kind"],
                },
            )
            self.store_vector(memory_id, row, vector)
        return memory_id

    def update(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        """Replace content, subject, metadata and content_hash of a memory, and its vector."""
        with self.db.transaction():
            self.db.execute(
                "UPDATE memories SET content = :content, subject = :subject,"
                f" metadata = {self.dialect.json_in('metadata')}, content_hash = :content_hash,"
                f" updated_at = {self.dialect.now} WHERE id = :id",
                {**self._text_binds(row), "id": memory_id},
            )
            self.store_vector(memory_id, row, vector)

    def delete(self, scope: Scope, memory_id: int) -> bool:
        """Delete a memory of this scope; True when something was deleted."""
        with self.db.transaction():
            deleted = self.db.execute(
                "DELETE FROM memories WHERE id = :id AND user_id = :user_id"
                " AND agent_id = :agent_id",
                {"id": memory_id, "user_id": scope.user_id, "agent_id": scope.agent_id},
            )
            if deleted:
                self.delete_vector(memory_id)
        return deleted > 0

    def list(self, scope: Scope, where: list[tuple[str, str, Any]], limit: int) -> list[dict]:
        """Memories of a scope, newest first, filtered by ``(target, key, value)`` triples
        where target is ``column`` (one of :data:`FILTER_COLUMNS`) or ``metadata``; a list
        value means any of them, None means missing.

        Raises:
            ValueError: A key that is not a plain identifier, or an unknown column.
        """
        clauses = ["m.user_id = :user_id", "m.agent_id = :agent_id"]
        binds: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        for i, (target, key, value) in enumerate(where):
            check_key(key)
            if target == "column" and key not in FILTER_COLUMNS:
                raise ValueError(f"{key!r} is not a memory column; use one of {FILTER_COLUMNS}")
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            tests = []
            for j, item in enumerate(values):
                if target == "column":
                    expr, bound = f"m.{key}", int(item) if isinstance(item, bool) else item
                else:
                    expr, bound = self.dialect.json_filter("m.metadata", key, item)
                if item is None:
                    tests.append(f"{expr} IS NULL")
                    continue
                binds[f"w{i}_{j}"] = bound
                tests.append(f"{expr} = :w{i}_{j}")
            clauses.append("(" + (" OR ".join(tests) or "1 = 0") + ")")
        binds["max_rows"] = int(limit)
        return self.db.query(
            f"SELECT {self.columns_sql()} FROM memories m WHERE {' AND '.join(clauses)}"
            f" ORDER BY m.id DESC {self.dialect.limit('max_rows')}",
            binds,
        )
