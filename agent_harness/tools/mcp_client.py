"""Use another MCP server's tools: list them, call one (the ``mcp`` implementation type).

A server is named by a loopback URL of a streamable HTTP endpoint
(``http://127.0.0.1:8765/mcp``) or by the command line that starts a stdio server
(``"workshop mcp"``, ``"npx -y @modelcontextprotocol/server-everything"``). Each call opens a
short session (connect, call, close): simple and robust for a workshop, at the price of the
connection time per call (measured for stdio and HTTP in the README).

When a server fails, the error says which one and how: a stdio server that exits is reported
with its exit code and the last lines it wrote to stderr (not as the SDK's nested exception
groups). A result part that is not text (an image, audio, a resource) is never dropped
silently: the text says what was left out.
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
from urllib.parse import urlparse

import anyio

from agent_harness.tools.faults import UpstreamError

__all__ = [
    "McpClientError",
    "remote_tools",
    "call_remote_tool",
    "server_target",
    "content_text",
    "STDERR_LINES",
]

#: How many of a failed stdio server's last stderr lines an error quotes.
STDERR_LINES = 8

# Runs a stdio server as its child with the same stdin/stdout and, when it ends, writes its
# exit code to stderr: the SDK's stdio transport does not expose the process.
_EXIT_REPORTER = (
    "import subprocess, sys\n"
    "try:\n"
    "    code = subprocess.call(sys.argv[1:])\n"
    "except OSError as e:\n"
    "    sys.stderr.write(f'cannot start {sys.argv[1]!r}: {e}\\n'); code = 127\n"
    "sys.stderr.write(f'\\n[exit code {code}]\\n'); sys.exit(code)\n"
)
_EXIT_CODE = re.compile(r"\[exit code (-?\d+)\]")


class McpClientError(UpstreamError):
    """The MCP server could not be reached, did not answer in time, or broke the session
    (a failed dependency of the tool, not the caller's mistake)."""


def server_target(server: str | list[str]):
    """What :class:`mcp.Client` connects to: the URL, or stdio parameters for a command."""
    from mcp import StdioServerParameters

    if isinstance(server, str) and server.startswith(("http://", "https://")):
        host = urlparse(server).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(
                f"MCP server {server!r}: only loopback URLs are used here (127.0.0.1, localhost)"
            )
        return server
    argv = shlex.split(server) if isinstance(server, str) else list(server)
    if not argv:
        raise ValueError("name an MCP server: a loopback http:// URL or a command line")
    return StdioServerParameters(command=argv[0], args=argv[1:])


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, innermost first."""
    inner = getattr(error, "exceptions", None)  # an (anyio or 3.11) exception group
    if isinstance(inner, (list, tuple)) and inner:
        return [leaf for exception in inner for leaf in _leaves(exception)]
    return [error]


def _stderr_report(errlog) -> str:
    """``exit code N; stderr: <last lines>`` from a stdio server's captured stderr."""
    if errlog is None:
        return ""
    errlog.flush()
    errlog.seek(0)
    text = errlog.read()[-20_000:]
    code = _EXIT_CODE.findall(text)
    lines = [ln for ln in _EXIT_CODE.sub("", text).splitlines() if ln.strip()][-STDERR_LINES:]
    parts = []
    if code:
        parts.append(f"it exited with code {code[-1]}")
    if lines:
        parts.append("its stderr ends with:\n" + "\n".join(ln[:300] for ln in lines))
    return "; ".join(parts)


async def _with_client(server, timeout_s: float, work):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    target = server_target(server)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        if isinstance(target, StdioServerParameters):  # report how it ended, if it does
            wrapped = target.model_copy(
                update={
                    "command": sys.executable,
                    "args": ["-c", _EXIT_REPORTER, target.command, *target.args],
                }
            )
            connect = stdio_client(wrapped, errlog=errlog)
        else:
            connect, errlog = target, None
        try:
            with anyio.fail_after(timeout_s):
                async with Client(connect, read_timeout_seconds=timeout_s) as client:
                    return await work(client)
        except TimeoutError as e:
            report = _stderr_report(errlog)
            raise McpClientError(
                f"MCP server {server!r} did not answer within {timeout_s:g} s"
                + (f"; {report}" if report else "")
            ) from e
        except Exception as e:  # refused, the process ended, the session broke (a group)
            leaf = _leaves(e)[0]
            report = _stderr_report(errlog)
            if report:
                raise McpClientError(f"MCP server {server!r} stopped: {report}") from e
            raise McpClientError(
                f"MCP server {server!r} could not be reached or broke off:"
                f" {type(leaf).__name__}: {str(leaf)[:300]}"
            ) from e


def content_text(content) -> str:
    """The text of a result's content parts; a part that is not text is named, never
    dropped silently (``[image content (image/png, 1,234 bytes of base64) not shown]``)."""
    parts = []
    for part in content:
        kind = getattr(part, "type", "unknown")
        if kind == "text":
            parts.append(part.text)
            continue
        detail = getattr(part, "mime_type", None) or getattr(part, "uri", None)
        data = getattr(part, "data", None)
        size = f", {len(data):,} bytes of base64" if isinstance(data, str) else ""
        resource = getattr(part, "resource", None)
        if resource is not None:
            detail = str(getattr(resource, "uri", "")) or detail
            text = getattr(resource, "text", None)
            if isinstance(text, str):
                parts.append(f"[resource {detail}]\n{text}")
                continue
        parts.append(f"[{kind} content ({detail or 'no type'}{size}) not shown]")
    return "\n".join(parts)


def remote_tools(server, timeout_s: float = 30.0) -> list[dict]:
    """The server's tools: ``[{"name", "description", "input_schema", "annotations"}]``."""

    async def work(client):
        listed = await client.list_tools()
        return [
            {
                "name": t.name,
                "description": t.description or "",
                "input_schema": t.input_schema,
                "annotations": t.annotations.model_dump() if t.annotations else {},
            }
            for t in listed.tools
        ]

    return anyio.run(_with_client, server, timeout_s, work)


def call_remote_tool(server, name: str, arguments: dict, timeout_s: float = 30.0) -> dict:
    """Call one tool: ``{"is_error": bool, "text": str, "structured": dict | None}``; the text
    names any content part that is not text (:func:`content_text`)."""

    async def work(client):
        result = await client.call_tool(name, arguments)
        return {
            "is_error": bool(result.is_error),
            "text": content_text(result.content),
            "structured": result.structured_content,
        }

    return anyio.run(_with_client, server, timeout_s, work)
