"""The registry's Oracle pieces: the telemetry window and what tool ranking needs.

The window takes each tool's newest ``window_calls`` calls with ``CROSS APPLY (... FETCH FIRST
:window_calls ROWS ONLY)`` over the (tool, id) index, so the work stays bounded however big the
table grows. p50/p95 are ``PERCENTILE_DISC``: the first value whose cumulative distribution
reaches p, which is the nearest-rank value the embedded backend reads off ``ROW_NUMBER`` (the
smallest duration at rank r with 100 r >= p n), so both dialects give the same numbers. Tool
ranking scores every row exactly: ``VECTOR_DISTANCE(embedding, :qv, COSINE)`` without ``FETCH
APPROX`` (the HNSW index serves only approximate top-k queries) and, for keyword and hybrid
ranking, ``SCORE(1)`` of ``CONTAINS(search_text, :q, 1)`` on the ``toolbox_text`` CONTEXT index.

Documentation: SQL Language Reference 23/26 (SELECT: cross_outer_apply_clause,
row_limiting_clause; PERCENTILE_DISC; VECTOR_DISTANCE; the NO_MERGE hint); Oracle Text
Reference 26: CONTAINS (the label ties ``SCORE(label)`` to its ``CONTAINS``), SCORE (0..100).
"""

from __future__ import annotations

from agent_harness.backends.roles.ranking import ToolRanking
from agent_harness.backends.roles.telemetry import Telemetry

__all__ = ["OracleTelemetry", "OracleToolRanking"]


class OracleTelemetry(Telemetry):
    """``tool_telemetry`` on Oracle: CROSS APPLY for each tool's window, PERCENTILE_DISC."""

    def window_cte(self, tool_filter: str) -> str:
        return f"""bounds AS (
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


class OracleToolRanking(ToolRanking):
    """Vectors in the toolbox's own column, VECTOR_DISTANCE, Oracle Text."""

    def vector_of(self, alias: str) -> tuple[str, str]:
        return "", f"{alias}.embedding"

    def cosine_distance(self, a: str, b: str) -> str:
        return f"VECTOR_DISTANCE({a}, {b}, COSINE)"

    def keyword_cte(self) -> str:
        # NO_MERGE keeps CONTAINS in its own query block: merged into the outer join's ON
        # clause it raises ORA-29908 (missing primary invocation) in some versions.
        return (
            "SELECT /*+ NO_MERGE */ t.id, SCORE(1) AS text_score FROM toolbox t"
            " WHERE CONTAINS(t.search_text, :q, 1) > 0"
        )
