"""Connecting to Oracle, and the harness owner's connection (:class:`OracleConnection`).

Three database users, created by the start-up scripts in ``setup/oracle/startdb/``:

* the harness owner (``WORKSHOP_ORACLE_USER``, DB_DEVELOPER_ROLE): every harness table;
* the read-only user behind ``run_sql`` (``WORKSHOP_ORACLE_RO_USER``): CREATE SESSION only, plus
  SELECT grants on the demo tables (:mod:`agent_harness.backends.oracle.readonly`);
* SUPPLYCHAIN (``WORKSHOP_ORACLE_SC_USER``): owns the demo tables
  (:mod:`agent_harness.backends.oracle.supplychain`).

:func:`connect_user` waits while the database is still opening (the listener answers before the
service is registered, and ``01_vector_pool.sh`` restarts the instance once per volume), and
fails at once when nothing listens: :func:`~agent_harness.backends.oracle.errors.
database_is_opening` tells the two apart.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import oracledb
import tenacity

from agent_harness.backends.connection import Connection
from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.compiled import run_ddl as run_compiled
from agent_harness.backends.oracle.dialect import OracleDialect, iso_text
from agent_harness.backends.oracle.errors import database_is_opening, hint, whole_text
from agent_harness.foundation.config import Settings

__all__ = [
    "CONNECT_TIMEOUT_S",
    "STARTUP_POLL_S",
    "STARTUP_WAIT_S",
    "OracleConnection",
    "bind_values",
    "connect_user",
    "dict_rows",
    "iso_text",
    "used_binds",
]

CONNECT_TIMEOUT_S = 5.0
STARTUP_WAIT_S = 90.0  # a database that is still opening (listener up, PDB not open yet)
STARTUP_POLL_S = 3.0


def used_binds(sql: str, binds: Any) -> Any:
    """Only the named binds the statement uses: oracledb refuses unknown names (DPY-4008),
    where SQLite ignores them, and backend-neutral callers may pass a few extra."""
    if not isinstance(binds, dict):
        return binds or {}
    names = {n.lower() for n in re.findall(r":([A-Za-z_][A-Za-z0-9_$#]*)", sql)}
    return {k: v for k, v in binds.items() if k.lower() in names}


def dict_rows(cursor) -> list[dict]:
    """The cursor's rows as dicts with lower-case keys ([] for a statement without rows)."""
    if cursor.description is None:
        return []
    names = [d[0].lower() for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def connect_user(
    settings: Settings, user: str, password: str, role: str, wait_s: float | None = None
) -> oracledb.Connection:
    """Connect one user, waiting while the database opens; every failure says what to do.

    Args:
        settings: Where (WORKSHOP_ORACLE_DSN).
        user: The user name.
        password: Its password.
        role: Which of the three users, for the message (``harness owner``, ...).
        wait_s: How long to keep trying while the database opens (default
            :data:`STARTUP_WAIT_S`); a refused port or a wrong password fails at once.

    Raises:
        BackendError: Nothing listens, wrong credentials, or the database never opened.
    """
    wait_s = STARTUP_WAIT_S if wait_s is None else wait_s
    # Try again every STARTUP_POLL_S while the database opens, unless the next try would start
    # after wait_s; any other failure (nothing listens, a wrong password) ends it at once.
    attempts = tenacity.Retrying(
        retry=tenacity.retry_if_exception(
            lambda e: isinstance(e, oracledb.Error) and database_is_opening(e)
        ),
        wait=tenacity.wait_fixed(STARTUP_POLL_S),
        stop=tenacity.stop_before_delay(wait_s),
        reraise=True,
    )
    try:
        return attempts(
            oracledb.connect,
            user=user,
            password=password,
            dsn=settings.oracle_dsn,
            tcp_connect_timeout=CONNECT_TIMEOUT_S,
        )
    except oracledb.Error as e:
        waited = f" (still opening after {wait_s:g} s)" if database_is_opening(e) else ""
        raise BackendError(
            f"cannot connect to Oracle at {settings.oracle_dsn} as {user} ({role}){waited}:"
            f" {whole_text(e)}{hint(e)}. Start the database with `docker compose up -d"
            " oracle` and wait until `docker compose ps` says healthy; check"
            " WORKSHOP_ORACLE_DSN (host:port/service). Or use WORKSHOP_BACKEND=embedded"
            " (no server needed)."
        ) from e


def bind_values(cur, sql: str, binds: Any) -> Any:
    """The binds the statement uses; datetimes typed as TIMESTAMP (python-oracledb binds a
    ``datetime`` as DATE, which drops the fractional seconds: ``OracleMetadata.from_value``
    in its ``impl/base/metadata.pyx``; "Binding Dates and Timestamps" in its user guide)."""
    used = used_binds(sql, binds)
    if isinstance(used, dict):
        _type_timestamps(cur, [used])
    return used


def _type_timestamps(cur, rows: Sequence[Mapping[str, Any]]) -> None:
    """Bind every name that holds a ``datetime`` in any row as TIMESTAMP, not DATE."""
    stamps = {
        name: oracledb.DB_TYPE_TIMESTAMP
        for row in rows
        for name, value in row.items()
        if isinstance(value, dt.datetime)
    }
    if stamps:
        cur.setinputsizes(**stamps)


class OracleConnection(Connection):
    """The harness owner's connection: every call holds the lock; a transaction commits at
    the outermost level and a nested block rolls back to its own savepoint.

    Args:
        conn: An open python-oracledb connection of the harness owner.
    """

    dialect = OracleDialect()

    def __init__(self, conn: oracledb.Connection) -> None:
        super().__init__()
        self.conn = conn
        self._depth = 0

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.lock:
            savepoint = f"workshop_sp{self._depth}" if self._depth else None
            if savepoint:
                self._run(f"SAVEPOINT {savepoint}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if savepoint:
                    self._run(f"ROLLBACK TO SAVEPOINT {savepoint}")
                else:
                    self.conn.rollback()
                raise
            self._depth -= 1
            if not savepoint:
                self.conn.commit()

    def _run(self, sql: str) -> None:
        with self.conn.cursor() as cur:
            cur.execute(sql)

    _binds = staticmethod(bind_values)

    def query(self, sql: str, binds: Mapping[str, Any] | None = None) -> list[dict]:
        with self.lock, self.conn.cursor() as cur:
            cur.execute(sql, self._binds(cur, sql, binds), fetch_lobs=False)
            return dict_rows(cur)

    def execute(self, sql: str, binds: Mapping[str, Any] | None = None) -> int:
        with self.transaction(), self.conn.cursor() as cur:
            try:
                cur.execute(sql, self._binds(cur, sql, binds))
            except oracledb.IntegrityError:
                # Two first writers of one key both took MERGE's insert branch: the loser's
                # second try finds the row and takes the update branch.
                if not sql.lstrip().upper().startswith("MERGE"):
                    raise
                cur.execute(sql, self._binds(cur, sql, binds))
            return cur.rowcount

    def insert(self, sql: str, binds: Mapping[str, Any] | None = None) -> int:
        with self.transaction(), self.conn.cursor() as cur:
            new_id = cur.var(oracledb.DB_TYPE_NUMBER)
            values = {**self._binds(cur, sql, binds), "new_id": new_id}
            cur.execute(f"{sql} RETURNING id INTO :new_id", values)
            return int(new_id.getvalue()[0])

    def execute_many(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            binds = [used_binds(sql, dict(r)) for r in rows]
            with self.transaction(), self.conn.cursor() as cur:
                _type_timestamps(cur, binds)  # any row's datetime: one type for the column
                cur.executemany(sql, binds)

    def run_ddl(self, sql: str) -> None:
        """Run one DDL statement or PL/SQL block outside any savepoint (Oracle DDL commits by
        itself, so a savepoint set before it would be gone).

        Raises:
            CompilationFailed: A stored unit or view was created with compilation errors
                (:func:`~agent_harness.backends.oracle.compiled.run_ddl`).
        """
        with self.lock, self.conn.cursor() as cur:
            run_compiled(cur, sql)

    def text(self, value: str | None) -> Any:
        """A str bound for a CLOB: a temporary LOB when long or empty. A str over 32 KB would
        bind as LONG, which SQL functions refuse, and Oracle reads '' as NULL."""
        if value is None:
            return None
        if not value or len(value.encode("utf-8", "surrogatepass")) > 4000:
            return self.conn.createlob(oracledb.DB_TYPE_CLOB, value)
        return value

    def close(self) -> None:
        try:
            self.conn.close()
        except oracledb.Error:
            pass  # already broken: nothing left to close
