"""Running the MCP server: over stdio, or over streamable HTTP on a loopback port.

HTTP is served on loopback only (the SDK adds DNS-rebinding protection there: a foreign
``Origin`` gets 403) and, with a bearer token (:mod:`agent_harness.mcp.auth`), only to callers
who present it. Problems are refused before anything is printed or started: a host that is not
loopback, a port in use (one line naming the port, no traceback), a token that is too short.
"""

from __future__ import annotations

import errno
import json
import socket

import anyio

from agent_harness.mcp.server import HarnessMcpServer
from agent_harness.mcp.toolset import McpToolSet

__all__ = [
    "serve_stdio",
    "serve_http",
    "check_host",
    "bind",
    "PortInUse",
    "LOOPBACK",
    "HeaderLimit",
    "MAX_HEADER_BYTES",
]

#: The hosts ``workshop mcp --http`` may bind: the tools reach the database, never the network.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: Sessions the HTTP server keeps at once (more get HTTP 503 until one ends).
MAX_SESSIONS = 100
#: The longest request header served (longer ones get HTTP 431 with a JSON-RPC error).
MAX_HEADER_BYTES = 64 * 1024
#: How much of a request's headers uvicorn reads before it gives up on the connection.
READ_HEADER_BYTES = 8 * 1024 * 1024


class PortInUse(OSError):
    """The port is taken (another ``workshop mcp --http``, or any other server)."""


def check_host(host: str) -> None:
    """Refuse a host that is not loopback (raises ValueError saying what to do instead)."""
    if host not in LOOPBACK:
        raise ValueError(
            f"--host {host!r}: the MCP server binds loopback only ({', '.join(LOOPBACK)}); "
            "reach it from elsewhere through an SSH tunnel or your editor's port forwarding"
        )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (uvicorn serves on it).

    Raises:
        ValueError: ``host`` is not loopback.
        PortInUse: The port is taken.
    """
    check_host(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets that say so (without
    # it every JSON response waited ~40 ms for the client's delayed ACK)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise PortInUse(
                f"port {port} on {host} is in use (another `workshop mcp --http`?): stop it, or"
                " choose another port with --port"
            ) from None
        raise
    sock.listen(128)
    return sock


def _server(harness, only, agent) -> HarnessMcpServer:
    return HarnessMcpServer(McpToolSet(harness, only=only, agent=agent))


async def _serve_stdio(server: HarnessMcpServer) -> None:
    from mcp.server.stdio import stdio_server

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.notify_changes)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        tasks.cancel_scope.cancel()


def serve_stdio(harness, only=None, agent=None) -> None:
    """Serve over stdin/stdout until the client closes the connection."""
    server = _server(harness, only, agent)
    try:
        anyio.run(_serve_stdio, server)  # the SDK points fd 1 at stderr meanwhile: stray
        # prints never reach the wire
    finally:
        server.toolset.close()


def _app(server: HarnessMcpServer, host: str, port: int, tokens: list[str]):
    if not tokens:
        return server.streamable_http_app(host=host, max_sessions=MAX_SESSIONS)
    from mcp.server.auth.settings import AuthSettings

    from agent_harness.mcp.auth import StaticTokens

    return server.streamable_http_app(
        host=host,
        max_sessions=MAX_SESSIONS,
        # a shared secret, not OAuth: the issuer is only where the tokens are "issued" (here)
        auth=AuthSettings(issuer_url=f"http://127.0.0.1:{port}", resource_server_url=None),
        token_verifier=StaticTokens(tokens),
    )


class HeaderLimit:
    """ASGI middleware: a request with a header longer than :data:`MAX_HEADER_BYTES` (a tool
    name of a megabyte in ``Mcp-Name``) gets HTTP 431 and a JSON-RPC error saying so.

    uvicorn answers a header it will not read whole with 400 and closes the socket while the
    client is still sending: the client sees its connection reset, no status at all. So uvicorn
    reads headers up to :data:`READ_HEADER_BYTES` and this middleware answers them properly.
    """

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            longest = max((len(k) + len(v) for k, v in scope.get("headers", [])), default=0)
            if longest > MAX_HEADER_BYTES:
                body = json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {
                            "code": -32600,
                            "message": f"a request header is {longest} bytes long; at most"
                            f" {MAX_HEADER_BYTES} are accepted (is a tool name that long?)",
                        },
                    }
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 431,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


async def _serve_http(server, sock, host, port, tokens, ready) -> None:
    import uvicorn

    app = HeaderLimit(_app(server, host, port, tokens))
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", h11_max_incomplete_event_size=READ_HEADER_BYTES
    )
    web = uvicorn.Server(config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.notify_changes)
        if ready is not None:
            tasks.start_soon(_when_started, web, ready)
        await web.serve(sockets=[sock])
        tasks.cancel_scope.cancel()


async def _when_started(web, ready) -> None:
    while not web.started:
        await anyio.sleep(0.02)
    ready(stop=lambda: setattr(web, "should_exit", True))


def serve_http(
    harness,
    host: str = "127.0.0.1",
    port: int = 8765,
    only=None,
    ready=None,
    agent=None,
    tokens: list[str] | None = None,
    server: HarnessMcpServer | None = None,
):
    """Serve streamable HTTP at ``http://{host}:{port}/mcp`` (loopback only) until stopped.

    Args:
        harness: A connected harness.
        host: A loopback address (see :data:`LOOPBACK`); anything else raises ValueError.
        port: The TCP port (0: any free one; ``ready`` learns which).
        only: Tool names to list (None: all).
        agent: Serve as this agent: progressive disclosure (see :class:`McpToolSet`).
        ready: Called as ``ready(stop=..., url=...)`` once the server accepts connections;
            calling ``stop()`` (from any thread) shuts it down.
        tokens: Bearer tokens to require (see :mod:`agent_harness.mcp.auth`); none: open.
        server: A server to run (default: one over ``harness``, ``only`` and ``agent``).

    Raises:
        ValueError: ``host`` is not loopback.
        PortInUse: The port is taken.
    """
    sock = bind(host, port)
    port = sock.getsockname()[1]
    server = server or _server(harness, only, agent)
    url = f"http://{'[::1]' if host == '::1' else host}:{port}/mcp"

    def started(stop) -> None:
        ready(stop=stop, url=url)

    try:
        anyio.run(_serve_http, server, sock, host, port, list(tokens or []), ready and started)
    finally:
        sock.close()
        server.toolset.close()
    return server
