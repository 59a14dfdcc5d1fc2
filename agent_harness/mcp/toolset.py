"""Which of the registry's tools an MCP client sees, and the MCP description of each.

The set is the registry's own: a tool is listed unless its breaker is open (an open tool is
never offered, exactly as in the agent loop). ``only`` narrows it to a fixed list (``workshop
mcp --tools a,b``), and :meth:`McpToolSet.unlock` adds tools to it while the server runs.

With an **agent** (``workshop mcp --agent supplychain-analyst``) the client gets progressive
disclosure, as the agent loop's ``disclose`` strategy: at first only the always-on set
(``load_skill``, ``search_knowledge``, ``run_sql``); a ``load_skill`` call unlocks the skill's
tools (and its required skills', within the agent's access) after the ones listed; a tool the
agent's skills do not grant enough access to is refused. Every change is announced to the
listeners, which the server turns into ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable

import mcp_types as types

from agent_harness.disclosure import ALWAYS_ON

__all__ = ["McpToolSet", "mcp_tool"]


def mcp_tool(tool) -> types.Tool:
    """One registry tool as an MCP tool: name, description, input schema and annotations.

    ``readOnlyHint`` follows the tool's access level (``read``); ``destructiveHint`` marks
    ``write`` tools; ``openWorldHint`` marks tools that reach outside the database (live
    feeds, tools imported from another MCP server).
    """
    access = getattr(tool, "access_level", "read") or "read"
    kind = getattr(tool, "implementation_type", "python")
    open_world = tool.category in ("live", "mcp") or kind == "mcp"
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
            only = [n for n in ALWAYS_ON if n in known]
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
    def names(self) -> list[str]:
        """The names listed now, in a stable order (the ``only`` order, then unlocked ones)."""
        registry = set(self.harness.tools.names())
        base = self._only if self._only is not None else sorted(registry)
        closed = [n for n in base if n in registry]
        shut = self.harness.tools.open_tools()
        return [n for n in closed if n not in shut]

    def tools(self) -> list[types.Tool]:
        """The MCP descriptions of :meth:`names`."""
        return [mcp_tool(self.harness.tools.get(n)) for n in self.names()]

    def unlock(self, names: Iterable[str]) -> list[str]:
        """Add tools to a narrowed set (after the ones already listed) and announce it.

        Returns the names that were added. Without ``only`` every tool is listed already.
        """
        names = list(names)
        unknown = sorted(set(names) - set(self.harness.tools.names()))
        if unknown:
            raise ValueError(f"cannot unlock unknown tools {unknown}")
        if self._only is None:
            return []
        with self._lock:
            added = [n for n in names if n not in self._only]
            self._only.extend(added)
        if added:
            self._announce("unlock: " + ", ".join(added))
        return added

    # --- calls -----------------------------------------------------------------------------------
    def call(self, name: str, arguments: dict | None) -> types.CallToolResult:
        """Run a listed tool through the registry (validation, telemetry, breaker); any other
        name is refused by the registry as not offered. Problems come back as ``isError``."""
        result = self.harness.tools.call_detailed(
            name,
            arguments or {},
            offered=self.names(),
            thread_id="mcp",
            unlocked_by=self._unlocked_by or None,
            grants=self._grants,
            agent=self.agent.name if self.agent else None,
        )
        failed = result.success is not True
        text = result.output
        if self.agent is not None and name == "load_skill" and not failed:
            skill = self.harness.skills.find(str((arguments or {}).get("name", "")))
            tools = self._access[skill]["tools"]
            added = self.unlock([t for t, level in tools.items() if level is not None])
            text += f"\n\n[tools unlocked: {', '.join(added) or 'none new'}]"
        structured = None
        if not failed:
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

    # --- changes ---------------------------------------------------------------------------------
    def on_change(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(what)`` whenever the listed set may have changed."""
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
