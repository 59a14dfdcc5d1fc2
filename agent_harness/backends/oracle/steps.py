"""One Oracle DDL step of a migration (see :mod:`agent_harness.backends.oracle.migrations`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Step", "UPDATED"]

UPDATED = "updated_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL"


@dataclass(frozen=True)
class Step:
    """One DDL step; skipped when its object exists (Oracle DDL commits, so a migration that
    stopped half-way must be able to run again)."""

    kind: str  # table | column | index | text index | preference | stoplist | property graph |
    # procedure | job | dropped column | idempotent block
    name: str  # the object it creates, upper case (a column: TABLE.COLUMN)
    sql: str
