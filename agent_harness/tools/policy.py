"""The tool registry's thresholds (:class:`Policy`) and what a breaker row means now
(:func:`effective_state`).

The circuit breaker (:mod:`agent_harness.tools.breaker`), the OODA pass
(:mod:`agent_harness.tools.ooda`) and the registry's watching methods all read them; this
module imports none of those, so they can import it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pydantic

from agent_harness.backends.roles import RankWeights

__all__ = ["Policy", "effective_state", "SETTINGS_PREFIX", "RELEVANCE_FLOOR"]

#: The policy's rows in the ``harness_settings`` table are named ``registry.<field>``.
SETTINGS_PREFIX = "registry."
#: The default relevance floor: below this cosine similarity to the question no tool is offered
#: by rank (the always-on set still is). Chosen from the measured similarities of questions the
#: tools answer and questions they do not (:mod:`agent_harness.tools.relevance`, notebook 08).
RELEVANCE_FLOOR = 0.283


class Policy(pydantic.BaseModel):
    """The registry's thresholds (``h.tools.policy()``; change with ``h.tools.set_policy``)."""

    model_config = pydantic.ConfigDict(extra="forbid", validate_assignment=True)

    window_calls: int = pydantic.Field(20, ge=1, le=10_000, description="calls per window")
    window_minutes: float = pydantic.Field(60, gt=0, description="window length in minutes")
    min_calls: int = pydantic.Field(10, ge=1, description="calls before a tool can open")
    failure_rate: float = pydantic.Field(0.5, gt=0, le=1, description="open at this rate")
    cooldown_seconds: float = pydantic.Field(60, ge=0, description="open -> half-open wait")
    max_cooldown_seconds: float = pydantic.Field(900, ge=0, description="cap of the backoff")
    half_open_trials: int = pydantic.Field(2, ge=1, description="successes that close it")
    protected_categories: frozenset[str] = pydantic.Field(
        frozenset({"core", "knowledge", "skills"}), description="never opened automatically"
    )
    slow_p95_ms: float = pydantic.Field(2000, gt=0, description="finding: slow above this")
    unused_days: float = pydantic.Field(7, gt=0, description="finding: unused for this long")
    flapping_opens: int = pydantic.Field(3, ge=2, description="finding: opened this often")
    ooda_every_calls: int = pydantic.Field(100, ge=0, description="auto OODA pass; 0: off")
    retention_days: float = pydantic.Field(30, gt=0, description="prune telemetry older")
    retention_rows_per_tool: int = pydantic.Field(20_000, ge=1, description="keep per tool")
    rank_success_weight: float = pydantic.Field(0.10, ge=0, le=1)
    rank_latency_weight: float = pydantic.Field(0.05, ge=0, le=1)
    rank_vector_weight: float = pydantic.Field(0.7, ge=0, le=1)
    rank_latency_ref_ms: float = pydantic.Field(1000, gt=0)
    relevance_floor: float = pydantic.Field(
        RELEVANCE_FLOOR,
        ge=-1,
        le=1,
        description="offer a tool by rank only at this cosine similarity or more; -1: off",
    )

    @pydantic.field_validator("protected_categories", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return frozenset(v.strip() for v in value.split(",") if v.strip())
        return value

    @classmethod
    def load(cls, breakers) -> Policy:
        """The policy stored in the settings table (defaults for what is not stored)."""
        stored = breakers.settings(SETTINGS_PREFIX)
        values = {
            k[len(SETTINGS_PREFIX) :]: v
            for k, v in stored.items()
            if k[len(SETTINGS_PREFIX) :] in cls.model_fields
        }
        return cls.model_validate(values)

    def save(self, breakers, names=None) -> None:
        """Store the named fields (all when None) in the settings table."""
        for name in names or type(self).model_fields:
            value = getattr(self, name)
            text = ",".join(sorted(value)) if isinstance(value, frozenset) else str(value)
            breakers.set_setting(SETTINGS_PREFIX + name, text)

    def weights(self) -> RankWeights:
        """The ranking weights (see :class:`~agent_harness.backends.roles.RankWeights`)."""
        return RankWeights(
            self.rank_success_weight,
            self.rank_latency_weight,
            self.rank_latency_ref_ms,
            self.rank_vector_weight,
        )

    def since(self, now: dt.datetime) -> dt.datetime:
        """The start of the time window."""
        return now - dt.timedelta(minutes=self.window_minutes)

    def cooldown(self, opened_before: int) -> dt.timedelta:
        """How long an opening lasts: doubled for each earlier opening, capped."""
        seconds = self.cooldown_seconds * (2 ** min(opened_before, 20))
        return dt.timedelta(
            seconds=min(seconds, max(self.max_cooldown_seconds, self.cooldown_seconds))
        )


def effective_state(row: dict | None, now: dt.datetime) -> str:
    """``open`` while waiting; an open tool whose retry time has passed is ``half_open``."""
    if row is None:
        return "closed"
    if row["state"] == "open" and row["retry_at"] is not None and row["retry_at"] <= now:
        return "half_open"
    return row["state"]
