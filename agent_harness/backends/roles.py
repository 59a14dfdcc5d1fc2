"""Small role objects a backend offers for the self-healing tool registry (notebook 06).

Rather than growing :class:`~agent_harness.backends.base.Backend` by a dozen abstract methods,
each storage concern is a narrow interface with one implementation per dialect:

* :class:`TelemetryStore` (``backend.telemetry``): one row per tool call, the sliding-window
  statistics in ONE statement, retention;
* :class:`BreakerStore` (``backend.breakers``): each tool's circuit-breaker state, every
  transition with its reason and evidence, and the registry's settings;
* :class:`ToolRanking` (``backend.tool_ranking``): tools ranked by meaning first and track
  record second, in ONE statement, and a tool's nearest neighbours;
* :class:`ProvenanceStore` (``backend.provenance``): each agent turn and the tree of its events.

Times cross this boundary as timezone-aware UTC ``datetime`` objects both ways.
"""

from __future__ import annotations

import abc
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "TelemetryStore",
    "BreakerStore",
    "ToolRanking",
    "ProvenanceStore",
    "ToolDefinitionStore",
    "RankWeights",
    "TELEMETRY_COLUMNS",
    "BREAKER_COLUMNS",
    "DEFINITION_COLUMNS",
    "PARAMETER_COLUMNS",
    "in_list",
    "utc_now",
]

#: The telemetry row, in order. OpenTelemetry GenAI attribute names in snake_case where one
#: exists (gen_ai.tool.name -> gen_ai_tool_name, gen_ai.tool.call.id, gen_ai.tool.type,
#: gen_ai.conversation.id, gen_ai.tool.call.arguments, error.type -> error_type).
TELEMETRY_COLUMNS = (
    "gen_ai_tool_name",
    "gen_ai_tool_call_id",
    "gen_ai_tool_type",
    "tool_category",
    "gen_ai_conversation_id",
    "turn_id",
    "gen_ai_tool_call_arguments",
    "success",
    "error_type",
    "error_message",
    "duration_ms",
    "output_chars",
    "started_at",
)


#: A tool's breaker row.
BREAKER_COLUMNS = (
    "tool_name",
    "state",
    "since",
    "reason",
    "retry_at",
    "trial_successes",
    "trial_failures",
    "window_start_id",
    "opened_count",
)
#: A data tool's ``tool_definitions`` row and its ``tool_parameters`` rows.
DEFINITION_COLUMNS = (
    "name",
    "description",
    "implementation_type",
    "implementation",
    "category",
    "access_level",
    "timeout_s",
)
PARAMETER_COLUMNS = (
    "ordinal",
    "name",
    "json_type",
    "required",
    "default_value",
    "description",
    "schema_extra",
)


def in_list(column: str, prefix: str, values: Sequence[str] | None) -> tuple[str, dict]:
    """``"column IN (:prefix0, ...) AND "`` and its binds; ``("", {})`` when values is None.

    An empty list gives ``IN (NULL)``: nothing matches, as asked."""
    if values is None:
        return "", {}
    names = [f"{prefix}{i}" for i in range(len(values))]
    inner = ", ".join(f":{n}" for n in names) or "NULL"
    return f"{column} IN ({inner}) AND ", dict(zip(names, values))


def utc_now() -> dt.datetime:
    """The current time, timezone-aware UTC, to the millisecond (what the tables store)."""
    now = dt.datetime.now(dt.timezone.utc)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


@dataclass(frozen=True)
class RankWeights:
    """The weights of tool ranking (documented in README and notebook 06).

    ``score = relevance - success * (1 - track) - latency * (1 - speed)`` where
    ``track = (successes + 2) / (calls + 2)`` (a tool with no calls counts as reliable) and
    ``speed = latency_ref_ms / (latency_ref_ms + p50_ms)`` (1 with no calls). The adjustment
    is at most ``success + latency`` (0.15): relevance ranks first, track record decides
    between tools of near-equal relevance. ``relevance`` is the cosine similarity in vector
    mode; in hybrid mode ``vector * meaning + (1 - vector) * keyword_score`` (both 0..1, see
    :class:`ToolRanking`); in keyword mode ``keyword_score``.
    """

    success: float = 0.10
    latency: float = 0.05
    latency_ref_ms: float = 1000.0
    vector: float = 0.7

    def binds(self, mode: str) -> dict[str, float]:
        """The weights as the ranking statements' bind values (``w_vec`` 0 in keyword mode)."""
        return {
            "w_success": float(self.success),
            "w_latency": float(self.latency),
            "latency_ref": float(self.latency_ref_ms),
            "w_vec": 0.0 if mode == "keyword" else float(self.vector),
        }


