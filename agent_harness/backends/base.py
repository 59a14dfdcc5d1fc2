"""The backend boundary: what the harness needs from a database, with no dialect in it.

Two backends implement it, one package per SQL dialect: :mod:`agent_harness.backends.embedded`
(SQLite + FTS5 + sqlite-vec, the default) and :mod:`agent_harness.backends.oracle` (Oracle AI
Database: VECTOR columns, HNSW, Oracle Text). Every dialect-specific statement lives in its
package (``tests/test_backend_layout.py`` checks it); the memory store, the catalog scanner, the
tool registry, the skills library and the migration runner are written once against this
interface.

Two design choices keep the interface from being SQLite-shaped:

* Search is composed from **SQL fragments** (a vector-ranked subquery, a text-ranked subquery, a
  top-k clause) so hybrid Reciprocal Rank Fusion is ONE statement on both backends, and so the
  workshop can show the attendee the dialect pieces and let them write the fusion themselves.
* Query vectors are passed as an already-computed vector **and** the query text: a backend that
  embeds inside the database (Oracle's ``VECTOR_EMBEDDING``) may use the text instead.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent_harness.backends.migrations import (
    Migrations,
    applied_migration_names,
    apply_migrations,
)

__all__ = [
    "Backend",
    "BackendError",
    "ReadOnlyViolation",
    "ReadOnlyResult",
    "Scope",
    "SENTINEL_RANK",
]

# The rank given to an item that one of the two ranked lists did not return.
SENTINEL_RANK = 999999


class BackendError(RuntimeError):
    """A database problem the user can act on; the message says what to do."""


class ReadOnlyViolation(BackendError):
    """A statement sent to the read-only connection tried to change something."""


@dataclass(frozen=True)
class Scope:
    """Whose memories: every memory belongs to one user and one agent."""

    user_id: str
    agent_id: str


@dataclass(frozen=True)
class ReadOnlyResult:
    """Rows from the read-only connection."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


