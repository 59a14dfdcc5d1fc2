"""The registry's OODA pass: observe (stats) -> orient (findings) -> decide (policy) -> act.

:func:`decide` is the policy (the same one the per-call breaker uses, and the one notebook 06
asks the attendee to write): which tools to open, half-open or close given their window stats,
their breaker states and the :class:`~agent_harness.tools.policy.Policy`. :func:`run_ooda` runs the
whole pass, records every transition with its reason and the stats behind it, prunes old
telemetry, and returns an :class:`OodaReport`. It runs every ``ooda_every_calls`` calls, on
``h.tools.ooda()`` and as ``workshop ooda`` (``--dry-run`` decides without acting).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_harness.tools.policy import Policy

__all__ = ["decide", "orient", "run_ooda", "OodaReport", "Finding"]


def decide(stats: list[dict], states: dict[str, dict], policy: Policy, now: dt.datetime):
    """The breaker policy: the state changes the stats call for.

    Args:
        stats: One row per tool (``tool``, ``category``, ``calls``, ``success_rate``, ...), as
            ``h.tools.stats()`` returns them.
        states: Breaker rows by tool name (``state``, ``retry_at``, ``trial_successes``,
            ``trial_failures``); a tool that is missing is closed.
        policy: The thresholds.
        now: The current time (aware UTC).

    Returns:
        A list of ``{"tool", "to", "reason"}``, at most one per tool.
    """
    decisions = []
    for row in stats:
        name = row["tool"]
        state = states.get(name) or {"state": "closed"}
        current = state["state"]
        if current == "closed":
            if row["category"] in policy.protected_categories or row["calls"] < policy.min_calls:
                continue
            failure_rate = 1 - row["success_rate"]
            if failure_rate >= policy.failure_rate:
                decisions.append(
                    {
                        "tool": name,
                        "to": "open",
                        "reason": f"{failure_rate:.0%} of its last {row['calls']} calls failed"
                        f" (threshold {policy.failure_rate:.0%})",
                    }
                )
        elif current == "open":
            if state.get("retry_at") is not None and state["retry_at"] <= now:
                decisions.append(
                    {
                        "tool": name,
                        "to": "half_open",
                        "reason": "cool-down over: trial calls allowed",
                    }
                )
        elif current == "half_open":
            if state.get("trial_failures", 0) > 0:
                decisions.append({"tool": name, "to": "open", "reason": "a trial call failed"})
            elif state.get("trial_successes", 0) >= policy.half_open_trials:
                decisions.append(
                    {
                        "tool": name,
                        "to": "closed",
                        "reason": f"{state['trial_successes']} trial calls succeeded",
                    }
                )
    return decisions


@dataclass(frozen=True)
class Finding:
    """Something the orient step noticed about a tool.

    Attributes:
        tool: The tool.
        kind: ``failing``, ``slow``, ``unused`` or ``flapping``.
        detail: Why, in words.
    """

    tool: str
    kind: str
    detail: str


def orient(stats: list[dict], transitions: list[dict], policy: Policy, now: dt.datetime):
    """Findings: failing (window failure rate at or over the threshold), slow (p95 over
    ``slow_p95_ms``), unused (no call for ``unused_days``, or never), flapping (opened
    ``flapping_opens`` times or more within the window's minutes)."""
    found: list[Finding] = []
    since = policy.since(now)
    opens: dict[str, int] = {}
    for t in transitions:
        if t["to_state"] == "open" and t["at"] >= since:
            opens[t["tool_name"]] = opens.get(t["tool_name"], 0) + 1
    for row in stats:
        name = row["tool"]
        if row["calls"] and 1 - row["success_rate"] >= policy.failure_rate:
            found.append(
                Finding(
                    name, "failing", f"{1 - row['success_rate']:.0%} of {row['calls']} calls failed"
                )
            )
        if row["p95_ms"] is not None and row["p95_ms"] > policy.slow_p95_ms:
            found.append(
                Finding(name, "slow", f"p95 {row['p95_ms']:.0f} ms > {policy.slow_p95_ms:.0f} ms")
            )
        last = row.get("last_called")
        if last is None:
            found.append(Finding(name, "unused", "never called"))
        elif now - last > dt.timedelta(days=policy.unused_days):
            found.append(Finding(name, "unused", f"last called {last:%Y-%m-%d}"))
        if opens.get(name, 0) >= policy.flapping_opens:
            found.append(
                Finding(
                    name,
                    "flapping",
                    f"opened {opens[name]} times in {policy.window_minutes:g} minutes",
                )
            )
    return found


@dataclass
class OodaReport:
    """What one OODA pass saw, decided and did.

    Attributes:
        at: When it ran.
        dry_run: True when it only decided.
        observed: The stats rows (observe).
        findings: What stood out (orient).
        decisions: The policy's decisions, each with ``applied`` (bool) and ``note`` (why
            not, when refused).
        pruned: Telemetry rows deleted by retention.
        duration_ms: How long the pass took.
    """

    at: dt.datetime
    dry_run: bool
    observed: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    decisions: list[dict] = field(default_factory=list)
    pruned: int = 0
    duration_ms: float = 0.0

    def rows(self) -> list[dict]:
        """One row per tool with a finding or a decision (for a table)."""
        tools = sorted({f.tool for f in self.findings} | {d["tool"] for d in self.decisions})
        by_tool = {r["tool"]: r for r in self.observed}
        rows = []
        for name in tools:
            stat = by_tool.get(name, {})
            decided = [d for d in self.decisions if d["tool"] == name]
            rows.append(
                {
                    "tool": name,
                    "calls": stat.get("calls"),
                    "success_rate": stat.get("success_rate"),
                    "p95_ms": stat.get("p95_ms"),
                    "findings": ", ".join(f.kind for f in self.findings if f.tool == name),
                    "decision": ", ".join(
                        f"-> {d['to']}" + ("" if d["applied"] else f" (not applied: {d['note']})")
                        for d in decided
                    ),
                    "reason": "; ".join(str(d["reason"]) for d in decided),
                }
            )
        return rows

    def summary(self) -> str:
        """One line: counts and time."""
        applied = sum(d["applied"] for d in self.decisions)
        return (
            f"OODA {'(dry run) ' if self.dry_run else ''}at {self.at:%H:%M:%S}: "
            f"{_count(len(self.observed), 'tool')} observed, "
            f"{_count(len(self.findings), 'finding')}, "
            f"{_count(len(self.decisions), 'decision')} ({applied} applied), "
            f"{_count(self.pruned, 'telemetry row')} pruned, {self.duration_ms:.0f} ms"
        )


def _count(n: int, noun: str) -> str:
    """``1 decision``, ``2 decisions``, ``0 decisions``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def run_ooda(registry, dry_run: bool = False, decide_fn: Callable | None = None) -> OodaReport:
    """One pass over every tool of ``registry``; see the module docstring.

    Args:
        registry: The tool registry (its harness's backend holds the tables).
        dry_run: Decide but change nothing (no transitions, no pruning).
        decide_fn: A policy with :func:`decide`'s signature (default: :func:`decide`).
    """
    started = time.perf_counter()
    backend = registry.harness.backend
    policy = registry.policy()
    now = registry.clock()
    stats = backend.telemetry.stats(policy.window_calls, policy.since(now))
    states = {r["tool_name"]: r for r in backend.breakers.all()}
    report = OodaReport(at=now, dry_run=dry_run, observed=stats)
    report.findings = orient(stats, backend.breakers.transitions(limit=1000), policy, now)
    by_tool = {r["tool"]: r for r in stats}
    for decision in list((decide_fn or decide)(stats, states, policy, now) or []):
        decision = dict(decision)
        note = (
            "dry run"
            if dry_run
            else registry.breaker.apply(
                decision, policy, actor="ooda", evidence=by_tool.get(decision.get("tool"), {})
            )
        )
        decision.update(applied=note is None, note=note)
        report.decisions.append(decision)
    if not dry_run:
        report.pruned = backend.telemetry.prune(
            now - dt.timedelta(days=policy.retention_days), policy.retention_rows_per_tool
        )
    report.duration_ms = round((time.perf_counter() - started) * 1000, 2)
    return report
