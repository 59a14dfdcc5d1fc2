"""The embedded backend's connection: ``harness.db`` with sqlite-vec and the demo data attached,
one statement at a time, and how SQLite spells what Oracle spells differently.

Why apsw and not the standard ``sqlite3``: many Pythons (pyenv builds, some laptops) are built
without extension loading, and sqlite-vec is an extension. apsw bundles a current SQLite and loads
extensions everywhere, from wheels.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw
import numpy as np
import sqlite_vec

from agent_harness.backends.connection import Connection, Dialect
from agent_harness.backends.embedded.dictionary import COMMENTS_DDL, create_dictionary_views
from agent_harness.backends.errors import BackendError
from agent_harness.backends.search_words import query_tokens
from agent_harness.foundation.embeddings import DIMENSIONS

__all__ = ["NOW", "SQLiteConnection", "SQLiteDialect", "open_harness_connection"]

#: The current time as the tables store it: ISO-8601 UTC text to the millisecond.
NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


def open_harness_connection(harness_path: Path, supplychain_path: Path) -> apsw.Connection:
    """``harness.db`` in WAL mode with sqlite-vec loaded, ``supplychain.db`` attached as
    ``supplychain`` (so ``supplychain.vessels`` resolves as on Oracle) and the emulated
    dictionary views created."""
    conn = apsw.Connection(str(harness_path))
    conn.set_busy_timeout(10_000)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("ATTACH DATABASE ? AS supplychain", (str(supplychain_path),))
    conn.execute(COMMENTS_DDL)
    create_dictionary_views(conn)
    return conn


def _dict_rows(cursor: apsw.Cursor) -> list[dict]:
    try:
        names = [d[0].lower() for d in cursor.get_description()]
    except apsw.ExecutionCompleteError:  # apsw: no rows means no description
        return []
    return [dict(zip(names, row)) for row in cursor.fetchall()]


class SQLiteDialect(Dialect):
    """SQLite's spelling: ``LIMIT``, ``ON CONFLICT``, ``json_extract``, FTS5 queries, vec0
    vectors as float32 bytes, times as ISO text."""

    name = "embedded"
    now = NOW
    # Left to itself SQLite re-runs a full-text MATCH for every row that joins a CTE.
    materialized = "MATERIALIZED"

    def limit(self, bind: str) -> str:
        return f"LIMIT :{bind}"

    def upsert(
        self,
        table: str,
        keys: Sequence[str],
        values: Mapping[str, str],
        update: Sequence[str] | None = None,
        append: Sequence[str] = (),
        touch: str | None = None,
    ) -> str:
        if update is None:
            update = [c for c in values if c not in keys and c not in append]
        sets = [f"{c} = excluded.{c}" for c in update]
        sets += [f"{c} = stored.{c} || excluded.{c}" for c in append]
        if sets and touch:
            sets.append(f"{touch} = {NOW}")
        action = f"DO UPDATE SET {', '.join(sets)}" if sets else "DO NOTHING"
        return (
            f"INSERT INTO {table} AS stored ({', '.join(values)})"
            f" VALUES ({', '.join(values.values())})"
            f" ON CONFLICT ({', '.join(keys)}) {action}"
        )

    def json_filter(self, column: str, key: str, value: Any) -> tuple[str, Any]:
        # json_extract reads JSON true/false as 1/0.
        return f"json_extract({column}, '$.{key}')", int(value) if isinstance(
            value, bool
        ) else value

    def text_query(self, text: str) -> str:
        """Each word becomes a quoted FTS5 string, joined by OR: no operator survives.

        ``\\w+`` keeps letters and digits of any script, so quotes, ``*``, ``-``, ``NEAR``,
        parentheses and column filters are never passed to FTS5 as syntax. At most 64
        distinct words are kept, common stop words dropped (see :func:`query_tokens`); no words
        gives ``""``, a valid query that matches nothing.
        """
        tokens = query_tokens(text)
        return " OR ".join(f'"{t}"' for t in tokens) if tokens else '""'

    def vector_bind(self, vector: Any) -> bytes:
        array = np.asarray(vector, dtype=np.float32)
        if array.shape != (DIMENSIONS,):
            raise BackendError(f"expected a vector of {DIMENSIONS} floats, got shape {array.shape}")
        return array.tobytes()


class SQLiteConnection(Connection):
    """``harness.db`` through apsw; every call holds the lock, a transaction is a savepoint.

    Args:
        harness_path: The harness database file.
        supplychain_path: The demo data file, attached as ``supplychain``.
    """

    dialect = SQLiteDialect()

    def __init__(self, harness_path: Path, supplychain_path: Path) -> None:
        super().__init__()
        self.conn = open_harness_connection(harness_path, supplychain_path)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        # apsw: `with conn:` is a savepoint; nested ones nest; an exception rolls back.
        with self.lock, self.conn:
            yield

    def query(self, sql: str, binds: Mapping[str, Any] | None = None) -> list[dict]:
        with self.lock:
            return _dict_rows(self._one_statement_cursor().execute(sql, binds or {}))

    def execute(self, sql: str, binds: Mapping[str, Any] | None = None) -> int:
        with self.lock:
            self._one_statement_cursor().execute(sql, binds or {}).fetchall()
            return self.conn.changes()

    def insert(self, sql: str, binds: Mapping[str, Any] | None = None) -> int:
        with self.lock:
            cursor = self._one_statement_cursor().execute(f"{sql} RETURNING id", binds or {})
            return int(cursor.fetchall()[0][0])

    def execute_many(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            with self.transaction():
                self.conn.executemany(sql, rows)

    def run_script_step(self, sql: str) -> None:
        """Run one DDL statement of a migration (a trigger body counts as one statement)."""
        with self.lock:
            self.conn.execute(sql)

    def close(self) -> None:
        self.conn.close()

    def _one_statement_cursor(self) -> apsw.Cursor:
        """A cursor that refuses a second statement: apsw would otherwise run every statement
        of a string, so text pasted into SQL could smuggle in a write."""
        cursor = self.conn.cursor()
        seen = []

        def trace(_cursor, statement, _bindings) -> bool:
            seen.append(statement)
            if len(seen) > 1:
                raise BackendError(
                    "only one SQL statement per call: remove everything after the first ';'"
                )
            return True

        cursor.exec_trace = trace
        return cursor
