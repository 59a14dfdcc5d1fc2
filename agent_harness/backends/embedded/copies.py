"""An identity's rows, copied: the filtered TEMP tables ``run_sql`` reads under an identity.

A policy VIEW checks every protected row again in every statement: a cargo item is looked up
against its container, then that container's voyage, each time a statement reads it (the
three-table join over every cargo item cost 2.5 times the owner's time at 10,000 voyages,
``bench/bench_guardrails.py``). A COPY is checked once, when it is filled: each protected
table gets a TEMP table of the same name, with the base table's own columns, keys and indexes,
holding only the identity's rows (:data:`~agent_harness.backends.roles.access_rules.ROW_POLICIES`,
parents first: ``containers`` keeps the rows whose ``voyage_id`` is in the copy of
``voyages``, the same predicate Oracle's VPD policy appends). A statement then reads the
identity's rows exactly as the owner reads the tables. A column masked for the identity is
copied as NULL: its values never leave the base table.

**Kept current on data change.** Before each statement the connection reads
``PRAGMA supplychain.data_version`` (https://sqlite.org/pragma.html#pragma_data_version): its
value changes when another connection commits to the file, in this process or another. When it
moved since the copies were filled, they are filled again, in one transaction (one snapshot of
the data), before the statement runs: a container moved to another voyage, or a voyage given
another region, shows in the very next statement. The connection is read-only, so its own
statements never change the data. The cost moves from every statement to every change: a
refill copies the identity's rows once (measured by the benchmark).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import apsw

from agent_harness.backends.roles.access_rules import MASKED_COLUMNS, ROW_POLICIES, region_predicate
from agent_harness.foundation.identity import Identity

__all__ = ["FilteredCopies"]

_CREATE_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s+", re.IGNORECASE)
_CREATE_INDEX = re.compile(r"^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?", re.I)


class FilteredCopies:
    """The identity's rows of each protected table, in TEMP tables of the same names.

    Args:
        identity: Whose rows (never the owner: the owner reads the tables themselves).
    """

    def __init__(self, identity: Identity, tables: set[str]) -> None:
        self.identity = identity
        #: The protected tables to copy, parents first: those present when the connection
        #: opened (a table created later gets no copy, as it would get no view).
        self.tables = [t for t in ROW_POLICIES if t in tables]
        #: table -> the base table's DDL (table and indexes) its copy was created from.
        self.made: dict[str, tuple[str, ...]] = {}
        self.version: int | None = None
        #: How many times the copies were filled (the first fill included).
        self.fills = 0

    def fill(self, conn: apsw.Connection) -> None:
        """Create (when the base table's DDL changed) and fill every copy, in one transaction.

        Run it on the connection before its authorizer is installed, or through
        :meth:`refresh`, which lifts the authorizer while it runs. A base table dropped
        since loses its copy (a statement naming it then fails: no such table).
        """
        with conn:  # one transaction: every copy from the same snapshot of the data
            version = _data_version(conn)  # the snapshot's own version (it starts the read)
            for table in self.tables:
                ddl = _ddl(conn, table)
                if self.made.get(table) != ddl:
                    conn.execute(f"DROP TABLE IF EXISTS temp.{table}")
                    self.made.pop(table, None)
                    if not ddl:
                        continue
                    conn.execute(_CREATE_TABLE.sub("CREATE TEMP TABLE ", ddl[0], count=1))
                    for index in ddl[1:]:
                        conn.execute(_CREATE_INDEX.sub(lambda m: m.group(0) + "temp.", index))
                    self.made[table] = ddl
                else:
                    conn.execute(f"DELETE FROM temp.{table}")
                conn.execute(self.fill_sql(conn, table))
        self.version = version
        self.fills += 1

    def fill_sql(self, conn: apsw.Connection, table: str) -> str:
        """``INSERT INTO temp.<table> SELECT ... FROM supplychain.<table> WHERE <policy>``."""
        columns = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM pragma_table_xinfo(?, 'supplychain') WHERE hidden = 0"
                " ORDER BY cid",
                (table,),
            )
        ]
        names, values = [], []
        for column in columns:
            name = _quote(column)
            role = MASKED_COLUMNS.get((table, column.lower()))
            masked = role is not None and role not in self.identity.roles
            names.append(name)
            values.append(f"NULL AS {name}" if masked else name)
        return (
            f"INSERT INTO temp.{table} ({', '.join(names)}) SELECT {', '.join(values)}"
            f" FROM supplychain.{table} WHERE {self.where(table)}"
        )

    def where(self, table: str) -> str:
        """The rows of ``table`` the copy keeps: the policy's predicate, a child's over its
        parent's copy (``container_no IN (SELECT container_no FROM temp.containers)``)."""
        rule = ROW_POLICIES[table]
        if rule.parent is None:
            return region_predicate(self.identity.regions, rule.column)
        return rule.predicate((), f"temp.{rule.parent}")

    def stale(self, conn: apsw.Connection) -> bool:
        """True when the data changed since the copies were filled."""
        return _data_version(conn) != self.version

    def refresh(self, conn: apsw.Connection) -> bool:
        """Fill the copies again if the data changed since; True when it did.

        The connection's authorizer and ``query_only`` are lifted while the copies are
        written (the policy's own statements), and put back before anything else runs.
        """
        if not self.stale(conn):
            return False
        with _trusted(conn):
            self.fill(conn)
        return True


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _data_version(conn: apsw.Connection) -> int:
    return conn.execute("PRAGMA supplychain.data_version").fetchall()[0][0]


def _ddl(conn: apsw.Connection, table: str) -> tuple[str, ...]:
    """The base table's CREATE TABLE, then the CREATE INDEX of its own indexes, in order."""
    rows = conn.execute(
        "SELECT type, sql FROM supplychain.sqlite_master WHERE lower(tbl_name) = ?"
        " AND sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type = 'index', name",
        (table,),
    ).fetchall()
    return tuple(sql for _, sql in rows)


@contextmanager
def _trusted(conn: apsw.Connection) -> Iterator[None]:
    """The policy's own writes: no authorizer, ``query_only`` off; both restored after."""
    authorizer = conn.authorizer
    conn.authorizer = None
    query_only = conn.execute("PRAGMA query_only").fetchall()[0][0]
    conn.execute("PRAGMA query_only = 0")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA query_only = {int(query_only)}")
        conn.authorizer = authorizer
