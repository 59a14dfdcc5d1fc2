"""The toolbox and the skillbox (vector-indexed catalogs keyed by name), and the scratchpad.

Rows are written once for both dialects; a dialect supplies only where a row's vector lives
and how the nearest rows are found (:meth:`IndexedBoxes.store_vector`, :meth:`~IndexedBoxes.
nearest`). The scratchpad is plain SQL on both.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

import numpy as np

from agent_harness.backends.connection import Connection
from agent_harness.backends.errors import BackendError
from agent_harness.backends.roles.common import Scope, in_list

__all__ = ["BOX_COLUMNS", "IndexedBoxes", "ScratchFiles"]

# Columns a box row may set (the names are put into SQL: only these), and JSON columns.
BOX_COLUMNS = {
    "toolbox": (
        "description",
        "parameters",
        "category",
        "always_on",
        "content_hash",
        "search_text",
    ),
    "skillbox": ("title", "description", "body", "source", "path", "content_hash"),
}
_SELECT = {
    "toolbox": (
        "id",
        "name",
        "description",
        "parameters",
        "category",
        "always_on",
        "content_hash",
        "updated_at",
    ),
    "skillbox": (
        "id",
        "name",
        "title",
        "description",
        "body",
        "source",
        "path",
        "content_hash",
        "updated_at",
    ),
}
_JSON_COLUMNS = {"parameters"}
_TEXT_COLUMNS = {"description", "body", "search_text"}
# An IN list holds at most 1,000 expressions on Oracle (ORA-01795): more, read all and filter.
_MAX_IN = 1000


def _box(box: str) -> str:
    if box not in BOX_COLUMNS:  # the name is put into SQL: only known tables
        raise ValueError(f"unknown box {box!r}; use one of {sorted(BOX_COLUMNS)}")
    return box


class IndexedBoxes(abc.ABC):
    """``toolbox`` and ``skillbox``: rows keyed by a unique name, each with a vector.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect

    # --- what a dialect supplies --------------------------------------------------------------
    @abc.abstractmethod
    def store_vector(self, box: str, name: str, vector: np.ndarray) -> None:
        """Store (or replace) the vector of the row called ``name``; runs inside the row's
        transaction."""

    def delete_vectors(self, box: str, ids: Sequence[int]) -> None:
        """Remove the vectors of deleted rows (nothing to do where they live in the row)."""
        return None

    @abc.abstractmethod
    def nearest(self, box: str, vector: np.ndarray, k: int) -> list[str]:
        """Names of the ``k`` rows nearest to ``vector`` (``k`` > 0), nearest first, ties by
        name."""

    # --- written once -------------------------------------------------------------------------
    def upsert(self, box: str, name: str, fields: dict, vector: np.ndarray | None) -> None:
        """Insert or replace one row of ``box`` keyed by name, with its vector.

        Raises:
            ValueError: An unknown box or column.
            BackendError: No vector.
        """
        allowed = BOX_COLUMNS[_box(box)]
        unknown = [f for f in fields if f not in allowed]
        if unknown:
            raise ValueError(f"{box} has no column(s) {unknown}; columns: {allowed}")
        if vector is None:
            raise BackendError(f"{box}: every row needs a vector (from Harness.embed)")
        binds: dict[str, Any] = {"name": name}
        values = {"name": ":name"}
        for column, value in fields.items():
            binds[column] = self.db.text(value) if column in _TEXT_COLUMNS else value
            values[column] = (
                self.dialect.json_in(column) if column in _JSON_COLUMNS else (f":{column}")
            )
        with self.db.transaction():
            self.db.execute(self.dialect.upsert(box, ["name"], values, touch="updated_at"), binds)
            self.store_vector(box, name, vector)

    def delete(self, box: str, names: Sequence[str]) -> None:
        """Delete rows of a box by name."""
        _box(box)
        with self.db.transaction():
            for name in names:
                ids = [
                    r["id"]
                    for r in self.db.query(
                        f"SELECT id FROM {box} WHERE name = :name", {"name": name}
                    )
                ]
                if ids:
                    self.delete_vectors(box, ids)
                    self.db.execute(f"DELETE FROM {box} WHERE name = :name", {"name": name})

    def rows(self, box: str, names: Sequence[str] | None = None) -> list[dict]:
        """Every row of a box (without vectors, JSON as text), or only the rows of these names,
        by name."""
        _box(box)
        chosen = None if names is None or len(names) > _MAX_IN else list(names)
        where, binds = in_list("name", "n", chosen)
        select = ", ".join(
            f"{self.dialect.json_out(c)} AS {c}"
            if c in _JSON_COLUMNS
            else f"{self.dialect.time_text(c)} AS {c}"
            if c == "updated_at"
            else c
            for c in _SELECT[box]
        )
        rows = self.db.query(f"SELECT {select} FROM {box} WHERE {where}1 = 1 ORDER BY name", binds)
        if chosen is not None or names is None:
            return rows
        wanted = set(names)
        return [r for r in rows if r["name"] in wanted]

    def nearest_names(self, box: str, vector: np.ndarray, k: int) -> list[str]:
        """Names of the k rows of a box nearest to the vector, nearest first ([] for k <= 0)."""
        _box(box)
        return [] if k <= 0 else self.nearest(box, vector, int(k))


class ScratchFiles:
    """``scratch_files``: working files of a scope, keyed by path; appends are atomic.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect

    def put(self, scope: Scope, path: str, content: str, append: bool) -> int:
        """Write or append (in ONE statement, so concurrent appends keep every part) a scratch
        file; return its new length in characters."""
        binds = {"user_id": scope.user_id, "agent_id": scope.agent_id, "path": path}
        upsert = self.dialect.upsert(
            "scratch_files",
            ["user_id", "agent_id", "path"],
            {
                "user_id": ":user_id",
                "agent_id": ":agent_id",
                "path": ":path",
                "content": ":content",
            },
            update=[] if append else ["content"],
            append=["content"] if append else (),
            touch="updated_at",
        )
        with self.db.transaction():
            self.db.execute(upsert, {**binds, "content": self.db.text(content)})
            return len(self.get(scope, path) or "")

    def get(self, scope: Scope, path: str) -> str | None:
        """A scratch file's content, or None."""
        rows = self.db.query(
            "SELECT content FROM scratch_files WHERE user_id = :u AND agent_id = :a AND path = :p",
            {"u": scope.user_id, "a": scope.agent_id, "p": path},
        )
        return (rows[0]["content"] or "") if rows else None

    def paths(self, scope: Scope) -> list[dict]:
        """Scratch files of a scope: path, size (characters), updated_at (ISO text)."""
        rows = self.db.query(
            f"SELECT path, content, {self.dialect.time_text('updated_at')} AS updated_at"
            " FROM scratch_files WHERE user_id = :u AND agent_id = :a ORDER BY path",
            {"u": scope.user_id, "a": scope.agent_id},
        )
        return [
            {"path": r["path"], "size": len(r["content"] or ""), "updated_at": r["updated_at"]}
            for r in rows
        ]
