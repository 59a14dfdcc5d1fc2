"""``run_sql`` on Oracle: a statement check, then the read-only user runs it.

The read-only user itself is the guard: CREATE SESSION and SELECT grants on the demo tables only
(granted by :mod:`agent_harness.backends.oracle.supplychain`), so the database refuses any write.
:func:`screen_readonly_sql` comes first so the refusal is clear and nothing reaches the database
that could lock rows or run PL/SQL. Time limit: the connection's ``call_timeout``; row cap: the
fetch.

Under an identity the session is bound to it right after it connects
(:mod:`agent_harness.backends.oracle.guardrails`): SUPPLYCHAIN issues a one-time ticket, the
session hands it to ``workshop_identity.bind_session``, and the VPD policies filter and mask
by it for the rest of the session. The owner's session binds too (every region, unmasked):
a session that bound nothing sees no voyage rows.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import oracledb

from agent_harness.backends.errors import BackendError, ReadOnlyViolation
from agent_harness.backends.oracle.connection import connect_user, used_binds
from agent_harness.backends.oracle.errors import (
    error_code,
    first_line,
    full_code,
    hint,
    whole_text,
)
from agent_harness.backends.oracle.guardrails import BIND_SQL
from agent_harness.backends.roles.supplychain import ReadOnlyResult
from agent_harness.foundation.config import Settings
from agent_harness.foundation.identity import Identity
from agent_harness.supplychain.schema import OWNER

__all__ = ["ReadOnlySession", "column_label", "plain_value", "screen_readonly_sql"]

_QUERY_KEYWORDS = ("SELECT", "WITH")
_Q_QUOTE_CLOSE = {"[": "]", "{": "}", "<": ">", "(": ")"}


def _mask(sql: str) -> str:
    """The SQL with comments and the insides of literals and quoted names blanked out.

    Same length as the input, so a position in the mask is a position in the SQL. Handles
    ``--`` and ``/* */`` comments, ``'...'`` (with ``''``), ``"names"`` and Oracle's
    alternative quoting ``q'[...]'`` / ``nq'{...}'`` with any delimiter.
    """
    out = list(sql)
    i, n = 0, len(sql)

    def blank(start: int, end: int) -> None:
        for j in range(start, min(end, n)):
            if out[j] not in "\r\n":
                out[j] = " "

    while i < n:
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif sql[i] in "qQ" and sql[i + 1 : i + 2] == "'" and i + 2 < n and _starts_q(sql, i):
            close = _Q_QUOTE_CLOSE.get(sql[i + 2], sql[i + 2])
            end = sql.find(close + "'", i + 3)
            end = n if end < 0 else end + 2
            blank(i + 2, end - 1)
            i = end
        elif sql[i] == "'":
            j = i + 1
            while j < n:
                if sql[j] == "'" and j + 1 < n and sql[j + 1] == "'":
                    j += 2
                elif sql[j] == "'":
                    break
                else:
                    j += 1
            blank(i + 1, j)
            i = j + 1
        elif sql[i] == '"':
            end = sql.find('"', i + 1)
            end = n if end < 0 else end
            blank(i + 1, end)
            i = end + 1
        else:
            i += 1
    return "".join(out)


def _starts_q(sql: str, i: int) -> bool:
    """True when the q at ``i`` opens q'...' quoting (alone, or after the N of nq'...')."""
    before = sql[i - 1] if i else " "
    if before in "nN":
        before = sql[i - 2] if i > 1 else " "
    return not (before.isalnum() or before in "_$#")


def screen_readonly_sql(sql: str) -> str:
    """Check a statement for the read-only user; return it ready to run (trailing ``;`` cut).

    The read-only user itself is the guard (CREATE SESSION and SELECT grants only). This check
    comes first so the refusal is clear and nothing reaches the database that could lock rows
    or run PL/SQL: exactly one statement, starting with SELECT or WITH, no INSERT, UPDATE,
    DELETE or MERGE behind a WITH, no ``WITH FUNCTION`` / ``WITH PROCEDURE`` (PL/SQL inside a
    query), no ``FOR UPDATE`` (row locks).

    Raises:
        ReadOnlyViolation: The statement is not a plain query.
        BackendError: Empty SQL, only comments, or more than one statement.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise BackendError("empty SQL: send one SELECT statement")
    masked = _mask(sql)
    end = len(masked.rstrip())
    while end and masked[end - 1] == ";":  # a trailing ';' is harmless: drop it
        end = len(masked[: end - 1].rstrip())
    statement, masked = sql[:end], masked[:end]
    if not masked.strip():
        raise BackendError("no SQL statement found (only comments or ';'): send a SELECT")
    upper = masked.upper()
    match = re.match(r"[\s(]*([A-Z]+)", upper)
    keyword = match.group(1) if match else ""
    if keyword not in _QUERY_KEYWORDS:
        raise ReadOnlyViolation(
            f"read-only connection: a {keyword or 'statement'} statement cannot run here."
            " Only one SELECT (or WITH ... SELECT) query is allowed."
        )
    if re.search(r"\bFOR\s+UPDATE\b", upper):
        raise ReadOnlyViolation(
            "read-only connection: SELECT ... FOR UPDATE locks rows and is not allowed here."
            " Send the SELECT without FOR UPDATE."
        )
    if re.search(r"\bWITH\s+(FUNCTION|PROCEDURE)\b", upper):
        raise ReadOnlyViolation(
            "read-only connection: WITH FUNCTION / WITH PROCEDURE runs PL/SQL and is not"
            " allowed here. Send a plain SELECT."
        )
    if ";" in masked:
        raise BackendError("only one SQL statement per call: remove everything after the first ';'")
    hidden = re.search(r"\b(INSERT|UPDATE|DELETE|MERGE)\b", upper)
    if hidden:  # e.g. WITH x AS (SELECT 1) DELETE FROM ...
        raise ReadOnlyViolation(
            f"read-only connection: a {hidden.group(1)} cannot run here, not even behind WITH."
            " Only one SELECT (or WITH ... SELECT) query is allowed."
        )
    return statement


