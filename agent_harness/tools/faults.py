"""Whose fault a failed tool call is: the caller's, the tool's, or a service it depends on.

A tool call can go wrong in two very different ways, and the registry keeps them apart:

* **the caller's mistake**: an unknown tool, arguments that do not validate, an id or a name
  that matches nothing (the tool raises :class:`~agent_harness.tools.tool.ToolError`). The
  tool did its job; a caller who keeps asking for ship "no such ship" says nothing about its
  health. Telemetry records ``success`` NULL and the circuit breaker does not count it.
* **a tool fault**: the tool raised an unexpected exception (``tool_error``), did not answer
  within its time limit (``timeout``), or a service it depends on failed (``upstream_error``:
  a feed answering 503, another MCP server that cannot be reached; a ``ConnectionError``,
  ``TimeoutError`` or :class:`UpstreamError`, also when a ToolError was raised *from* one).
  Telemetry records ``success`` 0 and the breaker counts it.

The names are the values of the ``error_type`` column and of the OpenTelemetry attribute
``error.type`` (low-cardinality, as the convention asks; the exception class is in the message).
"""

from __future__ import annotations

from agent_harness.backends.errors import BindError
from agent_harness.foundation.errors import UpstreamError
from agent_harness.tools.tool import ToolError

__all__ = [
    "UpstreamError",
    "CALLER_ERROR",
    "TOOL_ERROR",
    "TIMEOUT",
    "UPSTREAM_ERROR",
    "TOOL_FAULTS",
    "REFUSALS",
    "fault_of",
    "bounded",
    "MAX_ERROR_CHARS",
    "QUOTE_CHARS",
]

#: The tool ran and said the caller's request cannot be answered (a ToolError).
CALLER_ERROR = "caller_error"
#: The tool raised an unexpected exception: its own bug.
TOOL_ERROR = "tool_error"
#: The tool did not answer within its ``timeout_s``.
TIMEOUT = "timeout"
#: A service the tool depends on failed (network, feed, another MCP server).
UPSTREAM_ERROR = "upstream_error"
#: The error types that count against a tool (``success`` 0): the breaker sees only these.
TOOL_FAULTS = (TOOL_ERROR, TIMEOUT, UPSTREAM_ERROR)
#: Calls refused before the tool ran (``success`` NULL): the caller's or the policy's doing.
REFUSALS = ("unknown_tool", "not_offered", "access_denied", "invalid_arguments", "circuit_open")

#: The longest error text a caller gets back (a 1 MB argument never becomes a 1 MB error).
MAX_ERROR_CHARS = 1000
#: How much of a value an error message quotes.
QUOTE_CHARS = 60


_UPSTREAM = (UpstreamError, ConnectionError, TimeoutError)


def fault_of(error: BaseException) -> str:
    """The ``error_type`` of an exception a tool raised: :data:`UPSTREAM_ERROR` for a failed
    dependency (the exception or the one it was raised from), else :data:`TOOL_ERROR`. A
    ToolError is the caller's (:data:`CALLER_ERROR`) unless raised from a failed dependency;
    so is a value the database could not bind (a
    :class:`~agent_harness.backends.errors.BindError`, or an error raised from one)."""
    cause = error.__cause__
    if isinstance(error, _UPSTREAM) or isinstance(cause, _UPSTREAM):
        return UPSTREAM_ERROR
    if isinstance(error, (ToolError, BindError)) or isinstance(cause, BindError):
        return CALLER_ERROR
    return TOOL_ERROR


def bounded(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...[{len(text) - limit} more characters cut]"
