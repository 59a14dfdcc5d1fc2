"""What every role shares: the rows' columns, the ranking weights, times, IN lists, checks."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_harness.backends.errors import BackendError

__all__ = [
    "AGENT_COLUMNS",
    "AGENT_SKILL_COLUMNS",
    "BREAKER_COLUMNS",
    "DEFINITION_COLUMNS",
    "MAX_TEXT_BYTES",
    "PARAMETER_COLUMNS",
    "TELEMETRY_COLUMNS",
    "RankWeights",
    "Scope",
    "TextTooLong",
    "check_key",
    "check_text_fits",
    "floats",
    "in_list",
    "text_bytes",
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
#: An agent's row, and one skill assigned to an agent (``config`` is JSON text).
AGENT_COLUMNS = ("name", "description", "system_prompt", "source", "content_hash")
AGENT_SKILL_COLUMNS = ("skill_name", "priority", "sequence", "config")


#: The most a ``VARCHAR2(4000 CHAR)`` column holds: with Oracle's default MAX_STRING_SIZE =
#: STANDARD a VARCHAR2 holds at most 4000 **bytes** whatever its length semantics (SQL Language
#: Reference 23, Data Types, "VARCHAR2 Data Type"; more raises ORA-12899), so 4000 characters
#: fit only when they are ASCII. Both backends refuse more, so what works on one works on both.
MAX_TEXT_BYTES = 4000


class TextTooLong(BackendError, ValueError):
    """A text is longer than its column holds (:data:`MAX_TEXT_BYTES` bytes of UTF-8)."""


def text_bytes(text: str | None) -> int:
    """How many bytes a text takes in UTF-8 (the database character set AL32UTF8)."""
    return len((text or "").encode("utf-8", "surrogatepass"))


def check_text_fits(text: str | None, what: str) -> None:
    """Refuse a text that a ``VARCHAR2(4000 CHAR)`` column cannot hold.

    Raises:
        TextTooLong: It takes more than :data:`MAX_TEXT_BYTES` bytes in UTF-8; the message
            says how many and what to do.
    """
    size = text_bytes(text)
    if size > MAX_TEXT_BYTES:
        raise TextTooLong(
            f"{what} takes {size} bytes in UTF-8 ({len(text or '')} characters); at most"
            f" {MAX_TEXT_BYTES} bytes are stored (4000 ASCII characters, fewer with accents or"
            " other scripts): shorten it"
        )


@dataclass(frozen=True)
class Scope:
    """Whose memories: every memory belongs to one user and one agent."""

    user_id: str
    agent_id: str


_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def check_key(key: str, what: str = "filter key") -> str:
    """A name that is written into SQL (a JSON key, a column): letters, digits and ``_``.

    Raises:
        ValueError: Anything else, with what to use instead.
    """
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"{what} {key!r} is not valid: use letters, digits and _ (at most 64)")
    return key


def in_list(column: str, prefix: str, values: Sequence[str] | None) -> tuple[str, dict]:
    """``"column IN (:prefix0, ...) AND "`` and its binds; ``("", {})`` when values is None.

    An empty list gives ``IN (NULL)``: nothing matches, as asked."""
    if values is None:
        return "", {}
    names = [f"{prefix}{i}" for i in range(len(values))]
    inner = ", ".join(f":{n}" for n in names) or "NULL"
    return f"{column} IN ({inner}) AND ", dict(zip(names, values))


def floats(row: dict, *names: str) -> dict:
    """Turn the named numeric columns into float (Oracle NUMBER may come back as Decimal)."""
    for name in names:
        if row.get(name) is not None:
            row[name] = float(row[name])
    return row


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
    :class:`~agent_harness.backends.roles.ranking.ToolRanking`); in keyword mode
    ``keyword_score``.
    """

    success: float = 0.10
    latency: float = 0.05
    latency_ref_ms: float = 1000.0
    vector: float = 0.7

    def binds(self, mode: str) -> dict[str, Any]:
        """The weights as the ranking statements' bind values (``w_vec`` 0 in keyword mode)."""
        return {
            "w_success": float(self.success),
            "w_latency": float(self.latency),
            "latency_ref": float(self.latency_ref_ms),
            "w_vec": 0.0 if mode == "keyword" else float(self.vector),
        }
