"""Tool-call telemetry: one ``tool_telemetry`` row per call and the sliding-window statistics.

Everything is written once but the window itself (:meth:`Telemetry.window_cte`): each tool's
newest ``window_calls`` calls and their p50/p95, which the dialects compute with different
features (SQLite: nearest-rank values read off ``ROW_NUMBER()``; Oracle: ``CROSS APPLY ...
FETCH FIRST`` and ``PERCENTILE_DISC``). Both give the nearest-rank percentile: the smallest
duration d at rank r (1-based, by duration) with ``100 r >= p n``.
"""

from __future__ import annotations

import abc
import datetime as dt
from collections.abc import Sequence
from typing import Any

from agent_harness.backends.connection import Connection
from agent_harness.backends.roles.common import TELEMETRY_COLUMNS, floats, in_list

__all__ = ["Telemetry"]


class Telemetry(abc.ABC):
    """``tool_telemetry`` rows and their statistics.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect

    @abc.abstractmethod
    def window_cte(self, tool_filter: str) -> str:
        """The common table expressions that end in ``window_stats`` (tool, calls, successes,
        failures, success_rate, p50_ms, p95_ms, last_used, last_error): per toolbox row that
        passes ``tool_filter`` (``"x.name IN (...) AND "`` or ""), its last ``:window_calls``
        calls that ran (success not NULL) since ``:since`` and after its breaker's
        ``window_start_id``. ``last_error`` is the message of the newest failed call."""

    def time_bind(self, value: dt.datetime) -> Any:
        """A datetime as a bind value comparable with ``started_at`` in this dialect."""
        return self.dialect.time(value)

    def record(self, row: dict[str, Any]) -> int:
        """Insert one row (keys: :data:`TELEMETRY_COLUMNS`); return its id."""
        values = {c: row.get(c) for c in TELEMETRY_COLUMNS}
        values["started_at"] = self.dialect.time(values["started_at"])
        values["gen_ai_tool_type"] = values["gen_ai_tool_type"] or "function"
        values["output_chars"] = values["output_chars"] or 0
        values["gen_ai_tool_call_arguments"] = self.db.text(values["gen_ai_tool_call_arguments"])
        if values["success"] is not None:
            values["success"] = int(bool(values["success"]))
        return self.db.insert(
            f"INSERT INTO tool_telemetry ({', '.join(TELEMETRY_COLUMNS)})"
            f" VALUES ({', '.join(':' + c for c in TELEMETRY_COLUMNS)})",
            values,
        )

    def stats(
        self, window_calls: int, since: dt.datetime, tools: Sequence[str] | None = None
    ) -> list[dict]:
        """Per registered tool (or only ``tools``), over its window (see :meth:`window_cte`):
        tool, category, calls, successes, failures, success_rate, p50_ms, p95_ms (nearest
        rank), last_used, last_error, plus last_called (its latest call ever, any outcome).
        ONE statement. Tools without calls have calls 0 and None for the rest."""
        tool_filter, binds = in_list("x.name", "tool", tools)
        sql = (
            "WITH "
            + self.window_cte(tool_filter)
            + """
            SELECT x.name AS tool, x.category,
                   COALESCE(s.calls, 0) AS calls, COALESCE(s.successes, 0) AS successes,
                   COALESCE(s.failures, 0) AS failures, s.success_rate, s.p50_ms, s.p95_ms,
                   s.last_used, s.last_error,
                   (SELECT l.started_at FROM tool_telemetry l
                    WHERE l.id = (SELECT MAX(n.id) FROM tool_telemetry n
                                  WHERE n.gen_ai_tool_name = x.name)) AS last_called
            FROM toolbox x LEFT JOIN window_stats s ON s.tool = x.name
            WHERE """
            + tool_filter
            + "1 = 1 ORDER BY x.name"
        )
        binds.update(window_calls=int(window_calls), since=self.dialect.time(since))
        rows = self.db.query(sql, binds)
        for row in rows:
            row["last_used"] = self.dialect.read_time(row["last_used"])
            row["last_called"] = self.dialect.read_time(row["last_called"])
            for name in ("calls", "successes", "failures"):
                row[name] = int(row[name])
            floats(row, "success_rate", "p50_ms", "p95_ms")
        return rows

    def rows(self, tool: str | None = None, after_id: int = 0, limit: int = 1000) -> list[dict]:
        """Telemetry rows, oldest first, with id > ``after_id`` (every column)."""
        where = "id > :after_id" + (" AND gen_ai_tool_name = :tool" if tool else "")
        binds: dict[str, Any] = {"after_id": int(after_id), "limit": int(limit)}
        if tool:
            binds["tool"] = tool
        rows = self.db.query(
            f"SELECT id, {', '.join(TELEMETRY_COLUMNS)} FROM tool_telemetry WHERE {where}"
            f" ORDER BY id {self.dialect.limit('limit')}",
            binds,
        )
        for row in rows:
            row["started_at"] = self.dialect.read_time(row["started_at"])
        return rows

    def prune(self, older_than: dt.datetime, keep_per_tool: int) -> int:
        """Delete rows older than ``older_than`` and beyond the newest ``keep_per_tool`` of
        each tool; return how many went."""
        with self.db.transaction():
            deleted = self.db.execute(
                "DELETE FROM tool_telemetry WHERE started_at < :cutoff",
                {"cutoff": self.dialect.time(older_than)},
            )
            return deleted + self.db.execute(
                """DELETE FROM tool_telemetry WHERE id IN (
                       SELECT id FROM (
                           SELECT id, ROW_NUMBER() OVER (PARTITION BY gen_ai_tool_name
                                                        ORDER BY id DESC) AS newest
                           FROM tool_telemetry) numbered
                       WHERE newest > :keep)""",
                {"keep": int(keep_per_tool)},
            )

    def last_id(self) -> int:
        """The highest telemetry id (0 when empty)."""
        return int(self.db.query("SELECT COALESCE(MAX(id), 0) AS n FROM tool_telemetry")[0]["n"])
