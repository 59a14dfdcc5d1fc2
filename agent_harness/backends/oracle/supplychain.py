"""The SUPPLYCHAIN demo data on Oracle, owned by the SUPPLYCHAIN user.

Tables are created from :mod:`agent_harness.supplychain.schema` with real ``COMMENT ON``
comments (the catalog scanner reads them from ALL_TAB_COMMENTS / ALL_COL_COMMENTS), primary and
foreign keys as named constraints, and SELECT grants for the harness owner and the read-only
user. Ports and vessel positions also get an INVISIBLE ``location SDO_GEOMETRY`` point.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import oracledb

from agent_harness.backends.connection import Connection
from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.compiled import create_unless_unchanged, run_ddl
from agent_harness.backends.oracle.connection import bind_values, connect_user
from agent_harness.backends.oracle.documents import duality_view_sql
from agent_harness.backends.oracle.errors import error_code, first_line, hint
from agent_harness.backends.oracle.guardrails import (
    TICKET_SQL,
    TICKETS_DDL,
    install_statements,
    new_ticket,
)
from agent_harness.backends.oracle.readonly import ReadOnlySession
from agent_harness.backends.roles.documents import DOCUMENTS
from agent_harness.backends.roles.supplychain import ReadOnlyResult, SupplyChain
from agent_harness.foundation.config import Settings
from agent_harness.foundation.identity import Identity
from agent_harness.supplychain.schema import OWNER

__all__ = ["LOCATED", "OracleSupplyChain", "create_table_sql", "identifier", "sql_literal"]

_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]{0,127}$")
# A statement that creates a relation the harness and run_sql must be able to read.
_CREATED = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|PRIVATE)\s+TEMPORARY\s+)?"
    r"(?:(?:NO\s+)?FORCE\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"(?:(?P<schema>\w+)\.)?(?P<name>\w+)",
    re.IGNORECASE,
)
# Tables whose rows are points: they get an invisible SDO_GEOMETRY column next to lat/lon.
LOCATED = {"ports", "vessel_positions"}


def input_type(column) -> Any:
    """What executemany binds for a column (the first row may hold None)."""
    if column.type == "text":
        return column.length or 4000
    if column.type in ("int", "decimal"):
        return oracledb.DB_TYPE_NUMBER
    return oracledb.DB_TYPE_DATE if column.type == "date" else oracledb.DB_TYPE_TIMESTAMP


def sql_literal(text: str) -> str:
    """A SQL string literal (COMMENT ON takes no binds)."""
    return "'" + str(text).replace("'", "''") + "'"


def identifier(name: str) -> str:
    """A plain identifier, upper case (names are put into SQL: nothing else passes)."""
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a plain identifier (letters, digits, _ $ #)")
    return name.upper()


def create_table_sql(table) -> str:
    """``CREATE TABLE`` for one table of the demo schema (run as SUPPLYCHAIN)."""
    lines = []
    for column in table.columns:
        line = f"{column.name} {column.declared_type}"
        if not column.nullable or column.name == table.primary_key:
            line += " NOT NULL"
        lines.append(line)
    if table.name in LOCATED:
        # INVISIBLE: left out of SELECT *, so run_sql results match the embedded backend. It IS
        # listed in ALL_TAB_COLUMNS, with a NULL COLUMN_ID (only hidden, system-generated
        # columns are not): the catalog scanner's COLUMNS_SQL filters on column_id IS NOT NULL.
        lines.append("location SDO_GEOMETRY INVISIBLE")
    lines.append(f"CONSTRAINT {table.name}_pk PRIMARY KEY ({table.primary_key})")
    for column in table.unique:
        lines.append(f"CONSTRAINT {table.name}_{column}_uk UNIQUE ({column})")
    for fk in table.foreign_keys:
        lines.append(
            f"CONSTRAINT {table.name}_{fk.column}_fk FOREIGN KEY ({fk.column})"
            f" REFERENCES {fk.ref_table} ({fk.ref_column})"
        )
    return f"CREATE TABLE {table.name} (\n  " + ",\n  ".join(lines) + "\n)"


def comment_table(cur, table) -> None:
    """``COMMENT ON`` the table and each of its columns."""
    cur.execute(f"COMMENT ON TABLE {table.name} IS {sql_literal(table.comment)}")
    for column in table.columns:
        comment = sql_literal(column.comment)
        cur.execute(f"COMMENT ON COLUMN {table.name}.{column.name} IS {comment}")
    if table.name in LOCATED:
        cur.execute(
            f"COMMENT ON COLUMN {table.name}.location IS 'Invisible SDO_GEOMETRY point"
            " (SDO_GTYPE 2001, SRID 4326: longitude, latitude) for spatial queries'"
        )


class OracleSupplyChain(SupplyChain):
    """The demo schema, loaded and commented as SUPPLYCHAIN (its own connection, opened on
    first use), and ``run_sql`` as the read-only user.

    Args:
        db: The harness owner's connection (it reads the demo tables through its grants).
        settings: The users' names and passwords.
        identity: Whose access policy the read-only session is bound to (None: the owner).
    """

    def __init__(
        self, db: Connection, settings: Settings, identity: Identity | None = None
    ) -> None:
        self.db = db
        self.settings = settings
        self.readonly = ReadOnlySession(settings, identity, self.issue_ticket)
        self._owner_conn: oracledb.Connection | None = None

    def _owner_connection(self) -> oracledb.Connection:
        if self._owner_conn is None:
            s = self.settings
            conn = connect_user(s, s.oracle_sc_user, s.oracle_sc_password, OWNER)
            # A table the workshop drops goes at once, not to the recycle bin, whose BIN$
            # tables the dictionary views would still list to the catalog's fingerprint
            # (SQL Language Reference 23, DROP TABLE: PURGE; Database Reference 23,
            # RECYCLEBIN: modifiable with ALTER SESSION).
            with conn.cursor() as cur:
                cur.execute("ALTER SESSION SET recyclebin = OFF")
            self._owner_conn = conn
        return self._owner_conn

    def loaded(self) -> bool:
        tables = self.db.query(
            "SELECT COUNT(*) AS n FROM all_tables WHERE owner = :owner", {"owner": OWNER}
        )
        if not tables[0]["n"]:
            return False
        return self.db.query("SELECT COUNT(*) AS n FROM supplychain.vessels")[0]["n"] > 0

    def load(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        readers = [
            identifier(self.settings.oracle_user),
            identifier(self.settings.oracle_ro_user),
        ]
        counts: dict[str, int] = {}
        with self.db.lock:
            conn = self._owner_connection()
            with conn.cursor() as cur:
                cur.execute("SELECT table_name FROM user_tables")
                existing = {r[0] for r in cur.fetchall()}
                for table in reversed(tables):
                    if table.name.upper() in existing:
                        cur.execute(f"DROP TABLE {table.name} CASCADE CONSTRAINTS PURGE")
                for table in tables:
                    cur.execute(create_table_sql(table))
                    comment_table(cur, table)
                    columns = ", ".join(c.name for c in table.columns)
                    values = ", ".join(f":{i}" for i in range(1, len(table.columns) + 1))
                    if rows[table.name]:
                        cur.setinputsizes(*[input_type(c) for c in table.columns])
                        cur.executemany(
                            f"INSERT INTO {table.name} ({columns}) VALUES ({values})",
                            [tuple(row) for row in rows[table.name]],
                        )
                    if table.name in LOCATED:
                        cur.execute(
                            f"UPDATE {table.name} SET location = SDO_GEOMETRY(2001, 4326,"
                            " SDO_POINT_TYPE(longitude, latitude, NULL), NULL, NULL)"
                            " WHERE longitude IS NOT NULL AND latitude IS NOT NULL"
                        )
                    counts[table.name] = len(rows[table.name])
                conn.commit()
                for table in tables:
                    for reader in readers:
                        cur.execute(f"GRANT SELECT ON {table.name} TO {reader}")
                self._install_policy(cur)
        return counts

    def _install_policy(self, cur) -> None:
        """The access policy and the documents (idempotent; see ``guardrails.py``).

        The identity package is created only when USER_SOURCE differs (a session bound to it
        keeps its identity across a second ``workshop setup``); every unit and view is checked
        for compilation errors (:mod:`agent_harness.backends.oracle.compiled`). The duality
        views are granted WITH GRANT OPTION, as the Duality Developer's Guide lists for
        querying (the read-only user) and updating (the harness owner) them.
        """
        owner, ro_user = (
            identifier(self.settings.oracle_user),
            identifier(self.settings.oracle_ro_user),
        )
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name = 'IDENTITY_TICKETS'")
        if not cur.fetchone()[0]:
            cur.execute(TICKETS_DDL)
        for sql in install_statements(ro_user, [OWNER, owner]):
            create_unless_unchanged(cur, sql)
        for document in DOCUMENTS.values():
            run_ddl(cur, duality_view_sql(document))
            cur.execute(f"GRANT SELECT ON {document.name} TO {ro_user} WITH GRANT OPTION")
            cur.execute(f"GRANT SELECT, UPDATE ON {document.name} TO {owner} WITH GRANT OPTION")

    def install_policy(self) -> str:
        with self.db.lock, self._owner_connection().cursor() as cur:
            self._install_policy(cur)
        return "access policy and duality views installed"

    def issue_ticket(self, identity: Identity) -> str | None:
        """Write a one-time identity ticket as SUPPLYCHAIN; None when the tickets table does
        not exist (a schema loaded before the policy existed: ORA-00942).

        Raises:
            BackendError: Any other failure (nothing is bound on a ticket never written).
        """
        binds = new_ticket(identity)
        with self.db.lock:
            conn = self._owner_connection()
            try:
                with conn.cursor() as cur:
                    cur.execute(TICKET_SQL, binds)
                conn.commit()
            except oracledb.DatabaseError as e:
                conn.rollback()
                if error_code(e) == 942:
                    return None
                raise BackendError(
                    f"SUPPLYCHAIN could not issue an identity ticket: {first_line(e)}{hint(e)}"
                ) from e
        return binds["ticket"]

    def execute(self, sql: str, binds: dict | None = None) -> int:
        """Run one statement as SUPPLYCHAIN (see :meth:`SupplyChain.execute`) and commit.

        The harness owner and the read-only user hold SELECT on SUPPLYCHAIN's tables and no
        ANY privilege (DB_DEVELOPER_ROLE has none), so a write by them is ORA-01031: changes
        to the demo schema are made by its owner. A table or view created here is granted
        SELECT to both, directly (not through a role), so it is listed in their ALL_* views,
        in the scheduler job's definer's-rights procedure too, where roles are off (Database
        Reference 23, ALL_TAB_COLUMNS: "accessible to the current user"; PL/SQL Language
        Reference 23, "Invoker's Rights and Definer's Rights": a DR unit runs with the
        owner's privileges, roles disabled).

        Raises:
            BackendError: Oracle refused it (the message quotes the error), or a stored unit
                or view compiled with errors.
        """
        created = _CREATED.match(sql)
        if created and (created.group("schema") or OWNER).upper() != OWNER:
            raise BackendError(
                f"supplychain_execute runs as {OWNER}: create objects in its own schema"
                f" (supplychain.<name>), not in {created.group('schema')}"
            )
        readers = [identifier(self.settings.oracle_user), identifier(self.settings.oracle_ro_user)]
        with self.db.lock:
            conn = self._owner_connection()
            try:
                with conn.cursor() as cur:
                    values = bind_values(cur, sql, binds)
                    if values:
                        cur.execute(sql, values)
                    else:
                        run_ddl(cur, sql)
                    changed = max(cur.rowcount, 0)
                    if created:
                        name = identifier(created.group("name"))
                        for reader in readers:
                            cur.execute(f"GRANT SELECT ON {name} TO {reader}")
                conn.commit()
            except oracledb.DatabaseError as e:
                conn.rollback()
                raise BackendError(
                    f"{OWNER} could not run the statement: {first_line(e)}{hint(e)}"
                ) from e
        return changed

    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        target = identifier(table) + (f".{identifier(column)}" if column else "")
        kind = "COLUMN" if column else "TABLE"
        with self.db.lock, self._owner_connection().cursor() as cur:
            cur.execute(f"COMMENT ON {kind} {target} IS {sql_literal(comment)}")

    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        return self.readonly.query(sql, binds, max_rows, timeout_s)

    def close(self) -> None:
        self.readonly.drop()
        if self._owner_conn is not None:
            try:
                self._owner_conn.close()
            except oracledb.Error:
                pass  # already broken: nothing left to close
            self._owner_conn = None
