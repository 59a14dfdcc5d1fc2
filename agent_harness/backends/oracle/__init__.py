"""The Oracle backend (Oracle AI Database: VECTOR + HNSW, Oracle Text, MLE): every Oracle-only
statement of the project.

The roles' portable statements live in :mod:`agent_harness.backends.roles`; this package holds
what Oracle spells its own way, one module per concern:

=========================  ====================================================================
``backend.py``             :class:`OracleBackend`: the connection, its roles, the Oracle parts
``connection.py``          the three users, waiting while the database opens; the owner's
                           connection
``dialect.py``             Oracle's spelling: FETCH FIRST, MERGE, JSON, times, VECTOR binds
``errors.py``              reading python-oracledb errors (no SQL)
``compiled.py``            stored PL/SQL and views: compile errors raised, unchanged source
                           not created again
``migrations.py``          the named migrations (DDL) run by
                           :mod:`agent_harness.backends.migrations` (+ ``registry_`` and
                           ``disclosure_migrations.py``, ``steps.py``)
``text_query.py``          user text as a safe Oracle Text query (no SQL)
``memory.py``              memory vectors (VECTOR column) and the HNSW / Oracle Text fragments
``boxes.py``               toolbox and skillbox vectors
``registry.py``            the telemetry window (CROSS APPLY, PERCENTILE_DISC); ranking pieces
``provenance.py``          the graph questions (GRAPH_TABLE over ``provenance_graph``)
``provenance_graph.py``    the property graph's DDL (``CREATE PROPERTY GRAPH``)
``disclosure.py``          the skill walk with Oracle's CYCLE clause
``supplychain.py``         the demo schema: tables, comments, SDO_GEOMETRY points, grants;
                           the workshop's changes to it, as its owner
``readonly.py``            ``run_sql``: the statement check and the read-only user
``embeddings.py``          the in-database ONNX model or client-side embeddings
``javascript.py``          ``exec_js`` in a PURE MLE context
``doctor.py``              ``workshop doctor`` checks
``kit_image.py``           the Oracle Free image in a room kit (``docker save`` / ``load``)
=========================  ====================================================================

Importing this package needs python-oracledb (``requirements.txt``); the embedded backend does
not.
"""

from __future__ import annotations

from agent_harness.backends.oracle.backend import OracleBackend
from agent_harness.backends.oracle.connection import connect_user
from agent_harness.backends.oracle.embeddings import MODEL_NAME
from agent_harness.backends.oracle.migrations import MIGRATIONS

__all__ = ["OracleBackend", "MIGRATIONS", "MODEL_NAME", "connect_user"]
