"""A turn's trail as the glass box shows it: one line per event, nested as the tree is.

The tree has the shape :meth:`~agent_harness.agent.provenance.Provenance.explain` returns (the
turn's
row plus ``events``, each ``{"kind", "name", "ok", "detail", "duration_ms", "children"}``):
the glass box's live hooks build the same shape while a turn runs (:mod:`.hooks`), a reopened
turn comes from the provenance tables, and notebook 08's ``trail_tree`` builds it from the
rows. :func:`event_line` says what one event means in words; :func:`render_trail_html` and
:func:`render_trail_text` draw the whole tree.
"""

from __future__ import annotations

import json

from agent_harness.glass_box.render import render

__all__ = ["event_line", "render_trail_html", "render_trail_text", "walk", "KIND_COLOURS"]

#: A colour per event kind (the panel's left border of each line).
KIND_COLOURS = {
    "identity": "#ad1457",
    "knowledge": "#6a1b9a",
    "memory_hit": "#8e24aa",
    "skills": "#00838f",
    "skill_loaded": "#00838f",
    "tools_offered": "#1565c0",
    "tool_offered": "#64b5f6",
    "model_step": "#ef6c00",
    "tool_call": "#2e7d32",
    "offload": "#795548",
    "answer": "#37474f",
}
_ERROR = "#c62828"


def _n(value) -> str:
    return "-" if value is None else f"{value:,}" if isinstance(value, int) else str(value)


def _ms(value) -> str:
    return "" if value is None else f" · {float(value):.1f} ms"


def _arguments(text, limit: int = 120) -> str:
    if isinstance(text, dict):
        text = json.dumps(text, ensure_ascii=False)
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def event_line(node: dict) -> str:
    """One event in words (plain text), e.g. ``tool_call port_info {"port": "DEHAM"} · ok``."""
    kind, name, detail = node.get("kind"), node.get("name"), node.get("detail") or {}
    if kind == "identity":
        return f"acting for {detail.get('policy') or name}"
    if kind == "knowledge":
        return f"memory: {detail.get('count', len(node.get('children', [])))} hits in the context"
    if kind == "memory_hit":
        score = detail.get("score")
        line = (
            f"[{detail.get('kind', name)}] #{detail.get('memory_id')} "
            f"score {score if score is None else f'{score:.4f}'} · "
            f"{_arguments(detail.get('content'), 90)}"
        )
        if detail.get("supplied"):
            line += f" ← supplied {detail['supplied']}"
        return line
    if kind == "skills":
        names = detail.get("manifest") or []
        return f"skills in the manifest: {len(names)} ({', '.join(names[:8]) or 'none'})"
    if kind == "skill_loaded":
        added = ", ".join(detail.get("added") or []) or "nothing new"
        return f"skill loaded {name} · unlocked {added}"
    if kind == "tools_offered":
        return (
            f"tools offered by {detail.get('strategy', name)}: {_n(detail.get('count'))} tools,"
            f" {_n(detail.get('tokens'))} schema tokens"
        )
    if kind == "tool_offered":
        return f"{name} · {_n(detail.get('tokens'))} tokens"
    if kind == "model_step":
        usage = detail.get("usage") or {}
        sent = f"{_n(detail.get('tools_sent'))} tools sent ({_n(detail.get('tool_tokens'))} tokens)"
        if detail.get("forced"):
            sent = "forced final answer, no tools"
        return (
            f"model step {detail.get('index')} · {_n(usage.get('prompt_tokens'))} prompt + "
            f"{_n(usage.get('completion_tokens'))} completion tokens · {sent}"
            + _ms(node.get("duration_ms"))
        )
    if kind == "tool_call":
        outcome = "ok" if node.get("ok") else f"FAILED {detail.get('error_type') or ''}".strip()
        line = f"{name} {_arguments(detail.get('arguments'))} · {outcome}" + _ms(
            node.get("duration_ms")
        )
        if detail.get("breaker"):
            line += f" · breaker {detail['breaker']}"
        return line + f" · {_n(detail.get('output_chars'))} chars"
    if kind == "offload":
        return (
            f"offloaded {_n(detail.get('chars'))} chars as memory #{detail.get('memory_id')}, "
            f"{_n(detail.get('shown_chars'))} shown · handle "
            f"fetch_tool_output(tool_call_id='{detail.get('call_id', '?')}')"
        )
    if kind == "answer":
        forced = " (forced: the budget ran out)" if detail.get("forced") else ""
        return f"answer{forced}: {_n(detail.get('chars'))} chars"
    if "error" in str(kind):
        return f"FAILED: {detail.get('error') or detail.get('message') or name}"
    return f"{kind} {name or ''} {_arguments(detail, 100)}".strip()


def walk(nodes: list[dict], depth: int = 0):
    """Every event of a tree with its depth, parents before their children."""
    for node in nodes:
        yield depth, node
        yield from walk(node.get("children") or [], depth + 1)


def render_trail_text(tree: dict) -> str:
    """The tree as indented text lines."""
    head = f"turn {tree.get('turn_id')} [{tree.get('status')}] {tree.get('question')!r}"
    lines = [head] + [f"{'  ' * (d + 1)}- {event_line(n)}" for d, n in walk(tree["events"])]
    return "\n".join(lines)


def render_trail_html(tree: dict | None, title: str = "") -> str:
    """The tree as HTML (``templates/trail.html``): one line per event (class
    ``gb-event gb-<kind>``), indented by depth, failures in red; the question and status on
    top."""
    if not tree:
        return render("trail.html", tree=None)
    events = []
    for depth, node in walk(tree.get("events") or []):
        kind = str(node.get("kind"))
        failed = node.get("ok") is False or "error" in kind
        colour = _ERROR if failed else KIND_COLOURS.get(kind, "#9e9e9e")
        events.append(
            {
                "kind": kind,
                "depth": depth,
                "colour": colour,
                "failed": failed,
                "line": event_line(node),
            }
        )
    return render(
        "trail.html",
        tree=tree,
        title=title or "",
        question=str(tree.get("question") or ""),
        status=tree.get("status") or "running",
        events=events,
        error_colour=_ERROR,
    )
