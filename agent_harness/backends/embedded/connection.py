"""The embedded backend's connection: open ``harness.db`` with sqlite-vec and the demo data
attached, and run plain SQL on it one statement at a time.

Why apsw and not the standard ``sqlite3``: many Pythons (pyenv builds, some laptops) are built
without extension loading, and sqlite-vec is an extension. apsw bundles a current SQLite and loads
extensions everywhere, from wheels.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

import apsw
import sqlite_vec

from agent_harness.backends.base import BackendError
from agent_harness.backends.embedded.dictionary import COMMENTS_DDL, create_dictionary_views

__all__ = ["PlainSQL", "open_harness_connection"]


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


class PlainSQL:
    """Mixin for :class:`~agent_harness.backends.embedded.EmbeddedBackend`: ``query``,
    ``execute`` and ``transaction`` on the harness connection. Needs ``self.conn`` and
    ``self._lock``."""

    def transaction(self) -> AbstractContextManager[None]:
        # apsw: `with conn:` is a savepoint; nested ones nest; an exception rolls back.
        return self.conn

    def query(self, sql: str, binds: dict | None = None) -> list[dict]:
        with self._lock:
            return _dict_rows(self._one_statement_cursor().execute(sql, binds or {}))

    def execute(self, sql: str, binds: dict | None = None) -> None:
        with self._lock:
            self._one_statement_cursor().execute(sql, binds or {}).fetchall()

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
