"""The tool registry of one harness: a catalog in SQL that watches its own tools.

:class:`ToolRegistry` keeps the tools (functions turned into tools, see
:mod:`agent_harness.tools.tool`, and tools defined as rows) in the vector-indexed ``toolbox``
table and

* **retrieves** the tools for a query: ranked by relevance first (meaning, words or both
  fused) and track record second in ONE statement (:meth:`rank`), filtered by category, open
  tools left out, plus an always-on set;
* **defines** tools as data (:meth:`define`, :meth:`define_many`: rows, not code);
* **calls** them (:meth:`call`, :meth:`call_detailed`): validation, a time limit, and two call
  hooks: telemetry (one ``tool_telemetry`` row per call) and the circuit breaker;
* **watches** them: :meth:`stats` (sliding-window statistics in SQL), :meth:`ooda` (observe,
  orient, decide, act), :meth:`disable` / :meth:`enable` by hand, :meth:`policy`.

A harness builds its registry from the library's tools (core and SUPPLYCHAIN, passed in
explicitly) and FOLLOWS :data:`~agent_harness.tools.decorator.REGISTERED`: a tool registered
with ``@register`` before or after ``connect()`` is callable at once and indexed on the next
:meth:`retrieve`, :meth:`rank` or :meth:`sync` (:mod:`agent_harness.tools.following`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from agent_harness.backends.roles import utc_now
from agent_harness.parts.memory import content_hash
from agent_harness.tools.breaker import CircuitBreaker
from agent_harness.tools.decorator import RegisteredTools
from agent_harness.tools.dispatch import HookFailures, ToolCall, ToolResult, dispatch
from agent_harness.tools.following import RegistryFollow
from agent_harness.tools.relevance import reaches_floor
from agent_harness.tools.request_parts import interleave, request_parts
from agent_harness.tools.telemetry import TelemetryRecorder
from agent_harness.tools.tool import Tool, add_tool, name_words
from agent_harness.tools.tools_as_data import ToolsAsData
from agent_harness.tools.watching import RegistryWatch

__all__ = ["ToolRegistry", "ALWAYS_ON", "RANK_MODES", "NAME_VECTOR_WEIGHT"]

#: A tool's vector is the unit-length sum of its description's embedding and this share of its
#: name words' embedding (measured in bench/README.md: the name alone says what the tool does
#: in a few words; the description says the rest).
NAME_VECTOR_WEIGHT = 0.7

#: How :meth:`ToolRegistry.rank` can rank.
RANK_MODES = ("vector", "keyword", "hybrid")

#: Sent on every turn whatever the query: the agent's basic senses.
ALWAYS_ON = (
    "run_sql",
    "search_knowledge",
    "remember",
    "exec_js",
    "load_skill",
    "list_skills",
    "fetch_tool_output",
)


class ToolRegistry(ToolsAsData, RegistryWatch, RegistryFollow):
    """The tools of one harness: stored in the toolbox table, retrieved, called and watched.

    Args:
        harness: The harness the tools run against (set as the tools' context during a call).
        tools: The tools to offer (a list, or a dict by name). A harness passes the library's
            core and SUPPLYCHAIN tools.
        always_on: Names sent on every turn.
        registered: Follow these ``@register``-ed tools (a harness passes
            :data:`~agent_harness.tools.decorator.REGISTERED`): the ones registered so far are
            added, and each one registered later joins while this registry lives (until
            :meth:`close`). One whose name a tool in ``tools`` holds is left out, with a
            :class:`~agent_harness.tools.tool.ToolDefinitionWarning`. None: follow nothing.

    Attributes:
        hooks: The call hooks, in order: telemetry first, then the circuit breaker.
        hook_failures: Counts of hook failures (a failed telemetry write never breaks a call).
        clock: Returns the current aware UTC time (tests move it forward).
    """

    def __init__(
        self,
        harness,
        tools: Iterable[Tool] | Mapping[str, Tool] = (),
        always_on=ALWAYS_ON,
        registered: RegisteredTools | None = None,
    ):
        self.harness = harness
        self._tools: dict[str, Tool] = {}
        for tool in tools.values() if isinstance(tools, Mapping) else tools:
            add_tool(tool, self._tools)
        self.always_on = tuple(n for n in always_on if n in self._tools)
        self.clock: Callable[[], Any] = utc_now
        self.breaker = CircuitBreaker(self)
        self.hooks: list = [TelemetryRecorder(harness.backend.telemetry), self.breaker]
        self.hook_failures = HookFailures()
        self._listeners: list[Callable[[str, str], None]] = []
        self.definition_problems: dict[str, str] = {}
        #: True when a registration or removal changed the tools since the last sync.
        self._index_stale = False
        self._registered = registered
        if registered is not None:
            self._follow(registered)
        self._load_definitions()

    # --- change notifications -----------------------------------------------------------------
    def on_change(self, listener: Callable[[str, str], None]) -> Callable[[], None]:
        """Call ``listener(tool, what)`` whenever the set of offerable tools may have changed:
        a tool added or removed, or a breaker transition (``what`` names it, e.g.
        ``"closed->open"``). Returns a function that unsubscribes. An MCP server uses it to send
        ``notifications/tools/list_changed``."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def changed(self, tool: str, what: str) -> None:
        """Tell the listeners (a failing listener is counted, never raised)."""
        for listener in list(self._listeners):
            try:
                listener(tool, what)
            except Exception as e:  # a broken listener must not break a call or a transition
                self.hook_failures.record(listener, "on_change", e)

    # --- the catalog --------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Every tool name, sorted."""
        return sorted(self._tools)

    def get(self, name: str) -> Tool:
        """One tool by name (KeyError with the available names if unknown)."""
        if name not in self._tools:
            raise KeyError(f"unknown tool {name!r}; available: {', '.join(self.names())}")
        return self._tools[name]

    def categories(self) -> dict[str, list[str]]:
        """Tool names by category."""
        found: dict[str, list[str]] = {}
        for tool in sorted(self._tools.values(), key=lambda t: t.name):
            found.setdefault(tool.category, []).append(tool.name)
        return dict(sorted(found.items()))

    def add(self, fn_or_tool: Callable[..., Any] | Tool, **options) -> Tool:
        """Register a function (or tool) in this registry and index it.

        Args:
            fn_or_tool: A documented, typed function or a :class:`Tool`.
            **options: ``category=`` and ``timeout_s=`` as for ``@register``.
        """
        tool = (
            fn_or_tool
            if isinstance(fn_or_tool, Tool)
            else Tool.from_function(fn_or_tool, **options)
        )
        add_tool(tool, self._tools)
        self.sync()
        self.changed(tool.name, "added")
        return tool

    def remove(self, name: str) -> None:
        """Take a tool out of this registry and the toolbox (its telemetry stays)."""
        if self._tools.pop(name, None) is not None:
            self.sync()
            self.changed(name, "removed")

    def schemas(self, names: list[str] | None = None) -> list[dict]:
        """OpenAI schemas of the named tools (all when None)."""
        return [self._tools[n].schema() for n in (names if names is not None else self.names())]

    def sync(self) -> dict[str, int]:
        """Store every tool in the toolbox table; only changed ones are re-embedded and
        re-indexed (compared by content hash).

        Returns:
            Counts: ``added_or_changed``, ``unchanged``, ``removed``.
        """
        self._index_stale = False
        backend = self.harness.backend
        stored = {r["name"]: r["content_hash"] for r in backend.indexed_rows("toolbox")}
        changed = self._index(list(self._tools.values()), stored)
        removed = [n for n in stored if n not in self._tools]
        backend.delete_indexed("toolbox", removed)
        return {
            "added_or_changed": changed,
            "unchanged": len(self._tools) - changed,
            "removed": len(removed),
        }

    def _index(self, tools: list[Tool], stored: dict[str, str]) -> int:
        """Store the given tools whose content hash differs from ``stored`` (name -> hash):
        one embedding batch, one transaction. Returns how many were stored."""
        changed = self._changed(tools, stored)
        if changed:
            vectors = self.vectors([t for t, _ in changed])
            with self.harness.backend.transaction():
                self._store(changed, vectors)
        return len(changed)

    def vectors(self, tools: list[Tool]) -> np.ndarray:
        """The tools' vectors, in one embedding batch: ``unit(embed(description) +
        NAME_VECTOR_WEIGHT * embed(name words))``."""
        if not tools:
            return np.zeros((0, 0), dtype=np.float32)
        embedded = self.harness.embed(
            [t.index_text() for t in tools] + [name_words(t.name) for t in tools]
        )
        summed = embedded[: len(tools)] + NAME_VECTOR_WEIGHT * embedded[len(tools) :]
        return (summed / np.linalg.norm(summed, axis=1, keepdims=True)).astype(np.float32)

    def _changed(self, tools: list[Tool], stored: dict[str, str]) -> list[tuple[Tool, dict]]:
        """The tools whose toolbox row differs from ``stored`` (name -> hash), with the row."""
        changed = []
        for tool in tools:
            fields = {
                "description": tool.description,
                "parameters": json.dumps(tool.parameters, sort_keys=True),
                "category": tool.category,
                "always_on": int(tool.name in self.always_on),
                "search_text": tool.search_text(),
            }
            fields["content_hash"] = content_hash(
                f"{tool.index_text()}\n{NAME_VECTOR_WEIGHT}\n{fields['search_text']}"
                + fields["parameters"]
                + tool.category
            )
            if stored.get(tool.name) != fields["content_hash"]:
                changed.append((tool, fields))
        return changed

    def _store(self, changed: list[tuple[Tool, dict]], vectors) -> None:
        for (tool, fields), vector in zip(changed, vectors):
            self.harness.backend.upsert_indexed("toolbox", tool.name, fields, vector)

    # --- retrieval ----------------------------------------------------------------------------
    def rank(
        self,
        query: str,
        k: int | None = 5,
        categories: list[str] | None = None,
        include_open: bool = False,
        mode: str = "vector",
    ) -> list[dict]:
        """Tools ranked for ``query`` in ONE SQL statement (one per part of a
        multi-part request in hybrid mode): relevance first, track record
        second.

        ``score = relevance - 0.10 * (1 - track) - 0.05 * (1 - speed)`` with ``track =
        (successes + 2) / (calls + 2)`` and ``speed = 1000 / (1000 + p50_ms)`` over each
        tool's window (weights in the policy): at most 0.15 off the relevance, so a tool only
        overtakes one of near-equal relevance. Ties by name. The relevance depends on mode:

        * ``vector`` (the default: notebook 06 and its grading compare an attendee's ranking
          with it): the cosine similarity of the query's embedding and the tool's vector
          (:meth:`vectors`: its description and, 0.7 as much, its name words).
        * ``keyword``: ``keyword_score``, the BM25 of the query's words in the tool's keyword
          text (:meth:`Tool.search_text`: name words, description, argument names and
          descriptions) divided by the best BM25 of this query (0..1); only tools that
          match at all.
        * ``hybrid``: ``0.7 * meaning + 0.3 * keyword_score``, where ``meaning`` is the
          similarity min-max normalised over the toolbox (0..1): a convex combination of the
          two normalised scores (``rank_vector_weight`` in the policy). :meth:`retrieve`
          uses it. A request that says it has several parts ("..., then ...", "also",
          "lastly": :func:`~agent_harness.tools.request_parts.request_parts`) is ranked
          whole and part by part, one statement each, and the lists are interleaved (each
          row's ``part`` says which list it came from, 0 for the whole request).

        Args:
            query: The user's question (or any text; any text is safe).
            k: How many (None: all).
            categories: Only tools of these categories (None: all).
            include_open: Keep open tools (state ``open``) in the list.
            mode: ``vector``, ``keyword`` or ``hybrid``.

        Returns:
            Rows: name, category, similarity, calls, successes, p50_ms, state, score (keyword
            and hybrid also keyword_score and relevance).
        """
        if mode not in RANK_MODES:
            raise ValueError(f"mode {mode!r} is not a ranking mode; use one of {RANK_MODES}")
        self._sync_if_stale()
        policy = self.policy()
        now = self.clock()
        text = str(query or "")
        if categories is not None:
            categories = [categories] if isinstance(categories, str) else list(categories)
        texts = [text, *(request_parts(text) if mode == "hybrid" else [])]
        vectors = [None] * len(texts) if mode == "keyword" else self.harness.embed(texts)
        lists = [
            self.harness.backend.tool_ranking.rank(
                vector,
                part,
                window_calls=policy.window_calls,
                since=policy.since(now),
                now=now,
                weights=policy.weights(),
                categories=categories,
                include_open=include_open,
                k=k,
                mode=mode,
            )
            for part, vector in zip(texts, vectors)
        ]
        return lists[0] if len(lists) == 1 else interleave(lists, k)

    def candidates(self, query: str) -> list[dict]:
        """Every tool with its similarity to ``query``, its window's calls, successes and p50,
        and its state: the inputs of the ranking (notebook 06 ranks them in Python)."""
        rows = self.rank(query, k=None, include_open=True, mode="vector")
        return sorted(({k: r[k] for k in r if k != "score"} for r in rows), key=lambda r: r["name"])

    def retrieve(
        self,
        query: str,
        k: int = 5,
        always_on: bool = True,
        categories: list[str] | None = None,
        mode: str = "hybrid",
        floor: float | None = None,
    ) -> list[dict]:
        """The tools to send for this query: the top-k (:meth:`rank`) plus the always-on set.

        Open tools are never offered, always-on ones included. A tool is picked by rank only
        when its similarity to the query reaches the **relevance floor** (the policy's
        ``relevance_floor``), or when the query spells its name or one of its snake_case
        argument names (:func:`~agent_harness.tools.relevance.reaches_floor`): a question no
        tool is for gets the always-on set alone.

        Args:
            query: The user's question (or any text).
            k: How many tools to pick by rank; k >= the registry size returns every tool (asking
                for all of them is not a choice: the floor does not apply then).
            always_on: Add the always-on tools (without counting them in k).
            categories: Only tools of these categories for the top-k (the always-on set is
                added whatever its categories).
            mode: How :meth:`rank` ranks: ``hybrid`` (default), ``vector`` or ``keyword``.
            floor: The relevance floor (None: the policy's; -1 offers whatever the rank).

        Returns:
            OpenAI tool schemas, always-on first, then by rank.
        """
        k = max(0, int(k))
        floor = self.policy().relevance_floor if floor is None else float(floor)
        if k >= len(self._tools):
            floor = -1.0
        skip = set(self.always_on) if always_on else set()
        ranked = self.rank(query, k=None, categories=categories, include_open=True, mode=mode)
        offerable = [
            r["name"]
            for r in ranked
            if r["state"] != "open"
            and r["name"] in self._tools
            and reaches_floor(r, floor, query, self._tools[r["name"]])
        ]
        picked = [n for n in offerable if n not in skip][:k]
        if always_on:
            off = self.open_tools()
            picked = [*[n for n in self.always_on if n not in off], *picked]
        return self.schemas(picked)

    # --- calling ------------------------------------------------------------------------------
    def call(self, name: str, arguments: dict | str | None = None) -> str:
        """Validate the arguments, run the tool, and return its result as JSON text.

        Problems the model caused (unknown tool, malformed or wrong arguments, a ToolError, an
        exception inside the tool, a time-out, an open circuit) come back as
        ``{"error": "..."}`` so the model can correct itself; they never raise.
        """
        return self.call_detailed(name, arguments).output

    def call_detailed(
        self,
        name: str,
        arguments: dict | str | None = None,
        *,
        call_id: str | None = None,
        thread_id: str | None = None,
        turn_id: str | None = None,
        offered=None,
        unlocked_by=None,
        grants=None,
        agent: str | None = None,
    ) -> ToolResult:
        """Like :meth:`call`, returning the typed :class:`ToolResult` (output, success,
        error_type, duration_ms, telemetry_id, ...).

        Args:
            name: The tool.
            arguments: A dict or JSON text.
            call_id: The model's tool call id (a fresh one if None).
            thread_id: The conversation, recorded with the call.
            turn_id: The agent turn, recorded with the call.
            offered: The names offered in this turn: any other tool is refused.
            unlocked_by: Tool -> skills that unlock it (named when a tool not offered is
                called).
            grants: Tool -> access the agent's skills grant (None: no access check).
            agent: The agent making the call.
        """
        call = ToolCall(
            name=name,
            arguments=arguments,
            thread_id=thread_id,
            turn_id=turn_id,
            offered=frozenset(offered) if offered is not None else None,
            unlocked_by=unlocked_by,
            grants=grants,
            agent=agent,
        )
        if call_id:
            call.call_id = call_id
        return dispatch(self._tools, call, self.harness, self.hooks, self.hook_failures, self.clock)
