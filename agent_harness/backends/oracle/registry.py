"""The Oracle side of the self-healing registry: telemetry, breakers and settings, ranking.

Times are ``TIMESTAMP`` columns holding UTC (bound and fetched as naive UTC datetimes and
turned aware at this boundary), so the ``started_at`` index serves the time window. The
statistics take each tool's newest ``window_calls`` calls with ``CROSS APPLY (... FETCH FIRST
:window_calls ROWS ONLY)`` over the (tool, id) index, so the work stays bounded however big the
table grows. p50/p95 are ``PERCENTILE_DISC``: the first value whose cumulative distribution
reaches p, which is the nearest-rank value the embedded backend reads off ``ROW_NUMBER`` (the
smallest duration at rank r with 100 r >= p n), so both dialects give the same numbers.
Documentation: SQL Language Reference 23/26 (SELECT: cross_outer_apply_clause,
row_limiting_clause; PERCENTILE_DISC; MERGE). The ranking is in :mod:`.tool_ranking`.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

import oracledb

from agent_harness.backends.roles import (
    BREAKER_COLUMNS,
    TELEMETRY_COLUMNS,
    BreakerStore,
    TelemetryStore,
    in_list,
)

__all__ = ["OracleTelemetry", "OracleBreakers", "to_db_time", "from_db_time"]


def to_db_time(value: dt.datetime | None) -> dt.datetime | None:
    """An aware datetime as the naive UTC value the TIMESTAMP columns hold."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value


def from_db_time(value: Any) -> dt.datetime | None:
    """A fetched TIMESTAMP (UTC) as an aware datetime."""
    if value is None:
        return None
    return value.replace(tzinfo=dt.timezone.utc)


def _times(row: dict, *names: str) -> dict:
    for name in names:
        if name in row:
            row[name] = from_db_time(row[name])
    return row


_WINDOW_CTE = """bounds AS (
    SELECT x.name AS tool, NVL(b.window_start_id, 0) AS start_id
    FROM toolbox x LEFT JOIN tool_breakers b ON b.tool_name = x.name
    WHERE {tool_filter} 1 = 1
), recent AS (
    SELECT w.tool, r.id, r.success, r.duration_ms, r.started_at, r.error_message
    FROM bounds w CROSS APPLY (
        SELECT t.id, t.success, t.duration_ms, t.started_at, t.error_message
        FROM tool_telemetry t
        WHERE t.gen_ai_tool_name = w.tool AND t.id > w.start_id
          AND t.success IS NOT NULL AND t.started_at >= :since
        ORDER BY t.id DESC FETCH FIRST :window_calls ROWS ONLY) r
), ranked AS (
    SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.tool, r.success ORDER BY r.id DESC) AS newest
    FROM recent r
), window_stats AS (
    SELECT tool,
           COUNT(*) AS calls,
           SUM(success) AS successes,
           COUNT(*) - SUM(success) AS failures,
           SUM(success) / COUNT(*) AS success_rate,
           PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50_ms,
           PERCENTILE_DISC(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95_ms,
           MAX(started_at) AS last_used,
           MAX(CASE WHEN success = 0 AND newest = 1 THEN error_message END) AS last_error
    FROM ranked GROUP BY tool
)"""


