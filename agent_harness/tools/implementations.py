"""Implementation types: how a tool runs. ONE table, :data:`IMPLEMENTATION_TYPES`.

Every place that needs the types reads this table: :func:`build_tool` (``h.tools.define``,
``define_many``, ``sync_definitions`` and the rows a harness loads), its error messages, and the
documentation. The types:

* ``python``: a function decorated with ``@register`` (or added with ``h.tools.add``); never
  built from rows.
* ``sql``: ``{"statement": "SELECT ... WHERE port_code = :port", "max_rows": 50}``: ONE read-only
  statement run through ``run_sql``'s read-only path, every argument a **bind variable**. Text is
  never pasted into SQL: the seed design's binder that doubles quotes inside a built string is
  one mistake away from injection (a backslash, a unicode quote, a number that is not a number);
  a bind variable is data whatever it holds. The binds are renamed by position before the
  statement runs (:func:`numbered_binds`), so a parameter called ``date`` or ``size`` works on
  Oracle too.
* ``javascript``: ``{"source": "return args.a + args.b;"}``: the body of a function of ``args``,
  run in the ``exec_js`` sandbox (no files, no network, a time limit); the arguments reach it as
  a JSON value.
* ``mcp``: ``{"server": "http://127.0.0.1:8765/mcp" or "a stdio command line", "tool": "name"}``:
  a tool of another MCP server, called through a short client session
  (:mod:`agent_harness.tools.mcp_client`); ``h.tools.import_mcp(server)`` defines one per tool the
  server lists.

**Adding a type** (say ``http``): write a builder ``build(definition) -> function`` that checks
``definition.implementation`` (raise :class:`~agent_harness.tools.tool.ToolDefinitionError`
saying what is missing) and returns the function a call runs: it gets the validated arguments
as keywords and raises :class:`~agent_harness.tools.tool.ToolError` for a failure the model
can act on. Then add ``"http": ImplementationType("http", "what it runs", build)`` to
:data:`IMPLEMENTATION_TYPES` (here, or at run time for an experiment). Nothing else in Python
changes: ``h.tools.define(..., implementation={"type": "http", ...})`` and rows in
``tool_definitions`` with ``implementation_type = 'http'`` are built from then on. The database
does not list the types (migration ``m011_open_implementation_types`` dropped the CHECK that
did), so no migration is needed either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent_harness.backends.base import BackendError
from agent_harness.backends.roles import TextTooLong, check_text_fits
from agent_harness.foundation.js_sandbox import run_js
from agent_harness.tools.context import current
from agent_harness.tools.parameter_rows import (
    rows_from_schema,
    schema_from_rows,
    validator,
)
from agent_harness.tools.readonly_sql import sql_result
from agent_harness.tools.tool import (
    ACCESS_LEVELS,
    PYTHON,
    Tool,
    ToolDefinitionError,
    ToolError,
    check_category,
)
from agent_harness.tools.tool_definitions import ToolDefinition

__all__ = [
    "ImplementationType",
    "IMPLEMENTATION_TYPES",
    "build_tool",
    "sql_binds",
    "numbered_binds",
    "defined_types",
]

#: Tool names: OpenAI's rule for function names (they are only ever bound, never put in SQL).
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# A bind variable (:name) outside quoted text and comments.
_SQL_TOKEN = re.compile(
    r"'(?:''|[^'])*'|\"[^\"]*\"|--[^\n]*|/\*.*?\*/|(?<![:\w]):([A-Za-z_]\w*)", re.S
)


@dataclass(frozen=True)
class ImplementationType:
    """One way a tool can run.

    Attributes:
        name: The type's name, as in ``implementation_type`` and ``{"type": ...}``.
        runs: What it runs, in a few words (error messages and documentation).
        build: Makes the function a call runs from a :class:`ToolDefinition`, or raises
            ToolDefinitionError saying what is missing; None for ``python`` (functions are
            registered with ``@register``, never built from rows).
    """

    name: str
    runs: str
    build: Callable[[ToolDefinition], Callable[..., Any]] | None


def sql_binds(statement: str) -> list[str]:
    """The bind variable names of a statement, in order of first use (quotes skipped)."""
    names = [m.group(1) for m in _SQL_TOKEN.finditer(statement) if m.group(1)]
    return list(dict.fromkeys(names))


def numbered_binds(statement: str) -> tuple[str, dict[str, str]]:
    """The statement with its bind variables renamed by position (``:date`` -> ``:arg1``), and
    each parameter's new name.

    A parameter may have any name on both backends this way: Oracle refuses a reserved word
    (``:date``, ``:size``, ``:level``, ``:mode``, ``:start``, ``:user``, ``:rows``, ...) or a
    name that starts with ``_`` as a bind name with ORA-01745 (SQL Language Reference 23,
    "Oracle SQL Reserved Words" and "Database Object Naming Rules"); ``argN`` is neither.
    Quoted text and comments are left as they are.
    """
    renamed: dict[str, str] = {}

    def rename(match: re.Match) -> str:
        if not match.group(1):
            return match.group(0)
        return ":" + renamed.setdefault(match.group(1), f"arg{len(renamed) + 1}")

    return _SQL_TOKEN.sub(rename, statement), renamed


def _sql_function(definition: ToolDefinition):
    statement = definition.implementation.get("statement")
    if not isinstance(statement, str) or not statement.strip():
        raise ToolDefinitionError(f"tool {definition.name!r}: an sql tool needs a 'statement'")
    binds = sql_binds(statement)
    declared = list(definition.parameters["properties"])
    missing = [b for b in binds if b not in declared]
    unused = [p for p in declared if p not in binds]
    if missing or unused:
        raise ToolDefinitionError(
            f"tool {definition.name!r}: the statement's bind variables and the parameters must"
            " be the same names; bind variables without a parameter:"
            f" {', '.join(':' + b for b in missing) or 'none'}; parameters without a bind"
            f" variable: {', '.join(unused) or 'none'}"
        )
    max_rows = int(definition.implementation.get("max_rows", 50))
    if not 1 <= max_rows <= 1000:
        raise ToolDefinitionError(f"tool {definition.name!r}: max_rows must be 1-1000")

    sent, renamed = numbered_binds(statement)

    def run(**arguments) -> dict:
        # Bind variables: data, never SQL text; named by position, never a reserved word.
        values = {renamed[b]: arguments.get(b) for b in binds}
        try:
            result = current().backend.readonly_query(sent, values, max_rows=max_rows)
        except BackendError as e:
            raise ToolError(str(e)) from e
        return sql_result(result)

    return run


def _javascript_function(definition: ToolDefinition):
    source = definition.implementation.get("source")
    if not isinstance(source, str) or not source.strip():
        raise ToolDefinitionError(f"tool {definition.name!r}: a javascript tool needs a 'source'")

    def run(**arguments) -> Any:
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
    # Imported here: anyio and the MCP client cost import time that only mcp tools need.
    from agent_harness.tools.mcp_client import McpClientError, call_remote_tool, server_target

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


#: Every implementation type, by name: the one place a type is registered.
IMPLEMENTATION_TYPES: dict[str, ImplementationType] = {
    PYTHON: ImplementationType(PYTHON, "a Python function decorated with @register", None),
    "sql": ImplementationType(
        "sql", "one read-only SQL statement with bind variables", _sql_function
    ),
    "javascript": ImplementationType(
        "javascript", "a JavaScript function body in the exec_js sandbox", _javascript_function
    ),
    "mcp": ImplementationType("mcp", "a tool of another MCP server", _mcp_function),
}


def defined_types() -> list[str]:
    """The types a tool defined as rows can have (those with a builder), in table order."""
    return [name for name, kind in IMPLEMENTATION_TYPES.items() if kind.build is not None]


def _builder(definition: ToolDefinition) -> Callable[[ToolDefinition], Callable[..., Any]]:
    """The builder of the definition's type, or ToolDefinitionError naming the types there are."""
    kinds = " | ".join(f'"{t}"' for t in defined_types())
    if not definition.implementation_type:
        raise ToolDefinitionError(
            f"tool {definition.name!r}: no implementation: give it an 'implementation'"
            f' ({{"type": {kinds}, ...}}) or pass define_many(..., implementation=...) for the'
            " entries without one"
        )
    kind = IMPLEMENTATION_TYPES.get(definition.implementation_type)
    if kind is None or kind.build is None:
        raise ToolDefinitionError(
            f"tool {definition.name!r}: implementation type {definition.implementation_type!r}"
            f" is not one of {', '.join(defined_types())} (Python tools are functions decorated"
            " with @register; a new type is an entry of"
            " agent_harness.tools.implementations.IMPLEMENTATION_TYPES)"
        )
    return kind.build


