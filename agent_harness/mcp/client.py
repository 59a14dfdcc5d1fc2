"""Use another MCP server's tools: list them, call one (the ``mcp`` implementation type).

A server is named by a loopback URL of a streamable HTTP endpoint
(``http://127.0.0.1:8765/mcp``) or by the command line that starts a stdio server
(``"workshop mcp"``, ``"npx -y @modelcontextprotocol/server-everything"``). Each call opens a
short session (connect, call, close): simple and robust for a workshop, at the price of the
connection time per call (measured for stdio and HTTP in the README).
"""

from __future__ import annotations

import shlex
from urllib.parse import urlparse

import anyio

__all__ = ["McpClientError", "remote_tools", "call_remote_tool", "server_target"]


class McpClientError(RuntimeError):
    """The MCP server could not be reached or did not answer in time."""


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


async def _with_client(server, timeout_s: float, work):
    from mcp import Client

    target = server_target(server)
    try:
        with anyio.fail_after(timeout_s):
            async with Client(target, read_timeout_seconds=timeout_s) as client:
                return await work(client)
    except TimeoutError as e:
        raise McpClientError(f"MCP server {server!r} did not answer within {timeout_s:g} s") from e
    except Exception as e:  # refused, the process did not start, the session broke (a group)
        raise McpClientError(f"MCP server {server!r} could not be reached: {e!r}") from e


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
    """Call one tool: ``{"is_error": bool, "text": str, "structured": dict | None}``."""

    async def work(client):
        result = await client.call_tool(name, arguments)
        text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
        return {
            "is_error": bool(result.is_error),
            "text": text,
            "structured": result.structured_content,
        }

    return anyio.run(_with_client, server, timeout_s, work)
