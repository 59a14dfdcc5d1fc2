"""Named migrations and the one runner both backends use (no dialect in here).

Each dialect keeps an ordered :class:`Migrations` list in ``backends/<dialect>/migrations.py``:
``m001_create_memory``, ``m002_...``. A migration is identified by its **name**, never by its
position: the runner records each applied name in ``schema_migrations`` and skips the names
already there, so a migration appended later runs once on every existing database, and the two
dialects may number theirs differently (Oracle has an ``m004`` that embedded does not).

To add a migration, append ``Migration("m005_what_it_does", [...steps])`` to each dialect's
list. Never edit or rename one that has shipped: databases remember it by name.

What a dialect supplies (see :class:`MigrationTarget`): the DDL of its ``schema_migrations``
table, how to run one step (an SQL string on SQLite, an existence-checked DDL step on Oracle),
and its plain ``query``/``execute``/``transaction``. Bookkeeping, order and idempotence live here,
once. The ``schema_migrations`` table keeps the ``(version, name, applied_at)`` columns the
earlier position-keyed runner created, so existing databases keep working: their names are read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "Migration",
    "Migrations",
    "MigrationTarget",
    "apply_migrations",
    "applied_migration_names",
]

_NAME = re.compile(r"^m(\d{3})_[a-z0-9_]+$")

APPLIED_SQL = "SELECT name FROM schema_migrations ORDER BY version"
NEXT_VERSION_SQL = "SELECT COALESCE(MAX(version), 0) + 1 AS next_version FROM schema_migrations"
RECORD_SQL = "INSERT INTO schema_migrations (version, name) VALUES (:version, :name)"


@dataclass(frozen=True, init=False)
class Migration:
    """One named migration: its steps run in order, then its name is recorded.

    Attributes:
        name: ``mNNN_what_it_does`` (lower case); the key the database remembers.
        steps: What the dialect runs, in order (SQL text on embedded, ``Step`` on Oracle).
    """

    name: str
    steps: tuple[Any, ...]

    def __init__(self, name: str, steps: Sequence[Any]):
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(
                f"migration name {name!r}: use m<three digits>_<lower_case_words>,"
                " e.g. m005_create_tool_calls"
            )
        if not steps:
            raise ValueError(f"migration {name} has no steps")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "steps", tuple(steps))

    @property
    def number(self) -> int:
        """The NNN of ``mNNN_...``: only orders the list, it is not the database key."""
        return int(self.name[1:4])


class Migrations(Sequence[Migration]):
    """A dialect's migrations in the order they run; refuses duplicate names on creation.

    Args:
        dialect: Which backend (for messages).
        migrations: In order; numbers must increase (gaps are fine).

    Raises:
        ValueError: A name appears twice, or a number does not increase.
    """

    def __init__(self, dialect: str, migrations: Sequence[Migration]):
        self.dialect = dialect
        self._items: list[Migration] = []
        for migration in migrations:
            self.add(migration)

    def add(self, migration: Migration) -> None:
        """Append one migration after the others (the same checks as on creation)."""
        if any(m.name == migration.name for m in self._items):
            raise ValueError(f"{self.dialect}: migration {migration.name} is defined twice")
        if self._items and migration.number <= self._items[-1].number:
            raise ValueError(
                f"{self.dialect}: {migration.name} comes after {self._items[-1].name}: give it a"
                f" higher number than {self._items[-1].number:03d}"
            )
        self._items.append(migration)

    def names(self) -> list[str]:
        """Every name, in order."""
        return [m.name for m in self._items]

    def __getitem__(self, index):  # Sequence protocol
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Migration]:
        return iter(self._items)


class MigrationTarget(Protocol):
    """What the runner needs from a backend (both backends have it)."""

    #: ``CREATE TABLE IF NOT EXISTS schema_migrations (version ..., name ..., applied_at ...)``.
    migration_ledger_ddl: str
    #: Errors the dialect raises when ``schema_migrations`` does not exist yet.
    missing_ledger_errors: tuple[type[Exception], ...]

    def query(self, sql: str, binds: dict | None = None) -> list[dict]: ...

    def execute(self, sql: str, binds: dict | None = None) -> None: ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def run_migration_step(self, step: Any) -> None:
        """Run one step of a migration (idempotently where the dialect's DDL commits)."""


def applied_migration_names(target: MigrationTarget) -> list[str]:
    """Names recorded in ``schema_migrations``, in the order they were applied ([] if none)."""
    try:
        return [row["name"] for row in target.query(APPLIED_SQL)]
    except target.missing_ledger_errors:
        return []  # not migrated yet


def apply_migrations(target: MigrationTarget, migrations: Migrations) -> list[str]:
    """Run every migration whose name is not recorded yet, in list order; return their names.

    Each migration's steps and its record commit together where the dialect allows it (SQLite;
    Oracle DDL commits by itself, so its steps are written to be re-runnable). Idempotent: a
    second call returns ``[]``. Names recorded but not in the list (a newer checkout's
    migrations) are left alone.
    """
    target.execute(target.migration_ledger_ddl)
    done = set(applied_migration_names(target))
    applied: list[str] = []
    for migration in migrations:
        if migration.name in done:
            continue
        with target.transaction():
            for step in migration.steps:
                target.run_migration_step(step)
            version = int(target.query(NEXT_VERSION_SQL)[0]["next_version"])
            target.execute(RECORD_SQL, {"version": version, "name": migration.name})
        applied.append(migration.name)
    return applied
