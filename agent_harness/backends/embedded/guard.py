"""The access policy of an identity, enforced inside SQLite (no row-level security there).

SQLite has no VPD, so the embedded backend builds it from things the database does itself,
bound to the connection when it opens (nothing a statement sends can change them: DDL, ATTACH
and writing pragmas are denied on these connections):

1. **The identity's rows, under the tables' own names.** Each protected table of the policy
   (:data:`~agent_harness.backends.roles.access_rules.ROW_POLICIES`) is either

   * a **filtered copy** (``run_sql``'s connection: :mod:`~agent_harness.backends.embedded.
     copies`): a TEMP table holding only the identity's rows, filled when the connection opens
     and filled again before the next statement whenever the data changed, so a statement pays
     nothing for the policy; or
   * a **trusted view** (the document connection, which writes and reads one document at a
     time): a TEMP view that keeps the identity's rows, checked row by row in each statement
     (``containers`` = those whose voyage is visible, and so on).

   The reference tables get plain TEMP views. Unqualified names resolve to TEMP first, and a
   ``supplychain.<table>`` in a statement is read as the TEMP one too
   (:meth:`IdentityGuard.rewrite`, literals, quoted names and comments untouched).
2. **The authorizer** (``sqlite3_set_authorizer``, https://sqlite.org/c3ref/set_authorizer.html),
   called while SQLite compiles a statement, for every column read wherever it appears:
   a read of a protected base table is allowed only inside a trusted view (its 5th argument;
   with copies there is none: the base tables are not readable at all);
   ``cargo_items.unit_value_cents`` without the finance role returns ``SQLITE_IGNORE``, which
   compiles the column as NULL in the select list, WHERE, ORDER BY, GROUP BY, aggregates and
   subqueries alike (a copy holds NULL there anyway); ``dbstat`` (page sizes) and
   ``sqlite_stat*`` (index samples) are denied; a table the policy does not name is denied.
   Anything not allowed is refused (an allowlist).

Known limit, from the facts: an index on a masked column would leak its order through
``INDEXED BY``; the demo schema has none, and a test keeps it so.
"""

from __future__ import annotations

import re

import apsw

from agent_harness.backends.embedded.copies import FilteredCopies
from agent_harness.backends.errors import AccessDenied, BackendError
from agent_harness.backends.roles.access_rules import (
    MASKED_COLUMNS,
    POLICY_TABLES,
    PUBLIC_TABLES,
    ROW_POLICIES,
    lineage_predicate,
)
from agent_harness.foundation.identity import Identity

__all__ = ["IdentityGuard", "sqlite_mask"]

# Virtual tables of the main (in-memory) schema a statement may read: the schema pragmas
# the dictionary views use, and JSON's table-valued functions. dbstat is left out on purpose.
_EPONYMOUS = re.compile(r"^(pragma_\w+|json_each|json_tree|jsonb_each|jsonb_tree)$")
_SCHEMA_TABLES = {"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"}


def sqlite_mask(sql: str, names: bool = True) -> str:
    """The SQL with the insides of literals and comments blanked (same length), and of quoted
    names too unless ``names`` is False.

    SQLite quotes text with ``'...'`` and names with ``"..."``, ```...``` or ``[...]``.
    """
    out = list(sql)
    i, n = 0, len(sql)
    closers = {"'": "'", '"': '"', "`": "`", "[": "]"}
    while i < n:
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif sql[i] in closers:
            close = closers[sql[i]]
            end = i + 1
            while end < n:
                if sql[end] == close and sql[end + 1 : end + 2] == close and close != "]":
                    end += 2  # a doubled quote stays inside
                elif sql[end] == close:
                    break
                else:
                    end += 1
            if names or sql[i] == "'":
                for j in range(i + 1, min(end, n)):
                    out[j] = " "
            i = end + 1
            continue
        else:
            i += 1
            continue
        for j in range(i, end):
            out[j] = " "
        i = end
    return "".join(out)


