"""Tool ranking on SQLite: meaning (sqlite-vec cosine), words (FTS5 BM25) or both, then track
record, in ONE statement (see :class:`~agent_harness.backends.roles.ToolRanking`).

The toolbox is small (hundreds to a few thousand rows), so every row is scored exactly: the
cosine similarity of its vector (``vec_distance_cosine``) and, for keyword and hybrid ranking,
the BM25 of its ``search_text`` in ``toolbox_fts`` (FTS5's ``rank``, negated so higher is
better). The windowed statistics and the breaker state come from the same statement as the
score, and so do the category and open-state filters.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np

from agent_harness.backends.embedded.registry import _WINDOW_CTE, to_text
from agent_harness.backends.roles import RankWeights, ToolRanking, in_list

__all__ = ["EmbeddedToolRanking"]

_STATE = """CASE WHEN b.state = 'open' AND (b.retry_at IS NULL OR b.retry_at > :now) THEN 'open'
                 WHEN b.state = 'open' THEN 'half_open'
                 ELSE COALESCE(b.state, 'closed') END AS state"""
_TRACK = """- :w_success * (1.0 - (successes + 2.0) / (calls + 2.0))
            - :w_latency * (1.0 - :latency_ref / (:latency_ref + COALESCE(p50_ms, 0.0)))"""

# Notebook 06's formula, unchanged: score = similarity - track-record adjustment.
_VECTOR = """, scored AS (
    SELECT x.name, x.category,
           1.0 - vec_distance_cosine(v.embedding, :qv) AS similarity,
           COALESCE(s.calls, 0) AS calls, COALESCE(s.successes, 0) AS successes,
           s.p50_ms, {state}
    FROM toolbox x JOIN toolbox_vec v ON v.id = x.id
    LEFT JOIN window_stats s ON s.tool = x.name
    LEFT JOIN tool_breakers b ON b.tool_name = x.name)
SELECT name, category, similarity, calls, successes, p50_ms, state,
       similarity {track} AS score
FROM scored WHERE """

# Keyword and hybrid: relevance = w_vec * meaning + (1 - w_vec) * keyword_score, both 0..1
# over the whole toolbox (meaning: min-max of the cosine; keyword_score: BM25 / its maximum,
# 0 without a match); score = relevance - track-record adjustment. The full-text matches and
# the scored rows are MATERIALIZED once: left to itself SQLite re-runs the MATCH for every
# toolbox row and the cosine for every use of the similarity.
_FUSED = """, txt AS MATERIALIZED (
    SELECT f.rowid AS id, -f.rank AS bm25 FROM toolbox_fts f WHERE toolbox_fts MATCH :q
), scored AS MATERIALIZED (
    SELECT x.name, x.category, {similarity} AS similarity, txt.bm25,
           COALESCE(s.calls, 0) AS calls, COALESCE(s.successes, 0) AS successes,
           s.p50_ms, {state}
    FROM toolbox x {vector_join}
    LEFT JOIN txt ON txt.id = x.id
    LEFT JOIN window_stats s ON s.tool = x.name
    LEFT JOIN tool_breakers b ON b.tool_name = x.name
), fused AS (
    SELECT scored.*,
           COALESCE((similarity - MIN(similarity) OVER ())
                    / NULLIF(MAX(similarity) OVER () - MIN(similarity) OVER (), 0.0), 1.0)
             AS meaning,
           COALESCE(bm25 / NULLIF(MAX(bm25) OVER (), 0.0), 0.0) AS keyword_score
    FROM scored
), relevant AS (
    SELECT fused.*, :w_vec * meaning + (1.0 - :w_vec) * keyword_score AS relevance FROM fused)
SELECT name, category, similarity, keyword_score, relevance, calls, successes, p50_ms, state,
       relevance {track} AS score
FROM relevant WHERE {matched}"""


class EmbeddedToolRanking(ToolRanking):
    """Toolbox ranking on SQLite, all modes in one statement each."""

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
        if mode == "vector":
            body = _VECTOR.format(state=_STATE, track=_TRACK)
        else:
            keyword = mode == "keyword"
            body = _FUSED.format(
                state=_STATE,
                track=_TRACK,
                similarity="NULL" if keyword else "1.0 - vec_distance_cosine(v.embedding, :qv)",
                vector_join="" if keyword else "JOIN toolbox_vec v ON v.id = x.id",
                matched="bm25 IS NOT NULL AND " if keyword else "",
            )
            binds["q"] = self.backend.text_query(text)
        sql = (
            "WITH "
            + _WINDOW_CTE.format(tool_filter="")
            + body
            + category_filter
            + open_filter
            + "1 = 1 ORDER BY score DESC, name LIMIT :k"
        )
        if mode != "keyword":
            binds["qv"] = self.backend.vector_bind(vector)
        binds.update(
            window_calls=int(window_calls),
            since=to_text(since),
            now=to_text(now),
            **weights.binds(mode),
            k=-1 if k is None else int(k),
        )
        return self.backend.query(sql, binds)

    def neighbours(self, tool: str, k: int, now: dt.datetime) -> list[str]:
        rows = self.backend.query(
            """SELECT o.name FROM toolbox me JOIN toolbox_vec mv ON mv.id = me.id
               JOIN toolbox o ON o.name <> me.name JOIN toolbox_vec ov ON ov.id = o.id
               LEFT JOIN tool_breakers b ON b.tool_name = o.name
               WHERE me.name = :tool
                 AND NOT (COALESCE(b.state, 'closed') = 'open'
                          AND (b.retry_at IS NULL OR b.retry_at > :now))
               ORDER BY vec_distance_cosine(mv.embedding, ov.embedding), o.name LIMIT :k""",
            {"tool": tool, "now": to_text(now), "k": int(k)},
        )
        return [r["name"] for r in rows]