class Backend(abc.ABC):
    """A database that stores the harness and serves the SUPPLYCHAIN data."""

    name: str = "abstract"
    #: True when the database computes embeddings itself (then ``vector`` args may be None).
    embeds_in_database: bool = False
    #: True when the backend can load an embedding model into the database (an extra
    #: ``workshop setup`` step: :meth:`setup_embeddings`).
    can_embed_in_database: bool = False
    #: Role objects of the self-healing registry (:mod:`agent_harness.backends.roles`), set
    #: by each backend: ``telemetry``, ``breakers``, ``tool_ranking``, ``provenance``.
    telemetry: Any
    breakers: Any
    tool_ranking: Any
    provenance: Any

    #: This dialect's named migrations (``backends/<dialect>/migrations.py``).
    migrations: Migrations
    #: The dialect's ``CREATE TABLE IF NOT EXISTS schema_migrations (...)``.
    migration_ledger_ddl: str = ""
    #: What the dialect raises when ``schema_migrations`` does not exist yet.
    missing_ledger_errors: tuple[type[Exception], ...] = ()

    # --- life cycle -------------------------------------------------------------------------
    def migrate(self) -> list[str]:
        """Apply the migrations whose names are not recorded yet; return their names.

        Idempotent; the runner is :func:`agent_harness.backends.migrations.apply_migrations`.
        """
        return apply_migrations(self, self.migrations)

    def applied_migrations(self) -> list[str]:
        """Names of the migrations applied to this database, in order."""
        return applied_migration_names(self)

    @abc.abstractmethod
    def run_migration_step(self, step: Any) -> None:
        """Run one step of one of this dialect's migrations."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close every connection."""

    @abc.abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """A context manager: everything inside commits together or not at all."""

    @abc.abstractmethod
    def describe(self) -> str:
        """One line saying which database this is and where."""

    # --- plain SQL on the harness connection ------------------------------------------------
    @abc.abstractmethod
    def query(self, sql: str, binds: dict | None = None) -> list[dict]:
        """Run a query on the harness connection; rows as dicts with lower-case keys."""

    @abc.abstractmethod
    def execute(self, sql: str, binds: dict | None = None) -> None:
        """Run one statement on the harness connection."""

    # --- SUPPLYCHAIN ------------------------------------------------------------------------
    @abc.abstractmethod
    def supplychain_loaded(self) -> bool:
        """True when the demo schema exists and holds data."""

    @abc.abstractmethod
    def load_supplychain(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        """(Re)create the demo schema with comments and load its rows; return row counts."""

    @abc.abstractmethod
    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        """Change a table comment (column None) or a column comment, like COMMENT ON."""

    @abc.abstractmethod
    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        """Run ONE statement on a connection that cannot change anything.

        Raises:
            ReadOnlyViolation: The statement would write, change schema or settings, or attach.
            BackendError: Any other SQL error, a second statement, or the time limit.
        """

    # --- memory -----------------------------------------------------------------------------
    @abc.abstractmethod
    def insert_memory(self, row: dict, vector: np.ndarray | None) -> int:
        """Insert one memory (keys: user_id, agent_id, thread_id, kind, subject, content,
        metadata (JSON text), content_hash) with its vector; return the new id."""

    @abc.abstractmethod
    def update_memory(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        """Replace content, subject, metadata and content_hash of a memory, and its vector."""

    @abc.abstractmethod
    def delete_memory(self, scope: Scope, memory_id: int) -> bool:
        """Delete a memory of this scope; True when something was deleted."""

    @abc.abstractmethod
    def list_memories(
        self, scope: Scope, where: list[tuple[str, str, Any]], limit: int
    ) -> list[dict]:
        """Memories of a scope, newest first, filtered by ``(target, key, value)`` triples
        where target is ``column`` or ``metadata``; a list value means IN."""

    # SQL fragments for search. Binds they use: :qv, :q, :per_list, :user_id, :agent_id, :k,
    # :rrf_k and :kind0.. for the kinds filter. Each ranked fragment returns (id, r, score).
    @abc.abstractmethod
    def vector_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        """Subquery: memories of the scope ranked by cosine distance to :qv, best :per_list."""

    @abc.abstractmethod
    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        """Subquery: memories of the scope ranked by full-text score for :q, best :per_list."""

    @abc.abstractmethod
    def top_k_sql(self) -> str:
        """The clause that keeps the first :k rows of an ordered query."""

    @abc.abstractmethod
    def text_query(self, text: str) -> str:
        """Turn any user text into a safe full-text query string (never raises)."""

    @abc.abstractmethod
    def vector_bind(self, vector: np.ndarray) -> Any:
        """The bind value for a query vector."""

    @abc.abstractmethod
    def memory_columns_sql(self, alias: str = "m") -> str:
        """The select list of memory columns (id, user_id, ..., created_at) for ``alias``."""

    # --- vector-indexed catalogs: the toolbox and the skillbox -------------------------------
    @abc.abstractmethod
    def upsert_indexed(self, box: str, key: str, fields: dict, vector: np.ndarray | None) -> None:
        """Insert or replace one row of ``box`` ('toolbox' or 'skillbox') keyed by name."""

    @abc.abstractmethod
    def delete_indexed(self, box: str, keys: Sequence[str]) -> None:
        """Delete rows of a box by name."""

    @abc.abstractmethod
    def indexed_rows(self, box: str, names: Sequence[str] | None = None) -> list[dict]:
        """Every row of a box (without vectors), or only the rows of these names."""

    @abc.abstractmethod
    def nearest_indexed(self, box: str, vector: np.ndarray, k: int, text: str = "") -> list[str]:
        """Names of the k rows of a box nearest to the vector, nearest first."""

    # --- scratchpad ---------------------------------------------------------------------------
    @abc.abstractmethod
    def scratch_put(self, scope: Scope, path: str, content: str, append: bool) -> int:
        """Write or append (atomically) a scratch file; return its new length."""

    @abc.abstractmethod
    def scratch_get(self, scope: Scope, path: str) -> str | None:
        """A scratch file's content, or None."""

    @abc.abstractmethod
    def scratch_paths(self, scope: Scope) -> list[dict]:
        """Scratch files of a scope: path, size, updated_at."""

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
        use the client-side V8 sandbox (:func:`agent_harness.sandbox.run_js`)."""
        return None

    def doctor_checks(self) -> list[tuple[str, str, Callable[[], str]]]:
        """Extra ``workshop doctor`` checks: ``(name, fix, check)``; a check raises on failure."""
        return []

    # --- helpers shared by all backends -------------------------------------------------------
    @staticmethod
    def kinds_sql(column: str, n_kinds: int, exclude: bool) -> str:
        """The ``AND column [NOT] IN (:kind0, ...)`` filter of a ranked fragment ("" if none)."""
        if not n_kinds:
            return ""
        names = ", ".join(f":kind{i}" for i in range(n_kinds))
        return f" AND {column} {'NOT IN' if exclude else 'IN'} ({names})"

    @staticmethod
    def kind_binds(kinds: Sequence[str] | None) -> dict[str, str]:
        """Binds :kind0, :kind1, ... for a kinds filter."""
        return {f"kind{i}": k for i, k in enumerate(kinds or ())}
