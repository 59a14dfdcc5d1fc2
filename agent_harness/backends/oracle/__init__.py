"""The Oracle backend (Oracle AI Database: VECTOR + HNSW, Oracle Text, MLE): every Oracle
statement of the project.

One module per concern:

===================  ==========================================================================
``backend.py``       :class:`OracleBackend`, put together from the mixins below
``connection.py``    the three users, waiting while the database opens; plain SQL
``errors.py``        reading python-oracledb errors (no SQL)
``migrations.py``    the named migrations (DDL) run by :mod:`agent_harness.backends.migrations`
``text_query.py``    user text as a safe Oracle Text query (no SQL)
``memory.py``        memory rows and the HNSW / Oracle Text search fragments
``boxes.py``         toolbox, skillbox (vector-indexed catalogs) and the scratchpad
``supplychain.py``   the demo schema: tables, comments, SDO_GEOMETRY points, grants
``readonly.py``      ``run_sql``: the statement check and the read-only user
``embeddings.py``    the in-database ONNX model or client-side embeddings
``javascript.py``    ``exec_js`` in a PURE MLE context
``doctor.py``        ``workshop doctor`` checks
===================  ==========================================================================

Importing this package needs python-oracledb (``requirements.txt``); the embedded backend does
not.
"""

from __future__ import annotations

from agent_harness.backends.oracle.backend import OracleBackend
from agent_harness.backends.oracle.connection import connect_user
from agent_harness.backends.oracle.embeddings import MODEL_NAME
from agent_harness.backends.oracle.migrations import MIGRATIONS

__all__ = ["OracleBackend", "MIGRATIONS", "MODEL_NAME", "connect_user"]
