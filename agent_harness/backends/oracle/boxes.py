"""The toolbox, the skillbox and the scratchpad on Oracle.

Toolbox and skillbox rows carry their own ``VECTOR`` column with an HNSW index; the scratchpad
is a CLOB per scope and path, appended to with one ``MERGE`` so several writers stay atomic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import oracledb

from agent_harness.backends.base import BackendError, Scope
from agent_harness.backends.oracle.connection import iso_text
from agent_harness.backends.roles import in_list

__all__ = ["BOX_COLUMNS", "Boxes"]

# Columns a box row may set (the names are put into SQL: only these), and JSON columns.
BOX_COLUMNS = {
    "toolbox": (
        "description",
        "parameters",
        "category",
        "always_on",
        "enabled",
        "content_hash",
        "search_text",
    ),
    "skillbox": ("title", "description", "body", "source", "path", "content_hash"),
}
BOX_SELECT = {
    "toolbox": "id, name, description, JSON_SERIALIZE(parameters RETURNING CLOB) AS parameters,"
    f" category, always_on, enabled, content_hash, {iso_text('updated_at')} AS updated_at",
    "skillbox": "id, name, title, description, body, source, path, content_hash,"
    f" {iso_text('updated_at')} AS updated_at",
}
JSON_COLUMNS = {"parameters"}


class Boxes:
    """Mixin for :class:`~agent_harness.backends.oracle.OracleBackend`: toolbox, skillbox and
    scratchpad. Needs ``self.conn``, ``self.transaction``, ``self.query``, ``self._clob`` and
    ``self.vector_bind``."""

    def upsert_indexed(self, box: str, key: str, fields: dict, vector: np.ndarray | None) -> None:
        allowed = BOX_COLUMNS[box]
        unknown = [f for f in fields if f not in allowed]
        if unknown:
            raise ValueError(f"{box} has no column(s) {unknown}; columns: {allowed}")
        if vector is None:
            raise BackendError(f"{box}: every row needs a vector (from Harness.embed)")
        binds: dict[str, Any] = {"name": key, "embedding": self.vector_bind(vector)}
        values = {}
        for column, value in fields.items():
            binds[column] = self._clob(value) if isinstance(value, str) else value
            values[column] = f"JSON(:{column})" if column in JSON_COLUMNS else f":{column}"
        updates = ", ".join(f"b.{c} = {v}" for c, v in values.items())
        columns = ", ".join(["name", *values, "embedding"])
        inserts = ", ".join([":name", *values.values(), ":embedding"])
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(
                f"MERGE INTO {box} b USING (SELECT :name AS name FROM dual) s"
                " ON (b.name = s.name)"
                f" WHEN MATCHED THEN UPDATE SET {updates}, b.embedding = :embedding,"
                " b.updated_at = SYSTIMESTAMP"
                f" WHEN NOT MATCHED THEN INSERT ({columns}) VALUES ({inserts})",
                binds,
            )

    def delete_indexed(self, box: str, keys: Sequence[str]) -> None:
        if box not in BOX_COLUMNS:
            raise ValueError(f"unknown box {box!r}; use one of {sorted(BOX_COLUMNS)}")
        if not keys:
            return
        with self.transaction(), self.conn.cursor() as cur:
            cur.executemany(f"DELETE FROM {box} WHERE name = :name", [{"name": k} for k in keys])

    def indexed_rows(self, box: str, names: Sequence[str] | None = None) -> list[dict]:
        if box not in BOX_SELECT:  # the name is put into SQL: only known tables
            raise ValueError(f"unknown box {box!r}; use one of {sorted(BOX_SELECT)}")
        # An IN list holds at most 1,000 expressions on Oracle (ORA-01795): more, read all.
        chosen = None if names is None or len(names) > 1000 else list(names)
        where, binds = in_list("name", "n", chosen)
        rows = self.query(
            f"SELECT {BOX_SELECT[box]} FROM {box} WHERE {where}1 = 1 ORDER BY name", binds
        )
        if chosen is not None or names is None:
            return rows
        wanted = set(names)
        return [r for r in rows if r["name"] in wanted]

    def nearest_indexed(self, box: str, vector: np.ndarray, k: int, text: str = "") -> list[str]:
        if box not in BOX_COLUMNS:
            raise ValueError(f"unknown box {box!r}; use one of {sorted(BOX_COLUMNS)}")
        if k <= 0:
            return []
        rows = self.query(
            "SELECT nb.name FROM (SELECT b.name,"
            " VECTOR_DISTANCE(b.embedding, :qv, COSINE) AS distance"
            f" FROM {box} b ORDER BY VECTOR_DISTANCE(b.embedding, :qv, COSINE)"
            " FETCH APPROX FIRST :k ROWS ONLY) nb ORDER BY nb.distance, nb.name",
            {"qv": self.vector_bind(vector), "k": int(k)},
        )
        return [r["name"] for r in rows]

    # --- scratchpad ---------------------------------------------------------------------------
    def scratch_put(self, scope: Scope, path: str, content: str, append: bool) -> int:
        new = "f.content || :content" if append else ":content"
        binds = {"u": scope.user_id, "a": scope.agent_id, "p": path}
        merge = (
            "MERGE INTO scratch_files f USING (SELECT :u AS user_id, :a AS agent_id, :p AS path"
            " FROM dual) s ON (f.user_id = s.user_id AND f.agent_id = s.agent_id"
            " AND f.path = s.path)"
            f" WHEN MATCHED THEN UPDATE SET f.content = {new}, f.updated_at = SYSTIMESTAMP"
            " WHEN NOT MATCHED THEN INSERT (user_id, agent_id, path, content)"
            " VALUES (s.user_id, s.agent_id, s.path, :content)"
        )
        with self.transaction(), self.conn.cursor() as cur:
            for attempt in (1, 2):
                try:
                    # One statement: the row lock makes an append atomic with several writers.
                    cur.execute(merge, {**binds, "content": self._clob(content)})
                    break
                except oracledb.IntegrityError:
                    if attempt == 2:  # two first writers raced to INSERT: the second updates
                        raise
            cur.execute(
                "SELECT content FROM scratch_files WHERE user_id = :u AND agent_id = :a"
                " AND path = :p",
                binds,
                fetch_lobs=False,
            )
            # Characters as Python counts them (DBMS_LOB.GETLENGTH counts UTF-16 units).
            return len(cur.fetchone()[0] or "")

    def scratch_get(self, scope: Scope, path: str) -> str | None:
        rows = self.query(
            "SELECT content FROM scratch_files WHERE user_id = :u AND agent_id = :a AND path = :p",
            {"u": scope.user_id, "a": scope.agent_id, "p": path},
        )
        return (rows[0]["content"] or "") if rows else None

    def scratch_paths(self, scope: Scope) -> list[dict]:
        rows = self.query(
            f"SELECT path, content, {iso_text('updated_at')} AS updated_at FROM scratch_files"
            " WHERE user_id = :u AND agent_id = :a ORDER BY path",
            {"u": scope.user_id, "a": scope.agent_id},
        )
        return [
            {"path": r["path"], "size": len(r["content"] or ""), "updated_at": r["updated_at"]}
            for r in rows
        ]