class IdentityGuard:
    """The policy of one identity on one SQLite connection.

    Args:
        identity: Who the connection acts for (never the owner: the owner needs no guard).
        copies: True: the protected tables are filtered copies (a read-only connection);
            False: trusted views (a connection that writes through them).
    """

    def __init__(self, identity: Identity, copies: bool = False) -> None:
        if identity.owner:
            raise ValueError("the workshop owner reads without a guard")
        self.identity = identity
        self.use_copies = copies
        self.copies: FilteredCopies | None = None
        #: The policy's tables in TEMP (views and copies), by the tables' own names.
        self.views: set[str] = set()
        #: Views and triggers inside which a protected base table may be read.
        self.trusted: set[str] = set()
        self.denied: list[str] = []
        self._qualified = re.compile(r"$^")
        self._rewritten: dict[str, str] = {}  # statement text -> as run (agents repeat SQL)

    # --- set-up, before the authorizer is installed -------------------------------------------
    def install(self, conn: apsw.Connection, tables: list[str]) -> None:
        """Create the TEMP copies or views for the tables of the policy that exist.

        Tables the policy does not name get none (and the authorizer refuses them).
        """
        present = {t.lower() for t in tables}
        self._refuse_indexes_on_masked_columns(conn)
        if self.use_copies:
            self.copies = FilteredCopies(self.identity, present)
            self.copies.fill(conn)
            self.views |= set(self.copies.tables)
        for table in POLICY_TABLES:
            if table not in present or table in self.views:
                continue
            conn.execute(f"CREATE TEMP VIEW {table} AS {self.view_select(table)}")
            self.views.add(table)
            if table in ROW_POLICIES:
                self.trusted.add(table)
        names = "|".join(sorted(self.views))
        # supplychain.<table> (any spacing, any case) -> the TEMP table or view of that name
        self._qualified = re.compile(rf"\bsupplychain\s*\.\s*(?=(?:{names})\b)", re.IGNORECASE)

    def _refuse_indexes_on_masked_columns(self, conn: apsw.Connection) -> None:
        """An index on a masked column would hand its ORDER to the planner (a covering index
        scan returns rows in value order): refuse to open rather than leak.

        Raises:
            AccessDenied: Such an index exists; the message names it and what to do.
        """
        for (table, column), role in MASKED_COLUMNS.items():
            if role in self.identity.roles:
                continue
            indexes = conn.execute(
                "SELECT name FROM supplychain.sqlite_master WHERE type = 'index' AND tbl_name = ?",
                (table,),
            ).fetchall()
            for (index,) in indexes:
                columns = conn.execute(
                    "SELECT name FROM pragma_index_info(?, 'supplychain')", (index,)
                ).fetchall()
                if any((c or "").lower() == column for (c,) in columns):
                    raise AccessDenied(
                        f"index {index} on {table}.{column} would reveal the order of a column"
                        f" masked for {self.identity.user}: drop the index (DROP INDEX"
                        f" supplychain.{index}) before connecting with an identity"
                    )

    def view_select(self, table: str) -> str:
        """The SELECT of the trusted view of ``table`` (the policy's rows, every column)."""
        if table not in ROW_POLICIES:
            return f"SELECT * FROM supplychain.{table}"
        where = lineage_predicate(table, self.identity.regions, "t", "supplychain")
        return f"SELECT t.* FROM supplychain.{table} t WHERE {where}"

    # --- per statement --------------------------------------------------------------------------
    def refresh(self, conn: apsw.Connection) -> bool:
        """Before a statement: fill the copies again if the data changed since; True if so.

        Raises:
            BackendError: The copies could not be filled (the message says why).
        """
        if self.copies is None:
            return False
        try:
            return self.copies.refresh(conn)
        except apsw.Error as e:
            raise BackendError(
                f"the rows of {self.identity.user} could not be copied after a change of the"
                f" data ({type(e).__name__}: {e}); try again, or reconnect"
            ) from e

    def rewrite(self, sql: str) -> str:
        """``supplychain.voyages`` -> ``voyages`` (the trusted view) outside literals, quoted
        names and comments; then a statement that still names the schema ``supplychain``
        (quoted, bracketed, before anything but a policy table) is refused.

        This is what keeps the base tables out of reach: an unqualified name resolves to the
        TEMP views first, so a statement that does not name the schema reads the data only
        through them (the authorizer's innermost-view test alone can be fooled by a CTE that
        takes a trusted view's name).

        Raises:
            AccessDenied: The statement names the schema in a way that is not rewritten.
        """
        if sql in self._rewritten:
            return self._rewritten[sql]
        original = sql
        masked = sqlite_mask(sql)
        spans = [m.span() for m in self._qualified.finditer(masked)]
        for start, end in reversed(spans):
            sql = sql[:start] + sql[end:]
        if re.search(r"supplychain", sqlite_mask(sql, names=False), re.IGNORECASE):
            raise AccessDenied(
                f"refused by the access policy of {self.identity.user}: name the tables as"
                " supplychain.<table> or just <table> (unquoted); the schema cannot be named"
                f" any other way under an identity. Tables: {', '.join(sorted(self.views))}."
            )
        if len(self._rewritten) >= 512:
            self._rewritten.clear()
        self._rewritten[original] = sql
        return sql

    def read(self, table: str, column: str, database: str | None, view: str | None) -> int:
        """The authorizer's answer for an ``SQLITE_READ`` of ``table.column``."""
        table_l, column_l = (table or "").lower(), (column or "").lower()
        role = MASKED_COLUMNS.get((table_l, column_l))
        masked = role is not None and role not in self.identity.roles
        if database is None and column_l == "" and table_l in self.views:
            # COUNT(*) reads no column: SQLite names the schema as written (here none), and
            # an unqualified name of the policy resolves to its TEMP copy or view first
            database = "temp"
        if database == "temp":
            # only the connection's own copies and views live there (no DDL)
            return apsw.SQLITE_IGNORE if masked else apsw.SQLITE_OK
        if database == "main":
            if _EPONYMOUS.match(table_l):
                return apsw.SQLITE_OK
            return self._deny(f"{table} (not readable under an identity)")
        if database != "supplychain":
            return self._deny(f"{database}.{table}")
        if table_l in _SCHEMA_TABLES or table_l == "_dictionary_comments":
            return apsw.SQLITE_OK  # the catalog: names and comments, no rows of the data
        if table_l not in POLICY_TABLES:
            return self._deny(f"supplychain.{table} (the policy does not cover this table)")
        if table_l not in PUBLIC_TABLES and (view or "").lower() not in self.trusted:
            return self._deny(
                f"supplychain.{table} outside the policy view {table_l} (query {table_l} or"
                f" supplychain.{table_l} as a plain table name)"
            )
        if masked:
            return apsw.SQLITE_IGNORE  # compiled as NULL wherever the column appears
        return apsw.SQLITE_OK

    def _deny(self, what: str) -> int:
        self.denied.append(f"read of {what}")
        return apsw.SQLITE_DENY
