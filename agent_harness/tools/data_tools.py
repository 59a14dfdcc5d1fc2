"""Tools as data: a tool defined by rows, not by Python code.

A data tool is one ``tool_definitions`` row (name, description, implementation type and
implementation, category, access level, time limit) and one ``tool_parameters`` row per
argument (type, required, default, description, further JSON-schema keywords). Inserting the
rows and calling ``h.tools.sync_definitions()`` makes the tool available; ``h.tools.define(...)``
writes them for you. Implementation types:

* ``sql``: ``{"statement": "SELECT ... WHERE port_code = :port", "max_rows": 50}``: ONE read-only
  statement run through ``run_sql``'s read-only path, every argument a **bind variable**. Text is
  never pasted into SQL: the seed design's binder that doubles quotes inside a built string is
  one mistake away from injection (a backslash, a unicode quote, a number that is not a number);
  a bind variable is data whatever it holds.
* ``javascript``: ``{"source": "return args.a + args.b;"}``: the body of a function of ``args``,
  run in the ``exec_js`` sandbox (no files, no network, a time limit); the arguments reach it as
  a JSON value.
* ``mcp``: ``{"server": "http://127.0.0.1:8765/mcp" or "a stdio command line", "tool": "name"}``:
  a tool of another MCP server, called through a short client session
  (:mod:`agent_harness.mcp.client`); ``h.tools.import_mcp(server)`` defines one per tool the
  server lists.

Arguments are validated against the stored JSON schema by the ``jsonschema`` library, with the
defaults that fit filled in, before the implementation runs. (The decorated Python functions are the
``python`` type.)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agent_harness.backends.base import BackendError
from agent_harness.tools.context import current
from agent_harness.tools.core import sql_result
from agent_harness.tools.definition import (
    ACCESS_LEVELS,
    DEFAULT_TIMEOUT_S,
    Tool,
    ToolDefinitionError,
    ToolError,
    _check_category,
)
from agent_harness.tools.parameter_rows import (
    JSON_TYPES,
    MAX_TEXT,
    rows_from_schema,
    schema_from_rows,
    unfitting_defaults,
    validator,
)

__all__ = [
    "ToolDefinition",
    "IMPLEMENTATION_TYPES",
    "ACCESS_LEVELS",
    "JSON_TYPES",
    "schema_from_rows",
    "rows_from_schema",
    "unfitting_defaults",
    "build_tool",
    "definition_from_entry",
    "sql_binds",
    "MAX_TEXT",
]

IMPLEMENTATION_TYPES = ("sql", "javascript", "mcp")
#: Tool names: OpenAI's rule for function names (they are only ever bound, never put in SQL).
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# A bind variable (:name) outside quoted text and comments.
_SQL_TOKEN = re.compile(
    r"'(?:''|[^'])*'|\"[^\"]*\"|--[^\n]*|/\*.*?\*/|(?<![:\w]):([A-Za-z_]\w*)", re.S
)


@dataclass(frozen=True)
class ToolDefinition:
    """A data tool as stored.

    Attributes:
        name: The tool's name.
        description: What it answers (the model reads it).
        parameters: The arguments' JSON schema (``type: object``).
        implementation_type: ``sql`` or ``javascript``.
        implementation: What runs (see the module docstring).
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


_ENTRY_KEYS = {
    "name",
    "description",
    "parameters",
    "implementation",
    "category",
    "access_level",
    "timeout_s",
}


