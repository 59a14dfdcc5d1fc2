"""A free TCP port on the loopback interface, for a server a test starts (JupyterLab, Voilà, the
MCP server over HTTP). The port is free when asked; the server binds it a moment later."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on now (the system picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
