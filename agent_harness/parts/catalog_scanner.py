"""The catalog scanner: turns a schema's tables, columns and foreign keys into memories.

It reads Oracle's data dictionary views (ALL_TABLES, ALL_TAB_COMMENTS, ALL_TAB_COLUMNS,
ALL_COL_COMMENTS, ALL_CONSTRAINTS, ALL_CONS_COLUMNS); the embedded backend emulates them, so the
SQL here is the same on both backends. Each fact becomes a memory of kind ``table``, ``column``
or ``relationship`` whose subject names it (``SUPPLYCHAIN.VESSELS.CAPACITY_TEU``). Scanning is
idempotent by content hash: an unchanged fact writes nothing, a changed comment updates exactly
that memory, and a fact whose object disappeared is deleted; other memories about a table that
disappeared (notes, findings) are retired (kind ``retired``, with the reason).

Under an identity the facts describe the data as that identity sees it: row counts come from
the identity's read-only connection (its policy's rows), a table the policy closes says so,
and a masked column's fact says it reads as NULL. Nothing in a fact is a sample of the data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_harness.backends.errors import BackendError
from agent_harness.backends.roles.access_rules import MASKED_COLUMNS
from agent_harness.foundation.identity import Identity
from agent_harness.parts.memory import MemoryStore, content_hash

__all__ = ["CatalogScanner", "Fact", "TABLES_SQL", "COLUMNS_SQL", "FOREIGN_KEYS_SQL"]

FACT_KINDS = ("table", "column", "relationship")
#: The kind a memory gets when the table it is about was dropped.
RETIRED = "retired"
# Kinds never retired: the catalog's own (re-created by the scan) and stored tool outputs.
_NOT_RETIRED = (*FACT_KINDS, "tool_output", RETIRED)

# ALL_TAB_COLUMNS lists INVISIBLE columns too, with a NULL COLUMN_ID (only hidden,
# system-generated columns are left out): the filter keeps the facts to the visible columns, as
# SELECT * shows them. On Oracle that drops PORTS.LOCATION and VESSEL_POSITIONS.LOCATION.
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]{0,127}$")

TABLES_SQL = """SELECT t.table_name, c.comments
FROM all_tables t
LEFT JOIN all_tab_comments c ON c.owner = t.owner AND c.table_name = t.table_name
WHERE t.owner = :owner
ORDER BY t.table_name"""

COLUMNS_SQL = """SELECT c.table_name, c.column_name, c.data_type, c.data_length, c.data_scale,
       c.nullable, c.column_id, k.comments
FROM all_tab_columns c
LEFT JOIN all_col_comments k
  ON k.owner = c.owner AND k.table_name = c.table_name AND k.column_name = c.column_name
WHERE c.owner = :owner AND c.column_id IS NOT NULL
ORDER BY c.table_name, c.column_id"""

FOREIGN_KEYS_SQL = """SELECT fk.constraint_name, fk.table_name, fc.column_name,
       pk.table_name AS ref_table, pc.column_name AS ref_column
FROM all_constraints fk
JOIN all_cons_columns fc ON fc.owner = fk.owner AND fc.constraint_name = fk.constraint_name
JOIN all_constraints pk ON pk.owner = fk.r_owner AND pk.constraint_name = fk.r_constraint_name
JOIN all_cons_columns pc ON pc.owner = pk.owner AND pc.constraint_name = pk.constraint_name
     AND pc.position = fc.position
