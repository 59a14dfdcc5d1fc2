"""``workshop mcp``: the harness's tools served over the Model Context Protocol.

An MCP client (Claude Desktop, VS Code, the MCP inspector, the SDK's ``mcp.Client``) lists and
calls the same tools the agent loop uses, through the same registry: arguments validated,
every call a telemetry row and a span, the circuit breaker in force, open tools not listed.

The tool list changes while the server runs (a breaker opens or closes, a tool is defined or
removed, :meth:`McpToolSet.unlock` adds tools), so the server declares ``tools.listChanged`` and
tells its clients in the way their protocol version expects: a
``notifications/tools/list_changed`` notification on handshake-era sessions (protocol versions
before 2026-07-28), a ``ToolsListChanged`` event on ``subscriptions/listen`` streams on newer
ones. Tool calls run one at a time on a worker thread, so the event loop keeps answering.
"""

from __future__ import annotations

import logging
import threading

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_harness.mcp.toolset import McpToolSet

__all__ = ["HarnessMcpServer", "serve_stdio", "serve_http", "LOOPBACK"]

logger = logging.getLogger(__name__)

#: The hosts ``workshop mcp --http`` may bind: the tools reach the database, never the network.
LOOPBACK = ("127.0.0.1", "localhost", "::1")

_INSTRUCTIONS = (
    "Tools over the SUPPLYCHAIN demo schema (carriers, ports, vessels, voyages, positions, "
    "containers, cargo) and the workshop's memory and skills. Tool errors come back as results "
    "with isError set and a message saying what to do."
)


class HarnessMcpServer(Server):
    """An MCP server over a :class:`McpToolSet`.

    Args:
        toolset: The tools to list and call.
        name: The server name clients show.
    """

    def __init__(self, toolset: McpToolSet, name: str = "agent-harness") -> None:
        self.toolset = toolset
        instructions = _INSTRUCTIONS
        if toolset.agent is not None:  # the agent's prompt and skill manifest, as in the loop
            from agent_harness.agent_loop import agent_system_prompt

            instructions = agent_system_prompt(toolset.harness, toolset.agent)
        self.bus = InMemorySubscriptionBus()
        self._handshake_sessions: set = set()
        self._dirty = threading.Event()
        self._calls = anyio.CapacityLimiter(1)
        super().__init__(
            name,
            version="1",
            instructions=instructions,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self.bus),
        )
        toolset.on_change(lambda what: self._dirty.set())

    def create_initialization_options(self, notification_options=None, *args, **kwargs):
        """Declare ``tools.listChanged`` to handshake-era clients too."""
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)

    # --- handlers --------------------------------------------------------------------------------
    def _remember(self, ctx) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._handshake_sessions.add(ctx.session)

    async def _list_tools(self, ctx, params) -> types.ListToolsResult:
        self._remember(ctx)
        tools = await anyio.to_thread.run_sync(self.toolset.tools, limiter=self._calls)
        return types.ListToolsResult(tools=tools)

    async def _call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        self._remember(ctx)
        return await anyio.to_thread.run_sync(
            self.toolset.call, params.name, params.arguments, limiter=self._calls
        )

    # --- change notifications --------------------------------------------------------------------
    async def notify_changes(self, every_s: float = 0.05) -> None:
        """Run until cancelled: announce each change of the tool set to every client."""
        while True:
            await anyio.sleep(every_s)
            if not self._dirty.is_set():
                continue
            self._dirty.clear()
            await self.bus.publish(ToolsListChanged())
            for session in list(self._handshake_sessions):
                try:
                    await session.send_tool_list_changed()
                except Exception:  # a session that went away: stop telling it
                    self._handshake_sessions.discard(session)


def _toolset(harness, only, agent=None) -> McpToolSet:
    return McpToolSet(harness, only=only, agent=agent)


async def _serve_stdio(server: HarnessMcpServer) -> None:
    from mcp.server.stdio import stdio_server

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.notify_changes)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        tasks.cancel_scope.cancel()


def serve_stdio(harness, only=None, agent=None) -> None:
    """Serve over stdin/stdout until the client closes the connection."""
    server = HarnessMcpServer(_toolset(harness, only, agent))
    anyio.run(_serve_stdio, server)  # the SDK points fd 1 at stderr meanwhile: stray prints
    # never reach the wire


async def _serve_http(server: HarnessMcpServer, host: str, port: int, ready=None) -> None:
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    web = uvicorn.Server(config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.notify_changes)
        if ready is not None:
            tasks.start_soon(_when_started, web, ready)
        await web.serve()
        tasks.cancel_scope.cancel()


async def _when_started(web, ready) -> None:
    while not web.started:
        await anyio.sleep(0.02)
    ready(stop=lambda: setattr(web, "should_exit", True))


def serve_http(
    harness, host: str = "127.0.0.1", port: int = 8765, only=None, ready=None, agent=None
):
    """Serve streamable HTTP at ``http://{host}:{port}/mcp`` (loopback only) until stopped.

    Args:
        harness: A connected harness.
        host: A loopback address (see :data:`LOOPBACK`); anything else raises ValueError.
        port: The TCP port.
        only: Tool names to list (None: all).
        agent: Serve as this agent: progressive disclosure (see :class:`McpToolSet`).
        ready: Called as ``ready(stop=...)`` once the server accepts connections; calling
            ``stop()`` (from any thread) shuts it down. Tests use it.
    """
    if host not in LOOPBACK:
        raise ValueError(
            f"--host {host!r}: the MCP server binds loopback only ({', '.join(LOOPBACK)}); "
            "reach it from elsewhere through an SSH tunnel or your editor's port forwarding"
        )
    server = HarnessMcpServer(_toolset(harness, only, agent))
    anyio.run(_serve_http, server, host, port, ready)
    return server
