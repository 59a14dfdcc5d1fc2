"""Tool ranking on Oracle: meaning (``VECTOR_DISTANCE``), words (Oracle Text ``CONTAINS`` /
``SCORE``) or both, then track record, in ONE statement (see
:class:`~agent_harness.backends.roles.ToolRanking`).

The toolbox is small, so every row is scored exactly: ``VECTOR_DISTANCE(embedding, :qv,
COSINE)`` without ``FETCH APPROX`` (an exact scan; the HNSW index serves only approximate
top-k queries) and, for keyword and hybrid ranking, ``SCORE(1)`` of ``CONTAINS(search_text, :q,
1)`` on the ``toolbox_text`` CONTEXT index (``SYNC (ON COMMIT)``; the query escaped word by
word by :func:`~agent_harness.backends.oracle.text_query.contains_query`). The two scores are
normalised with analytic ``MIN``/``MAX ... OVER ()`` and fused as on the embedded backend.

Documentation (SQL Language Reference 26 unless said): VECTOR_DISTANCE; SELECT
(row_limiting_clause: ``FETCH FIRST n ROWS ONLY``); Analytic Functions (``MIN``/``MAX`` with
an empty ``OVER ()``); NULLIF; NVL; Oracle Text Reference 26: CONTAINS (the label ties
``SCORE(label)`` to its ``CONTAINS``), SCORE (0..100), "Reserved Words and Characters".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np

from agent_harness.backends.oracle.registry import _WINDOW_CTE, to_db_time
from agent_harness.backends.roles import RankWeights, ToolRanking, in_list

__all__ = ["OracleToolRanking"]

_STATE = """CASE WHEN b.state = 'open' AND (b.retry_at IS NULL OR b.retry_at > :now) THEN 'open'
                 WHEN b.state = 'open' THEN 'half_open'
                 ELSE NVL(b.state, 'closed') END AS state"""
_TRACK = """- :w_success * (1 - (successes + 2) / (calls + 2))
            - :w_latency * (1 - :latency_ref / (:latency_ref + NVL(p50_ms, 0)))"""

# Notebook 06's formula, unchanged: score = similarity - track-record adjustment.
_VECTOR = """, scored AS (
    SELECT x.name, x.category,
           1 - VECTOR_DISTANCE(x.embedding, :qv, COSINE) AS similarity,
           NVL(s.calls, 0) AS calls, NVL(s.successes, 0) AS successes, s.p50_ms, {state}
    FROM toolbox x
    LEFT JOIN window_stats s ON s.tool = x.name
    LEFT JOIN tool_breakers b ON b.tool_name = x.name)
SELECT name, category, similarity, calls, successes, p50_ms, state,
       similarity {track} AS score
FROM scored WHERE """

# Keyword and hybrid, as on the embedded backend: relevance = w_vec * meaning + (1 - w_vec) *
# keyword_score (meaning: min-max of the cosine; keyword_score: SCORE / its maximum).
_FUSED = """, txt AS (
    SELECT t.id, SCORE(1) AS text_score FROM toolbox t WHERE CONTAINS(t.search_text, :q, 1) > 0
), scored AS (
    SELECT x.name, x.category, {similarity} AS similarity, txt.text_score,
           NVL(s.calls, 0) AS calls, NVL(s.successes, 0) AS successes, s.p50_ms, {state}
    FROM toolbox x
    LEFT JOIN txt ON txt.id = x.id
    LEFT JOIN window_stats s ON s.tool = x.name
    LEFT JOIN tool_breakers b ON b.tool_name = x.name
), fused AS (
    SELECT sc.*,
           CASE WHEN sc.similarity IS NULL THEN 0
                ELSE NVL((sc.similarity - MIN(sc.similarity) OVER ())
                         / NULLIF(MAX(sc.similarity) OVER () - MIN(sc.similarity) OVER (), 0),
                         1) END AS meaning,
           NVL(sc.text_score / NULLIF(MAX(sc.text_score) OVER (), 0), 0) AS keyword_score
    FROM scored sc
), relevant AS (
    SELECT f.*, :w_vec * f.meaning + (1 - :w_vec) * f.keyword_score AS relevance FROM fused f)
SELECT name, category, similarity, keyword_score, relevance, calls, successes, p50_ms, state,
       relevance {track} AS score
FROM relevant WHERE {matched}"""


class OracleToolRanking(ToolRanking):
    """Toolbox ranking on Oracle, all modes in one statement each."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def rank(
        self,
        vector: np.ndarray | None,
        text: str,
        *,
        window_calls: int,
        since: dt.datetime,
        now: dt.datetime,
        weights: RankWeights,
        categories: Sequence[str] | None = None,
        include_open: bool = False,
        k: int | None = None,
        mode: str = "vector",
    ) -> list[dict]:
        category_filter, binds = in_list("category", "cat", categories)
        open_filter = "" if include_open else "state <> 'open' AND "
        limit = "" if k is None else " FETCH FIRST :k ROWS ONLY"
        if mode == "vector":
            body = _VECTOR.format(state=_STATE, track=_TRACK)
        else:
            keyword = mode == "keyword"
            body = _FUSED.format(
                state=_STATE,
                track=_TRACK,
                similarity="CAST(NULL AS BINARY_DOUBLE)"
                if keyword
                else "1 - VECTOR_DISTANCE(x.embedding, :qv, COSINE)",
                matched="text_score IS NOT NULL AND " if keyword else "",
            )
            binds["q"] = self.backend.text_query(text)
        sql = (
            "WITH "
            + _WINDOW_CTE.format(tool_filter="")
            + body
            + category_filter
            + open_filter
            + "1 = 1 ORDER BY score DESC, name"
            + limit
        )
        if mode != "keyword":
            binds["qv"] = self.backend.vector_bind(vector)
        binds.update(
            window_calls=int(window_calls),
            since=to_db_time(since),
            now=to_db_time(now),
            **weights.binds(mode),
        )
        if k is not None:
            binds["k"] = int(k)
        rows = self.backend.query(sql, binds)
        for row in rows:
            for name in ("similarity", "score", "p50_ms", "keyword_score", "relevance"):
                if row.get(name) is not None:
                    row[name] = float(row[name])
        return rows

    def neighbours(self, tool: str, k: int, now: dt.datetime) -> list[str]:
        rows = self.backend.query(
            """SELECT o.name FROM toolbox me JOIN toolbox o ON o.name <> me.name
               LEFT JOIN tool_breakers b ON b.tool_name = o.name
               WHERE me.name = :tool
                 AND NOT (NVL(b.state, 'closed') = 'open'
                          AND (b.retry_at IS NULL OR b.retry_at > :now))
               ORDER BY VECTOR_DISTANCE(me.embedding, o.embedding, COSINE), o.name
               FETCH FIRST :k ROWS ONLY""",
            {"tool": tool, "now": to_db_time(now), "k": int(k)},
        )
        return [r["name"] for r in rows]