def column_label(name: str) -> str:
    """A result column's name as the user wrote it: Oracle upper-cases unquoted aliases."""
    return name.lower() if name == name.upper() else name


def plain_value(value: Any) -> Any:
    """Objects to plain values: an SDO_GEOMETRY point becomes WKT text."""
    if isinstance(value, oracledb.DbObject):
        point = getattr(value, "SDO_POINT", None) if value.type.name == "SDO_GEOMETRY" else None
        if point is not None:
            return f"POINT ({point.X} {point.Y})"
        return f"<{value.type.schema}.{value.type.name}>"
    return value


class ReadOnlySession:
    """The read-only user's own connection (opened on first use) and ``run_sql`` on it.

    Args:
        settings: WORKSHOP_ORACLE_DSN and the read-only user's name and password.
        identity: Whose policy the session is bound to (None: the owner).
        issue_ticket: Writes a one-time ticket for an identity and returns it (SUPPLYCHAIN's
            connection); None: the session binds nothing.
    """

    def __init__(
        self,
        settings: Settings,
        identity: Identity | None = None,
        issue_ticket: Callable[[Identity], str | None] | None = None,
    ) -> None:
        self.settings = settings
        self.identity = identity
        self.issue_ticket = issue_ticket
        self.lock = threading.Lock()
        self._conn: oracledb.Connection | None = None

    def connection(self) -> oracledb.Connection:
        """The open connection (call with :attr:`lock` held)."""
        if self._conn is None:
            s = self.settings
            conn = connect_user(s, s.oracle_ro_user, s.oracle_ro_password, "read-only user")
            with conn.cursor() as cur:  # unqualified names resolve as on SQLite: vessels
                cur.execute(f"ALTER SESSION SET CURRENT_SCHEMA = {OWNER}")
            self._bind(conn)
            self._conn = conn
        return self._conn

    def _bind(self, conn: oracledb.Connection) -> None:
        """Bind the session to its identity, once (see the module docstring).

        Raises:
            BackendError: An identity could not be bound (the policy is missing or the ticket
                was refused): nothing runs unfiltered under an identity. The owner's session
                goes on unbound only where no policy is installed (no tickets table, no
                package: then nothing filters its rows either); a refused ticket raises for
                the owner too, or it would silently see no protected rows.
        """
        if self.issue_ticket is None:
            return
        identity = self.identity or Identity.owner_of(self.settings.user_id)
        absent = False
        try:
            ticket = self.issue_ticket(identity)
            if ticket is None:
                absent = True
                raise BackendError("the identity_tickets table does not exist (ORA-00942)")
            with conn.cursor() as cur:
                cur.execute(BIND_SQL, {"ticket": ticket})
        except (oracledb.DatabaseError, BackendError) as e:
            # PLS-00201: the package is not there (a schema loaded before the policy existed)
            absent = absent or "PLS-00201" in whole_text(e)
            if identity.owner and absent:
                return  # no policy installed: nothing filters the owner's rows either
            conn.close()
            detail = whole_text(e)
            why = (
                "the access policy is not installed"
                if absent
                else "the identity ticket was refused or could not be issued"
            )
            raise BackendError(
                f"cannot bind the identity {identity.user!r} to the read-only session: {why}"
                f" ({detail}). The access policy is installed by `workshop setup --backend"
                " oracle`; run it again. Nothing was read."
            ) from e

    def drop(self) -> None:
        """Close the connection; a new one opens next time."""
        if self._conn is not None:
            try:
                self._conn.close()
            except oracledb.Error:
                pass  # broken by the interrupted call: a new one opens next time
            self._conn = None

    def query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        """Screen the statement, then run it as the read-only user (see the module)."""
        statement = screen_readonly_sql(sql)
        max_rows = max(1, int(max_rows))
        with self.lock:
            conn = self.connection()
            conn.call_timeout = max(1, int(timeout_s * 1000))
            try:
                with conn.cursor() as cur:
                    cur.arraysize = min(max_rows + 1, 1000)
                    cur.execute(statement, used_binds(statement, binds), fetch_lobs=False)
                    if cur.description is None:
                        raise ReadOnlyViolation(
                            "read-only connection: only queries that return rows can run here"
                        )
                    columns = [column_label(d[0]) for d in cur.description]
                    fetched = cur.fetchmany(max_rows + 1)
                conn.rollback()  # nothing to undo after a query; keeps the session clean
            except oracledb.Error as e:
                raise self._error(e, timeout_s) from e
        rows = [[plain_value(v) for v in row] for row in fetched[:max_rows]]
        return ReadOnlyResult(columns=columns, rows=rows, truncated=len(fetched) > max_rows)

    def _error(self, error: oracledb.Error, timeout_s: float) -> BackendError:
        full = full_code(error)
        if full == "DPY-4024" or error_code(error) in (1013, 3156):
            self.drop()
            return BackendError(
                f"query stopped after the {timeout_s:g} s time limit: add filters or aggregate"
                " first"
            )
        if full.startswith("DPY-1") or full.startswith("DPY-4011"):
            self.drop()
        if error_code(error) == 1031:
            return ReadOnlyViolation(
                "read-only connection: this statement is not allowed (ORA-01031: insufficient"
                " privileges). Only SELECT queries on SUPPLYCHAIN can run here."
            )
        if error_code(error) == 942:
            return BackendError(
                f"SQL error: {first_line(error)}. Tables are supplychain.<table>: carriers,"
                " ports, vessels, voyages, vessel_positions, containers, cargo_items."
            )
        return BackendError(f"SQL error: {first_line(error)}{hint(error)}")
