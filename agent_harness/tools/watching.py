"""Watching the tools: the part of the tool registry that reads their track record and switches
them off and on (notebook 06).

A mixin of :class:`~agent_harness.tools.registry.ToolRegistry` (``h.tools.stats``, ``policy``,
``set_policy``, ``states``, ``open_tools``, ``transitions``, ``telemetry``, ``disable``,
``enable``, ``ooda``, ``offer_version``, ``follow_database``).
"""

from __future__ import annotations

import hashlib
import json

from agent_harness.tools.breaker import BreakerError
from agent_harness.tools.ooda import run_ooda
from agent_harness.tools.policy import Policy, effective_state

__all__ = ["RegistryWatch"]


class RegistryWatch:
    """Mixin: statistics, policy, breaker states and the OODA pass. Needs the registry's
    ``harness``, ``clock``, ``breaker`` and ``_tools``."""

    def policy(self) -> Policy:
        """The thresholds stored in the settings table (defaults where none is stored)."""
        return Policy.load(self.harness.backend.breakers)

    def set_policy(self, **values) -> Policy:
        """Change thresholds (validated), e.g. ``set_policy(min_calls=5)``; returns the policy.

        Raises:
            BreakerError: An unknown name or a value out of range, with the allowed ones.
        """
        unknown = sorted(set(values) - set(Policy.model_fields))
        if unknown:
            raise BreakerError(
                f"unknown policy setting(s) {unknown}; use: {', '.join(Policy.model_fields)}"
            )
        try:
            policy = Policy.model_validate({**self.policy().model_dump(), **values})
        except Exception as e:  # pydantic's message names the field and the bound
            raise BreakerError(f"invalid policy value: {e}") from None
        policy.save(self.harness.backend.breakers, names=list(values))
        return policy

    def stats(self, window_calls: int | None = None, window_minutes: float | None = None):
        """Per tool over its sliding window, in ONE SQL statement: calls, successes, failures,
        success_rate, p50_ms, p95_ms, last_used, last_error, last_called, and its breaker
        state. A list of dicts (``pandas.DataFrame(h.tools.stats())``)."""
        policy = self.policy()
        now = self.clock()
        window = policy.model_copy(
            update={
                k: v
                for k, v in {"window_calls": window_calls, "window_minutes": window_minutes}.items()
                if v
            }
        )
        rows = self.harness.backend.telemetry.stats(window.window_calls, window.since(now))
        states = {r["tool_name"]: r for r in self.harness.backend.breakers.all()}
        for row in rows:
            row["state"] = effective_state(states.get(row["tool"]), now)
        return rows

    def states(self) -> dict[str, dict]:
        """Breaker rows of the tools that ever left ``closed``, by name."""
        return {r["tool_name"]: r for r in self.harness.backend.breakers.all()}

    def open_tools(self) -> set[str]:
        """Names of the tools that are open now (waiting, not yet retryable)."""
        now = self.clock()
        return {
            r["tool_name"]
            for r in self.harness.backend.breakers.all()
            if effective_state(r, now) == "open"
        }

    def offer_version(self) -> tuple[str, str]:
        """``(breakers, definitions)``: two fingerprints that change whenever what the registry
        offers may have changed, in this process or in another one sharing the database (a
        notebook, ``workshop ooda``): a breaker opened, closed or disabled by hand, a cool-down
        that ended (the open set is computed at the registry's clock), a tool defined,
        redefined or removed as data. Two small queries; an MCP server polls it."""
        now = self.clock()
        rows = self.harness.backend.breakers.all()
        breakers = [
            (r["tool_name"], r["state"], str(r["since"]), effective_state(r, now)) for r in rows
        ]
        definitions = [
            {k: v for k, v in d.items() if k != "parameters"} | {"p": d["parameters"]}
            for d in self.harness.backend.tool_definitions.all()
        ]
        return _digest(breakers), _digest(definitions)

    def follow_database(self, seen: tuple[str, str] | None) -> tuple[str, str]:
        """Catch up with changes another process made: when the definitions' fingerprint
        differs from ``seen`` (an earlier :meth:`offer_version`), reload the data tools
        (:meth:`sync_definitions`, which tells the listeners). Returns the version now; a
        caller compares it with ``seen`` to know whether anything changed."""
        version = self.offer_version()
        if seen is not None and version[1] != seen[1]:
            self.sync_definitions()
        return version

    def transitions(self, tool: str | None = None, limit: int = 200) -> list[dict]:
        """Breaker transitions (newest first) with reason, actor and evidence."""
        return self.harness.backend.breakers.transitions(tool, limit)

    def telemetry(self, tool: str | None = None, after_id: int = 0, limit: int = 1000):
        """Telemetry rows, oldest first (for tables and plots)."""
        return self.harness.backend.telemetry.rows(tool, after_id, limit)

    def disable(self, name: str, reason: str) -> None:
        """Switch a tool off by hand (open, no automatic retry) until :meth:`enable`.

        Raises:
            BreakerError: Unknown tool or no reason given.
        """
        self._known(name)
        if not str(reason or "").strip():
            raise BreakerError("say why the tool is switched off: disable(name, reason='...')")
        self.breaker.change(
            name, "open", f"disabled by hand: {reason}", actor="manual", manual_hold=True
        )

    def enable(self, name: str, reason: str = "enabled by hand") -> None:
        """Switch a tool back on (closed, with a fresh window and no backoff history). A tool
        that is closed already is left as it is: no closed -> closed transition is recorded."""
        self._known(name)
        row = self.harness.backend.breakers.get(name)
        if row is None or row["state"] == "closed":
            return
        self.breaker.change(name, "closed", reason, actor="manual", row={**row, "opened_count": 0})

    def ooda(self, dry_run: bool = False, decide=None):
        """Run one OODA pass now (:func:`~agent_harness.tools.ooda.run_ooda`); returns its report.

        Args:
            dry_run: Decide without acting.
            decide: A policy function to use instead of the library's
                (``decide(stats, states, policy, now) -> [{"tool", "to", "reason"}]``).
        """
        return run_ooda(self, dry_run=dry_run, decide_fn=decide)

    def _known(self, name: str) -> None:
        if name not in self._tools:
            raise BreakerError(f"unknown tool {name!r}; available: {', '.join(self.names())}")


def _digest(value) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
