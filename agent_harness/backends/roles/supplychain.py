"""The SUPPLYCHAIN demo data: loading it, its comments, and ``run_sql``'s read-only path.

All of it is dialect work (DDL types, where comments live, what makes a connection read-only),
so a dialect writes each method; :class:`ReadOnlyResult` is what both return to ``run_sql``.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ReadOnlyResult", "SupplyChain"]


@dataclass(frozen=True)
class ReadOnlyResult:
    """Rows from the read-only connection."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


class SupplyChain(abc.ABC):
    """The demo schema and the read-only connection behind ``run_sql``."""

    @abc.abstractmethod
    def loaded(self) -> bool:
        """True when the demo schema exists and holds data."""

    @abc.abstractmethod
    def load(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        """(Re)create the demo schema with comments and load its rows; return row counts."""

    @abc.abstractmethod
    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        """Change a table comment (column None) or a column comment, like COMMENT ON."""

    @abc.abstractmethod
    def execute(self, sql: str, binds: dict | None = None) -> int:
        """Run ONE statement that changes SUPPLYCHAIN's data or schema (INSERT, UPDATE,
        DELETE, CREATE / ALTER / DROP TABLE ...) as the schema's owner; return how many rows
        it changed. A table or view it creates is readable by the harness and ``run_sql``
        (as a loaded one is), so the catalog scanner and the change detector see it.
        """

    @abc.abstractmethod
    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        """Run ONE statement on a connection that cannot change anything.

        Raises:
            ReadOnlyViolation: The statement would write, change schema or settings, or attach.
            BackendError: Any other SQL error, a second statement, or the time limit.
        """

    def install_policy(self) -> str:
        """Install what the identity policy needs in the database, if anything (idempotent);
        say what was done ("" when the dialect enforces it per connection)."""
        return ""

    def close(self) -> None:
        """Close the read-only connection, if one is open."""
        return None
