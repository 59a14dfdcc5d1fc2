"""The embedded (SQLite) side of the self-healing registry: telemetry, breakers, ranking.

Times are stored as ISO-8601 UTC text to the millisecond (``2026-11-23T10:15:02.123Z``), which
sorts like time. The statistics use window functions; SQLite has no percentile function, so
p50 and p95 are nearest-rank values read off ``ROW_NUMBER()``: the p-th percentile of n
durations is the smallest one whose rank r satisfies ``100 * r >= p * n``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from agent_harness.backends.roles import (
    BREAKER_COLUMNS,
    TELEMETRY_COLUMNS,
    BreakerStore,
    TelemetryStore,
    in_list,
)

__all__ = [
    "EmbeddedTelemetry",
    "EmbeddedBreakers",
    "to_text",
    "to_time",
]

from agent_harness.backends.embedded.migrations import NOW as _NOW


def to_text(value: dt.datetime | None) -> str | None:
    """A datetime as the stored text (UTC, milliseconds, ``Z``)."""
    if value is None:
        return None
    value = value.astimezone(dt.timezone.utc) if value.tzinfo else value
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def to_time(text: Any) -> dt.datetime | None:
    """Stored text back to an aware UTC datetime (None stays None)."""
    if text is None or isinstance(text, dt.datetime):
        return text
    return dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def _times(row: dict, *names: str) -> dict:
    for name in names:
        if name in row:
            row[name] = to_time(row[name])
    return row


# The window of every registered tool: its last :window_calls calls that ran, since :since,
# after the breaker's reset point. The work stays bounded however big the table grows: the
# first id of the time window comes from the started_at index, each tool's n-th newest call
# from a backward walk of the (tool, id) index, and then only the rows between are read.
_WINDOW_CTE = """floor_id AS (
    SELECT COALESCE(MIN(id), 9223372036854775807) AS id FROM tool_telemetry
    WHERE started_at >= :since
), bounds AS (
    SELECT x.name AS tool, MAX(f.id, COALESCE(b.window_start_id, 0) + 1) AS first_id
    FROM toolbox x CROSS JOIN floor_id f LEFT JOIN tool_breakers b ON b.tool_name = x.name
    WHERE {tool_filter} 1 = 1
), edges AS (
    SELECT w.tool, w.first_id,
           (SELECT i.id FROM tool_telemetry i
            WHERE i.gen_ai_tool_name = w.tool AND i.id >= w.first_id AND i.success IS NOT NULL
            ORDER BY i.id DESC LIMIT 1 OFFSET :window_calls - 1) AS nth_id
    FROM bounds w
), recent AS (
    SELECT t.gen_ai_tool_name AS tool, t.id, t.success, t.duration_ms, t.started_at,
           t.error_message
    FROM edges e JOIN tool_telemetry t
      ON t.gen_ai_tool_name = e.tool AND t.id >= MAX(e.first_id, COALESCE(e.nth_id, 0))
    WHERE t.success IS NOT NULL AND t.started_at >= :since
), ranked AS (
    SELECT r.*,
           ROW_NUMBER() OVER (PARTITION BY r.tool ORDER BY r.duration_ms, r.id) AS speed_rank,
           COUNT(*) OVER (PARTITION BY r.tool) AS n,
           ROW_NUMBER() OVER (PARTITION BY r.tool, r.success ORDER BY r.id DESC) AS newest
    FROM recent r
), window_stats AS (
    SELECT tool,
           COUNT(*) AS calls,
           SUM(success) AS successes,
           COUNT(*) - SUM(success) AS failures,
           1.0 * SUM(success) / COUNT(*) AS success_rate,
           MIN(CASE WHEN 100 * speed_rank >= 50 * n THEN duration_ms END) AS p50_ms,
           MIN(CASE WHEN 100 * speed_rank >= 95 * n THEN duration_ms END) AS p95_ms,
           MAX(started_at) AS last_used,
           MAX(CASE WHEN success = 0 AND newest = 1 THEN error_message END) AS last_error
    FROM ranked GROUP BY tool
)"""


class EmbeddedTelemetry(TelemetryStore):
    """``tool_telemetry`` on SQLite."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def record(self, row: dict[str, Any]) -> int:
        values = {c: row.get(c) for c in TELEMETRY_COLUMNS}
        values["started_at"] = to_text(values["started_at"])
        values["gen_ai_tool_type"] = values["gen_ai_tool_type"] or "function"
        values["output_chars"] = values["output_chars"] or 0
        if values["success"] is not None:
            values["success"] = int(bool(values["success"]))
        columns = ", ".join(TELEMETRY_COLUMNS)
        binds = ", ".join(f":{c}" for c in TELEMETRY_COLUMNS)
        with self.backend._lock:
            return self.backend.conn.execute(
                f"INSERT INTO tool_telemetry ({columns}) VALUES ({binds}) RETURNING id", values
            ).fetchall()[0][0]

    def stats(
        self, window_calls: int, since: dt.datetime, tools: Sequence[str] | None = None
    ) -> list[dict]:
        tool_filter, binds = in_list("x.name", "tool", tools)
        sql = (
            "WITH "
            + _WINDOW_CTE.format(tool_filter=tool_filter)
            + """
            SELECT x.name AS tool, x.category,
                   COALESCE(s.calls, 0) AS calls, COALESCE(s.successes, 0) AS successes,
                   COALESCE(s.failures, 0) AS failures, s.success_rate, s.p50_ms, s.p95_ms,
                   s.last_used, s.last_error,
                   (SELECT l.started_at FROM tool_telemetry l
                    WHERE l.gen_ai_tool_name = x.name ORDER BY l.id DESC LIMIT 1) AS last_called
            FROM toolbox x LEFT JOIN window_stats s ON s.tool = x.name
            WHERE """
            + tool_filter
            + "1 = 1 ORDER BY x.name"
        )
        binds.update(window_calls=int(window_calls), since=to_text(since))
        return [_times(r, "last_used", "last_called") for r in self.backend.query(sql, binds)]

    def rows(self, tool: str | None = None, after_id: int = 0, limit: int = 1000) -> list[dict]:
        where = "id > :after" + (" AND gen_ai_tool_name = :tool" if tool else "")
        rows = self.backend.query(
            f"SELECT * FROM tool_telemetry WHERE {where} ORDER BY id LIMIT :limit",
            {"after": int(after_id), "tool": tool, "limit": int(limit)}
            if tool
            else {"after": int(after_id), "limit": int(limit)},
        )
        return [_times(r, "started_at") for r in rows]

    def prune(self, older_than: dt.datetime, keep_per_tool: int) -> int:
        with self.backend._lock, self.backend.conn:
            conn = self.backend.conn
            conn.execute("DELETE FROM tool_telemetry WHERE started_at < ?", (to_text(older_than),))
            deleted = conn.changes()
            # Per tool: everything at or below the id of its (keep_per_tool + 1)-th newest row.
            conn.execute(
                """DELETE FROM tool_telemetry WHERE id IN (
                       SELECT t.id FROM (SELECT DISTINCT gen_ai_tool_name AS name
                                         FROM tool_telemetry) n
                       JOIN tool_telemetry t ON t.gen_ai_tool_name = n.name
                       AND t.id <= (SELECT c.id FROM tool_telemetry c
                                    WHERE c.gen_ai_tool_name = n.name
                                    ORDER BY c.id DESC LIMIT 1 OFFSET :keep))""",
                {"keep": int(keep_per_tool)},
            )
            return deleted + conn.changes()

    def last_id(self) -> int:
        return self.backend.query("SELECT COALESCE(MAX(id), 0) AS n FROM tool_telemetry")[0]["n"]

    def time_bind(self, value: dt.datetime) -> str:
        return to_text(value)


