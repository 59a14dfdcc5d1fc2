"""The one connection object of a backend, and the SQL spelling of its dialect.

Every role object (:mod:`agent_harness.backends.roles`) reads and writes the harness tables
through a :class:`Connection` and nothing else: ``query``, ``execute``, ``insert`` (a new id),
``transaction`` (the lock, commit or roll back together), plus the bind conversions a dialect
needs (``text`` for long text, ``time`` / ``read_time`` for timestamps). The few places where
the two dialects spell the same statement differently are the :class:`Dialect`'s methods
(``limit``, ``upsert``, JSON in and out); a role writes everything else once.
"""

from __future__ import annotations

import abc
import datetime as dt
import threading
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

__all__ = ["Connection", "Dialect", "iso_time_text", "parse_iso_time"]


def iso_time_text(value: dt.datetime | None) -> str | None:
    """A datetime as ISO-8601 UTC text to the millisecond (``2026-11-23T10:15:02.123Z``)."""
    if value is None:
        return None
    value = value.astimezone(dt.timezone.utc) if value.tzinfo else value
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def parse_iso_time(text: Any) -> dt.datetime | None:
    """ISO text (or a datetime) as an aware UTC datetime; None stays None."""
    if text is None:
        return None
    if isinstance(text, dt.datetime):
        return text if text.tzinfo else text.replace(tzinfo=dt.timezone.utc)
    return dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))


class Dialect(abc.ABC):
    """How one SQL dialect spells what the other spells differently. No connection, no state.

    Defaults follow standard SQL where both dialects agree; a dialect overrides the rest.
    """

    #: The backend's name (``embedded``, ``oracle``).
    name: str = "abstract"
    #: SQL for the current time as the tables store it.
    now: str = "CURRENT_TIMESTAMP"
    #: The hint that makes a common table expression run once (SQLite ``MATERIALIZED``).
    materialized: str = ""

    @abc.abstractmethod
    def limit(self, bind: str) -> str:
        """The clause that keeps the first ``:bind`` rows of an ordered query."""

    @abc.abstractmethod
    def upsert(
        self,
        table: str,
        keys: Sequence[str],
        values: Mapping[str, str],
        update: Sequence[str] | None = None,
        append: Sequence[str] = (),
        touch: str | None = None,
    ) -> str:
        """One statement that inserts a row or, when its ``keys`` exist, updates it.

        Args:
            table: The table (written into SQL: only the harness's own names).
            keys: The columns of the unique key that decides insert vs update.
            values: Every column to insert -> the SQL of its new value (``:name`` or
                ``JSON(:name)``); each bind appears once.
            update: The columns an existing row takes from the new values (default: every
                non-key column); ``[]`` leaves an existing row alone (insert if missing).
            append: Columns whose new value is appended to the stored one (``old || new``).
            touch: A timestamp column set to now when a row is updated.
        """

    @abc.abstractmethod
    def json_filter(self, column: str, key: str, value: Any) -> tuple[str, Any]:
        """The SQL of ``key`` read from the JSON text of ``column``, to compare with ``value``,
        and the bind value to compare it with (booleans and numbers as the dialect reads them).
        ``key`` has been checked: letters, digits and ``_``."""

    def json_in(self, bind: str) -> str:
        """The SQL of a JSON text bind stored into a JSON column."""
        return f":{bind}"

    def json_out(self, column: str) -> str:
        """A JSON column read back as JSON text."""
        return column

    def time_text(self, column: str) -> str:
        """A timestamp column read back as ISO-8601 UTC text."""
        return column

    def time(self, value: dt.datetime | None) -> Any:
        """A datetime as a bind value comparable with the stored timestamps."""
        return iso_time_text(value)

    def read_time(self, value: Any) -> dt.datetime | None:
        """A fetched timestamp as an aware UTC datetime."""
        return parse_iso_time(value)

    @abc.abstractmethod
    def text_query(self, text: str) -> str:
        """Any user text as a safe full-text query of this dialect (never raises): each word
        quoted, so no operator of the full-text syntax survives."""

    @abc.abstractmethod
    def vector_bind(self, vector: Any) -> Any:
        """A query or stored vector as this dialect binds it (checked: 384 float32 values)."""


class Connection(abc.ABC):
    """The harness connection: a lock, a transaction, and plain SQL with named binds.

    Every method takes the lock, so a tool running in another thread (a timed-out call, the
    MCP server) never writes inside someone else's transaction.

    Attributes:
        dialect: How this database spells what differs (:class:`Dialect`).
        lock: Held by every call and for the whole of a transaction (re-entrant).
    """

    dialect: Dialect

    def __init__(self) -> None:
        self.lock = threading.RLock()

    @abc.abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """Hold the lock; everything inside commits together or not at all (nested blocks are
        savepoints)."""

    @abc.abstractmethod
    def query(self, sql: str, binds: Mapping[str, Any] | None = None) -> list[dict]:
        """Rows as dicts with lower-case keys; large text already read into ``str``."""

    @abc.abstractmethod
    def execute(self, sql: str, binds: Mapping[str, Any] | None = None) -> int:
        """Run one statement; return how many rows it changed."""

    @abc.abstractmethod
    def insert(self, sql: str, binds: Mapping[str, Any] | None = None) -> int:
        """Run one ``INSERT`` into a table with an ``id`` identity column; return the new id."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close the database connection."""

    def execute_many(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run one statement once per bind set, in one transaction."""
        with self.transaction():
            for row in rows:
                self.execute(sql, row)

    def text(self, value: str | None) -> Any:
        """A ``str`` bound for a large-text column (Oracle: a CLOB when long or empty)."""
        return value
