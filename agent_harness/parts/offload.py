"""Tool-output offload: big outputs are stored whole and replaced by a preview plus a handle.

The agent loop keeps the model's context small: an output longer than ``PREVIEW_CHARS`` is
logged whole as a memory of kind ``tool_output`` (subject = the tool call id) and the model sees
its first ``PREVIEW_CHARS`` characters followed by
``...[+N chars. full output: fetch_tool_output(tool_call_id='...')]``. ``fetch_tool_output``
returns the stored output WHOLE, byte-exact (or in pages of ``FETCH_PAGE_CHARS`` from an
``offset``), and the loop never cuts a fetched output again. ``workshop mcp`` offloads
a successful result too big for one MCP message the same way.
"""

from __future__ import annotations

import json

from agent_harness.parts.memory import MemoryStore

__all__ = ["ToolOutputLog", "preview", "PREVIEW_CHARS", "KIND", "FETCH_PAGE_CHARS"]

PREVIEW_CHARS = 600
KIND = "tool_output"
#: The most characters of a stored output one ``fetch_tool_output`` call returns (a longer
#: output comes in pages: what one MCP message can carry).
FETCH_PAGE_CHARS = 100_000


def preview(output: str, tool_call_id: str, limit: int = PREVIEW_CHARS) -> str:
    """The text the model sees for an output: whole when short, else a preview and a handle.

    Characters, not bytes, are counted, so a cut never splits a unicode character.
    """
    if len(output) <= limit:
        return output
    rest = len(output) - limit
    return (
        f"{output[:limit]}...[+{rest} chars. full output: "
        f"fetch_tool_output(tool_call_id='{tool_call_id}')]"
    )


class ToolOutputLog:
    """Stores tool outputs whole, keyed by tool call id."""

    def __init__(self, memory: MemoryStore):
        self.memory = memory

    def log(
        self, thread_id: str, tool_call_id: str, tool_name: str, tool_args, tool_output: str
    ) -> int:
        """Store one tool call's full output; returns the memory id."""
        if not tool_call_id:
            raise ValueError("tool_call_id is required: it is the handle to fetch the output")
        args = tool_args if isinstance(tool_args, str) else json.dumps(tool_args, sort_keys=True)
        metadata = {
            "tool_name": tool_name,
            "tool_args": args,
            "chars": len(tool_output),
            "empty": not tool_output,
        }
        blank = not tool_output.strip()
        if blank and tool_output:  # a memory needs visible text: keep the whitespace aside
            metadata["blank_output"] = tool_output
        return self.memory.add(
            "(empty output)" if not tool_output else "(blank output)" if blank else tool_output,
            kind=KIND,
            subject=tool_call_id,
            metadata=metadata,
            thread_id=thread_id,
        )

    def has_outputs(self, thread_id: str) -> bool:
        """True when an output of this thread was stored (``fetch_tool_output`` is useful)."""
        stored = {"kind": KIND, "thread_id": thread_id}
        return bool(self.memory.list(metadata_filter=stored, limit=1))

    def fetch(self, tool_call_id: str, offset: int | None = None) -> dict:
        """``{"tool_name", "tool_args", "tool_output"}`` or ``{"error": ...}``.

        With an ``offset`` the output comes in pages of :data:`FETCH_PAGE_CHARS`: ``tool_output``
        holds the characters from ``offset`` on, with ``chars`` (the whole length) and
        ``next_offset`` (None after the last page); without one, whole."""
        found = self.memory.list(
            metadata_filter={"kind": KIND, "subject": str(tool_call_id)}, limit=1
        )
        if not found:
            return {"error": f"no tool call with id {tool_call_id!r}"}
        m = found[0]
        if m.metadata.get("empty"):
            output = ""
        else:
            output = m.metadata.get("blank_output", m.content)
        found = {"tool_name": m.metadata.get("tool_name"), "tool_args": m.metadata.get("tool_args")}
        if offset is None:
            return {**found, "tool_output": output}
        end = offset + FETCH_PAGE_CHARS
        return {
            **found,
            "tool_output": output[offset:end],
            "chars": len(output),
            "offset": offset,
            "next_offset": end if end < len(output) else None,
        }
