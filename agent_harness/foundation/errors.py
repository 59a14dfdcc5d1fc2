"""The one error the foundation raises that a tool call reports: a service it depends on failed.

It lives here, below storage, because the JavaScript sandbox (``foundation/js_workers.py``)
raises it and the Oracle backend runs that sandbox; ``agent_harness.tools.faults`` re-exports
it with the other names of whose fault a failed tool call is.
"""

from __future__ import annotations

__all__ = ["UpstreamError"]


class UpstreamError(Exception):
    """Raised by a tool when a service it depends on failed (not the caller's mistake): the
    call counts as an ``upstream_error`` against the tool."""
