"""Bearer tokens for ``workshop mcp --http``: who may call the tools over HTTP.

Without ``--agent`` the HTTP server offers every tool, ``exec_js``, ``remember``,
``scratch_write`` and ``scan_database`` included, to anything that can reach the port: any
local user of a shared machine, a container on the same host network. A token closes that:
``workshop mcp --http --token SECRET`` (or ``WORKSHOP_MCP_TOKEN=SECRET``) and every request
must carry ``Authorization: Bearer SECRET``; others get HTTP 401. Several tokens (the flag
repeated, or separated by commas in the variable) are several credentials: on the 2026-07-28
protocol each credential has its own unlocked tools (:mod:`agent_harness.mcp.callers`).

This is a shared secret checked by the SDK's bearer middleware (``TokenVerifier``), not OAuth:
no authorization server, no protected-resource metadata. Tokens are compared in constant time
and never logged or shown; only a hash prefix names the credential.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable

from mcp.server.auth.provider import AccessToken

from agent_harness.mcp.callers import token_id

__all__ = ["StaticTokens", "tokens_from", "TOKEN_VARIABLE", "MIN_TOKEN_CHARS"]

#: The environment variable ``workshop mcp --http`` reads its token(s) from.
TOKEN_VARIABLE = "WORKSHOP_MCP_TOKEN"
#: A shorter token is refused (guessable).
MIN_TOKEN_CHARS = 16


def tokens_from(given: Iterable[str] = (), environ=None) -> list[str]:
    """The tokens to accept: the ``--token`` values, else the comma-separated
    :data:`TOKEN_VARIABLE`; empty when neither is set.

    Raises:
        ValueError: A token shorter than :data:`MIN_TOKEN_CHARS` characters.
    """
    environ = os.environ if environ is None else environ
    tokens = [t.strip() for t in given if t and t.strip()]
    if not tokens:
        tokens = [t.strip() for t in environ.get(TOKEN_VARIABLE, "").split(",") if t.strip()]
    short = [t for t in tokens if len(t) < MIN_TOKEN_CHARS]
    if short:
        raise ValueError(
            f"an MCP token must have at least {MIN_TOKEN_CHARS} characters (got one of"
            f" {len(short[0])}); make one with: python -c 'import secrets;"
            " print(secrets.token_urlsafe(24))'"
        )
    return list(dict.fromkeys(tokens))


class StaticTokens:
    """A ``TokenVerifier`` for the SDK's bearer middleware that accepts a fixed set of tokens.

    Args:
        tokens: The accepted tokens (each one a credential, named by a hash prefix).
    """

    def __init__(self, tokens: Iterable[str]) -> None:
        self._tokens = [t.encode() for t in tokens]
        if not self._tokens:
            raise ValueError("StaticTokens needs at least one token")

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access of a presented token, or None (the middleware answers 401)."""
        presented = token.encode()
        match = None
        for known in self._tokens:  # look at every one: the time says nothing about which
            if hmac.compare_digest(presented, known):
                match = known
        if match is None:
            return None
        return AccessToken(token=token, client_id=token_id(match.decode()), scopes=[])
