"""Tools: the registry, the core tools and the SUPPLYCHAIN domain tools."""

from agent_harness.tools import core, domain  # noqa: F401 - importing registers the tools
from agent_harness.tools.registry import (
    ALWAYS_ON,
    REGISTERED,
    Tool,
    ToolDefinitionError,
    ToolError,
    ToolRegistry,
    register,
)

__all__ = [
    "ALWAYS_ON",
    "REGISTERED",
    "Tool",
    "ToolDefinitionError",
    "ToolError",
    "ToolRegistry",
    "register",
]
