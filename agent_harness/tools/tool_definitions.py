"""A tool defined by rows, not by Python code: :class:`ToolDefinition` and where it comes from.

A data tool is one ``tool_definitions`` row (name, description, implementation type and
implementation, category, access level, time limit) and one ``tool_parameters`` row per
argument (type, required, default, description, further JSON-schema keywords: see
:mod:`agent_harness.tools.parameter_rows`). Inserting the rows and calling
``h.tools.sync_definitions()`` makes the tool available; ``h.tools.define(...)`` writes them for
you (:mod:`agent_harness.tools.tools_as_data`). What an implementation type runs, and the check
that turns a definition into a callable :class:`~agent_harness.tools.tool.Tool`, are in
:mod:`agent_harness.tools.implementations`.

Arguments are validated against the stored JSON schema by the ``jsonschema`` library, with the
defaults that fit filled in, before the implementation runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent_harness.tools.parameter_rows import schema_from_rows
from agent_harness.tools.tool import DEFAULT_TIMEOUT_S, ToolDefinitionError

__all__ = ["ToolDefinition", "definition_from_entry", "definition_from_row", "ENTRY_KEYS"]


@dataclass(frozen=True)
class ToolDefinition:
    """A data tool as stored.

    Attributes:
        name: The tool's name.
        description: What it answers (the model reads it).
        parameters: The arguments' JSON schema (``type: object``).
        implementation_type: One of
            :data:`~agent_harness.tools.implementations.IMPLEMENTATION_TYPES` (``sql``,
            ``javascript``, ``mcp``); empty when none was given.
        implementation: What runs (see :mod:`agent_harness.tools.implementations`).
        category: One category, as for ``@register``.
        access_level: ``read``, ``write`` or ``execute``.
        timeout_s: Time limit of one call.
    """

    name: str
    description: str
    parameters: dict
    implementation_type: str
    implementation: dict
    category: str = "general"
    access_level: str = "read"
    timeout_s: float = DEFAULT_TIMEOUT_S


#: The keys of an entry of ``h.tools.define_many`` (:meth:`define`'s keyword arguments).
ENTRY_KEYS = frozenset(
    {"name", "description", "parameters", "implementation", "category", "access_level", "timeout_s"}
)


def definition_from_entry(entry: Any, implementation: dict | None = None) -> ToolDefinition:
    """One entry of ``h.tools.define_many`` as a :class:`ToolDefinition` (not yet checked:
    :func:`~agent_harness.tools.implementations.build_tool` does that, the implementation
    type included).

    Args:
        entry: A dict with ``define``'s keyword arguments, or an OpenAI tools entry
            ``{"type": "function", "function": {"name", "description", "parameters"}}``
            (``implementation``, ``category``, ``access_level``, ``timeout_s`` may sit beside
            ``function``). Missing ``parameters`` means no arguments.
        implementation: Used when the entry has none.

    Raises:
        ToolDefinitionError: Not a dict, or an unknown key.
    """
    if not isinstance(entry, dict):
        raise ToolDefinitionError(f"a definition must be a dict, got {type(entry).__name__}")
    fields = dict(entry)
    if isinstance(fields.get("function"), dict):
        if fields.pop("type", "function") != "function":
            raise ToolDefinitionError("an OpenAI tools entry must have type 'function'")
        function = fields.pop("function")
        fields.update(
            {k: function[k] for k in ("name", "description", "parameters") if k in function}
        )
    unknown = sorted(set(fields) - ENTRY_KEYS)
    if unknown:
        raise ToolDefinitionError(
            f"tool {fields.get('name')!r}: unknown key(s) {unknown}; use {sorted(ENTRY_KEYS)}"
            ' or an OpenAI entry {"type": "function", "function": {...}}'
        )
    chosen = fields.get("implementation") or implementation
    chosen = dict(chosen) if isinstance(chosen, dict) else {}
    kind = chosen.pop("type", "")
    return ToolDefinition(
        fields.get("name"),
        fields.get("description") or "",
        fields.get("parameters") or {"type": "object", "properties": {}},
        kind,
        chosen,
        fields.get("category", "general"),
        fields.get("access_level", "read"),
        fields.get("timeout_s", DEFAULT_TIMEOUT_S),
    )


def definition_from_row(row: dict) -> ToolDefinition:
    """A stored ``tool_definitions`` row (with its ``parameters`` rows, as
    ``backend.tool_definitions.all()`` returns them) as a :class:`ToolDefinition`.

    Raises:
        ValueError: The implementation is not JSON, or a parameter row cannot be read.
    """
    return ToolDefinition(
        row["name"],
        row["description"],
        schema_from_rows(row["parameters"]),
        row["implementation_type"],
        json.loads(row["implementation"]),
        row["category"],
        row["access_level"],
        float(row["timeout_s"]),
    )