WHERE fk.owner = :owner AND fk.constraint_type = 'R'
ORDER BY fk.table_name, fc.column_name"""


@dataclass(frozen=True)
class Fact:
    """One catalog fact, ready to be a memory."""

    kind: str
    subject: str
    content: str
    metadata: dict


def _type_text(row: dict) -> str:
    data_type = row["data_type"] or "?"
    if row.get("data_length") and data_type in ("VARCHAR2", "CHAR", "NVARCHAR2"):
        return f"{data_type}({row['data_length']})"
    if row.get("data_length") and data_type == "NUMBER":
        scale = f",{row['data_scale']}" if row.get("data_scale") else ""
        return f"NUMBER({row['data_length']}{scale})"
    return data_type


class CatalogScanner:
    """Scans one schema's catalog into a memory store.

    Args:
        backend: The database whose catalog is read.
        memory: Where the facts go.
        identity: Whose view of the data the facts describe (None: the owner's).
    """

    def __init__(self, backend, memory: MemoryStore, identity: Identity | None = None):
        self.backend = backend
        self.memory = memory
        self.identity = identity if identity is not None and not identity.owner else None
        #: Ids of the memories the last :meth:`scan` retired.
        self.last_retired: list[int] = []

    @staticmethod
    def _owner(owner: str) -> str:
        if not isinstance(owner, str) or not _IDENTIFIER.match(owner):
            raise ValueError(f"owner {owner!r} is not a schema name (e.g. 'SUPPLYCHAIN')")
        return owner.upper()

    def row_count(self, owner: str, table: str) -> int | None:
        """Rows in ``owner.table`` (names are checked identifiers, never raw user text).

        Under an identity: the rows its policy shows, or None when the policy closes the table.
        """
        owner, table = self._owner(owner), self._owner(table)
        sql = f"SELECT COUNT(*) AS n FROM {owner}.{table}"
        if self.identity is None:
            return int(self.backend.query(sql)[0]["n"])
        try:
            result = self.backend.readonly_query(sql, {}, max_rows=1, timeout_s=10.0)
        except BackendError:
            return None
        return int(result.rows[0][0])

    def table_facts(self, owner: str = "SUPPLYCHAIN") -> list[Fact]:
        """One fact per table: its documented purpose and row count."""
        owner = self._owner(owner)
        facts = []
        for row in self.backend.query(TABLES_SQL, {"owner": owner}):
            name = row["table_name"]
            rows = self.row_count(owner, name)
            purpose = (row["comments"] or "no documented purpose").strip()
            size = f"{rows} rows" if rows is not None else "rows not readable for you"
            if rows is not None and self.identity is not None:
                size += f" visible to {self.identity.user}"
            facts.append(
                Fact(
                    "table",
                    f"{owner}.{name}",
                    f"Table {owner}.{name}: {purpose} ({size})",
                    {"owner": owner, "table": name, "row_count": rows},
                )
            )
        return facts

    def column_facts(self, owner: str = "SUPPLYCHAIN") -> list[Fact]:
        """One fact per column: type, nullability and comment."""
        owner = self._owner(owner)
        facts = []
        for row in self.backend.query(COLUMNS_SQL, {"owner": owner}):
            table, column = row["table_name"], row["column_name"]
            null = "nullable" if row["nullable"] == "Y" else "NOT NULL"
            comment = (row["comments"] or "no comment").strip()
            role = MASKED_COLUMNS.get((table.lower(), column.lower()))
            if self.identity is not None and role and role not in self.identity.roles:
                comment += f" Masked for you: it reads as NULL without the {role} role."
            facts.append(
                Fact(
                    "column",
                    f"{owner}.{table}.{column}",
                    f"Column {owner}.{table}.{column} ({_type_text(row)}, {null}): {comment}",
                    {"owner": owner, "table": table, "column": column},
                )
            )
        return facts

    def relationship_facts(self, owner: str = "SUPPLYCHAIN") -> list[Fact]:
        """One fact per foreign key: which column joins to which."""
        owner = self._owner(owner)
        facts = []
        for row in self.backend.query(FOREIGN_KEYS_SQL, {"owner": owner}):
            src = f"{owner}.{row['table_name']}.{row['column_name']}"
            dst = f"{owner}.{row['ref_table']}.{row['ref_column']}"
            facts.append(
                Fact(
                    "relationship",
                    f"{owner}.{row['table_name']}.{row['column_name']}->{row['ref_table']}",
                    f"Relationship: {src} references {dst}; join"
                    f" {row['table_name']}.{row['column_name']} = "
                    f"{row['ref_table']}.{row['ref_column']}.",
                    {"owner": owner, "table": row["table_name"], "references": row["ref_table"]},
                )
            )
        return facts

    def facts(self, owner: str = "SUPPLYCHAIN") -> list[Fact]:
        """Every fact of a schema."""
        return self.table_facts(owner) + self.column_facts(owner) + self.relationship_facts(owner)

    def scan(self, owner: str = "SUPPLYCHAIN") -> dict[str, int]:
        """Write the schema's facts as memories, idempotently.

        Returns:
            Counts: ``added``, ``updated``, ``unchanged``, ``removed``.
        """
        owner = self._owner(owner)
        facts = self.facts(owner)
        existing = {
            (m.kind, m.subject): m
            for m in self.memory.list(
                metadata_filter={"kind": list(FACT_KINDS), "owner": owner}, limit=100_000
            )
        }
        counts = {"added": 0, "updated": 0, "unchanged": 0, "removed": 0}
        seen, new = set(), []
        for fact in facts:
            key = (fact.kind, fact.subject)
            seen.add(key)
            old = existing.get(key)
            if old is None:
                new.append(fact)
            elif old.content_hash != content_hash(fact.content):
                self.memory.update(old.id, fact.content, fact.subject, fact.metadata)
                counts["updated"] += 1
            else:
                counts["unchanged"] += 1
        self.memory.add_many(
            [
                {"content": f.content, "kind": f.kind, "subject": f.subject, "metadata": f.metadata}
                for f in new
            ],
            # another scope's identical facts (the owner's, another identity's): their vectors
            reuse_kinds=FACT_KINDS,
        )
        counts["added"] = len(new)
        for key, old in existing.items():
            if key not in seen:
                self.memory.delete(old.id)
                counts["removed"] += 1
        tables = {k[1] for k in seen if k[0] == "table"}
        dropped = sorted({k[1] for k in existing if k[0] == "table"} - tables)
        self.last_retired = self.retire(dropped) if dropped else []
        return counts

    def retire(self, subjects: list[str]) -> list[int]:
        """Retire the memories about these dropped tables (``OWNER.TABLE``): each becomes a
        memory of kind ``retired`` that says why; the original goes. Returns the new ids."""
        prefixes = tuple(s.upper() for s in subjects)
        retired = []
        for m in self.memory.list(limit=100_000):
            subject = (m.subject or "").upper()
            if m.kind in _NOT_RETIRED or not any(
                subject == p or subject.startswith(p + ".") for p in prefixes
            ):
                continue
            table = next(p for p in prefixes if subject == p or subject.startswith(p + "."))
            retired.append(
                self.memory.add(
                    f"[retired: {table} no longer exists] {m.content}",
                    kind=RETIRED,
                    subject=m.subject,
                    metadata={**m.metadata, "retired_kind": m.kind, "retired_because": table},
                    thread_id=m.thread_id,
                )
            )
            self.memory.delete(m.id)
        return retired
