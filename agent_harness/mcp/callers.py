"""Who is calling the MCP server, and what each caller was given: one :class:`Client` per
session or per credential, as the protocol era asks.

* **Handshake era** (protocol versions up to 2025-11-25): one client per connection, i.e. per
  MCP session: the stdio connection, or one ``Mcp-Session-Id`` over streamable HTTP. It is made
  at the session's first request and dropped when the session closes (DELETE, the SDK's idle
  timeout, a broken stream): the SDK unwinds the connection's exit stack, where the drop is
  registered. Tools unlocked by one session are never seen by another.
* **2026-07-28**: there are no sessions; ``tools/list`` MUST NOT vary per connection but MAY
  vary by the authorization on the request. So one client per *credential*: the bearer token
  (``workshop mcp --http --token``; each token is its own credential), ``anonymous`` over HTTP
  without a token, ``local`` over stdio or in process. Give each MCP client its own token when
  they must not share what they unlocked. Change events go to that credential's
  ``subscriptions/listen`` streams only. Anonymous callers share what they unlocked but not
  their call places (:meth:`Clients.places_of`: one set per TCP connection).

The set is bounded (``max_clients``; the least recently used goes first) and never holds a
closed session.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_harness.mcp.lanes import Places
from agent_harness.mcp.toolset import Disclosure

__all__ = ["Client", "Clients", "credential_of", "connection_of"]


def connection_of(ctx) -> Any:
    """The SDK's per-connection object behind a request (one per MCP session).

    The request context carries a per-request ``ServerSession`` that wraps the connection;
    mcp 2.3 exposes no public accessor for it, so this reads ``_connection`` and says so when
    an SDK release moves it."""
    connection = getattr(ctx.session, "_connection", None)
    if connection is None:
        raise RuntimeError(
            "this mcp SDK hides the connection of a session (ServerSession._connection):"
            " the MCP server needs mcp 2.3.x (see constraints/)"
        )
    return connection


def credential_of(ctx) -> str:
    """Whose authorization a request carries: ``token:<hash>`` for a bearer token the server
    accepted, ``anonymous`` over HTTP without one, ``local`` on stdio or in process."""
    request = getattr(ctx, "request", None)
    if request is None:
        return "local"
    user = request.scope.get("user") if hasattr(request, "scope") else None
    token = getattr(user, "access_token", None)
    return token.client_id if token is not None else "anonymous"


def token_id(token: str) -> str:
    """A credential's name for a token: never the token itself."""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:12]


@dataclass(eq=False)
class Client:
    """One session (handshake era) or one credential (2026-07-28) and what it was given.

    Attributes:
        key: ``("session", id)`` or ``("credential", name)``.
        label: A short name for logs and telemetry (``mcp:session:...``, ``mcp:anonymous``).
        disclosure: The tools it unlocked.
        announced: The fingerprint of its tool list when it came, or when it was last told
            that the list changed (the server tells it when the fingerprint moves on).
        connection: Handshake era: the SDK connection (list_changed goes there).
        bus: 2026-07-28: the bus of this credential's ``subscriptions/listen`` streams.
        places: How many of its calls may be in each lane at once (:mod:`.lanes`).
        last_seen: Monotonic time of its latest request.
    """

    key: tuple
    label: str
    disclosure: Disclosure = field(default_factory=Disclosure)
    announced: str | None = None
    connection: Any = None
    bus: InMemorySubscriptionBus | None = None
    listen: ListenHandler | None = None
    places: Places | None = None
    last_seen: float = field(default_factory=time.monotonic)

    async def notify(self) -> None:
        """Tell this client its tool list changed, as its era expects."""
        if self.connection is not None:  # best effort: never raises
            await self.connection.send_tool_list_changed()
        elif self.bus is not None:
            await self.bus.publish(ToolsListChanged())


class Clients:
    """The server's clients, bounded and pruned.

    Args:
        max_clients: The most clients kept (the least recently used is dropped first).
        calls_per_client: How many calls of one client may be in each lane at once.
    """

    def __init__(self, max_clients: int = 100, calls_per_client: int = 4) -> None:
        self.max_clients = max_clients
        self.calls_per_client = calls_per_client
        self._clients: OrderedDict[tuple, Client] = OrderedDict()
        self._connections: OrderedDict[tuple, Places] = OrderedDict()

    def __len__(self) -> int:
        return len(self._clients)

    def all(self) -> list[Client]:
        """Every client now (a copy)."""
        return list(self._clients.values())

    def of(self, ctx, announced=None) -> Client:
        """The client a request comes from (made on its first request).

        Args:
            ctx: The SDK's request context.
            announced: A callable giving the fingerprint of a new client's tool list.
        """
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            name = credential_of(ctx)
            key, label, connection = ("credential", name), f"mcp:{name}", None
        else:
            connection = connection_of(ctx)
            key = ("session", id(connection))
            label = f"mcp:session:{connection.session_id or hex(id(connection))[-8:]}"[:40]
        client = self._clients.get(key)
        if client is None:
            client = self._add(key, label, connection)
            if announced is not None:
                client.announced = announced(client.disclosure)
        self._clients.move_to_end(key)
        client.last_seen = time.monotonic()
        return client

    def _add(self, key: tuple, label: str, connection) -> Client:
        client = Client(key, label, connection=connection)
        client.places = Places(self.calls_per_client)
        if connection is None:
            client.bus = InMemorySubscriptionBus()
            client.listen = ListenHandler(client.bus, max_subscriptions=16)
        else:  # dropped when the session closes: the SDK unwinds the connection's exit stack
            connection.exit_stack.callback(self.drop, key)
        self._clients[key] = client
        while len(self._clients) > self.max_clients:
            _, oldest = self._clients.popitem(last=False)
            if oldest.listen is not None:
                oldest.listen.close()
        return client

    def places_of(self, ctx, client: Client) -> Places:
        """The places a request's call takes: its client's, except for a 2026-07-28 request
        over HTTP without a token. Such callers share the ``anonymous`` credential (and what it
        unlocked) but not its places: each TCP connection gets its own, so one anonymous
        client's slow calls never hold up another's. (A token is the way to bound one client
        across all its connections.)"""
        request = getattr(ctx, "request", None)
        peer = getattr(request, "client", None) if request is not None else None
        if client.key != ("credential", "anonymous") or peer is None:
            return client.places
        key = ("connection", peer.host, peer.port)
        places = self._connections.pop(key, None) or Places(self.calls_per_client)
        self._connections[key] = places  # most recently used last
        while len(self._connections) > self.max_clients:
            self._connections.popitem(last=False)
        return places

    def drop(self, key: tuple) -> None:
        """Forget a client (its session closed)."""
        client = self._clients.pop(key, None)
        if client is not None and client.listen is not None:
            client.listen.close()
