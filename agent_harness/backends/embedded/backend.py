"""The embedded backend: SQLite (through apsw) + FTS5 (BM25) + sqlite-vec (cosine). No server.

Files, under the data folder:

* ``harness.db``: memories, their full-text index (``memory_fts``) and vectors (``memory_vec``),
  the toolbox, the skillbox, the scratchpad. WAL mode, so a notebook and the CLI can share it.
* ``supplychain.db``: the demo data, attached as ``supplychain``, with Oracle's dictionary views
  emulated over it.

The class is put together from one mixin per concern; each module of this package holds the SQL
of its concern (see the package docstring).
"""

from __future__ import annotations

import threading
from pathlib import Path

import apsw

from agent_harness.backends.base import Backend
from agent_harness.backends.embedded.boxes import Boxes
from agent_harness.backends.embedded.connection import PlainSQL, open_harness_connection
from agent_harness.backends.embedded.definitions import EmbeddedToolDefinitions
from agent_harness.backends.embedded.disclosure import EmbeddedAgents, EmbeddedSkillGraph
from agent_harness.backends.embedded.memory import MemoryTables
from agent_harness.backends.embedded.migrations import MigrationSteps
from agent_harness.backends.embedded.provenance import EmbeddedProvenance
from agent_harness.backends.embedded.readonly import ReadOnlyConnection
from agent_harness.backends.embedded.registry import EmbeddedBreakers, EmbeddedTelemetry
from agent_harness.backends.embedded.supplychain import SupplyChainTables
from agent_harness.backends.embedded.tool_ranking import EmbeddedToolRanking

__all__ = ["EmbeddedBackend"]


class EmbeddedBackend(MigrationSteps, PlainSQL, SupplyChainTables, MemoryTables, Boxes, Backend):
    """SQLite files under ``data_dir``; see the module docstring.

    Args:
        data_dir: Folder for ``harness.db`` and ``supplychain.db`` (created if missing).
    """

    name = "embedded"
    embeds_in_database = False

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.harness_path = self.data_dir / "harness.db"
        self.supplychain_path = self.data_dir / "supplychain.db"
        self._lock = threading.RLock()
        self.conn = open_harness_connection(self.harness_path, self.supplychain_path)
        self._readonly: ReadOnlyConnection | None = None
        self.telemetry = EmbeddedTelemetry(self)
        self.breakers = EmbeddedBreakers(self)
        self.tool_ranking = EmbeddedToolRanking(self)
        self.provenance = EmbeddedProvenance(self)
        self.tool_definitions = EmbeddedToolDefinitions(self)
        self.skill_graph = EmbeddedSkillGraph(self)
        self.agents = EmbeddedAgents(self)

    def describe(self) -> str:
        return f"embedded SQLite {apsw.sqlite_lib_version()} + sqlite-vec in {self.data_dir}"

    def close(self) -> None:
        if self._readonly is not None:
            self._readonly.close()
            self._readonly = None
        self.conn.close()
