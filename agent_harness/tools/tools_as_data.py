"""Tools as data: the part of the tool registry that defines tools from rows, not code.

A mixin of :class:`~agent_harness.tools.registry.ToolRegistry` (``h.tools.define``,
``define_many``, ``import_mcp``, ``undefine``, ``sync_definitions``); the rows are described in
:mod:`agent_harness.tools.tool_definitions`, the implementation types in
:mod:`agent_harness.tools.implementations`.
"""

from __future__ import annotations

import json
import warnings

from agent_harness.tools.implementations import build_tool
from agent_harness.tools.parameter_rows import rows_from_schema, unfitting_defaults
from agent_harness.tools.tool import Tool, ToolDefinitionError, ToolDefinitionWarning
from agent_harness.tools.tool_definitions import definition_from_entry, definition_from_row

__all__ = ["DefinitionRefused", "ToolsAsData"]


class DefinitionRefused(ToolDefinitionError, ValueError):
    """:meth:`ToolsAsData.define` or ``define_many`` refused what it was given (nothing stored):
    a :class:`~agent_harness.tools.tool.ToolDefinitionError` (the definition's author's fault)
    and a ValueError (a bad argument value), as notebook 07's ``define_sql_tool`` raises."""


class ToolsAsData:
    """Mixin: defines, loads and removes the registry's data tools. Needs the registry's
    ``harness``, ``_tools``, ``definition_problems``, ``changed``, ``sync`` and ``_index``."""

    def define(
        self,
        name: str,
        description: str,
        parameters: dict,
        implementation: dict,
        category: str = "general",
        access_level: str = "read",
        timeout_s: float = 30.0,
    ) -> Tool:
        """Define a tool without Python code: stored as rows, available at once.

        Only this tool is built, embedded and indexed: the cost does not grow with the
        registry (use :meth:`define_many` for many at once).

        Args:
            name: The tool's name, ``^[a-zA-Z0-9_-]{1,64}$`` (not one of the Python tools').
            description: What it answers (the model reads it).
            parameters: The arguments as a JSON schema of type object: each property has a
                ``type`` (or anyOf/oneOf/enum/const) and, ideally, a ``description``; nested
                objects, arrays, enums and ``required`` are kept.
            implementation: ``{"type": "sql", "statement": "SELECT ... :arg", "max_rows": 50}``
                (arguments become bind variables), ``{"type": "javascript", "source":
                "return args.x * 2;"}`` or ``{"type": "mcp", "server": url_or_command,
                "tool": remote_name}`` (see :mod:`agent_harness.tools.implementations`).
            category: Its category.
            access_level: ``read``, ``write`` or ``execute``.
            timeout_s: Time limit of one call.

        Raises:
            ToolDefinitionError: What is wrong with the definition (nothing is stored then).
        """
        entry = {
            "name": name,
            "description": description,
            "parameters": parameters,
            "implementation": implementation,
            "category": category,
            "access_level": access_level,
            "timeout_s": timeout_s,
        }
        return self.define_many([entry])[0]

    def define_many(self, definitions: list[dict], implementation: dict | None = None):
        """Define many tools at once: all checked first, then stored in ONE transaction with
        ONE embedding batch; nothing is stored if any entry is refused.

        Args:
            definitions: Dicts with :meth:`define`'s keyword arguments, or OpenAI tools entries
                ``{"type": "function", "function": {"name", "description", "parameters"}}``
                (``implementation``, ``category``, ... may sit beside ``function``).
            implementation: For the entries that have none (e.g. public definitions loaded
                for retrieval only: ``{"type": "javascript", "source": "throw ..."}``).

        Returns:
            The tools, in order.

        Raises:
            DefinitionRefused: Every refused entry (up to 10 shown) and why (a
                ToolDefinitionError and a ValueError).

        Warns:
            ToolDefinitionWarning: A stored entry's published default that does not fit its
                argument (kept in the schema, never filled in).
        """
        tools, problems, seen = [], [], set()
        for i, entry in enumerate(definitions):
            try:
                definition = definition_from_entry(entry, implementation)
                tool = build_tool(definition)  # refuses a bad definition before any write
                existing = self._tools.get(tool.name)
                if existing is not None and not existing.defined_as_data:
                    raise ToolDefinitionError(
                        f"a tool named {tool.name!r} is already registered (by"
                        f" {existing.source}); choose another name"
                    )
                if tool.name in seen:
                    raise ToolDefinitionError(f"tool {tool.name!r} is defined twice")
            except (ToolDefinitionError, TypeError, ValueError) as e:
                problems.append(str(e) if len(definitions) == 1 else f"entry {i}: {e}")
                continue
            seen.add(tool.name)
            tools.append((definition, tool))
        if problems:
            shown = "; ".join(problems[:10]) + ("; ..." if len(problems) > 10 else "")
            if len(definitions) > 1:
                shown = f"{len(problems)} of {len(definitions)} refused, nothing stored: {shown}"
            raise DefinitionRefused(shown)
        self._store_definitions(tools)
        for definition, tool in tools:
            for message in unfitting_defaults(tool.name, definition.parameters):
                warnings.warn(message, ToolDefinitionWarning, stacklevel=2)
        return [tool for _, tool in tools]

    def _store_definitions(self, tools: list) -> None:
        """Rows, toolbox entries (only the changed ones embedded) and the in-memory tools of
        checked definitions, in one transaction; listeners told about each new or changed one."""
        backend = self.harness.backend
        names = [tool.name for _, tool in tools]
        stored = {
            r["name"]: r["content_hash"]
            for r in backend.indexed_rows("toolbox", names if len(names) <= 100 else None)
        }
        changed = self._changed([tool for _, tool in tools], stored)
        vectors = self.vectors([t for t, _ in changed])
        before = {n: self._tools.get(n) for n in names}
        with backend.transaction():
            for definition, tool in tools:
                backend.tool_definitions.put(
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "implementation_type": definition.implementation_type,
                        "implementation": json.dumps(definition.implementation, sort_keys=True),
                        "category": tool.category,
                        "access_level": tool.access_level,
                        "timeout_s": tool.timeout_s,
                    },
                    rows_from_schema(tool.name, definition.parameters),
                )
            self._store(changed, vectors)
        for _, tool in tools:
            self._tools[tool.name] = tool
            self.definition_problems.pop(tool.name, None)
            old = before[tool.name]
            if old is None or (old.description, old.parameters, old.source) != (
                tool.description,
                tool.parameters,
                tool.source,
            ):
                self.changed(tool.name, "defined")

    def import_mcp(
        self,
        server: str | list[str],
        prefix: str = "",
        category: str = "mcp",
        names: list[str] | None = None,
        timeout_s: float = 30.0,
    ) -> dict:
        """Define one tool of type ``mcp`` per tool another MCP server lists.

        Args:
            server: A loopback streamable-HTTP URL or the command line of a stdio server.
            prefix: Put before each remote name (``"remote_"``), to keep names apart.
            category: The category of the imported tools.
            names: Import only these remote tools (None: all).
            timeout_s: Time limit of listing and of each later call.

        Returns:
            ``{"imported": [names], "problems": {remote name: why it was left out}}``.
        """
        from agent_harness.tools.mcp_client import remote_tools

        imported, problems = [], {}
        for remote in remote_tools(server, timeout_s=timeout_s):
            if names is not None and remote["name"] not in names:
                continue
            annotations = remote["annotations"] or {}
            access = "read" if annotations.get("read_only_hint") else "execute"
            try:
                tool = self.define(
                    prefix + remote["name"],
                    remote["description"] or f"{remote['name']} (from an MCP server)",
                    remote["input_schema"] or {"type": "object", "properties": {}},
                    {"type": "mcp", "server": server, "tool": remote["name"]},
                    category=category,
                    access_level=access,
                    timeout_s=timeout_s,
                )
            except ToolDefinitionError as e:
                problems[remote["name"]] = str(e)
            else:
                imported.append(tool.name)
        return {"imported": imported, "problems": problems}

    def undefine(self, name: str) -> bool:
        """Delete a data tool's rows and take it out of the registry and the toolbox (a
        Python tool of that name stays)."""
        gone = self.harness.backend.tool_definitions.delete(name)
        self.definition_problems.pop(name, None)
        tool = self._tools.get(name)
        if tool is not None and tool.defined_as_data:
            del self._tools[name]
            self.harness.backend.delete_indexed("toolbox", [name])
            self.changed(name, "removed")
        return gone

    def sync_definitions(self) -> dict:
        """Load the data tools from their rows (after an INSERT by hand, say): new and changed
        ones are added, deleted ones removed, the toolbox re-indexed. A row that cannot be a
        tool is left out and named in ``definition_problems`` (and the result)."""
        before = {n: t for n, t in self._tools.items() if t.defined_as_data}
        loaded = self._load_definitions()
        removed = [n for n in before if n not in loaded]
        for name in removed:
            self._tools.pop(name, None)
        changed = [
            n
            for n, t in loaded.items()
            if n not in before
            or before[n].parameters != t.parameters
            or before[n].description != t.description
        ]
        self.sync()
        for name in changed:
            self.changed(name, "defined")
        for name in removed:
            self.changed(name, "removed")
        return {
            "loaded": sorted(loaded),
            "changed": sorted(changed),
            "removed": sorted(removed),
            "problems": dict(self.definition_problems),
        }

    def _load_definitions(self) -> dict[str, Tool]:
        loaded: dict[str, Tool] = {}
        self.definition_problems = {}
        for row in self.harness.backend.tool_definitions.all():
            name = row["name"]
            try:
                tool = build_tool(definition_from_row(row))
                existing = self._tools.get(name)
                if existing is not None and not existing.defined_as_data:
                    raise ToolDefinitionError(f"the name is taken by {existing.source}")
            except (ToolDefinitionError, ValueError, KeyError) as e:
                self.definition_problems[name] = str(e)
                continue
            self._tools[name] = loaded[name] = tool
        return loaded