def build_tool(definition: ToolDefinition) -> Tool:
    """The :class:`Tool` a definition describes, built by its implementation type, or
    :class:`ToolDefinitionError` saying why it cannot be one."""
    name = definition.name
    if not isinstance(name, str) or not _NAME.match(name):
        raise ToolDefinitionError(
            f"tool name {name!r} must match {_NAME.pattern} (letters, digits, _ and -)"
        )
    if not isinstance(definition.description, str) or not definition.description.strip():
        raise ToolDefinitionError(f"tool {name!r}: describe what it answers (a text)")
    try:  # bytes, not characters: the column is a VARCHAR2(4000 CHAR)
        check_text_fits(definition.description, f"tool {name!r}: the description")
    except TextTooLong as e:
        raise ToolDefinitionError(str(e)) from None
    build = _builder(definition)
    if definition.access_level not in ACCESS_LEVELS:
        raise ToolDefinitionError(f"tool {name!r}: access_level must be one of {ACCESS_LEVELS}")
    if not 0 < float(definition.timeout_s) <= 600:
        raise ToolDefinitionError(f"tool {name!r}: timeout_s must be 0-600 s")
    schema = schema_from_rows(rows_from_schema(name, definition.parameters))
    definition = ToolDefinition(**{**definition.__dict__, "parameters": schema})
    function = build(definition)
    function.__name__ = name
    return Tool(
        name=name,
        description=" ".join(definition.description.split()),
        function=function,
        arguments_model=None,
        parameters=schema,
        category=check_category(name, definition.category),
        timeout_s=float(definition.timeout_s),
        source=f"data:{definition.implementation_type}:{name}",
        access_level=definition.access_level,
        validator=validator(name, schema),
        implementation_type=definition.implementation_type,
    )
