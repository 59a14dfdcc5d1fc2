"""Tool ranking by meaning (and words), then track record, in ONE statement, written once.

The toolbox is small (hundreds to a few thousand rows), so every row is scored exactly. A
dialect supplies three pieces: where a toolbox row's vector is (:meth:`ToolRanking.vector_of`),
the cosine distance of two vectors (:meth:`~ToolRanking.cosine_distance`) and the rows whose
keyword text matches the query with their full-text score (:meth:`~ToolRanking.keyword_cte`).
The windowed statistics come from the telemetry role's ``window_stats``; the breaker state,
the category and open-state filters are in the same statement.
"""

from __future__ import annotations

import abc
import datetime as dt
from collections.abc import Sequence

import numpy as np

from agent_harness.backends.connection import Connection
from agent_harness.backends.roles.common import RankWeights, floats, in_list
from agent_harness.backends.roles.telemetry import Telemetry

__all__ = ["RANK_MODES", "ToolRanking"]

#: How tools can be ranked.
RANK_MODES = ("vector", "keyword", "hybrid")

_STATE = """CASE WHEN b.state = 'open' AND (b.retry_at IS NULL OR b.retry_at > :now) THEN 'open'
                 WHEN b.state = 'open' THEN 'half_open'
                 ELSE COALESCE(b.state, 'closed') END AS state"""
_TRACK = """- :w_success * (1.0 - (successes + 2.0) / (calls + 2.0))
            - :w_latency * (1.0 - :latency_ref / (:latency_ref + COALESCE(p50_ms, 0.0)))"""

# Notebook 06's formula: score = similarity - track-record adjustment.
_VECTOR = """, scored AS (
    SELECT x.name, x.category,
           1.0 - {distance} AS similarity,
           COALESCE(s.calls, 0) AS calls, COALESCE(s.successes, 0) AS successes,
           s.p50_ms, {state}
    FROM toolbox x {vector_join}
    LEFT JOIN window_stats s ON s.tool = x.name
    LEFT JOIN tool_breakers b ON b.tool_name = x.name)
SELECT name, category, similarity, calls, successes, p50_ms, state,
       similarity {track} AS score
FROM scored WHERE """

# Keyword and hybrid: relevance = w_vec * meaning + (1 - w_vec) * keyword_score, both 0..1
# over the whole toolbox (meaning: min-max of the cosine; keyword_score: the full-text score /
# its maximum, 0 without a match); score = relevance - track-record adjustment.
_FUSED = """, txt AS {materialized} ({keyword}
), scored AS {materialized} (
    SELECT x.name, x.category, {similarity} AS similarity, txt.text_score,
           COALESCE(s.calls, 0) AS calls, COALESCE(s.successes, 0) AS successes,
           s.p50_ms, {state}
    FROM toolbox x {vector_join}
    LEFT JOIN txt ON txt.id = x.id
    LEFT JOIN window_stats s ON s.tool = x.name
    LEFT JOIN tool_breakers b ON b.tool_name = x.name
), fused AS (
    SELECT sc.*,
           CASE WHEN sc.similarity IS NULL THEN 0.0
                ELSE COALESCE((sc.similarity - MIN(sc.similarity) OVER ())
                              / NULLIF(MAX(sc.similarity) OVER () - MIN(sc.similarity) OVER (),
                                       0.0), 1.0) END AS meaning,
           COALESCE(sc.text_score / NULLIF(MAX(sc.text_score) OVER (), 0.0), 0.0)
             AS keyword_score
    FROM scored sc
), relevant AS (
    SELECT f.*, :w_vec * f.meaning + (1.0 - :w_vec) * f.keyword_score AS relevance
    FROM fused f)
SELECT name, category, similarity, keyword_score, relevance, calls, successes, p50_ms, state,
       relevance {track} AS score
FROM relevant WHERE {matched}"""


