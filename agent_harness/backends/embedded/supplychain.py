"""The SUPPLYCHAIN demo data on SQLite: ``supplychain.db``, attached as ``supplychain``.

Tables are created from :mod:`agent_harness.supplychain.schema`, comments go to the emulated
dictionary (:mod:`agent_harness.backends.embedded.dictionary`), and ``run_sql`` reads through a
separate read-only connection (:mod:`agent_harness.backends.embedded.readonly`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_harness.backends.base import ReadOnlyResult
from agent_harness.backends.embedded.readonly import ReadOnlyConnection

__all__ = ["SupplyChainTables", "create_table_sql"]


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


class SupplyChainTables:
    """Mixin for :class:`~agent_harness.backends.embedded.EmbeddedBackend`: load the demo data,
    change comments, answer ``run_sql``. Needs ``self.conn``, ``self._lock``, ``self.query``,
    ``self.supplychain_path`` and ``self._readonly``."""

    def supplychain_loaded(self) -> bool:
        rows = self.query(
            "SELECT COUNT(*) AS n FROM supplychain.sqlite_schema"
            " WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'"
        )
        return rows[0]["n"] > 0

    def load_supplychain(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        counts: dict[str, int] = {}
        with self._lock, self.conn:
            self.conn.execute("PRAGMA foreign_keys=OFF")
            for table in reversed(tables):
                self.conn.execute(f"DROP TABLE IF EXISTS supplychain.{table.name}")
            self.conn.execute("DELETE FROM supplychain._dictionary_comments")
            for table in tables:
                self.conn.execute(create_table_sql(table))
                placeholders = ", ".join("?" for _ in table.columns)
                columns = ", ".join(c.name for c in table.columns)
                self.conn.executemany(
                    f"INSERT INTO supplychain.{table.name} ({columns}) VALUES ({placeholders})",
                    [tuple(_sql_value(v) for v in row) for row in rows[table.name]],
                )
                counts[table.name] = len(rows[table.name])
                self.set_comment(table.name, None, table.comment)
                for column in table.columns:
                    self.set_comment(table.name, column.name, column.comment)
            self.conn.execute("PRAGMA foreign_keys=ON")
        return counts

    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        with self._lock:
            self.conn.execute(
                "INSERT INTO supplychain._dictionary_comments (table_name, column_name, comments)"
                " VALUES (upper(:t), upper(:c), :comment) ON CONFLICT (table_name, column_name)"
                " DO UPDATE SET comments = excluded.comments",
                {"t": table, "c": column or "", "comment": comment},
            )

    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        with self._lock:
            if self._readonly is None:
                self._readonly = ReadOnlyConnection(self.supplychain_path)
            readonly = self._readonly
        return readonly.run(sql, binds or {}, max_rows=max_rows, timeout_s=timeout_s)
