"""``workshop mcp``: the harness's tools served over the Model Context Protocol.

An MCP client (Claude Desktop, VS Code, the MCP inspector, the SDK's ``mcp.Client``) lists and
calls the same tools the agent uses, through the same registry: arguments validated strictly,
every call a telemetry row and a span, the circuit breaker in force, open tools not listed,
every error a result with ``isError`` set.

Several clients at once (:mod:`agent_harness.mcp.callers`): what a client unlocked (``--agent``
mode) belongs to its session, or to its credential on the 2026-07-28 protocol; calls of
different clients run concurrently on worker threads, in two lanes
(:mod:`agent_harness.mcp.lanes`): every call starts in the fast lane and one that runs longer
than 0.1 s moves to the slow lane (``max_concurrent_calls`` places in each, at most
``calls_per_client`` of one client in each), so slow calls never hold up a fast one.

The tool list changes while the server runs: a breaker opens, a cool-down ends, a tool is
defined or removed (by this process or another one sharing the database: the server polls
:meth:`~agent_harness.tools.ToolRegistry.offer_version` every ``poll_seconds``), a client
unlocks tools. After each change the server computes every client's list and tells exactly
the clients whose list changed, once: a ``notifications/tools/list_changed`` on a
handshake-era session, a ``ToolsListChanged`` event on the ``subscriptions/listen`` streams
of a 2026-07-28 credential.
"""

from __future__ import annotations

import logging
import threading

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server

from agent_harness.mcp.callers import Client, Clients
from agent_harness.mcp.lanes import Lanes
from agent_harness.mcp.toolset import McpToolSet

__all__ = ["HarnessMcpServer", "INSTRUCTIONS"]

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Tools over the SUPPLYCHAIN demo schema (carriers, ports, vessels, voyages, positions, "
    "containers, cargo) and the workshop's memory and skills. Tool errors come back as results "
    "with isError set and a message saying what to do."
)


class HarnessMcpServer(Server):
    """An MCP server over a :class:`McpToolSet`.

    Args:
        toolset: The tools to list and call.
        name: The server name clients show.
        max_concurrent_calls: Places in each lane: fast calls at once, and slow calls at once,
            all clients together.
        calls_per_client: Tool calls of one client in each lane at once.
        max_clients: Sessions and credentials kept (see :class:`Clients`).
        poll_seconds: How often the database is checked for changes made elsewhere.
    """

    def __init__(
        self,
        toolset: McpToolSet,
        name: str = "agent-harness",
        *,
        max_concurrent_calls: int = 8,
        calls_per_client: int = 4,
        max_clients: int = 100,
        poll_seconds: float = 1.0,
    ) -> None:
        self.toolset = toolset
        instructions = INSTRUCTIONS
        if toolset.agent is not None:  # the agent's prompt and skill manifest, as in the loop
            from agent_harness.agent.agent_loop import agent_system_prompt

            instructions = agent_system_prompt(toolset.harness, toolset.agent)
        self.clients = Clients(max_clients, calls_per_client)
        self.poll_seconds = poll_seconds
        # fast calls keep a lane of their own beside max_concurrent_calls slow ones
        self.lanes = Lanes(fast=max_concurrent_calls, slow=max_concurrent_calls)
        self._reads = anyio.CapacityLimiter(4)  # listing and watching, apart from the calls
        self._dirty = threading.Event()
        self._seen: tuple | None = None
        super().__init__(
            name,
            version="1",
            instructions=instructions,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=self._listen,
            # A tool's schema is the same for every caller: the SDK checks Mcp-Param headers
            # against it without running tools/list before every 2026-07-28 call.
            get_tool_input_schema=self._input_schema,
        )
        toolset.on_change(lambda what: self._dirty.set())

    def create_initialization_options(self, notification_options=None, *args, **kwargs):
        """Declare ``tools.listChanged`` to handshake-era clients too."""
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)

    def _input_schema(self, name: str) -> dict | None:
        tools = self.toolset.harness.tools
        return tools.get(name).parameters if name in tools.names() else None

    # --- handlers --------------------------------------------------------------------------------
    async def _client(self, ctx) -> Client:
        client = self.clients.of(ctx)
        if client.announced is None:  # a new client: what it would be listed now
            client.announced = await anyio.to_thread.run_sync(
                self.toolset.signature, client.disclosure, limiter=self._reads
            )
        return client

    async def _list_tools(self, ctx, params) -> types.ListToolsResult:
        client = await self._client(ctx)
        tools = await anyio.to_thread.run_sync(
            self.toolset.tools, client.disclosure, limiter=self._reads
        )
        return types.ListToolsResult(tools=tools)

    async def _call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        client = await self._client(ctx)
        return await self.lanes.run(
            self.clients.places_of(ctx, client),  # one client cannot take every place
            self.toolset.call,
            params.name,
            params.arguments,
            client.disclosure,
            client.label,
        )

    async def _listen(self, ctx, params: types.SubscriptionsListenRequestParams):
        client = await self._client(ctx)
        return await client.listen(ctx, params)  # this credential's streams only

    # --- change notifications --------------------------------------------------------------------
    async def notify_changes(self, every_s: float = 0.05) -> None:
        """Run until cancelled: watch for changes and tell each client whose list changed."""
        next_poll = 0.0
        while True:
            await anyio.sleep(every_s)
            try:
                if anyio.current_time() >= next_poll:
                    next_poll = anyio.current_time() + self.poll_seconds
                    await self._poll_database()
                if self._dirty.is_set():
                    self._dirty.clear()
                    await self._announce()
            except Exception:  # a database hiccup must not end the notifications for good
                logger.exception("MCP server: checking for tool list changes failed")

    async def _poll_database(self) -> None:
        version = await anyio.to_thread.run_sync(
            self.toolset.harness.tools.follow_database, self._seen, limiter=self._reads
        )
        if self._seen is not None and version != self._seen:
            self._dirty.set()
        self._seen = version

    def _signatures(self, clients: list[Client]) -> list[str]:
        shut = self.toolset.harness.tools.open_tools()
        return [self.toolset.signature(c.disclosure, shut) for c in clients]

    async def _announce(self) -> None:
        clients = [c for c in self.clients.all() if c.announced is not None]
        signatures = await anyio.to_thread.run_sync(self._signatures, clients, limiter=self._reads)
        for client, signature in zip(clients, signatures, strict=True):
            if signature != client.announced:
                client.announced = signature
                await client.notify()
