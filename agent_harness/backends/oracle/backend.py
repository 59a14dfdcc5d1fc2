"""The Oracle backend: Oracle AI Database (Free, in a container) through python-oracledb (thin).

:class:`OracleBackend` is one :class:`~agent_harness.backends.oracle.connection.OracleConnection`
(the harness owner) and the shared roles; where Oracle spells a statement its own way, the role
is this package's subclass. Oracle-only parts (the in-database embedding model, ``exec_js`` on
MLE, the doctor's checks) are objects of their own. Written against Oracle's documentation; it
runs where an Oracle database is reachable (the GitHub Actions Oracle job, Codespaces).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import oracledb

from agent_harness.backends.base import Backend
from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.boxes import OracleBoxes
from agent_harness.backends.oracle.catalog_watch import OracleCatalogWatch
from agent_harness.backends.oracle.compiled import CompilationFailed
from agent_harness.backends.oracle.connection import OracleConnection, connect_user
from agent_harness.backends.oracle.disclosure import OracleSkillGraph
from agent_harness.backends.oracle.doctor import OracleDoctor
from agent_harness.backends.oracle.documents import OracleDocuments
from agent_harness.backends.oracle.embeddings import MODEL_NAME, OracleEmbeddings
from agent_harness.backends.oracle.errors import first_line, hint
from agent_harness.backends.oracle.javascript import OracleJavaScript
from agent_harness.backends.oracle.memory import OracleMemories
from agent_harness.backends.oracle.migrations import (
    DONE_WHEN_ABSENT,
    EXISTS_SQL,
    LEDGER_DDL,
    MIGRATIONS,
)
from agent_harness.backends.oracle.provenance import OracleProvenance
from agent_harness.backends.oracle.registry import OracleTelemetry, OracleToolRanking
from agent_harness.backends.oracle.steps import Step
from agent_harness.backends.oracle.supplychain import OracleSupplyChain
from agent_harness.backends.roles import Agents, Breakers, ScratchFiles, ToolDefinitions
from agent_harness.foundation.config import Settings
from agent_harness.foundation.identity import Identity
from agent_harness.supplychain.schema import OWNER

__all__ = ["OracleBackend"]


class OracleBackend(Backend):
    """Oracle AI Database with three users (see :mod:`agent_harness.backends.oracle.connection`).

    Args:
        settings: WORKSHOP_ORACLE_DSN, the three users and WORKSHOP_ONNX_MODEL.
        identity: Whose access policy the read-only session is bound to (None: the owner).

    Raises:
        BackendError: The demo schema is not SUPPLYCHAIN, or the harness owner cannot connect.
    """

    name = "oracle"
    can_embed_in_database = True
    migrations = MIGRATIONS
    migration_ledger_ddl = LEDGER_DDL
    missing_ledger_errors = (oracledb.DatabaseError,)

    def __init__(self, settings: Settings, identity: Identity | None = None):
        if settings.oracle_sc_user.upper() != OWNER:
            raise BackendError(
                f"WORKSHOP_ORACLE_SC_USER={settings.oracle_sc_user!r}: the demo schema must be"
                f" {OWNER}, the name the tools' SQL uses (supplychain.<table>)"
            )
        self.settings = settings
        self.identity = identity
        owner = connect_user(
            settings, settings.oracle_user, settings.oracle_password, "harness owner"
        )
        self.db = db = OracleConnection(owner)
        self.embeddings = OracleEmbeddings(db, settings)
        self.javascript = OracleJavaScript(settings)
        self.memories = OracleMemories(db, lambda: self.embeddings.embeds_in_database)
        self.boxes = OracleBoxes(db)
        self.scratch = ScratchFiles(db)
        self.telemetry = OracleTelemetry(db)
        self.breakers = Breakers(db)
        self.tool_ranking = OracleToolRanking(db, self.telemetry)
        self.provenance = OracleProvenance(db)
        self.tool_definitions = ToolDefinitions(db)
        self.skill_graph = OracleSkillGraph(db)
        self.agents = Agents(db)
        self.supplychain = OracleSupplyChain(db, settings, identity)
        self.documents = OracleDocuments(db, self.supplychain.readonly, identity)
        self.catalog_watch = OracleCatalogWatch(db)

    @property
    def embeds_in_database(self) -> bool:
        """True in the in-database mode: memories get VECTOR_EMBEDDING vectors in SQL."""
        return self.embeddings.embeds_in_database

    def describe(self) -> str:
        mode = self.embeddings.mode()
        embeddings = (
            f"in-database {MODEL_NAME} (VECTOR_EMBEDDING)"
            if mode.in_database
            else "client-side all-MiniLM-L6-v2"
        )
        if mode.reason:
            embeddings += f" [{mode.reason}]"
        why = self.javascript.unavailable
        js = f"client-side V8 ({why})" if why else "MLE"
        return (
            f"Oracle AI Database {self.db.conn.version} at {self.settings.oracle_dsn} as"
            f" {self.settings.oracle_user.upper()}; embeddings: {embeddings}; exec_js: {js}"
        )

    def close(self) -> None:
        self.javascript.drop_connection()
        super().close()

    # --- migrations: DDL steps skipped when their object exists -------------------------------
    def object_exists(self, kind: str, name: str) -> bool:
        """True when the object a step creates is in the data dictionary (for a step that
        drops something: when it is no longer there, i.e. the step is done)."""
        rows = self.db.query(EXISTS_SQL[kind], {"name": name})
        found = int(next(iter(rows[0].values()))) > 0
        return not found if kind in DONE_WHEN_ABSENT else found

    def run_migration_step(self, step: Step) -> None:
        """Run one step unless its object exists; a failed Oracle Text index is dropped again
        (it would stay behind as FAILED and block the next attempt).

        Raises:
            BackendError: The DDL failed; the message says what to fix.
            CompilationFailed: A procedure compiled with errors (it stays INVALID, and an
                INVALID procedure does not count as existing: the next run creates it again).
        """
        if self.object_exists(step.kind, step.name):
            return
        try:
            self.db.run_ddl(step.sql)
        except CompilationFailed as e:
            raise CompilationFailed(f"migration step {step.name}: {e}") from e
        except oracledb.DatabaseError as e:
            if step.kind == "text index" and self.object_exists(step.kind, step.name):
                self.db.run_ddl(f"DROP INDEX {step.name} FORCE")
            raise BackendError(
                f"migration step {step.name} failed: {first_line(e)}{hint(e)}. Fix it and run"
                " `workshop setup --backend oracle` again."
            ) from e

    # --- Oracle-only parts ----------------------------------------------------------------------
    def embed_texts(self, texts: list[str]) -> np.ndarray | None:
        return self.embeddings.embed_texts(texts)

    def setup_embeddings(self, client_embed: Callable[[list[str]], np.ndarray]) -> str:
        return self.embeddings.setup_embeddings(client_embed)

    def load_onnx_model(self, source: str | None = None) -> str:
        """Load Oracle's augmented all_MiniLM_L12_v2 (see :class:`OracleEmbeddings`)."""
        return self.embeddings.load_onnx_model(source)

    def run_js(self, code: str, timeout_ms: int) -> dict | None:
        return self.javascript.run_js(code, timeout_ms)

    def doctor_checks(self) -> list[tuple[str, str, Callable[[], str]]]:
        return OracleDoctor(self).checks()