class EmbeddedBreakers(BreakerStore):
    """``tool_breakers``, ``tool_transitions`` and ``harness_settings`` on SQLite."""

    _COLUMNS = BREAKER_COLUMNS

    def __init__(self, backend) -> None:
        self.backend = backend

    def get(self, tool: str) -> dict | None:
        rows = self.backend.query("SELECT * FROM tool_breakers WHERE tool_name = :t", {"t": tool})
        return _times(rows[0], "since", "retry_at") if rows else None

    def all(self) -> list[dict]:
        rows = self.backend.query("SELECT * FROM tool_breakers ORDER BY tool_name")
        return [_times(r, "since", "retry_at") for r in rows]

    def put(self, row: dict, transition: dict | None) -> None:
        values = {c: row.get(c) for c in self._COLUMNS}
        values["since"] = to_text(values["since"])
        values["retry_at"] = to_text(values["retry_at"])
        for name in ("trial_successes", "trial_failures", "window_start_id", "opened_count"):
            values[name] = int(values[name] or 0)
        columns = ", ".join(self._COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in self._COLUMNS[1:])
        with self.backend._lock, self.backend.conn:
            self.backend.conn.execute(
                f"INSERT INTO tool_breakers ({columns}) VALUES"
                f" ({', '.join(':' + c for c in self._COLUMNS)})"
                f" ON CONFLICT (tool_name) DO UPDATE SET {updates}",
                values,
            )
            if transition:
                self.backend.conn.execute(
                    "INSERT INTO tool_transitions (tool_name, from_state, to_state, reason,"
                    " actor, evidence, at) VALUES (:tool, :from_state, :to_state, :reason,"
                    " :actor, :evidence, :at)",
                    {
                        "tool": values["tool_name"],
                        "from_state": transition["from_state"],
                        "to_state": transition["to_state"],
                        "reason": transition["reason"],
                        "actor": transition["actor"],
                        "evidence": json.dumps(transition.get("evidence") or {}, default=str),
                        "at": values["since"],
                    },
                )

    def transitions(self, tool: str | None = None, limit: int = 200) -> list[dict]:
        where = "WHERE tool_name = :tool " if tool else ""
        binds: dict[str, Any] = {"limit": int(limit)}
        if tool:
            binds["tool"] = tool
        rows = self.backend.query(
            f"SELECT * FROM tool_transitions {where}ORDER BY id DESC LIMIT :limit", binds
        )
        for r in rows:
            r["evidence"] = json.loads(r["evidence"] or "{}")
            _times(r, "at")
        return rows

    def settings(self, prefix: str) -> dict[str, str]:
        rows = self.backend.query(
            "SELECT name, value FROM harness_settings WHERE substr(name, 1, :n) = :prefix",
            {"n": len(prefix), "prefix": prefix},
        )
        return {r["name"]: r["value"] for r in rows}

    def set_setting(self, name: str, value: str) -> None:
        self.backend.execute(
            "INSERT INTO harness_settings (name, value) VALUES (:name, :value)"
            f" ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = {_NOW}",
            {"name": name, "value": value},
        )
