"""The SUPPLYCHAIN demo data on SQLite: ``supplychain.db``, attached as ``supplychain``.

Tables are created from :mod:`agent_harness.supplychain.schema`, comments go to the emulated
dictionary (:mod:`agent_harness.backends.embedded.dictionary`), and ``run_sql`` reads through a
separate read-only connection (:mod:`agent_harness.backends.embedded.readonly`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_harness.backends.embedded.connection import SQLiteConnection
from agent_harness.backends.embedded.readonly import ReadOnlyConnection
from agent_harness.backends.roles.supplychain import ReadOnlyResult, SupplyChain
from agent_harness.foundation.identity import Identity

__all__ = ["EmbeddedSupplyChain", "create_table_sql"]


def _sql_value(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def create_table_sql(table) -> str:
    """``CREATE TABLE supplychain.<name>`` for one table of the demo schema."""
    lines = []
    for column in table.columns:
        line = f"{column.name} {column.declared_type}"
        if column.name == table.primary_key:
            line += " PRIMARY KEY"
        elif not column.nullable:
            line += " NOT NULL"
        if column.name in table.unique:
            line += " UNIQUE"
        lines.append(line)
    for fk in table.foreign_keys:
        lines.append(f"FOREIGN KEY ({fk.column}) REFERENCES {fk.ref_table} ({fk.ref_column})")
    return f"CREATE TABLE supplychain.{table.name} (\n  " + ",\n  ".join(lines) + "\n)"


class EmbeddedSupplyChain(SupplyChain):
    """``supplychain.db``: load the demo data, change comments, answer ``run_sql`` through a
    separate read-only connection opened on first use.

    Args:
        db: The harness connection (``supplychain`` is attached to it).
        supplychain_path: The demo data file (the read-only connection opens it again).
        identity: Whose access policy the read-only connection enforces (None: the owner's).
    """

    def __init__(
        self, db: SQLiteConnection, supplychain_path: Path, identity: Identity | None = None
    ) -> None:
        self.db = db
        self.supplychain_path = supplychain_path
        self.identity = identity
        self._readonly: ReadOnlyConnection | None = None

    def loaded(self) -> bool:
        rows = self.db.query(
            "SELECT COUNT(*) AS n FROM supplychain.sqlite_schema"
            " WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'"
        )
        return rows[0]["n"] > 0

    def load(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        counts: dict[str, int] = {}
        conn = self.db.conn
        with self.db.transaction():
            conn.execute("PRAGMA foreign_keys=OFF")
            for table in reversed(tables):
                conn.execute(f"DROP TABLE IF EXISTS supplychain.{table.name}")
            conn.execute("DELETE FROM supplychain._dictionary_comments")
            for table in tables:
                conn.execute(create_table_sql(table))
                placeholders = ", ".join("?" for _ in table.columns)
                columns = ", ".join(c.name for c in table.columns)
                conn.executemany(
                    f"INSERT INTO supplychain.{table.name} ({columns}) VALUES ({placeholders})",
                    [tuple(_sql_value(v) for v in row) for row in rows[table.name]],
                )
                counts[table.name] = len(rows[table.name])
                self.set_comment(table.name, None, table.comment)
                for column in table.columns:
                    self.set_comment(table.name, column.name, column.comment)
            conn.execute("PRAGMA foreign_keys=ON")
        return counts

    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        self.db.execute(
            self.db.dialect.upsert(
                "supplychain._dictionary_comments",
                ["table_name", "column_name"],
                {"table_name": "upper(:t)", "column_name": "upper(:c)", "comments": ":comment"},
            ),
            {"t": table, "c": column or "", "comment": comment},
        )

    def execute(self, sql: str, binds: dict | None = None) -> int:
        # ``supplychain`` is attached to the harness connection: one owner for both files.
        return self.db.execute(sql, binds)

    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        with self.db.lock:
            if self._readonly is None:
                self._readonly = ReadOnlyConnection(self.supplychain_path, self.identity)
            readonly = self._readonly
        return readonly.run(sql, binds or {}, max_rows=max_rows, timeout_s=timeout_s)

    def close(self) -> None:
        if self._readonly is not None:
            self._readonly.close()
            self._readonly = None
