"""``@register``: make a function a tool of every harness in this process.

``@register`` builds a :class:`~agent_harness.tools.tool.Tool` from the function and adds it
to :data:`REGISTERED`, the tools registered in this process. Every harness's registry
(``h.tools``) follows :data:`REGISTERED`: it takes the tools registered before it was made and
the ones registered later, so a notebook cell that registers a tool after ``connect()`` can
call it at once:

* ``h.tools.call``, ``h.tools.names()`` and ``h.tools.get`` know the tool as soon as the
  decorator returns, and the registry's change listeners (an MCP server) hear ``added``;
* the toolbox index (its embedding and keyword text) gets it on the next ``h.tools.retrieve``,
  ``rank`` or ``sync``: registering never writes to a database.

A name is never silently replaced: a second, different function with a name that
:data:`REGISTERED` or a live harness already holds (a library tool such as ``port_info``, a
tool added with ``h.tools.add``, a tool defined as rows) is refused with
:class:`~agent_harness.tools.tool.ToolDefinitionError`. Re-running the cell that defines the
SAME function (same module and qualified name) replaces it everywhere, so notebooks can be
re-run. ``del REGISTERED[name]`` takes a registered tool out of every harness again.

The library's own tools are not in :data:`REGISTERED`: importing a module registers nothing,
and a harness registers the core and SUPPLYCHAIN tools explicitly
(:func:`agent_harness.tools.core.tools`, :func:`agent_harness.tools.supplychain.tools`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, Protocol

from agent_harness.tools.tool import Tool, ToolDefinitionError, add_tool

__all__ = ["register", "REGISTERED", "RegisteredTools", "Follower"]


class Follower(Protocol):
    """What follows :data:`REGISTERED` (a :class:`~agent_harness.tools.registry.ToolRegistry`)."""

    def refuse_taken_name(self, tool: Tool) -> None:
        """Raise ToolDefinitionError when another tool holds ``tool.name`` here."""

    def on_registered(self, tool: Tool) -> None:
        """Take a tool that was just registered (or registered again)."""

    def on_unregistered(self, tool: Tool) -> None:
        """Drop a tool that was taken out of :data:`REGISTERED`."""


class RegisteredTools(MutableMapping):
    """The tools registered with ``@register`` in this process, by name, and the live tool
    registries that follow them (held weakly: a forgotten harness is not kept alive).

    A mapping: ``REGISTERED[name]`` is a :class:`Tool`; ``REGISTERED[name] = tool`` registers
    it (as :meth:`add`) and ``del REGISTERED[name]`` takes it out of every following registry.
    """

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._followers: weakref.WeakSet = weakref.WeakSet()
        self._lock = threading.RLock()

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._tools))

    def __len__(self) -> int:
        return len(self._tools)

    def __setitem__(self, name: str, tool: Tool) -> None:
        if not isinstance(tool, Tool) or tool.name != name:
            raise ToolDefinitionError(f"REGISTERED[{name!r}] takes a Tool named {name!r}")
        self.add(tool)

    def __delitem__(self, name: str) -> None:
        with self._lock:
            tool = self._tools.pop(name)
            for follower in list(self._followers):
                follower.on_unregistered(tool)

    def add(self, tool: Tool) -> Tool:
        """Register ``tool`` here and in every following registry, or refuse it everywhere.

        Raises:
            ToolDefinitionError: Another function holds the name here or in a live harness;
                nothing was changed then.
        """
        with self._lock:
            followers = list(self._followers)
            add_tool(tool, dict(self._tools))  # refuses a taken name before any change
            for follower in followers:
                follower.refuse_taken_name(tool)
            self._tools[tool.name] = tool
            for follower in followers:
                follower.on_registered(tool)
        return tool

    def follow(self, follower: Follower) -> list[Tool]:
        """Start telling ``follower`` about registrations; returns the tools registered so far
        (no registration can slip in between)."""
        with self._lock:
            self._followers.add(follower)
            return list(self._tools.values())

    def unfollow(self, follower: Follower) -> None:
        """Stop telling ``follower`` (a closed harness)."""
        with self._lock:
            self._followers.discard(follower)


#: Every tool registered with ``@register`` in this process, by name (the library's own tools
#: are not here: a harness registers them explicitly).
REGISTERED = RegisteredTools()


def register(
    fn: Callable[..., Any] | None = None,
    *,
    category: str | None = None,
    timeout_s: float | None = None,
    access_level: str = "read",
):
    """Decorator: make ``fn`` a tool of every harness in this process, those connected
    before and after; the function is returned unchanged.

    Use it bare (``@register``) or with options (``@register(category="ports")``).

    Args:
        fn: The function (when used bare).
        category: The tool's category (default: the module's ``TOOL_CATEGORY``, else
            ``"general"``).
        timeout_s: Time limit of one call in seconds (default 30).
        access_level: ``read`` (default), ``write`` (stores or changes data) or ``execute``
            (runs code).

    Raises:
        ToolDefinitionError: No docstring, an undocumented or untyped argument, a bad option,
            or a name that another function already holds (registered, or a tool of a live
            harness). Re-running the cell that defines the SAME function (same module and
            qualified name) replaces it, so notebooks can be re-run.
    """

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        tool = Tool.from_function(
            function, category=category, timeout_s=timeout_s, access_level=access_level
        )
        REGISTERED.add(tool)
        return function

    if fn is None:
        return decorate
    if not callable(fn):
        raise ToolDefinitionError(
            "use @register or @register(category=..., timeout_s=..., access_level=...):"
            " options are keywords"
        )
    return decorate(fn)
