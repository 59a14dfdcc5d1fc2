"""Which of the registry's tools an MCP client sees, and the MCP description of each.

The set is the registry's own: a tool is listed unless its breaker is open (an open tool is
never offered, exactly as in the agent loop; calling it anyway gets the breaker's refusal: why,
until when, what to use instead). ``only`` narrows it to a fixed list (``workshop mcp --tools
a,b``), and :meth:`McpToolSet.unlock` adds tools to it while the server runs.

With an **agent** (``workshop mcp --agent supplychain-analyst``) each client gets progressive
disclosure, as the agent loop's ``disclose`` strategy: at first only the always-on set
(``load_skill``, ``search_knowledge``, ``run_sql``); a ``load_skill`` call unlocks the skill's
tools (and its required skills', within the agent's access) after the ones listed, **for that
client only**: what it unlocked is kept in its :class:`Disclosure` (the server keeps one per
session, or per credential on the 2026-07-28 protocol; see :mod:`agent_harness.mcp.callers`).
A tool the agent's skills do not grant enough access to is refused. Every change is announced
to the listeners, which the server turns into ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import mcp_types as types

from agent_harness.agent.disclosure import STARTER_TOOLS
from agent_harness.parts.offload import preview

__all__ = ["McpToolSet", "Disclosure", "mcp_tool", "MAX_RESULT_BYTES"]

#: The largest successful result sent whole (UTF-8 bytes of its text). An SSE client reads
#: events of at most 1 MiB (the SDK's default) and a result may also carry its structured copy:
#: a bigger one is offloaded and answered with a preview and a ``fetch_tool_output`` handle.
MAX_RESULT_BYTES = 256 * 1024


def mcp_tool(tool) -> types.Tool:
    """One registry tool as an MCP tool: name, description, input schema and annotations.

    ``readOnlyHint`` follows the tool's access level (``read``); ``destructiveHint`` marks
    ``write`` tools; ``openWorldHint`` marks tools that reach outside the database (live
    feeds, tools imported from another MCP server).
    """
    access = getattr(tool, "access_level", "read") or "read"
    kind = getattr(tool, "implementation_type", "python")
    open_world = tool.category in ("live", "mcp") or kind == "mcp" or _reaches_out(tool)
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.parameters or {"type": "object", "properties": {}},
        annotations=types.ToolAnnotations(
            title=tool.name.replace("_", " "),
            read_only_hint=access == "read",
            destructive_hint=access == "write",
            open_world_hint=open_world,
        ),
    )


def _reaches_out(tool) -> bool:
    """A Python tool declares that it reaches outside the database with ``OPEN_WORLD = True``
    in its module (the live feeds do)."""
    return bool(getattr(tool.function, "__globals__", {}).get("OPEN_WORLD", False))


@dataclass
class Disclosure:
    """What one client was given beyond the base set: the tools its ``load_skill`` calls
    unlocked, in the order they were added (so its listed prefix never changes)."""

    unlocked: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class McpToolSet:
    """The tools an MCP server lists: the registry's, minus open ones, within ``only``.

    Args:
        harness: A connected harness (``agent_harness.connect()``).
        only: Tool names to list (None: every registry tool). Unknown names raise ValueError.
        agent: An agent name: list its always-on set and unlock tools as it loads skills.

    Raises:
        ValueError: Unknown tool names, or both ``only`` and ``agent``.
        AgentNotFound: No such agent.
    """

    def __init__(
        self, harness, only: Iterable[str] | None = None, agent: str | None = None
    ) -> None:
        self.harness = harness
        known = set(harness.tools.names())
        self.agent = harness.agents.get(agent) if agent else None
        self._access: dict = {}
        self._grants = None
        self._unlocked_by: dict[str, list[str]] = {}
        if self.agent is not None:
            if only is not None:
                raise ValueError("choose --tools or --agent, not both")
            only = [n for n in STARTER_TOOLS if n in known]
            self._access = harness.agents.access(self.agent)
            self._grants = harness.agents.grants(self.agent)
            for skill, info in self._access.items():
                for tool, level in info["tools"].items():
                    if level is not None:
                        self._unlocked_by.setdefault(tool, []).append(skill)
        if only is not None:
            only = list(only)
            unknown = sorted(set(only) - known)
            if unknown:
                raise ValueError(f"unknown tools {unknown}: choose among {sorted(known)}")
        self._only = None if only is None else list(dict.fromkeys(only))
        self._listeners: list[Callable[[str], None]] = []
        self._lock = threading.Lock()
        self._unsubscribe = harness.tools.on_change(self._registry_changed)

    # --- the set ---------------------------------------------------------------------------------
    def allowed(self, disclosure: Disclosure | None = None) -> list[str]:
        """The names a client may call: the base set (``only``, or every registry tool), then
        what it unlocked; open tools included (the breaker refuses them with its reason)."""
        registry = self.harness.tools.names()
        present = set(registry)
        base = list(self._only) if self._only is not None else registry
        extra = list(disclosure.unlocked) if disclosure is not None else []
        names = [n for n in dict.fromkeys(base + extra) if n in present]
        return names

    def names(self, disclosure: Disclosure | None = None, shut: set[str] | None = None):
        """The names listed now, in a stable order (the ``only`` order, then unlocked ones),
        open tools left out (``shut``: the open set, if the caller has it already)."""
        shut = self.harness.tools.open_tools() if shut is None else shut
        return [n for n in self.allowed(disclosure) if n not in shut]

    def tools(self, disclosure: Disclosure | None = None) -> list[types.Tool]:
        """The MCP descriptions of :meth:`names`."""
        return [mcp_tool(self.harness.tools.get(n)) for n in self.names(disclosure)]

    def signature(self, disclosure: Disclosure | None = None, shut=None) -> str:
        """A short fingerprint of what :meth:`tools` would list (names, descriptions, schemas):
        the server notifies a client when its fingerprint changes."""
        parts = []
        for name in self.names(disclosure, shut):
            tool = self.harness.tools.get(name)
            parts.append([name, tool.description, tool.parameters])
        text = json.dumps(parts, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def unlock(self, names: Iterable[str], disclosure: Disclosure | None = None) -> list[str]:
        """Add tools after the ones already listed, and announce it: to one client's
        ``disclosure``, or (None) to the narrowed set every client shares.

        Returns the names that were added. Without ``only`` every tool is listed already.
        """
        names = list(names)
        unknown = sorted(set(names) - set(self.harness.tools.names()))
        if unknown:
            raise ValueError(f"cannot unlock unknown tools {unknown}")
        if self._only is None:
            return []
        if disclosure is None:
            with self._lock:
                added = [n for n in names if n not in self._only]
                self._only.extend(added)
        else:
            with disclosure.lock:
                have = set(self._only) | set(disclosure.unlocked)
                added = [n for n in dict.fromkeys(names) if n not in have]
                disclosure.unlocked.extend(added)
        if added:
            self._announce("unlock: " + ", ".join(added))
        return added

    # --- calls -----------------------------------------------------------------------------------
    def call(
        self,
        name: str,
        arguments: dict | None,
        disclosure: Disclosure | None = None,
        thread_id: str = "mcp",
    ) -> types.CallToolResult:
        """Run a tool the client may call through the registry (validation, telemetry,
        breaker); any other name is refused by the registry as not offered. Every problem
        comes back with ``isError`` set (refusals, the caller's mistakes, tool faults). A
        successful result over :data:`MAX_RESULT_BYTES` is offloaded: the harness's preview
        and handle come back."""
        result = self.harness.tools.call_detailed(
            name,
            arguments or {},
            offered=self.allowed(disclosure),
            thread_id=thread_id,
            unlocked_by=self._unlocked_by or None,
            grants=self._grants,
            agent=self.agent.name if self.agent else None,
        )
        failed = result.success is not True
        text = result.output
        if self.agent is not None and name == "load_skill" and not failed:
            skill = self.harness.skills.find(str((arguments or {}).get("name", "")))
            tools = self._access[skill]["tools"]
            unlocked = [t for t, level in tools.items() if level is not None]
            added = self.unlock(unlocked, disclosure)
            text += f"\n\n[tools unlocked: {', '.join(added) or 'none new'}]"
        structured = None
        if not failed and len(text.encode("utf-8", "replace")) > MAX_RESULT_BYTES:
            if name == "fetch_tool_output":  # too big whole: its first page, never offloaded
                paged = {**(arguments or {}), "offset": (arguments or {}).get("offset") or 0}
                text = self.harness.tools.call(name, paged)
            else:
                text = self._offload(result, thread_id, text)
        elif not failed:
            try:
                value = json.loads(text)
            except ValueError:
                value = None
            structured = value if isinstance(value, dict) else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=structured,
            is_error=failed,
        )

    def _offload(self, result, thread_id: str, text: str) -> str:
        """Store a result too big for one MCP message whole and answer with the harness's
        preview and handle (``fetch_tool_output`` reads it back, in pages)."""
        call_id = result.call.call_id
        arguments = result.call.arguments if isinstance(result.call.arguments, dict) else {}
        self.harness.offload.log(thread_id, call_id, result.name, arguments, text)
        return preview(text, call_id)

    # --- changes ---------------------------------------------------------------------------------
    def on_change(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(what)`` whenever a listed set may have changed."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def close(self) -> None:
        """Stop following the registry."""
        self._unsubscribe()

    def _registry_changed(self, tool: str, what: str) -> None:
        self._announce(f"{tool}: {what}")

    def _announce(self, what: str) -> None:
        for listener in list(self._listeners):
            listener(what)
