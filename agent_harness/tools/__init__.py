"""Tools: the registry, the core tools and the SUPPLYCHAIN domain tools."""

from agent_harness.tools import core, domain, live_feeds  # noqa: F401 - importing registers
from agent_harness.tools.registry import (
    ALWAYS_ON,
    REGISTERED,
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolDefinitionWarning,
    ToolError,
    ToolRegistry,
    ToolResult,
    register,
)

__all__ = [
    "ALWAYS_ON",
    "REGISTERED",
    "Tool",
    "ToolDefinitionError",
    "ToolDefinitionWarning",
    "ToolCall",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "register",
]