def definition_from_entry(entry: Any, implementation: dict | None = None) -> ToolDefinition:
    """One entry of ``h.tools.define_many`` as a :class:`ToolDefinition` (not yet checked:
    :func:`build_tool` does that).

    Args:
        entry: A dict with ``define``'s keyword arguments, or an OpenAI tools entry
            ``{"type": "function", "function": {"name", "description", "parameters"}}``
            (``implementation``, ``category``, ``access_level``, ``timeout_s`` may sit beside
            ``function``). Missing ``parameters`` means no arguments.
        implementation: Used when the entry has none.

    Raises:
        ToolDefinitionError: Not a dict, an unknown key, or no implementation.
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
    unknown = sorted(set(fields) - _ENTRY_KEYS)
    if unknown:
        raise ToolDefinitionError(
            f"tool {fields.get('name')!r}: unknown key(s) {unknown}; use {sorted(_ENTRY_KEYS)}"
            ' or an OpenAI entry {"type": "function", "function": {...}}'
        )
    chosen = fields.get("implementation") or implementation
    if not isinstance(chosen, dict) or not chosen.get("type"):
        raise ToolDefinitionError(
            f"tool {fields.get('name')!r}: no implementation: give it an 'implementation'"
            ' ({"type": "sql" | "javascript" | "mcp", ...}) or pass define_many(...,'
            " implementation=...) for the entries without one"
        )
    chosen = dict(chosen)
    kind = chosen.pop("type")
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


def sql_binds(statement: str) -> list[str]:
    """The bind variable names of a statement, in order of first use (quotes skipped)."""
    names = [m.group(1) for m in _SQL_TOKEN.finditer(statement) if m.group(1)]
    return list(dict.fromkeys(names))


def _sql_function(definition: ToolDefinition):
    statement = definition.implementation.get("statement")
    if not isinstance(statement, str) or not statement.strip():
        raise ToolDefinitionError(f"tool {definition.name!r}: an sql tool needs a 'statement'")
    binds = sql_binds(statement)
    declared = set(definition.parameters["properties"])
    missing = [b for b in binds if b not in declared]
    if missing:
        raise ToolDefinitionError(
            f"tool {definition.name!r}: the statement uses :{', :'.join(missing)} but no such"
            " parameter is declared; every bind variable must be a parameter"
        )
    max_rows = int(definition.implementation.get("max_rows", 50))
    if not 1 <= max_rows <= 1000:
        raise ToolDefinitionError(f"tool {definition.name!r}: max_rows must be 1-1000")

    def run(**arguments) -> dict:
        values = {b: arguments.get(b) for b in binds}  # bind variables: data, never SQL text
        try:
            result = current().backend.readonly_query(statement, values, max_rows=max_rows)
        except BackendError as e:
            raise ToolError(str(e)) from e
        return sql_result(result)

    return run


def _javascript_function(definition: ToolDefinition):
    source = definition.implementation.get("source")
    if not isinstance(source, str) or not source.strip():
        raise ToolDefinitionError(f"tool {definition.name!r}: a javascript tool needs a 'source'")

    def run(**arguments) -> Any:
        from agent_harness.sandbox import run_js

        # The arguments enter as a JSON text parsed inside the sandbox: data, not code.
        code = (
            f"(function (args) {{\n{source}\n}})(JSON.parse({json.dumps(json.dumps(arguments))}))"
        )
        timeout_ms = int(min(definition.timeout_s, 10) * 1000)
        outcome = current().backend.run_js(code, timeout_ms) or run_js(code, timeout_ms)
        if "error" in outcome:
            raise ToolError(f"the script failed: {outcome['error']}")
        return outcome.get("result")

    return run


def _mcp_function(definition: ToolDefinition):
    server, remote = definition.implementation.get("server"), definition.implementation.get("tool")
    if not isinstance(server, (str, list)) or not server or not isinstance(remote, str):
        raise ToolDefinitionError(
            f"tool {definition.name!r}: an mcp tool needs a 'server' (loopback URL or command"
            " line) and the server's 'tool' name"
        )
    from agent_harness.mcp.client import McpClientError, call_remote_tool, server_target

    try:
        server_target(server)
    except ValueError as e:
        raise ToolDefinitionError(f"tool {definition.name!r}: {e}") from e

    def run(**arguments) -> Any:
        try:
            answer = call_remote_tool(server, remote, arguments, timeout_s=definition.timeout_s)
        except McpClientError as e:
            raise ToolError(str(e)) from e
        if answer["is_error"]:
            raise ToolError(f"{remote} on the MCP server answered with an error: {answer['text']}")
        if answer["structured"] is not None:
            return answer["structured"]
        try:
            return json.loads(answer["text"])
        except ValueError:
            return answer["text"]

    return run


def build_tool(definition: ToolDefinition) -> Tool:
    """The :class:`Tool` a definition describes, or :class:`ToolDefinitionError` saying why
    it cannot be one."""
    name = definition.name
    if not isinstance(name, str) or not _NAME.match(name):
        raise ToolDefinitionError(
            f"tool name {name!r} must match {_NAME.pattern} (letters, digits, _ and -)"
        )
    if not isinstance(definition.description, str) or not definition.description.strip():
        raise ToolDefinitionError(f"tool {name!r}: describe what it answers (a text)")
    if len(definition.description) > MAX_TEXT:
        raise ToolDefinitionError(
            f"tool {name!r}: the description has {len(definition.description)} characters;"
            f" at most {MAX_TEXT} are stored: shorten it"
        )
    if definition.implementation_type not in IMPLEMENTATION_TYPES:
        raise ToolDefinitionError(
            f"tool {name!r}: implementation type {definition.implementation_type!r} is not one of"
            f" {IMPLEMENTATION_TYPES} (Python tools are functions decorated with @register)"
        )
    if definition.access_level not in ACCESS_LEVELS:
        raise ToolDefinitionError(f"tool {name!r}: access_level must be one of {ACCESS_LEVELS}")
    if not 0 < float(definition.timeout_s) <= 600:
        raise ToolDefinitionError(f"tool {name!r}: timeout_s must be 0-600 s")
    schema = schema_from_rows(rows_from_schema(name, definition.parameters))
    definition = ToolDefinition(**{**definition.__dict__, "parameters": schema})
    maker = {"sql": _sql_function, "javascript": _javascript_function, "mcp": _mcp_function}
    function = maker[definition.implementation_type](definition)
    function.__name__ = name
    return Tool(
        name=name,
        description=" ".join(definition.description.split()),
        function=function,
        arguments_model=None,
        parameters=schema,
        category=_check_category(name, definition.category),
        timeout_s=float(definition.timeout_s),
        source=f"data:{definition.implementation_type}:{name}",
        access_level=definition.access_level,
        validator=validator(name, schema),
    )
