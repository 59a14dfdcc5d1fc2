"""The context budget: what a model request carries, in tokens, part by part.

A request is its messages plus the tool schemas sent with it. :func:`context_budget` splits
it into the five parts the glass box's context meter shows, against the model's window:

* ``system``: the system prompt, without the skill manifest in it;
* ``manifest``: the skill manifest (an agent's, in its system prompt, or the "Skills you can
  load" list at the top of the turn's context), found by :func:`manifest_span`;
* ``tool_schemas``: the tool schemas (:func:`~agent_harness.parts.token_count.schemas_tokens`);
* ``history``: user messages (without a manifest) and the assistant's messages: their text and
  each tool call's name and arguments;
* ``tool_outputs``: what the tool messages carry (previews, when outputs were offloaded).

Counts are tiktoken's ``cl100k_base`` (:mod:`agent_harness.parts.token_count`), each piece counted
on its own and added up; message framing (a few tokens per message) is not counted. It is the
library version of notebook 08's second TODO.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from agent_harness.parts.token_count import compact_json, count_tokens

__all__ = [
    "PARTS",
    "DEFAULT_WINDOW",
    "MODEL_WINDOWS",
    "window_for",
    "manifest_span",
    "message_text",
    "context_budget",
]

#: The parts of a request, in the meter's order.
PARTS = ("system", "manifest", "tool_schemas", "history", "tool_outputs")
#: The window assumed for a model not in :data:`MODEL_WINDOWS` (and for the offline model,
#: which stands in for gpt-4o): ``WORKSHOP_CONTEXT_WINDOW`` overrides it.
DEFAULT_WINDOW = 128_000
#: Context windows (tokens) of models people point the workshop at, by name prefix.
MODEL_WINDOWS = {
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-5": 400_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "offline-replay": DEFAULT_WINDOW,
}
_MANIFEST_START = re.compile(r"^(?:Skills you can load|Your skills)", re.MULTILINE)


def window_for(model: str | None) -> int:
    """The context window of ``model`` in tokens: ``WORKSHOP_CONTEXT_WINDOW`` when set, else
    the longest matching prefix of :data:`MODEL_WINDOWS`, else :data:`DEFAULT_WINDOW`."""
    configured = os.environ.get("WORKSHOP_CONTEXT_WINDOW")
    if configured:
        return int(configured)
    name = str(model or "")
    matches = [p for p in MODEL_WINDOWS if name.startswith(p)]
    return MODEL_WINDOWS[max(matches, key=len)] if matches else DEFAULT_WINDOW


def manifest_span(text: str) -> tuple[int, int] | None:
    """Where the skill manifest is in a message's text: from the start of a line that begins
    with ``Skills you can load`` or ``Your skills`` to just before the next empty line (or the
    end of the text); None when there is none."""
    found = _MANIFEST_START.search(text)
    if found is None:
        return None
    end = text.find("\n\n", found.start())
    return found.start(), len(text) if end < 0 else end


def message_text(message: dict) -> str:
    """A message's text: its content (a list of parts joined) and, for an assistant message,
    each tool call's function name and arguments, one per line."""
    content = message.get("content")
    if isinstance(content, list):
        content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    text = "" if content is None else str(content)
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        text += f"\n{function.get('name', '')} {function.get('arguments', '')}"
    return text


@lru_cache(maxsize=4096)
def _tokens(text: str) -> int:
    return count_tokens(text) if text else 0


def context_budget(messages: list[dict], tools: list[dict] | None, window: int) -> dict:
    """The tokens a request carries, by part, against the model's window.

    Args:
        messages: The request's messages (OpenAI chat format).
        tools: The tool schemas sent with it (None or [] for none).
        window: The model's context window in tokens.

    Returns:
        ``{"system", "manifest", "tool_schemas", "history", "tool_outputs", "total",
        "window", "free", "share"}``: the five parts and their ``total`` in tokens, the
        ``window``, ``free = window - total`` and ``share = total / window``.
    """
    parts = dict.fromkeys(PARTS, 0)
    for message in messages:
        role = message.get("role")
        text = message_text(message)
        if role == "tool":
            parts["tool_outputs"] += _tokens(text)
            continue
        span = manifest_span(text) if role in ("system", "user") else None
        if span is not None:
            parts["manifest"] += _tokens(text[span[0] : span[1]])
            text = text[: span[0]] + text[span[1] :]
        parts["system" if role == "system" else "history"] += _tokens(text)
    # the schema as sent (compact JSON), as schemas_tokens counts it, cached by its text
    parts["tool_schemas"] = sum(_tokens(compact_json(t)) for t in tools or [])
    total = sum(parts.values())
    return {
        **parts,
        "total": total,
        "window": int(window),
        "free": int(window) - total,
        "share": total / window if window else 0.0,
    }
