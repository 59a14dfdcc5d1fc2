"""Circuit-breaker states, their transitions, and the registry's settings (written once).

Times cross this boundary as timezone-aware UTC ``datetime`` objects both ways.
"""

from __future__ import annotations

import json
from typing import Any

from agent_harness.backends.connection import Connection
from agent_harness.backends.roles.common import BREAKER_COLUMNS, check_text_fits

__all__ = ["Breakers"]

_COUNTS = ("trial_successes", "trial_failures", "window_start_id", "opened_count")
_TRANSITION = ("id", "tool_name", "from_state", "to_state", "reason", "actor", "evidence", "at")
#: ``tool_transitions.reason`` holds at most this many characters (longer reasons are cut).
REASON_CHARS = 1000


class Breakers:
    """``tool_breakers``, ``tool_transitions`` and ``harness_settings``.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect

    def _read(self, row: dict) -> dict:
        for name in ("since", "retry_at"):
            row[name] = self.dialect.read_time(row[name])
        for name in _COUNTS:
            row[name] = int(row[name] or 0)
        return row

    def _select(self, where: str = "", binds: dict | None = None) -> list[dict]:
        rows = self.db.query(
            f"SELECT {', '.join(BREAKER_COLUMNS)} FROM tool_breakers {where} ORDER BY tool_name",
            binds or {},
        )
        return [self._read(r) for r in rows]

    def get(self, tool: str) -> dict | None:
        """A tool's breaker row (:data:`BREAKER_COLUMNS`), or None: closed, never changed."""
        rows = self._select("WHERE tool_name = :tool", {"tool": tool})
        return rows[0] if rows else None

    def all(self) -> list[dict]:
        """Every breaker row, by tool name."""
        return self._select()

    def put(self, row: dict, transition: dict | None) -> None:
        """Write a tool's breaker row and, in the same transaction, the transition that led
        to it (keys: from_state, to_state, reason, actor, evidence (dict)) if any."""
        values = {c: row.get(c) for c in BREAKER_COLUMNS}
        values["since"] = self.dialect.time(values["since"])
        values["retry_at"] = self.dialect.time(values["retry_at"])
        for name in _COUNTS:
            values[name] = int(values[name] or 0)
        upsert = self.dialect.upsert(
            "tool_breakers", ["tool_name"], {c: f":{c}" for c in BREAKER_COLUMNS}
        )
        with self.db.transaction():
            self.db.execute(upsert, values)
            if transition:
                self.db.execute(
                    "INSERT INTO tool_transitions (tool_name, from_state, to_state, reason,"
                    " actor, evidence, at) VALUES (:tool, :from_state, :to_state, :reason,"
                    " :actor, :evidence, :at)",
                    {
                        "tool": values["tool_name"],
                        "from_state": transition["from_state"],
                        "to_state": transition["to_state"],
                        "reason": str(transition["reason"])[:REASON_CHARS],
                        "actor": transition["actor"],
                        "evidence": self.db.text(
                            json.dumps(transition.get("evidence") or {}, default=str)
                        ),
                        "at": values["since"],
                    },
                )

    def transitions(self, tool: str | None = None, limit: int = 200) -> list[dict]:
        """Transitions, newest first (``evidence`` as a dict)."""
        where = "WHERE tool_name = :tool " if tool else ""
        binds: dict[str, Any] = {"limit": int(limit)}
        if tool:
            binds["tool"] = tool
        rows = self.db.query(
            f"SELECT {', '.join(_TRANSITION)} FROM tool_transitions {where}ORDER BY id DESC"
            f" {self.dialect.limit('limit')}",
            binds,
        )
        for r in rows:
            r["evidence"] = json.loads(r["evidence"] or "{}")
            r["at"] = self.dialect.read_time(r["at"])
        return rows

    def settings(self, prefix: str) -> dict[str, str]:
        """Settings whose name starts with ``prefix`` (name -> text value; a value stored
        empty reads as ``""`` on both dialects: Oracle stores ``''`` as NULL)."""
        rows = self.db.query(
            "SELECT name, value FROM harness_settings WHERE SUBSTR(name, 1, :n) = :prefix",
            {"n": len(prefix), "prefix": prefix},
        )
        return {r["name"]: r["value"] or "" for r in rows}

    def set_setting(self, name: str, value: str) -> None:
        """Insert or replace one setting (``""`` is stored as NULL on Oracle and read back as
        ``""`` by :meth:`settings`).

        Raises:
            TextTooLong: The value takes more than 4000 bytes.
        """
        check_text_fits(value, f"setting {name!r}")
        self.db.execute(
            self.dialect.upsert(
                "harness_settings",
                ["name"],
                {"name": ":name", "value": ":value"},
                touch="updated_at",
            ),
            {"name": name, "value": value},
        )
