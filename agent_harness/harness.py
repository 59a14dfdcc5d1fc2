"""The harness: one object that holds the database, memory, tools, skills and LLM together."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agent_harness.agent.catalog_watch import CatalogFreshness, CatalogWatcher
from agent_harness.agent.knowledge_hits import KnowledgeRecorder
from agent_harness.agent.provenance import Provenance, ProvenanceRecorder, TurnTracer
from agent_harness.backends import Scope, open_backend
from agent_harness.foundation.config import Settings
from agent_harness.foundation.embeddings import get_embedder
from agent_harness.foundation.identity import Identity
from agent_harness.parts.agents import PROJECT_AGENTS, AgentLibrary
from agent_harness.parts.catalog_scanner import CatalogScanner
from agent_harness.parts.memory import MemoryStore
from agent_harness.parts.observability import configure_from_env
from agent_harness.parts.offload import ToolOutputLog
from agent_harness.parts.scratchpad import Scratchpad
from agent_harness.parts.skills import PROJECT_SKILLS, SkillLibrary
from agent_harness.tools import REGISTERED, Tool, ToolRegistry
from agent_harness.tools.core import tools as core_tools
from agent_harness.tools.diagnostics import tools as diagnostics_tools
from agent_harness.tools.documents import tools as document_tools
from agent_harness.tools.supplychain import tools as supplychain_tools

__all__ = ["Harness", "connect", "library_tools", "StepResult", "PrepareError"]


def library_tools() -> list[Tool]:
    """The tools every harness registers: the core tools, ``get_document``, the SUPPLYCHAIN
    tools, then the diagnostics tools (your own ``@register``-ed tools join them, see
    :mod:`agent_harness.tools.decorator`)."""
    return [*core_tools(), *document_tools(), *supplychain_tools(), *diagnostics_tools()]


class PrepareError(RuntimeError):
    """A preparation step failed; the message names the step and says what went wrong."""


@dataclass
class StepResult:
    """What one preparation step did."""

    name: str
    detail: str
    seconds: float


class Harness:
    """Everything an agent needs, on one backend, for one user and agent.

    Attributes:
        settings: Where and who.
        identity: Who the harness acts for
            (:class:`~agent_harness.foundation.identity.Identity`; the workshop owner when
            opened without one). Bound to the database connections when they open; read-only.
        backend: The database (embedded SQLite or Oracle).
        memory: Long-term memory (add, list, delete, search).
        catalog: The catalog scanner.
        catalog_watch: Keeps the catalog facts current (the change detector, on a schedule).
        documents: Voyage and vessel as JSON documents (``get``, ``update`` with an etag).
        tools: The tool registry (retrieve, call): the library's tools plus every
            ``@register``-ed one, those registered later included.
        skills: The skills library (manifest, load, resolve: what a skill unlocks).
        agents: Agent definitions (system prompt, assigned skills, manifest, grants).
        scratchpad: Working files.
        offload: The store of whole tool outputs.
        provenance: The trail of every agent turn (explain, turns_using, ...).
        turn_hooks: What the agent loop calls at each step (provenance, tracing).
    """

    def __init__(self, settings: Settings, identity: Identity | None = None):
        self.settings = settings
        identity = identity or Identity.owner_of(settings.user_id)
        self._identity = identity
        self.backend = open_backend(settings, None if identity.owner else identity)
        self.backend.migrate()
        # An identity's memories are its own: what one stored never reaches another.
        self.scope = Scope(identity.key, settings.agent_id)
        self.memory = MemoryStore(self.backend, self.scope, self.embed)
        self.catalog = CatalogScanner(self.backend, self.memory, identity)
        self.catalog_watch = CatalogWatcher(self)
        self.documents = self.backend.documents
        self.skills = SkillLibrary(self)
        self.scratchpad = Scratchpad(self.backend, self.scope)
        self.offload = ToolOutputLog(self.memory)
        self.tools = ToolRegistry(self, library_tools(), registered=REGISTERED)
        self.agents = AgentLibrary(self)
        # an identity reads its own turns only (the owner reads every turn)
        self.provenance = Provenance(
            self.backend, user_id=None if identity.owner else self.scope.user_id
        )
        #: Turn hooks of the agent loop: the catalog's freshness check, provenance trail (the
        #: memory hits of each turn's context in it too) and OpenTelemetry turn spans.
        self.turn_hooks: list = [
            CatalogFreshness(self),
            ProvenanceRecorder(self),
            KnowledgeRecorder(self),
            TurnTracer(self),
        ]
        self._llm = None

    @property
    def identity(self) -> Identity:
        """Who the harness acts for (fixed when it was opened)."""
        return self._identity

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts: in the database when the backend embeds there (Oracle's in-database
        model), else with the process-wide client model. Every stored and every query vector
        goes through here, so one database never mixes the two models' vectors."""
        vectors = self.backend.embed_texts(list(texts))
        if vectors is not None:
            return vectors
        return self.embed_client(texts)

    @staticmethod
    def embed_client(texts: list[str]) -> np.ndarray:
        """Embed texts with the process-wide client model (loaded once per process)."""
        return get_embedder().embed(list(texts))

    @property
    def llm(self):
        """The chat model: live when a key is configured, else the offline replay."""
        if self._llm is None:
            from agent_harness.agent.llm import make_llm

            self._llm = make_llm(self.settings)
        return self._llm

    def describe(self) -> str:
        """Which backend and why, and where."""
        why = (
            "WORKSHOP_BACKEND is set"
            if self.settings.backend != "embedded"
            else "the default: no server needed"
        )
        return f"backend: {self.backend.describe()} ({why})"

    def is_prepared(self) -> bool:
        """True when the demo data, catalog facts, skills and tools are all in place."""
        return (
            self.backend.supplychain_loaded()
            and bool(self.memory.list(metadata_filter={"kind": "table"}, limit=1))
            and self.skills.count() > 0
            and len(self.backend.indexed_rows("toolbox")) > 0
            and bool(self.agents.names())
        )

    def prepare(
        self,
        reload_data: bool = False,
        skills_folder=PROJECT_SKILLS,
        report: Callable[[StepResult], None] | None = None,
        agents_folder=PROJECT_AGENTS,
    ) -> list[StepResult]:
        """Prepare the database, idempotently: each step does only what is missing.

        Steps: apply migrations, (Oracle) load the in-database embedding model or record the
        client-side mode, load SUPPLYCHAIN, scan the catalog into memory, ingest the skills,
        index the tools, store the agents. The first step that fails stops the preparation.

        Args:
            reload_data: Reload the demo data even if present.
            skills_folder: Where the project's skills are.
            agents_folder: Where the project's agent files are.
            report: Called after each step (the CLI prints it).

        Raises:
            PrepareError: A step failed; the steps after it did not run.
        """
        from agent_harness.supplychain import TABLES, generate

        steps = []

        def step(name: str, fn: Callable[[], str]) -> None:
            started = time.perf_counter()
            try:
                detail = fn()
            except Exception as e:  # stop here: later steps depend on this one
                raise PrepareError(f"step '{name}' failed: {type(e).__name__}: {e}") from e
            result = StepResult(name, detail, round(time.perf_counter() - started, 2))
            steps.append(result)
            if report:
                report(result)

        def migrations() -> str:
            applied = self.backend.migrate()
            names = self.backend.applied_migrations()
            latest = names[-1] if names else "none"
            return f"applied {', '.join(applied)}" if applied else f"up to date ({latest})"

        def data() -> str:
            if self.backend.supplychain_loaded() and not reload_data:
                policy = self.backend.supplychain.install_policy()
                return "already loaded" + (f"; {policy}" if policy else "")
            counts = self.backend.load_supplychain(TABLES, generate())
            return f"loaded {sum(counts.values())} rows in {len(counts)} tables"

        def scan() -> str:
            counts = self.catalog_watch.check(force=True).counts or {}
            return ", ".join(f"{v} {k}" for k, v in counts.items())

        def skills() -> str:
            counts = self.skills.ingest(skills_folder)
            skipped = f", {len(counts['skipped'])} skipped" if counts["skipped"] else ""
            return (
                f"{counts['added_or_changed']} added or changed, {counts['unchanged']} unchanged"
                + skipped
            )

        def tools() -> str:
            counts = self.tools.sync()
            return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())

        def agents() -> str:
            counts = self.agents.ingest(agents_folder)
            if counts["skipped"]:
                raise ValueError("; ".join(counts["skipped"]))
            stored = ", ".join(counts["stored"]) or "none"
            return f"stored {stored}; {counts['unchanged']} unchanged"

        def embedding_model() -> str:
            return self.backend.setup_embeddings(self.embed_client)

        step("migrations", migrations)
        if self.backend.can_embed_in_database:  # before any vector is stored in this mode
            step("embedding model", embedding_model)
        step("SUPPLYCHAIN data", data)
        step("catalog scan", scan)
        step("skills", skills)
        step("tools", tools)
        step("agents", agents)
        return steps

    def close(self) -> None:
        """Close the database connections (the registry stops following ``@register``)."""
        self.catalog_watch.stop()
        self.tools.close()
        self.backend.close()

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def connect(
    backend: str | None = None,
    data_dir=None,
    user_id: str | None = None,
    agent_id: str | None = None,
    prepare: bool = True,
    verbose: bool = False,
    identity: Identity | dict | str | None = None,
) -> Harness:
    """Open the workshop harness (settings from the environment, arguments win).

    Args:
        backend: ``embedded`` (default) or ``oracle``.
        data_dir: The embedded backend's folder (default ``.workshop/`` in the project).
        user_id: Memory scope user (default ``workshop``).
        agent_id: Memory scope agent (default ``supplychain-agent``).
        prepare: Prepare the database first when it is not ready (as ``workshop setup``).
        verbose: Print which backend is used and why, and each preparation step.
        identity: Who the harness acts for: ``{"user": "ana", "roles": ["analyst"],
            "regions": ["ATLANTIC"]}``, an :class:`~agent_harness.foundation.identity.Identity` or
            ``"ana:analyst:ATLANTIC"``. The database then shows only voyages of those regions
            (and what hangs off them), and ``cargo_items.unit_value_cents`` as NULL without the
            ``finance`` role, to every tool, SQL tool, MCP client and the catalog scan. None:
            the workshop owner, who sees everything. The memory scope is the identity's own.

    Returns:
        A :class:`Harness`.

    Raises:
        IdentityError: The identity is not valid (the message says what to give).
    """
    who = Identity.of(identity)
    if who is not None and user_id is not None:
        raise ValueError(
            "give user_id or identity, not both: an identity's memory scope is its own"
            f" ({who.key!r})"
        )
    settings = Settings.from_env(
        backend=backend, data_dir=data_dir, user_id=user_id, agent_id=agent_id
    )
    configure_from_env()
    harness = Harness(settings, who)
    if verbose:
        print(harness.describe())
        if who is not None:
            print(f"acting for {who.describe()}")
    if prepare and not harness.is_prepared():
        report = (lambda s: print(f"  {s.name}: {s.detail} ({s.seconds}s)")) if verbose else None
        if verbose:
            print("preparing the database (first use) ...")
        harness.prepare(report=report)
    elif prepare:
        harness.tools.sync()  # cheap when nothing changed: only hashes are compared
    return harness
