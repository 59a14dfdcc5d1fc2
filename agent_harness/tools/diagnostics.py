"""The diagnostics tools: the agent explains an earlier decision and reports on its registry.

Both are read-only (category ``diagnostics``, access ``read``) and read what the harness
already keeps: :func:`explain_turn` a turn's provenance trail (the memories its context
carried, the tools offered and by which strategy, each model step and tool call, offloads,
the answer); :func:`registry_health` the registry's window statistics, breaker states and the
findings and decisions of an OODA pass run as a dry run (it decides, changes nothing and
prunes nothing). Plain functions: importing this module registers nothing; every harness
registers them through :func:`tools`.
"""

from __future__ import annotations

import functools
import json

from agent_harness.tools.context import current
from agent_harness.tools.tool import Tool, ToolError

__all__ = ["tools", "explain_turn", "registry_health", "CATEGORY"]

CATEGORY = "diagnostics"
_ANSWER_CHARS = 300


def _call_row(event: dict) -> dict:
    detail = event["detail"]
    try:
        arguments = json.loads(detail.get("arguments") or "{}")
    except ValueError:
        arguments = detail.get("arguments")
    row = {
        "tool": event["name"],
        "arguments": arguments,
        "ok": event["ok"],
        "error_type": detail.get("error_type"),
        "duration_ms": event["duration_ms"],
    }
    offloads = [c["detail"] for c in event["children"] if c["kind"] == "offload"]
    if offloads:
        row["offloaded_memory_id"] = offloads[0].get("memory_id")
    return row


def _explanation(tree: dict) -> dict:
    """A turn's trail, shortened to what explains its decisions."""
    found: dict = {
        "turn_id": tree["turn_id"],
        "thread_id": tree["thread_id"],
        "question": tree["question"],
        "status": tree["status"],
        "answer": (tree["answer"] or "")[:_ANSWER_CHARS],
        "memory_hits": [],
        "tools_offered": {},
        "model_steps": [],
    }
    for event in tree["events"]:
        if event["kind"] == "knowledge":
            found["memory_hits"] = [
                {k: c["detail"].get(k) for k in ("memory_id", "kind", "score", "content")}
                for c in event["children"]
            ]
        elif event["kind"] == "tools_offered":
            found["tools_offered"] = {
                "strategy": event["detail"].get("strategy"),
                "tools": [c["name"] for c in event["children"] if c["kind"] == "tool_offered"],
            }
        elif event["kind"] == "model_step":
            found["model_steps"].append(
                {
                    "index": event["detail"].get("index"),
                    "forced": event["detail"].get("forced"),
                    "tool_calls": [
                        _call_row(c) for c in event["children"] if c["kind"] == "tool_call"
                    ],
                }
            )
        elif "error" in event["kind"]:  # a turn that failed (its error event)
            found["error"] = {"kind": event["kind"], "name": event["name"], **event["detail"]}
    return found


def explain_turn(turn_id: str | None = None) -> dict:
    """Explain an earlier turn from its provenance trail: the question, the memories its context
    carried (kind, score), the tools offered and the strategy, each model step's tool calls
    (arguments, outcome, latency, offload) and the answer.

    Args:
        turn_id: The turn to explain, e.g. "turn_3f2a..."; omit for the latest finished turn.
    """
    harness = current()
    if turn_id is None:
        finished = [t for t in harness.provenance.turns(20) if t["status"] != "running"]
        if not finished:
            raise ToolError("no finished turn to explain yet: ask a question first")
        turn_id = finished[0]["turn_id"]
    try:
        tree = harness.provenance.explain(str(turn_id))
    except KeyError as e:
        raise ToolError(str(e).strip("\"'")) from e
    return _explanation(tree)


def registry_health() -> dict:
    """Report on the tool registry's health: per tool its calls, success rate and p95 latency
    over the window, the breaker states, and what an OODA pass finds (failing, slow, unused,
    flapping) and would decide; a dry run, nothing is changed."""
    registry = current().tools
    report = registry.ooda(dry_run=True)
    used = sorted(
        (r for r in report.observed if r["calls"]), key=lambda r: (-r["calls"], r["tool"])
    )
    states = registry.states()
    return {
        "tools": len(registry.names()),
        "window": {
            "calls": registry.policy().window_calls,
            "minutes": registry.policy().window_minutes,
        },
        "not_closed": {
            name: row["state"] for name, row in sorted(states.items()) if row["state"] != "closed"
        },
        "busiest": [
            {
                "tool": r["tool"],
                "calls": r["calls"],
                "success_rate": r["success_rate"],
                "p95_ms": r["p95_ms"],
            }
            for r in used[:8]
        ],
        "findings": [
            {"tool": f.tool, "kind": f.kind, "detail": f.detail}
            for f in report.findings
            if f.kind != "unused"
        ],
        "unused": sorted(f.tool for f in report.findings if f.kind == "unused"),
        "would_decide": [
            {"tool": d["tool"], "to": d["to"], "reason": d["reason"]} for d in report.decisions
        ],
    }


@functools.cache
def tools() -> tuple[Tool, ...]:
    """The diagnostics tools, built once, for a harness to register."""
    return (
        Tool.from_function(explain_turn, category=CATEGORY),
        Tool.from_function(registry_health, category=CATEGORY),
    )
