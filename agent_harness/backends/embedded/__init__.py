"""The embedded backend (SQLite + FTS5 + sqlite-vec): every SQLite-only statement of the harness.

The roles' portable statements live in :mod:`agent_harness.backends.roles`; this package holds
what SQLite spells its own way:

===================  ==========================================================================
``backend.py``       :class:`EmbeddedBackend`: the connection and its roles
``connection.py``    open ``harness.db`` (sqlite-vec, WAL, demo data attached); SQLite's dialect
``migrations.py``    the named migrations (DDL) run by :mod:`agent_harness.backends.migrations`
``memory.py``        memory vectors (vec0) and the vector / full-text search fragments
``boxes.py``         toolbox and skillbox vectors (vec0)
``registry.py``      the telemetry window (nearest-rank percentiles); tool ranking's pieces
``supplychain.py``   load the demo data, change comments, answer ``run_sql``
``readonly.py``      the read-only connection behind ``run_sql``
``guard.py``         an identity's access policy: copies or views, and the authorizer
``copies.py``        an identity's rows as filtered TEMP copies, refilled on data change
``dictionary.py``    Oracle's ALL_* dictionary views, emulated as TEMP views
===================  ==========================================================================
"""

from __future__ import annotations

from agent_harness.backends.embedded.backend import EmbeddedBackend
from agent_harness.backends.embedded.migrations import MIGRATIONS
from agent_harness.backends.search_words import MAX_QUERY_TOKENS, STOP_WORDS, query_tokens

__all__ = [
    "EmbeddedBackend",
    "MIGRATIONS",
    # re-exported: they lived in the embedded module before the Oracle backend shared them
    "MAX_QUERY_TOKENS",
    "STOP_WORDS",
    "query_tokens",
]
