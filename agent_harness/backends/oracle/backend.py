"""The Oracle backend: Oracle AI Database (Free, in a container) through python-oracledb (thin).

:class:`OracleBackend` is put together from one mixin per concern; each module of this package
holds the SQL of its concern (see the package docstring). Written against Oracle's
documentation; it runs where an Oracle database is reachable (the GitHub Actions Oracle job,
Codespaces). ``tests/test_oracle_backend.py`` covers each statement there, and everything that
can be checked without a database everywhere.
"""

from __future__ import annotations

import threading

import oracledb

from agent_harness.backends.base import Backend, BackendError
from agent_harness.backends.oracle.boxes import Boxes
from agent_harness.backends.oracle.connection import PlainSQL, connect_user
from agent_harness.backends.oracle.definitions import OracleToolDefinitions
from agent_harness.backends.oracle.disclosure import OracleAgents, OracleSkillGraph
from agent_harness.backends.oracle.doctor import DoctorChecks
from agent_harness.backends.oracle.embeddings import (
    MODEL_NAME,
    EmbeddingChoice,
    InDatabaseEmbeddings,
)
from agent_harness.backends.oracle.javascript import JavaScript
from agent_harness.backends.oracle.memory import MemoryTables
from agent_harness.backends.oracle.migrations import MigrationSteps
from agent_harness.backends.oracle.provenance import OracleProvenance
from agent_harness.backends.oracle.readonly import ReadOnlySQL
from agent_harness.backends.oracle.registry import OracleBreakers, OracleTelemetry
from agent_harness.backends.oracle.supplychain import SupplyChainTables
from agent_harness.backends.oracle.tool_ranking import OracleToolRanking
from agent_harness.config import Settings
from agent_harness.supplychain.schema import OWNER

__all__ = ["OracleBackend"]


class OracleBackend(
    MigrationSteps,
    PlainSQL,
    SupplyChainTables,
    ReadOnlySQL,
    MemoryTables,
    Boxes,
    InDatabaseEmbeddings,
    JavaScript,
    DoctorChecks,
    Backend,
):
    """Oracle AI Database with three users (see :mod:`agent_harness.backends.oracle.connection`).

    Args:
        settings: WORKSHOP_ORACLE_DSN, the three users and WORKSHOP_ONNX_MODEL.

    Raises:
        BackendError: The demo schema is not SUPPLYCHAIN, or the harness owner cannot connect.
    """

    name = "oracle"
    can_embed_in_database = True

    def __init__(self, settings: Settings):
        if settings.oracle_sc_user.upper() != OWNER:
            raise BackendError(
                f"WORKSHOP_ORACLE_SC_USER={settings.oracle_sc_user!r}: the demo schema must be"
                f" {OWNER}, the name the tools' SQL uses (supplychain.<table>)"
            )
        self.settings = settings
        self._lock = threading.RLock()
        self._depth = 0
        self.conn = connect_user(
            settings, settings.oracle_user, settings.oracle_password, "harness owner"
        )
        self._readonly: oracledb.Connection | None = None
        self._readonly_lock = threading.Lock()
        self._owner_conn: oracledb.Connection | None = None
        self._choice: EmbeddingChoice | None = None
        self._init_javascript()
        self.tool_definitions = OracleToolDefinitions(self)
        self.telemetry = OracleTelemetry(self)
        self.breakers = OracleBreakers(self)
        self.tool_ranking = OracleToolRanking(self)
        self.provenance = OracleProvenance(self)
        self.skill_graph = OracleSkillGraph(self)
        self.agents = OracleAgents(self)

    def describe(self) -> str:
        mode = self._embedding_mode()
        embeddings = (
            f"in-database {MODEL_NAME} (VECTOR_EMBEDDING)"
            if mode.in_database
            else "client-side all-MiniLM-L6-v2"
        )
        if mode.reason:
            embeddings += f" [{mode.reason}]"
        js = f"client-side V8 ({self._js_unavailable})" if self._js_unavailable else "MLE"
        return (
            f"Oracle AI Database {self.conn.version} at {self.settings.oracle_dsn} as"
            f" {self.settings.oracle_user.upper()}; embeddings: {embeddings}; exec_js: {js}"
        )

    def close(self) -> None:
        for conn in (self._readonly, self._owner_conn, self._js, self.conn):
            if conn is not None:
                try:
                    conn.close()
                except oracledb.Error:
                    pass  # already broken: nothing left to close
        self._readonly = self._owner_conn = self._js = None
