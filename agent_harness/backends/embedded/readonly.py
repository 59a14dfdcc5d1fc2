"""The read-only SQL connection behind ``run_sql`` on the embedded backend.

Read-only by construction, in three independent layers (facts measured on SQLite 3.40-3.54):

1. The demo database is attached with ``mode=ro`` to a private in-memory main database.
   Alone this is NOT enough: ``ATTACH`` another file and write there, or ``VACUUM INTO``, still
   work on a ``mode=ro`` connection.
2. An ALLOWLIST authorizer: only SELECT, column reads, functions (minus a deny list), recursive
   CTEs and a few introspection pragmas are authorised. INSERT/UPDATE/DELETE (also behind a
   ``WITH`` prefix), DDL, ATTACH/DETACH, transactions, ANALYZE, writing pragmas and anything
   unknown are denied. A "starts with SELECT/WITH" check could never see a CTE-prefixed DELETE.
3. Every prepared statement must report ``sqlite3_stmt_readonly()`` true and start with SELECT,
   WITH or VALUES (a no-op such as ``DROP TRIGGER IF EXISTS missing`` passes the first two), and
   only one statement runs per call (the exec tracer refuses the second).

Plus a time limit (progress handler) and a row cap.

Under an identity (:class:`~agent_harness.foundation.identity.Identity`) the connection also
enforces its access policy: filtered copies of the identity's rows, refilled before a statement
when the data changed, and the same authorizer refusing or blanking reads
(:mod:`agent_harness.backends.embedded.guard`, :mod:`agent_harness.backends.embedded.copies`),
bound when the connection opens.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

import apsw

from agent_harness.backends.embedded.dictionary import USER_TABLES_SQL, create_dictionary_views
from agent_harness.backends.embedded.documents import create_document_views, register_etag
from agent_harness.backends.embedded.guard import IdentityGuard
from agent_harness.backends.errors import (
    AccessDenied,
    BackendError,
    BindError,
    ReadOnlyViolation,
)
from agent_harness.backends.roles.supplychain import ReadOnlyResult
from agent_harness.foundation.identity import Identity

__all__ = ["ReadOnlyConnection"]

_ALLOWED_ACTIONS = {apsw.SQLITE_SELECT, apsw.SQLITE_READ, apsw.SQLITE_RECURSIVE}
# Pragmas that only read the schema (also reached through pragma_table_info() etc.).
_ALLOWED_PRAGMAS = {
    "table_info",
    "table_xinfo",
    "foreign_key_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "table_list",
    "data_version",
}
_DENIED_FUNCTIONS = {"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit"}
_STEPS_PER_CHECK = 1000
# The statements a query may start with (the authorizer and stmt_readonly check the rest).
_QUERY_KEYWORDS = {"SELECT", "WITH", "VALUES"}


class _TooSlow(Exception):
    pass


class ReadOnlyConnection:
    """One read-only connection to ``supplychain.db``; thread-safe, one statement at a time.

    Args:
        supplychain_path: The demo data file (opened read-only).
        identity: Whose policy the connection enforces; None or the owner: none.
    """

    def __init__(self, supplychain_path: Path, identity: Identity | None = None):
        self._lock = threading.Lock()
        self.conn = apsw.Connection(
            ":memory:",
            flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_URI,
        )
        # A writer's commit locks the file for a moment: wait for it, as the other
        # connections do, instead of failing with "database is locked".
        self.conn.set_busy_timeout(10_000)
        uri = Path(supplychain_path).resolve().as_uri() + "?mode=ro"
        self.conn.execute("ATTACH DATABASE ? AS supplychain", (uri,))
        # Unqualified names work too, as for an Oracle user whose CURRENT_SCHEMA is SUPPLYCHAIN.
        tables = [r[0] for r in self.conn.execute(USER_TABLES_SQL)]
        guarded = identity is not None and not identity.owner
        self.guard = IdentityGuard(identity, copies=True) if guarded else None
        if self.guard is not None:
            self.guard.install(self.conn, tables)
        else:
            for table in tables:
                self.conn.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM supplychain.{table}")
        create_dictionary_views(self.conn)
        register_etag(self.conn)
        create_document_views(self.conn, tables)
        self.conn.execute("PRAGMA query_only = 1")
        self.conn.authorizer = self._authorize
        self._deadline = 0.0
        self.conn.set_progress_handler(self._progress, _STEPS_PER_CHECK)
        self.denied: list[str] = []

    def close(self) -> None:
        self.conn.close()

    def _authorize(self, action, arg1, arg2, dbname, trigger_or_view):
        if action == apsw.SQLITE_READ and self.guard is not None:
            return self.guard.read(arg1, arg2, dbname, trigger_or_view)
        if action in _ALLOWED_ACTIONS:
            return apsw.SQLITE_OK
        if action == apsw.SQLITE_FUNCTION and (arg2 or "").lower() not in _DENIED_FUNCTIONS:
            return apsw.SQLITE_OK
        if action == apsw.SQLITE_PRAGMA and (arg1 or "").lower() in _ALLOWED_PRAGMAS:
            # data_version takes no value; a value would be an attempt to set something.
            if (arg1 or "").lower() != "data_version" or arg2 is None:
                return apsw.SQLITE_OK
        name = apsw.mapping_authorizer_function.get(action, str(action))
        self.denied.append(f"{name} {arg1 or ''} {arg2 or ''}".strip())
        return apsw.SQLITE_DENY

    def _progress(self) -> bool:
        return time.monotonic() > self._deadline  # True interrupts the statement

    def run(self, sql: str, binds: dict, max_rows: int, timeout_s: float) -> ReadOnlyResult:
        """Run one read-only statement; see the module docstring for the guarantees.

        Raises:
            ReadOnlyViolation: The statement would change something.
            BackendError: Syntax error, several statements, time limit, or another SQL error.
        """
        if not isinstance(sql, str) or not sql.strip():
            raise BackendError("empty SQL: send one SELECT statement")
        if self.guard is not None:
            sql = self.guard.rewrite(sql)
        with self._lock:
            self.denied = []
            if self.guard is not None:
                self._deadline = float("inf")  # the refill is the policy's, not the statement's
                self.guard.refresh(self.conn)  # the data changed since: copy the rows again
                self.guard.denied = self.denied  # one list: what this statement was refused
            seen: list[str] = []
            columns: list[str] = []

            def trace(cursor: apsw.Cursor, statement: str, bindings: Any) -> bool:
                seen.append(statement)
                if len(seen) > 1:
                    return False  # abort: only one statement per call
                keyword = _first_keyword(statement)
                if not cursor.is_readonly or keyword not in _QUERY_KEYWORDS:
                    raise ReadOnlyViolation(
                        f"read-only connection: a {keyword or 'statement'} statement cannot run"
                        " here. Only one SELECT (or WITH ... SELECT) query is allowed."
                    )
                columns.extend(d[0] for d in cursor.description)
                return True

            cursor = self.conn.cursor()
            cursor.exec_trace = trace
            self._deadline = time.monotonic() + timeout_s
            rows: list[list[Any]] = []
            truncated = False
            try:
                for row in cursor.execute(sql, binds):
                    if len(rows) >= max_rows:
                        truncated = True
                        break
                    rows.append(list(row))
            except ReadOnlyViolation:
                raise
            except apsw.ExecTraceAbort as e:
                raise BackendError(
                    "only one SQL statement per call: remove everything after the first ';'"
                ) from e
            except apsw.AuthError as e:
                if self.guard is not None and any(d.startswith("read of") for d in self.denied):
                    raise AccessDenied(
                        f"refused by the access policy of {self.guard.identity.user}:"
                        f" {'; '.join(self.denied)}. Only your identity's rows are readable."
                    ) from e
                raise ReadOnlyViolation(
                    "read-only connection: this statement is not allowed"
                    f" ({'; '.join(self.denied) or e}). Only SELECT queries can run here."
                ) from e
            except apsw.InterruptError as e:
                raise BackendError(
                    f"query stopped after the {timeout_s:g} s time limit: add filters or"
                    " aggregate first"
                ) from e
            except apsw.BindingsError as e:
                raise BackendError(f"bind values do not match the statement: {e}") from e
            except KeyError as e:
                raise BackendError(
                    f"the statement uses :{e.args[0]} but no value was given for it: add"
                    f" {e.args[0]!r} to the binds"
                ) from e
            except TypeError as e:
                raise BackendError(
                    f"bind values must be text, numbers or null ({e}): pass one plain value per"
                    " name"
                ) from e
            except OverflowError as e:
                raise BindError(
                    f"a bind value does not fit the database ({e}): integers must fit 64 bits"
                ) from e
            except apsw.Error as e:
                raise BackendError(f"{type(e).__name__.replace('Error', ' error')}: {e}") from e
            finally:
                cursor.close(force=True)
            if not seen:
                raise BackendError("no SQL statement found (only comments or ';'): send a SELECT")
            return ReadOnlyResult(columns=columns, rows=rows, truncated=truncated)


def _first_keyword(statement: str) -> str:
    """The statement's first word after comments, upper-case (a check on top of the others)."""
    text = statement
    while True:
        text = text.lstrip()
        if text.startswith("--"):
            text = text.partition("\n")[2]
        elif text.startswith("/*"):
            text = text.partition("*/")[2]
        else:
            break
    match = re.match(r"[A-Za-z]+", text)
    return match.group(0).upper() if match else ""
