"""Following ``@register``: the part of the tool registry that takes the tools registered in
this process, before and after the registry was made.

A mixin of :class:`~agent_harness.tools.registry.ToolRegistry`. ``REGISTERED``
(:mod:`agent_harness.tools.decorator`) calls :meth:`RegistryFollow.refuse_taken_name` before a
registration and :meth:`~RegistryFollow.on_registered` / :meth:`~RegistryFollow.on_unregistered`
after one. What a registered tool does to a live harness:

* it is callable at once (``h.tools.call``, ``names``, ``get``, ``schemas``) and the
  registry's change listeners (an MCP server) hear ``added`` (``changed`` when the same
  function is registered again, ``removed`` after ``del REGISTERED[name]``);
* the toolbox index gets it on the next ``h.tools.rank`` (so ``retrieve`` and the agent's
  tool choice) or ``h.tools.sync``: registering writes nothing to the database; the next read
  of the index pays one embedding batch.

Closing the harness (:meth:`RegistryFollow.close`) stops the following.
"""

from __future__ import annotations

import warnings

from agent_harness.tools.decorator import RegisteredTools
from agent_harness.tools.tool import (
    Tool,
    ToolDefinitionError,
    ToolDefinitionWarning,
    refuse_taken_name,
)

__all__ = ["RegistryFollow"]


class RegistryFollow:
    """Mixin: follows a :class:`~agent_harness.tools.decorator.RegisteredTools`. Needs the
    registry's ``_tools``, ``_registered``, ``_index_stale``, ``changed`` and ``sync``."""

    def _follow(self, registered: RegisteredTools) -> None:
        """Start following ``registered``: add the tools registered so far (one whose name a
        tool here holds is left out, with a warning)."""
        for tool in registered.follow(self):
            self._take_registered(tool)

    def _take_registered(self, tool: Tool) -> None:
        try:
            refuse_taken_name(tool, self._tools)
        except ToolDefinitionError as e:  # the tool already here keeps its name
            warnings.warn(
                f"{tool.source} is registered as tool {tool.name!r} and left out of this"
                f" harness: {e}. Rename the function and register it again (and"
                f" `del REGISTERED[{tool.name!r}]`)",
                ToolDefinitionWarning,
                stacklevel=3,
            )
            return
        self._tools[tool.name] = tool

    def refuse_taken_name(self, tool: Tool) -> None:
        """Raise ToolDefinitionError when another tool of this registry holds ``tool.name``
        (asked by :data:`~agent_harness.tools.decorator.REGISTERED` before a registration)."""
        refuse_taken_name(tool, self._tools)

    def on_registered(self, tool: Tool) -> None:
        """Take a tool just registered with ``@register`` (or registered again): callable at
        once, indexed on the next :meth:`retrieve`, :meth:`rank` or :meth:`sync`."""
        known = tool.name in self._tools
        # A new dict, not an update: a call running in another thread keeps a consistent one.
        self._tools = {**self._tools, tool.name: tool}
        self._index_stale = True
        self.changed(tool.name, "changed" if known else "added")

    def on_unregistered(self, tool: Tool) -> None:
        """Drop a tool taken out of :data:`~agent_harness.tools.decorator.REGISTERED` (only
        if this registry's tool of that name is that one)."""
        mine = self._tools.get(tool.name)
        if mine is None or mine.source != tool.source:
            return
        self._tools = {n: t for n, t in self._tools.items() if n != tool.name}
        self._index_stale = True
        self.changed(tool.name, "removed")

    def close(self) -> None:
        """Stop following ``@register`` (the harness calls it when it closes)."""
        if self._registered is not None:
            self._registered.unfollow(self)
            self._registered = None

    def _sync_if_stale(self) -> None:
        if self._index_stale:
            self._index_stale = False
            self.sync()
