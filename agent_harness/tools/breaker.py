"""The circuit breaker of every tool: closed -> open -> half-open -> closed (or open again).

Semantics (resilience4j's, sized for a workshop; thresholds in
:class:`~agent_harness.tools.policy.Policy`, stored in the ``harness_settings`` table under
``registry.*``):

* **closed** (on): after each call that ran, the tool's sliding window (its last
  ``window_calls`` calls within ``window_minutes``) is checked; once it holds at least
  ``min_calls`` calls and the failure rate is ``>= failure_rate``, the breaker **opens**, unless
  the tool's category is protected.
* **open** (off since T, with a reason): retrieval never offers it; a call is refused with an
  error that names the nearest enabled tools. After ``cooldown_seconds`` (doubled for each
  earlier opening, up to ``max_cooldown_seconds``) the next call is let through as a trial:
  the breaker is **half-open**. A tool switched off by hand (:meth:`disable`) has no retry time.
* **half-open**: a failed trial opens it again; ``half_open_trials`` successful trials close it,
  and its window starts afresh (old failures no longer count).

The same :func:`agent_harness.tools.ooda.decide` policy drives this per-call check and the periodic
OODA pass; every transition is recorded with its reason, actor and the stats behind it.
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

from agent_harness.tools.ooda import decide, run_ooda
from agent_harness.tools.policy import Policy, effective_state

__all__ = ["CircuitBreaker", "BreakerError", "STATES"]

STATES = ("closed", "open", "half_open")


class BreakerError(ValueError):
    """A manual breaker action that cannot be done (unknown tool, bad policy value)."""


class CircuitBreaker:
    """The registry's breaker: a call hook plus the state changes (one place writes them).

    Args:
        registry: The :class:`~agent_harness.tools.registry.ToolRegistry` it guards.
    """

    def __init__(self, registry) -> None:
        self.registry = registry
        self.store = registry.harness.backend.breakers
        # Calls run concurrently (the MCP server): one tool's state changes one at a time.
        self._lock = threading.RLock()

    # --- the call hook --------------------------------------------------------------------
    def before_call(self, call, tool) -> str | None:
        """Refuse a call to an open tool; let a call through as a trial once its wait is over."""
        row = self.store.get(tool.name)
        if row is None or row["state"] == "closed":
            return None
        with self._lock:
            row = self.store.get(tool.name)
            if row is None or row["state"] in ("closed", "half_open"):
                return None
            if effective_state(row, self.registry.clock()) == "half_open":
                self.change(
                    tool.name,
                    "half_open",
                    "cool-down over: trial calls allowed",
                    actor="breaker",
                    row=row,
                )
                return None
        return self.refusal(tool.name, row)

    def after_call(self, result) -> None:
        """Count a trial, or check the tool's window after a call that judged the tool (a
        success or a tool fault: never the caller's mistake, ``success`` None); maybe run OODA."""
        policy = self.registry.policy()
        if result.success is not None and result.category is not None:
            with self._lock:
                self._check(result, policy)
        every = policy.ooda_every_calls
        if every and result.telemetry_id and result.telemetry_id % every == 0:
            run_ooda(self.registry)

    def _check(self, result, policy: Policy) -> None:
        """The per-call breaker: the same :func:`~agent_harness.tools.ooda.decide` policy as the
        OODA pass, on this one tool's window."""
        row = self.store.get(result.name)
        if row is None and result.category in policy.protected_categories:
            return  # closed, and never opened automatically: nothing to check
        if row is not None and row["state"] == "half_open":
            key = "trial_successes" if result.success else "trial_failures"
            row = {**row, key: row[key] + 1}
            self.store.put(row, None)
        now = self.registry.clock()
        stats = self.registry.harness.backend.telemetry.stats(
            policy.window_calls, policy.since(now), tools=[result.name]
        )
        states = {row["tool_name"]: row} if row is not None else {}
        for decision in decide(stats, states, policy, now):
            self.apply(decision, policy, actor="breaker", evidence=stats[0] if stats else {})

    # --- state changes ----------------------------------------------------------------------
    def apply(self, decision: dict, policy: Policy, actor: str, evidence: dict) -> str | None:
        """Carry out one decision ``{"tool", "to", "reason"}``; returns why it was refused, or
        None when it was applied. Protected categories are never opened automatically."""
        name, to = decision.get("tool"), decision.get("to")
        tool = self.registry._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return f"unknown tool {name!r}"
        if to not in STATES:
            return f"unknown state {to!r}; use one of {STATES}"
        if to == "open" and tool.category in policy.protected_categories:
            return f"category {tool.category!r} is protected: never opened automatically"
        row = self.store.get(name)
        current = row["state"] if row else "closed"
        if current == to:
            return f"already {to}"
        self.change(
            name,
            to,
            str(decision.get("reason") or to),
            actor=actor,
            row=row,
            evidence=evidence,
            policy=policy,
        )
        return None

    def change(
        self,
        name: str,
        to: str,
        reason: str,
        actor: str,
        row: dict | None = None,
        evidence: dict | None = None,
        policy: Policy | None = None,
        manual_hold: bool = False,
    ) -> None:
        """Write the new state of ``name`` and its transition in one transaction."""
        policy = policy or self.registry.policy()
        now = self.registry.clock()
        row = row if row is not None else self.store.get(name)
        before = row["state"] if row else "closed"
        opened = (row or {}).get("opened_count", 0) or 0
        new = {
            "tool_name": name,
            "state": to,
            "since": now,
            "reason": reason,
            "retry_at": None,
            "trial_successes": 0,
            "trial_failures": 0,
            "window_start_id": (row or {}).get("window_start_id", 0) or 0,
            "opened_count": opened,
        }
        if to == "open":
            new["opened_count"] = opened + 1
            if not manual_hold:
                new["retry_at"] = now + policy.cooldown(opened)
        if to == "closed":  # a fresh window: the failures before the opening no longer count
            new["window_start_id"] = self.registry.harness.backend.telemetry.last_id()
        self.store.put(
            new,
            {
                "from_state": before,
                "to_state": to,
                "reason": reason,
                "actor": actor,
                "evidence": _plain(evidence or {}),
            },
        )
        self.registry.changed(name, f"{before}->{to}")

    def refusal(self, name: str, row: dict) -> str:
        """The error a call to an open tool gets: why, until when, and what to use instead."""
        since = row["since"].strftime("%H:%M:%S UTC")
        until = (
            f"it will be tried again after {row['retry_at'].strftime('%H:%M:%S UTC')}"
            if row["retry_at"] is not None
            else "it stays off until someone enables it"
        )
        others = self.registry.harness.backend.tool_ranking.neighbours(
            name, 3, self.registry.clock()
        )
        instead = f" Use instead: {', '.join(others)}." if others else ""
        return (
            f"tool {name!r} is switched off (circuit open since {since}: {row['reason']}); "
            f"{until}.{instead}"
        )


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return value
