"""Tools: what a tool is, how it is registered, called and watched, and the core tools.

Importing this package registers nothing. The pieces, one module each:

* :mod:`.tool` (:class:`Tool` from a typed, documented function), :mod:`.decorator`
  (``@register`` and :data:`REGISTERED`, which every harness follows), :mod:`.registry`
  (:class:`ToolRegistry`: ``h.tools``), :mod:`.dispatch` (one call, start to end),
  :mod:`.context` (the harness of the running call);
* tools as data: :mod:`.tools_as_data` (``h.tools.define``), :mod:`.tool_definitions` (a
  definition and its rows), :mod:`.parameter_rows` (arguments as rows), :mod:`.implementations`
  (the implementation types: python, sql, javascript, mcp);
* watching: :mod:`.telemetry`, :mod:`.policy`, :mod:`.breaker`, :mod:`.ooda`, :mod:`.watching`;
* retrieval: :mod:`.request_parts`; the tools: :mod:`.core` and :mod:`.readonly_sql` (the SQL a
  tool reads with). The SUPPLYCHAIN tools live beside their data, in
  :mod:`agent_harness.tools.supplychain`.
"""

from agent_harness.tools.decorator import REGISTERED, register
from agent_harness.tools.dispatch import ToolCall, ToolResult
from agent_harness.tools.readonly_sql import query
from agent_harness.tools.registry import ALWAYS_ON, ToolRegistry
from agent_harness.tools.tool import (
    Tool,
    ToolDefinitionError,
    ToolDefinitionWarning,
    ToolError,
    parse_docstring,
)

__all__ = [
    "ALWAYS_ON",
    "REGISTERED",
    "Tool",
    "ToolCall",
    "ToolDefinitionError",
    "ToolDefinitionWarning",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "parse_docstring",
    "query",
    "register",
]
