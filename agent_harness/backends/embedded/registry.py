"""The registry's SQLite pieces: the telemetry window and what tool ranking needs.

The statistics use window functions: p50 and p95 are nearest-rank values read off
``ROW_NUMBER()`` (the smallest duration at rank r with ``100 r >= p n``). SQLite 3.54 does have
``percentile_disc``, but it interpolates differently from nearest rank (p95 of 1, 2, 3, 4 is 3
there, 4 here), and the nearest rank is what Oracle's ``PERCENTILE_DISC`` gives. Tool ranking
scores every toolbox row exactly: ``vec_distance_cosine`` over its ``toolbox_vec`` row and, for
keyword and hybrid ranking, FTS5's BM25 on ``toolbox_fts`` (``rank`` negated so higher is
better).
"""

from __future__ import annotations

from agent_harness.backends.roles.ranking import ToolRanking
from agent_harness.backends.roles.telemetry import Telemetry

__all__ = ["EmbeddedTelemetry", "EmbeddedToolRanking"]


class EmbeddedTelemetry(Telemetry):
    """``tool_telemetry`` on SQLite: the window walks the (tool, id) index backwards."""

    def window_cte(self, tool_filter: str) -> str:
        # The work stays bounded however big the table grows: the first id of the time window
        # comes from the started_at index, each tool's n-th newest call from a backward walk of
        # the (tool, id) index, and then only the rows between are read.
        return f"""floor_id AS (
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


class EmbeddedToolRanking(ToolRanking):
    """Vectors in ``toolbox_vec``, cosine by sqlite-vec, words by FTS5."""

    def vector_of(self, alias: str) -> tuple[str, str]:
        return f"JOIN toolbox_vec {alias}_v ON {alias}_v.id = {alias}.id", f"{alias}_v.embedding"

    def cosine_distance(self, a: str, b: str) -> str:
        return f"vec_distance_cosine({a}, {b})"

    def keyword_cte(self) -> str:
        return (
            "SELECT f.rowid AS id, -f.rank AS text_score FROM toolbox_fts f"
            " WHERE toolbox_fts MATCH :q"
        )