class ToolRanking(abc.ABC):
    """Toolbox rows ranked in ONE statement per mode.

    Args:
        db: The backend's connection.
        telemetry: The telemetry role (its ``window_stats`` is part of the statement).
    """

    def __init__(self, db: Connection, telemetry: Telemetry) -> None:
        self.db = db
        self.dialect = db.dialect
        self.telemetry = telemetry

    # --- what a dialect supplies --------------------------------------------------------------
    @abc.abstractmethod
    def vector_of(self, alias: str) -> tuple[str, str]:
        """Where the vector of toolbox row ``alias`` is: ``(join, column)``, e.g. a join to a
        vector table and its column, or ``("", "alias.embedding")``."""

    @abc.abstractmethod
    def cosine_distance(self, a: str, b: str) -> str:
        """SQL for the cosine distance of two vector expressions (0 = same direction)."""

    @abc.abstractmethod
    def keyword_cte(self) -> str:
        """A query of ``(id, text_score)``: toolbox rows whose keyword text matches ``:q``,
        the score higher for a better match (> 0)."""

    # --- written once -------------------------------------------------------------------------
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
        """Toolbox rows ranked in ONE statement: name, category, similarity, calls, successes,
        p50_ms, state (``open`` only while waiting; ``half_open`` once its retry time has
        passed), score; best first, ties by name. Filters (categories, open tools) are in the
        statement.

        ``mode="vector"``: relevance is the cosine similarity to ``vector``. ``"keyword"``:
        only tools whose keyword text matches ``text``; relevance is ``keyword_score`` = the
        full-text score / the best score of the query (0..1); ``vector`` may be None.
        ``"hybrid"``: every tool; relevance = ``weights.vector * meaning + (1 -
        weights.vector) * keyword_score`` with ``meaning`` the min-max normalised similarity
        over the toolbox (0..1). Keyword and hybrid rows
        also carry ``keyword_score`` and ``relevance``."""
        if mode not in RANK_MODES:
            raise ValueError(f"mode {mode!r} is not a ranking mode; use one of {RANK_MODES}")
        category_filter, binds = in_list("category", "cat", categories)
        open_filter = "" if include_open else "state <> 'open' AND "
        join, column = self.vector_of("x")
        distance = self.cosine_distance(column, ":qv")
        if mode == "vector":
            body = _VECTOR.format(state=_STATE, track=_TRACK, distance=distance, vector_join=join)
        else:
            keyword = mode == "keyword"
            body = _FUSED.format(
                state=_STATE,
                track=_TRACK,
                materialized=self.dialect.materialized,
                keyword=self.keyword_cte(),
                similarity="CAST(NULL AS DOUBLE PRECISION)" if keyword else f"1.0 - {distance}",
                vector_join="" if keyword else join,
                matched="text_score IS NOT NULL AND " if keyword else "",
            )
            binds["q"] = self.dialect.text_query(text)
        sql = (
            "WITH "
            + self.telemetry.window_cte("")
            + body
            + category_filter
            + open_filter
            + "1 = 1 ORDER BY score DESC, name"
            + ("" if k is None else " " + self.dialect.limit("k"))
        )
        if mode != "keyword":
            binds["qv"] = self.dialect.vector_bind(vector)
        binds.update(
            window_calls=int(window_calls),
            since=self.dialect.time(since),
            now=self.dialect.time(now),
            **weights.binds(mode),
        )
        if k is not None:
            binds["k"] = int(k)
        rows = self.db.query(sql, binds)
        for row in rows:
            floats(row, "similarity", "score", "p50_ms", "keyword_score", "relevance")
            row["calls"], row["successes"] = int(row["calls"]), int(row["successes"])
        return rows

    def neighbours(self, tool: str, k: int, now: dt.datetime) -> list[str]:
        """The ``k`` tools nearest to ``tool`` by their embeddings, open ones left out."""
        my_join, mine = self.vector_of("me")
        other_join, other = self.vector_of("o")
        rows = self.db.query(
            f"""SELECT o.name FROM toolbox me {my_join}
                JOIN toolbox o ON o.name <> me.name {other_join}
                LEFT JOIN tool_breakers b ON b.tool_name = o.name
                WHERE me.name = :tool
                  AND NOT (COALESCE(b.state, 'closed') = 'open'
                           AND (b.retry_at IS NULL OR b.retry_at > :now))
                ORDER BY {self.cosine_distance(mine, other)}, o.name
                {self.dialect.limit("k")}""",
            {"tool": tool, "now": self.dialect.time(now), "k": int(k)},
        )
        return [r["name"] for r in rows]
