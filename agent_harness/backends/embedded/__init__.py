"""The embedded backend (SQLite + FTS5 + sqlite-vec): every SQLite statement of the harness.

One module per concern:

===================  ==========================================================================
``backend.py``       :class:`EmbeddedBackend`, put together from the mixins below
``connection.py``    open ``harness.db`` (sqlite-vec, WAL, demo data attached); plain SQL
``migrations.py``    the named migrations (DDL) run by :mod:`agent_harness.backends.migrations`
``memory.py``        memory rows and the vector / full-text search fragments
``boxes.py``         toolbox, skillbox (vector-indexed catalogs) and the scratchpad
``supplychain.py``   load the demo data, change comments, answer ``run_sql``
``readonly.py``      the read-only connection behind ``run_sql``
``dictionary.py``    Oracle's ALL_* dictionary views, emulated as TEMP views
``registry.py``      tool telemetry, breaker states and settings, tool ranking (notebook 06)
``provenance.py``    agent turns and the tree of their events (recursive CTEs)
===================  ==========================================================================
"""

from __future__ import annotations

from agent_harness.backends.embedded.backend import EmbeddedBackend
from agent_harness.backends.embedded.migrations import MIGRATIONS
from agent_harness.backends.tokens import MAX_QUERY_TOKENS, STOP_WORDS, query_tokens

__all__ = [
    "EmbeddedBackend",
    "MIGRATIONS",
    # re-exported: they lived in the embedded module before the Oracle backend shared them
    "MAX_QUERY_TOKENS",
    "STOP_WORDS",
    "query_tokens",
]