class TelemetryStore(abc.ABC):
    """Tool-call telemetry: ``tool_telemetry`` rows and their statistics."""

    @abc.abstractmethod
    def record(self, row: dict[str, Any]) -> int:
        """Insert one row (keys: :data:`TELEMETRY_COLUMNS`); return its id."""

    @abc.abstractmethod
    def stats(
        self, window_calls: int, since: dt.datetime, tools: Sequence[str] | None = None
    ) -> list[dict]:
        """Per registered tool (or only ``tools``), over its last ``window_calls`` calls that
        ran (success not NULL) since ``since`` and after its breaker's ``window_start_id``:
        tool, category, calls, successes, failures, success_rate, p50_ms, p95_ms (nearest
        rank), last_used, last_error, plus last_called (its latest call ever, any outcome).
        ONE statement. Tools without calls have calls 0 and None for the rest."""

    @abc.abstractmethod
    def rows(self, tool: str | None = None, after_id: int = 0, limit: int = 1000) -> list[dict]:
        """Telemetry rows, oldest first, with id > ``after_id`` (every column)."""

    @abc.abstractmethod
    def prune(self, older_than: dt.datetime, keep_per_tool: int) -> int:
        """Delete rows older than ``older_than`` and beyond the newest ``keep_per_tool`` of
        each tool; return how many went."""

    @abc.abstractmethod
    def last_id(self) -> int:
        """The highest telemetry id (0 when empty)."""

    def time_bind(self, value: dt.datetime):
        """A datetime as a bind value comparable with ``started_at`` in this dialect."""
        return value


class BreakerStore(abc.ABC):
    """Circuit-breaker states, their transitions, and the registry's settings."""

    @abc.abstractmethod
    def get(self, tool: str) -> dict | None:
        """A tool's breaker row (tool_name, state, since, reason, retry_at, trial_successes,
        trial_failures, window_start_id, opened_count), or None: closed, never changed."""

    @abc.abstractmethod
    def all(self) -> list[dict]:
        """Every breaker row."""

    @abc.abstractmethod
    def put(self, row: dict, transition: dict | None) -> None:
        """Write a tool's breaker row and, in the same transaction, the transition that led
        to it (keys: from_state, to_state, reason, actor, evidence (dict)) if any."""

    @abc.abstractmethod
    def transitions(self, tool: str | None = None, limit: int = 200) -> list[dict]:
        """Transitions, newest first."""

    @abc.abstractmethod
    def settings(self, prefix: str) -> dict[str, str]:
        """Settings whose name starts with ``prefix`` (name -> text value)."""

    @abc.abstractmethod
    def set_setting(self, name: str, value: str) -> None:
        """Insert or replace one setting."""


class ToolRanking(abc.ABC):
    """Tool retrieval ranked by meaning and track record."""

    @abc.abstractmethod
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
        only tools whose keyword text matches ``text``; relevance is ``keyword_score`` = BM25
        / the best BM25 of the query (0..1); ``vector`` may be None. ``"hybrid"``: every tool;
        relevance = ``weights.vector * meaning + (1 - weights.vector) * keyword_score`` with
        ``meaning`` the min-max normalised similarity over the toolbox (0..1). Keyword and
        hybrid rows also carry ``keyword_score`` and ``relevance``."""

    @abc.abstractmethod
    def neighbours(self, tool: str, k: int, now: dt.datetime) -> list[str]:
        """The ``k`` tools nearest to ``tool`` by their embeddings, open ones left out."""


class ToolDefinitionStore(abc.ABC):
    """Tools defined as data: ``tool_definitions`` and ``tool_parameters`` rows."""

    @abc.abstractmethod
    def put(self, definition: dict, parameters: list[dict]) -> None:
        """Insert or replace a definition (name, description, implementation_type,
        implementation (JSON text), category, access_level, timeout_s) and its parameter rows
        (ordinal, name, json_type, required, default_value, description, schema_extra), in one
        transaction."""

    @abc.abstractmethod
    def all(self) -> list[dict]:
        """Every definition, by name, each with its ``parameters`` rows (by ordinal)."""

    @abc.abstractmethod
    def delete(self, name: str) -> bool:
        """Delete a definition and its parameters; True when one was there."""


class ProvenanceStore(abc.ABC):
    """Agent turns and the tree of their events."""

    @abc.abstractmethod
    def start_turn(self, row: dict) -> None:
        """Insert a turn (turn_id, thread_id, user_id, agent_id, question, model, started_at)."""

    @abc.abstractmethod
    def finish_turn(self, turn_id: str, fields: dict) -> None:
        """Set answer, status, duration_ms and the token counts of a turn."""

    @abc.abstractmethod
    def add_event(self, row: dict) -> int:
        """Insert an event (turn_id, parent_id, seq, kind, name, ok, telemetry_id, detail
        (dict), at, duration_ms); return its id."""

    @abc.abstractmethod
    def turn(self, turn_id: str) -> dict | None:
        """One turn's row."""

    @abc.abstractmethod
    def events(self, turn_id: str) -> list[dict]:
        """A turn's events in tree order (parents before children, siblings by seq), each with
        its ``depth``: the walk is one recursive statement (a recursive CTE on embedded)."""

    @abc.abstractmethod
    def turns(self, limit: int = 50) -> list[dict]:
        """The latest turns, newest first."""

    @abc.abstractmethod
    def turns_using(self, tool: str, failed: bool | None = None) -> list[dict]:
        """Turns with a call of ``tool`` (only failed calls when ``failed`` is True, only
        successful ones when False): turn_id, question, started_at, calls, failures."""

    @abc.abstractmethod
    def offered_never_called(self, turn_id: str | None = None) -> list[dict]:
        """Per tool: how often it was offered and never called in the same turn (one turn, or
        all): tool, turns (count); most often first."""
