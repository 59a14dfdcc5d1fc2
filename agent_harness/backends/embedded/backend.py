"""The embedded backend: SQLite (through apsw) + FTS5 (BM25) + sqlite-vec (cosine). No server.

Files, under the data folder:

* ``harness.db``: memories, their full-text index (``memory_fts``) and vectors
  (``memory_vectors``: bits and floats), the toolbox, the skillbox, the scratchpad, the
  registry's and provenance tables. WAL mode, so a notebook and the CLI can share it.
* ``supplychain.db``: the demo data, attached as ``supplychain``, with Oracle's dictionary views
  emulated over it.

The backend is one :class:`~agent_harness.backends.embedded.connection.SQLiteConnection` and
the shared roles; where SQLite spells a statement its own way, the role is this package's
subclass (see the package docstring).
"""

from __future__ import annotations

from pathlib import Path

import apsw

from agent_harness.backends.base import Backend
from agent_harness.backends.embedded.boxes import EmbeddedBoxes
from agent_harness.backends.embedded.connection import SQLiteConnection
from agent_harness.backends.embedded.documents import EmbeddedDocuments
from agent_harness.backends.embedded.memory import EmbeddedMemories
from agent_harness.backends.embedded.migrations import LEDGER_DDL, MIGRATIONS
from agent_harness.backends.embedded.registry import EmbeddedTelemetry, EmbeddedToolRanking
from agent_harness.backends.embedded.supplychain import EmbeddedSupplyChain
from agent_harness.backends.roles import (
    Agents,
    Breakers,
    CatalogWatch,
    ProvenanceLog,
    ScratchFiles,
    SkillGraph,
    ToolDefinitions,
)
from agent_harness.foundation.identity import Identity

__all__ = ["EmbeddedBackend"]


class EmbeddedBackend(Backend):
    """SQLite files under ``data_dir``; see the module docstring.

    Args:
        data_dir: Folder for ``harness.db`` and ``supplychain.db`` (created if missing).
        identity: Whose access policy the data connections enforce (None: the owner).
    """

    name = "embedded"
    embeds_in_database = False
    migrations = MIGRATIONS
    migration_ledger_ddl = LEDGER_DDL
    missing_ledger_errors = (apsw.SQLError,)

    def __init__(self, data_dir: Path, identity: Identity | None = None):
        self.identity = identity
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.harness_path = self.data_dir / "harness.db"
        self.supplychain_path = self.data_dir / "supplychain.db"
        self.db = db = SQLiteConnection(self.harness_path, self.supplychain_path)
        self.memories = EmbeddedMemories(db)
        self.boxes = EmbeddedBoxes(db)
        self.scratch = ScratchFiles(db)
        self.telemetry = EmbeddedTelemetry(db)
        self.breakers = Breakers(db)
        self.tool_ranking = EmbeddedToolRanking(db, self.telemetry)
        self.provenance = ProvenanceLog(db)
        self.tool_definitions = ToolDefinitions(db)
        self.skill_graph = SkillGraph(db)
        self.agents = Agents(db)
        self.supplychain = EmbeddedSupplyChain(db, self.supplychain_path, identity)
        self.documents = EmbeddedDocuments(db, self.supplychain_path, identity)
        self.catalog_watch = CatalogWatch(db)

    def describe(self) -> str:
        return f"embedded SQLite {apsw.sqlite_lib_version()} + sqlite-vec in {self.data_dir}"

    def run_migration_step(self, step: str) -> None:
        """Run one DDL statement (a trigger body is one statement too)."""
        self.db.run_script_step(step)