class OracleTelemetry(TelemetryStore):
    """``tool_telemetry`` on Oracle."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def record(self, row: dict[str, Any]) -> int:
        values = {c: row.get(c) for c in TELEMETRY_COLUMNS}
        values["started_at"] = to_db_time(values["started_at"])
        values["gen_ai_tool_type"] = values["gen_ai_tool_type"] or "function"
        values["output_chars"] = values["output_chars"] or 0
        if values["success"] is not None:
            values["success"] = int(bool(values["success"]))
        columns = ", ".join(TELEMETRY_COLUMNS)
        binds = ", ".join(f":{c}" for c in TELEMETRY_COLUMNS)
        backend = self.backend
        with backend.transaction(), backend.conn.cursor() as cur:
            new_id = cur.var(oracledb.DB_TYPE_NUMBER)
            cur.execute(
                f"INSERT INTO tool_telemetry ({columns}) VALUES ({binds})"
                " RETURNING id INTO :new_id",
                {**values, "new_id": new_id},
            )
            return int(new_id.getvalue()[0])

    def stats(
        self, window_calls: int, since: dt.datetime, tools: Sequence[str] | None = None
    ) -> list[dict]:
        tool_filter, binds = in_list("x.name", "tool", tools)
        sql = (
            "WITH "
            + _WINDOW_CTE.format(tool_filter=tool_filter)
            + """
            SELECT x.name AS tool, x.category,
                   NVL(s.calls, 0) AS calls, NVL(s.successes, 0) AS successes,
                   NVL(s.failures, 0) AS failures, s.success_rate, s.p50_ms, s.p95_ms,
                   s.last_used, s.last_error,
                   (SELECT MAX(l.started_at) KEEP (DENSE_RANK LAST ORDER BY l.id)
                    FROM tool_telemetry l WHERE l.gen_ai_tool_name = x.name) AS last_called
            FROM toolbox x LEFT JOIN window_stats s ON s.tool = x.name
            WHERE """
            + tool_filter
            + "1 = 1 ORDER BY x.name"
        )
        binds.update(window_calls=int(window_calls), since=to_db_time(since))
        rows = self.backend.query(sql, binds)
        for row in rows:
            _times(row, "last_used", "last_called")
            for name in ("success_rate", "p50_ms", "p95_ms"):
                if row[name] is not None:
                    row[name] = float(row[name])
        return rows

    def rows(self, tool: str | None = None, after_id: int = 0, limit: int = 1000) -> list[dict]:
        where = "id > :after_id" + (" AND gen_ai_tool_name = :tool" if tool else "")
        rows = self.backend.query(
            f"SELECT id, {', '.join(TELEMETRY_COLUMNS)} FROM tool_telemetry WHERE {where}"
            " ORDER BY id FETCH FIRST :limit ROWS ONLY",
            {"after_id": int(after_id), "tool": tool, "limit": int(limit)},
        )
        return [_times(r, "started_at") for r in rows]

    def prune(self, older_than: dt.datetime, keep_per_tool: int) -> int:
        with self.backend.transaction(), self.backend.conn.cursor() as cur:
            cur.execute(
                "DELETE FROM tool_telemetry WHERE started_at < :cutoff",
                {"cutoff": to_db_time(older_than)},
            )
            deleted = cur.rowcount
            cur.execute(
                """DELETE FROM tool_telemetry WHERE id IN (
                       SELECT id FROM (
                           SELECT id, ROW_NUMBER() OVER (PARTITION BY gen_ai_tool_name
                                                        ORDER BY id DESC) AS newest
                           FROM tool_telemetry)
                       WHERE newest > :keep)""",
                {"keep": int(keep_per_tool)},
            )
            return deleted + cur.rowcount

    def last_id(self) -> int:
        return int(self.backend.query("SELECT NVL(MAX(id), 0) AS n FROM tool_telemetry")[0]["n"])

    def time_bind(self, value: dt.datetime):
        return to_db_time(value)


class OracleBreakers(BreakerStore):
    """``tool_breakers``, ``tool_transitions`` and ``harness_settings`` on Oracle."""

    _COLUMNS = BREAKER_COLUMNS

    def __init__(self, backend) -> None:
        self.backend = backend

    def _select(self, where: str = "", binds: dict | None = None) -> list[dict]:
        rows = self.backend.query(
            f"SELECT {', '.join(self._COLUMNS)} FROM tool_breakers {where} ORDER BY tool_name",
            binds or {},
        )
        return [_times(r, "since", "retry_at") for r in rows]

    def get(self, tool: str) -> dict | None:
        rows = self._select("WHERE tool_name = :tool", {"tool": tool})
        return rows[0] if rows else None

    def all(self) -> list[dict]:
        return self._select()

    def put(self, row: dict, transition: dict | None) -> None:
        values = {c: row.get(c) for c in self._COLUMNS}
        values["since"] = to_db_time(values["since"])
        values["retry_at"] = to_db_time(values["retry_at"])
        for name in ("trial_successes", "trial_failures", "window_start_id", "opened_count"):
            values[name] = int(values[name] or 0)
        updates = ", ".join(f"b.{c} = n.{c}" for c in self._COLUMNS[1:])
        source = ", ".join(f":{c} AS {c}" for c in self._COLUMNS)
        with self.backend.transaction():
            self.backend.execute(
                f"MERGE INTO tool_breakers b USING (SELECT {source} FROM dual) n"
                f" ON (b.tool_name = n.tool_name) WHEN MATCHED THEN UPDATE SET {updates}"
                f" WHEN NOT MATCHED THEN INSERT ({', '.join(self._COLUMNS)})"
                f" VALUES ({', '.join('n.' + c for c in self._COLUMNS)})",
                values,
            )
            if transition:
                self.backend.execute(
                    "INSERT INTO tool_transitions (tool_name, from_state, to_state, reason,"
                    " actor, evidence, at) VALUES (:tool, :from_state, :to_state, :reason,"
                    " :actor, :evidence, :at)",
                    {
                        "tool": values["tool_name"],
                        "from_state": transition["from_state"],
                        "to_state": transition["to_state"],
                        "reason": str(transition["reason"])[:1000],
                        "actor": transition["actor"],
                        "evidence": self.backend._clob(
                            json.dumps(transition.get("evidence") or {}, default=str)
                        ),
                        "at": values["since"],
                    },
                )

    def transitions(self, tool: str | None = None, limit: int = 200) -> list[dict]:
        where = "WHERE tool_name = :tool " if tool else ""
        rows = self.backend.query(
            "SELECT id, tool_name, from_state, to_state, reason, actor, evidence, at"
            f" FROM tool_transitions {where}ORDER BY id DESC FETCH FIRST :limit ROWS ONLY",
            {"tool": tool, "limit": int(limit)},
        )
        for r in rows:
            r["evidence"] = json.loads(r["evidence"] or "{}")
            _times(r, "at")
        return rows

    def settings(self, prefix: str) -> dict[str, str]:
        rows = self.backend.query(
            "SELECT name, value FROM harness_settings WHERE SUBSTR(name, 1, :n) = :prefix",
            {"n": len(prefix), "prefix": prefix},
        )
        return {r["name"]: r["value"] for r in rows}

    def set_setting(self, name: str, value: str) -> None:
        self.backend.execute(
            "MERGE INTO harness_settings s USING (SELECT :name AS name, :value AS value"
            " FROM dual) n ON (s.name = n.name) WHEN MATCHED THEN UPDATE SET"
            " s.value = n.value, s.updated_at = SYSTIMESTAMP WHEN NOT MATCHED THEN"
            " INSERT (name, value) VALUES (n.name, n.value)",
            {"name": name, "value": value},
        )
