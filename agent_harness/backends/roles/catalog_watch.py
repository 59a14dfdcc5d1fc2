"""Is the catalog in memory still current? The change detector, written once.

The **fingerprint** of a schema is a hash of what the catalog scanner turns into memories:
every visible column (table, name, type, size, nullability) with its comment and its table's
comment, and every foreign key, read from the data dictionary views (emulated on SQLite) in a
fixed order. A new table, a dropped one, a changed comment or a new column changes it; nothing
else does. :class:`CatalogWatch` keeps, per memory scope, the fingerprint last scanned
(table ``catalog_watch``, migration ``m013_catalog_watch``), so a harness can tell cheaply
whether its memories describe the schema as it is now.

On Oracle a ``DBMS_SCHEDULER`` job also computes a fingerprint in the database every minute
and queues a row in ``catalog_changes`` when it moves (``oracle/catalog_watch.py``):
:meth:`CatalogWatch.queued_since` reads that queue there. The embedded backend has no
scheduler, so the harness's own check (``agent_harness.agent.catalog_watch.CatalogWatcher``, on a
period) is its detector.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json

from agent_harness.backends.roles.common import Scope

__all__ = ["COLUMNS_PRINT_SQL", "FOREIGN_KEYS_PRINT_SQL", "CatalogWatch", "fingerprint_of"]

#: The columns and comments, in a fixed order (portable: the dictionary views).
COLUMNS_PRINT_SQL = """SELECT c.table_name, c.column_name, c.data_type, c.data_length,
       c.data_scale, c.nullable, k.comments AS column_comment, t.comments AS table_comment
FROM all_tab_columns c
LEFT JOIN all_col_comments k
  ON k.owner = c.owner AND k.table_name = c.table_name AND k.column_name = c.column_name
LEFT JOIN all_tab_comments t ON t.owner = c.owner AND t.table_name = c.table_name
WHERE c.owner = :owner AND c.column_id IS NOT NULL
ORDER BY c.table_name, c.column_id"""

#: The foreign keys, in a fixed order.
FOREIGN_KEYS_PRINT_SQL = """SELECT fk.table_name, fc.column_name, pk.table_name AS ref_table
FROM all_constraints fk
JOIN all_cons_columns fc ON fc.owner = fk.owner AND fc.constraint_name = fk.constraint_name
JOIN all_constraints pk ON pk.owner = fk.r_owner AND pk.constraint_name = fk.r_constraint_name
WHERE fk.owner = :owner AND fk.constraint_type = 'R'
ORDER BY fk.table_name, fc.column_name, pk.table_name"""


def fingerprint_of(rows: list[dict]) -> str:
    """SHA-256 of rows, each as sorted JSON (values as text), in the order given."""
    digest = hashlib.sha256()
    for row in rows:
        plain = {k.lower(): None if v is None else str(v) for k, v in row.items()}
        digest.update(json.dumps(plain, sort_keys=True).encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()


class CatalogWatch:
    """The last scanned fingerprint of each schema, per memory scope.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db) -> None:
        self.db = db
        self.dialect = db.dialect

    def fingerprint(self, owner: str) -> str:
        """The schema's fingerprint now (two dictionary queries, hashed)."""
        binds = {"owner": owner}
        rows = self.db.query(COLUMNS_PRINT_SQL, binds)
        rows += [{"fk": 1, **r} for r in self.db.query(FOREIGN_KEYS_PRINT_SQL, binds)]
        return fingerprint_of(rows)

    def state(self, owner: str, scope: Scope) -> dict | None:
        """``{"fingerprint", "checked_at", "scanned_at"}`` of the last scan, or None."""
        rows = self.db.query(
            "SELECT fingerprint, checked_at, scanned_at FROM catalog_watch"
            " WHERE owner = :owner AND user_id = :user_id AND agent_id = :agent_id",
            {"owner": owner, "user_id": scope.user_id, "agent_id": scope.agent_id},
        )
        if not rows:
            return None
        row = rows[0]
        return {
            "fingerprint": row["fingerprint"],
            "checked_at": self.dialect.read_time(row["checked_at"]),
            "scanned_at": self.dialect.read_time(row["scanned_at"]),
        }

    def record(
        self, owner: str, scope: Scope, fingerprint: str, at: dt.datetime, scanned: bool
    ) -> None:
        """Remember a check (and, when ``scanned``, that the memories match ``fingerprint``)."""
        values = {
            "owner": ":owner",
            "user_id": ":user_id",
            "agent_id": ":agent_id",
            "fingerprint": ":fingerprint",
            "checked_at": ":at",
            "scanned_at": ":at",
        }
        update = ["fingerprint", "checked_at", "scanned_at"] if scanned else ["checked_at"]
        with self.db.transaction():
            self.db.execute(
                self.dialect.upsert(
                    "catalog_watch", ["owner", "user_id", "agent_id"], values, update=update
                ),
                {
                    "owner": owner,
                    "user_id": scope.user_id,
                    "agent_id": scope.agent_id,
                    "fingerprint": fingerprint,
                    "at": self.dialect.time(at),
                },
            )

    def forget(self, owner: str, scope: Scope) -> None:
        """Drop the scope's record: the next check re-scans."""
        self.db.execute(
            "DELETE FROM catalog_watch WHERE owner = :owner AND user_id = :user_id"
            " AND agent_id = :agent_id",
            {"owner": owner, "user_id": scope.user_id, "agent_id": scope.agent_id},
        )

    def queued_since(self, owner: str, since: dt.datetime | None) -> int:
        """Changes the database itself queued for ``owner`` after ``since`` (a scheduler
        job's work); 0 where no job runs (the embedded backend)."""
        return 0
