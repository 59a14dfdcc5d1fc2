"""The backend boundary: one connection and the role objects the harness stores through.

A :class:`Backend` owns ONE :class:`~agent_harness.backends.connection.Connection` (its lock,
transactions, plain SQL, the dialect's spelling) and one object per storage concern, each
declared here with its type (:mod:`agent_harness.backends.roles`): memories, the toolbox and
skillbox, the scratchpad, telemetry, breakers, tool ranking, provenance, tool definitions, the
skill graph, agents, the demo data, documents over it, the catalog's change detector. Roles
are composed, not inherited: every role reaches the database only through the connection's
public methods.

Two backends implement it, one package per SQL dialect: :mod:`agent_harness.backends.embedded`
(SQLite + FTS5 + sqlite-vec, the default) and :mod:`agent_harness.backends.oracle` (Oracle AI
Database: VECTOR columns, HNSW, Oracle Text). A dialect package holds only what differs: its
connection, its migrations, and the role methods whose statements its dialect spells its own
way. The memory store, the catalog scanner, the tool registry, the skills library and the
migration runner are written once against this interface.

Search is composed from **SQL fragments** (a vector-ranked subquery, a text-ranked subquery, a
top-k clause) so hybrid Reciprocal Rank Fusion is ONE statement on both backends, and so the
workshop can show the attendee the dialect pieces and let them write the fusion themselves.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from agent_harness.backends.connection import Connection
from agent_harness.backends.errors import BackendError, ReadOnlyViolation
from agent_harness.backends.migrations import (
    Migrations,
    applied_migration_names,
    apply_migrations,
)
from agent_harness.backends.roles import (
    Agents,
    Breakers,
    CatalogWatch,
    Documents,
    IndexedBoxes,
    MemoryTable,
    ProvenanceLog,
    ReadOnlyResult,
    Scope,
    ScratchFiles,
    SkillGraph,
    SupplyChain,
    Telemetry,
    ToolDefinitions,
    ToolRanking,
)

__all__ = [
    "Backend",
    "BackendError",
    "ReadOnlyViolation",
    "ReadOnlyResult",
    "ROLES",
    "Scope",
    "SENTINEL_RANK",
]

# The rank given to an item that one of the two ranked lists did not return.
SENTINEL_RANK = 999999

#: Every role a backend carries: attribute -> the type it must be (checked by a test).
ROLES: dict[str, type] = {
    "db": Connection,
    "memories": MemoryTable,
    "boxes": IndexedBoxes,
    "scratch": ScratchFiles,
    "telemetry": Telemetry,
    "breakers": Breakers,
    "tool_ranking": ToolRanking,
    "provenance": ProvenanceLog,
    "tool_definitions": ToolDefinitions,
    "skill_graph": SkillGraph,
    "agents": Agents,
    "supplychain": SupplyChain,
    "documents": Documents,
    "catalog_watch": CatalogWatch,
}


class Backend(abc.ABC):
    """A database that stores the harness and serves the SUPPLYCHAIN data.

    A dialect's ``__init__`` sets :attr:`db` and every role of :data:`ROLES`.
    """

    name: str = "abstract"
    #: True when the database computes embeddings itself (then ``vector`` args may be None).
    embeds_in_database: bool = False
    #: True when the backend can load an embedding model into the database (an extra
    #: ``workshop setup`` step: :meth:`setup_embeddings`).
    can_embed_in_database: bool = False

    db: Connection
    memories: MemoryTable
    boxes: IndexedBoxes
    scratch: ScratchFiles
    telemetry: Telemetry
    breakers: Breakers
    tool_ranking: ToolRanking
    provenance: ProvenanceLog
    tool_definitions: ToolDefinitions
    skill_graph: SkillGraph
    agents: Agents
    supplychain: SupplyChain
    documents: Documents
    catalog_watch: CatalogWatch

    #: This dialect's named migrations (``backends/<dialect>/migrations.py``).
    migrations: Migrations
    #: The dialect's ``CREATE TABLE IF NOT EXISTS schema_migrations (...)``.
    migration_ledger_ddl: str = ""
    #: What the dialect raises when ``schema_migrations`` does not exist yet.
    missing_ledger_errors: tuple[type[Exception], ...] = ()

    # --- what a dialect writes -----------------------------------------------------------------
    @abc.abstractmethod
    def describe(self) -> str:
        """One line saying which database this is and where."""

    @abc.abstractmethod
    def run_migration_step(self, step: Any) -> None:
        """Run one step of one of this dialect's migrations."""

    # --- life cycle -------------------------------------------------------------------------
    def migrate(self) -> list[str]:
        """Apply the migrations whose names are not recorded yet; return their names.

        Idempotent; the runner is :func:`agent_harness.backends.migrations.apply_migrations`.
        """
        return apply_migrations(self, self.migrations)

    def applied_migrations(self) -> list[str]:
        """Names of the migrations applied to this database, in order."""
        return applied_migration_names(self)

    def close(self) -> None:
        """Close every connection."""
        self.documents.close()
        self.supplychain.close()
        self.db.close()

    # --- plain SQL on the harness connection ------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """Everything inside commits together or not at all (holds the connection's lock)."""
        return self.db.transaction()

    def query(self, sql: str, binds: dict | None = None) -> list[dict]:
        """Run a query on the harness connection; rows as dicts with lower-case keys."""
        return self.db.query(sql, binds)

    def execute(self, sql: str, binds: dict | None = None) -> int:
        """Run one statement on the harness connection; return how many rows it changed."""
        return self.db.execute(sql, binds)

    # --- SUPPLYCHAIN (the ``supplychain`` role) ---------------------------------------------
    def supplychain_loaded(self) -> bool:
        """True when the demo schema exists and holds data."""
        return self.supplychain.loaded()

    def load_supplychain(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        """(Re)create the demo schema with comments and load its rows; return row counts."""
        return self.supplychain.load(tables, rows)

    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        """Change a table comment (column None) or a column comment, like COMMENT ON."""
        self.supplychain.set_comment(table, column, comment)

    def supplychain_execute(self, sql: str, binds: dict | None = None) -> int:
        """Run ONE statement that changes SUPPLYCHAIN's data or schema, as its owner; return
        how many rows it changed (see :meth:`SupplyChain.execute`). :meth:`execute` runs as
        the harness, which may only read SUPPLYCHAIN (on Oracle: ORA-01031)."""
        return self.supplychain.execute(sql, binds)

    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        """Run ONE statement on a connection that cannot change anything (``run_sql``)."""
        return self.supplychain.readonly_query(sql, binds, max_rows, timeout_s)

    # --- notebook 02's names for the search fragments (the ``memories`` role) --------------
    def vector_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        """Subquery: memories of the scope ranked by cosine distance to :qv, best :per_list."""
        return self.memories.vector_ranked_sql(n_kinds, exclude)

    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        """Subquery: memories of the scope ranked by full-text score for :q, best :per_list."""
        return self.memories.text_ranked_sql(n_kinds, exclude)

    def top_k_sql(self) -> str:
        """The clause that keeps the first :k rows of an ordered query."""
        return self.memories.top_k_sql()

    def memory_columns_sql(self, alias: str = "m") -> str:
        """The select list of memory columns (id, user_id, ..., updated_at) for ``alias``."""
        return self.memories.columns_sql(alias)

    def text_query(self, text: str) -> str:
        """Turn any user text into a safe full-text query string (never raises)."""
        return self.db.dialect.text_query(text)

    def vector_bind(self, vector: np.ndarray) -> Any:
        """The bind value for a query vector."""
        return self.db.dialect.vector_bind(vector)

    # --- the toolbox and the skillbox (the ``boxes`` role) ----------------------------------
    def upsert_indexed(self, box: str, key: str, fields: dict, vector: np.ndarray | None) -> None:
        """Insert or replace one row of ``box`` ('toolbox' or 'skillbox') keyed by name."""
        self.boxes.upsert(box, key, fields, vector)

    def delete_indexed(self, box: str, keys: Sequence[str]) -> None:
        """Delete rows of a box by name."""
        self.boxes.delete(box, keys)

    def indexed_rows(self, box: str, names: Sequence[str] | None = None) -> list[dict]:
        """Every row of a box (without vectors), or only the rows of these names."""
        return self.boxes.rows(box, names)

    def nearest_indexed(self, box: str, vector: np.ndarray, k: int, text: str = "") -> list[str]:
        """Names of the k rows of a box nearest to the vector, nearest first."""
        return self.boxes.nearest_names(box, vector, k)

    # --- optional hooks: the defaults mean "do it in Python" -------------------------------------
    def embed_texts(self, texts: list[str]) -> np.ndarray | None:
        """Vectors computed by the database for these texts, or None: embed them in Python.

        Every stored and every query vector of a database must come from the same model, so
        the harness asks this first for all of them.
        """
        return None

    def setup_embeddings(self, client_embed: Callable[[list[str]], np.ndarray]) -> str:
        """Load the in-database embedding model or fall back to ``client_embed``; re-embed what
        is stored when the mode changes; return which mode is active and why."""
        return "client-side embeddings (this backend has no in-database model)"

    def run_js(self, code: str, timeout_ms: int) -> dict | None:
        """Run ``exec_js`` code in the database: ``{"result"|"error", "console"}``, or None to
        use the client-side V8 sandbox (:func:`agent_harness.foundation.js_sandbox.run_js`)."""
        return None

    def doctor_checks(self) -> list[tuple[str, str, Callable[[], str]]]:
        """Extra ``workshop doctor`` checks: ``(name, fix, check)``; a check raises on failure."""
        return []

    # --- helpers shared by all backends -------------------------------------------------------
    kinds_sql = staticmethod(MemoryTable.kinds_sql)
    kind_binds = staticmethod(MemoryTable.kind_binds)
