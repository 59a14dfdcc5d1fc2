"""Long-term memory: add, list, delete and search (vector, keyword, hybrid RRF).

A memory is a piece of text with a ``kind`` (note, table, column, relationship, episode,
tool_output, ...), an optional ``subject`` (what it is about, e.g. ``SUPPLYCHAIN.VESSELS``),
free-form JSON ``metadata`` and an optional ``thread_id``. Every memory belongs to one user and
one agent (its scope); a store only ever sees its own scope.

Hybrid search is Reciprocal Rank Fusion in ONE SQL statement: the vector-ranked list and the
text-ranked list (fragments supplied by the backend) are FULL OUTER JOINed on the memory id; a
memory missing from one list gets the sentinel rank 999999 there; the fused score is
``1/(rrf_k + r_vec) + 1/(rrf_k + r_txt)``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agent_harness.backends.base import SENTINEL_RANK, Backend, Scope
from agent_harness.backends.roles.common import check_key
from agent_harness.backends.roles.memories import FILTER_COLUMNS

__all__ = ["Memory", "MemoryStore", "SEARCH_MODES", "hybrid_sql", "content_hash"]

SEARCH_MODES = ("vector", "keyword", "hybrid")
_COLUMN_FILTERS = set(FILTER_COLUMNS)
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_K = 1000


def content_hash(text: str) -> str:
    """SHA-256 of the text: how the catalog scanner and skill ingestion spot changes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Memory:
    """One memory, as returned by list and search.

    Search results also carry ``score`` (mode-specific: cosine distance for vector, BM25 for
    keyword, the fused score for hybrid) and, for hybrid, ``r_vec``, ``r_txt``, ``rrf_score``.
    """

    id: int
    kind: str
    content: str
    subject: str | None = None
    metadata: dict = field(default_factory=dict)
    thread_id: str | None = None
    user_id: str = ""
    agent_id: str = ""
    created_at: str | None = None
    updated_at: str | None = None
    content_hash: str = ""
    score: float | None = None
    r_vec: int | None = None
    r_txt: int | None = None
    rrf_score: float | None = None

    @classmethod
    def from_row(cls, row: dict) -> Memory:
        metadata = row.get("metadata") or {}
        if isinstance(metadata, str):
            metadata = json.loads(metadata)
        known = {k: row[k] for k in cls.__dataclass_fields__ if k in row and k != "metadata"}
        for name in ("r_vec", "r_txt"):
            if known.get(name) is not None:
                known[name] = int(known[name])
        for name in ("score", "rrf_score"):
            if known.get(name) is not None:
                known[name] = float(known[name])
        return cls(metadata=metadata, **known)

    def to_dict(self) -> dict:
        """A plain dict (for JSON and pandas)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def hybrid_sql(backend: Backend, n_kinds: int = 0, exclude: bool = False) -> str:
    """The ONE statement of hybrid search, built from the backend's dialect fragments.

    Binds: :qv :q :per_list :user_id :agent_id :rrf_k :k and :kind0.. for a kinds filter.
    """
    return f"""WITH vec AS ({backend.vector_ranked_sql(n_kinds, exclude)}),
txt AS ({backend.text_ranked_sql(n_kinds, exclude)})
SELECT {backend.memory_columns_sql("m")},
       COALESCE(vec.r, {SENTINEL_RANK}) AS r_vec,
       COALESCE(txt.r, {SENTINEL_RANK}) AS r_txt,
       1.0 / (:rrf_k + COALESCE(vec.r, {SENTINEL_RANK}))
         + 1.0 / (:rrf_k + COALESCE(txt.r, {SENTINEL_RANK})) AS rrf_score
FROM vec FULL OUTER JOIN txt ON txt.id = vec.id
JOIN memories m ON m.id = COALESCE(vec.id, txt.id)
ORDER BY rrf_score DESC, m.id
{backend.top_k_sql()}"""


def _ranked_sql(backend: Backend, fragment: str) -> str:
    """One ranked list alone (vector or keyword mode), best first."""
    return f"""WITH ranked AS ({fragment})
SELECT {backend.memory_columns_sql("m")}, ranked.r AS r, ranked.score AS score
FROM ranked JOIN memories m ON m.id = ranked.id
ORDER BY ranked.r
{backend.top_k_sql()}"""


class MemoryStore:
    """The memories of one scope (user + agent) on one backend.

    Args:
        backend: Where the memories live.
        scope: Whose memories.
        embed: Function from a list of texts to an (n, 384) array of unit vectors.
    """

    def __init__(self, backend: Backend, scope: Scope, embed: Callable[[list[str]], np.ndarray]):
        self.backend = backend
        self.scope = scope
        self._embed = embed

    # --- writing ------------------------------------------------------------------------------
    def _row(self, content, kind, subject, metadata, thread_id) -> dict:
        if not isinstance(content, str) or not content.strip():
            raise ValueError("content must be a non-empty string: what should be remembered?")
        for name, text in (("content", content), ("subject", subject)):
            if isinstance(text, str) and not _is_utf8(text):
                raise ValueError(
                    f"{name} holds invalid unicode (a lone surrogate such as \\ud800); "
                    "fix the text's encoding before storing it"
                )
        if not isinstance(kind, str) or not _KIND.match(kind):
            raise ValueError(
                f"kind {kind!r} is not valid: use lower-case letters, digits and _ "
                "(e.g. 'note', 'table', 'episode')"
            )
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, dict):
            raise ValueError(
                f"metadata must be a dict (JSON object), not {type(metadata).__name__}"
            )
        try:
            metadata_json = json.dumps(metadata, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError) as e:
            raise ValueError(f"metadata must be JSON-serialisable: {e}") from e
        return {
            "user_id": self.scope.user_id,
            "agent_id": self.scope.agent_id,
            "thread_id": None if thread_id is None else str(thread_id),
            "kind": kind,
            "subject": None if subject is None else str(subject),
            "content": content,
            "metadata": metadata_json,
            "content_hash": content_hash(content),
        }

    def _vector(self, row: dict) -> np.ndarray | None:
        return self._vectors([row])[0]

    def add(
        self,
        content: str,
        kind: str = "note",
        subject: str | None = None,
        metadata: dict | None = None,
        thread_id: str | None = None,
    ) -> int:
        """Store one memory (text, full-text index and vector together, or nothing).

        Args:
            content: The text to remember.
            kind: Its kind: note, table, column, relationship, episode, tool_output, ...
            subject: What it is about, e.g. ``SUPPLYCHAIN.VESSELS.CAPACITY_TEU``.
            metadata: A JSON object of extra facts, filterable with :meth:`list`.
            thread_id: The conversation it came from, if any.

        Returns:
            The new memory's id.
        """
        row = self._row(content, kind, subject, metadata, thread_id)
        return self.backend.memories.insert(row, self._vector(row))

    def add_many(self, entries: list[dict], reuse_kinds: tuple[str, ...] = ()) -> list[int]:
        """Store several memories in ONE transaction, embedding them in one batch.

        Args:
            entries: Dicts with the keyword arguments of :meth:`add` (``content`` required).
            reuse_kinds: For entries of these kinds, a vector the database already holds for
                the same subject and content (in any scope) is reused instead of embedding the
                text again: the model is deterministic, so it is the vector it would compute.
                The catalog scanner passes its fact kinds, so an identity's first scan embeds
                only the facts that read differently for it (row counts, a masked column).

        Returns:
            The new ids, in order.
        """
        rows = [
            self._row(
                e["content"],
                e.get("kind", "note"),
                e.get("subject"),
                e.get("metadata"),
                e.get("thread_id"),
            )
            for e in entries
        ]
        vectors = self._vectors(rows, reuse_kinds)
        with self.backend.transaction():
            return [self.backend.memories.insert(r, v) for r, v in zip(rows, vectors)]

    def _vectors(self, rows: list[dict], reuse_kinds: tuple[str, ...] = ()) -> list:
        if self.backend.embeds_in_database or not rows:
            return [None] * len(rows)
        keys = [(r["subject"], r["content_hash"]) for r in rows]
        reusable = [key for key, r in zip(keys, rows) if r["kind"] in reuse_kinds]
        known = self.backend.memories.stored_vectors(reuse_kinds, reusable) if reusable else {}
        vectors = [
            known.get(key) if r["kind"] in reuse_kinds else None for key, r in zip(keys, rows)
        ]
        missing = [i for i, vector in enumerate(vectors) if vector is None]
        if missing:
            texts = [
                f"{rows[i]['subject']}: {rows[i]['content']}"
                if rows[i]["subject"]
                else rows[i]["content"]
                for i in missing
            ]
            for i, vector in zip(missing, self._embed(texts)):
                vectors[i] = vector
        return vectors

    def update(
        self,
        memory_id: int,
        content: str,
        subject: str | None = None,
        metadata: dict | None = None,
    ) -> None:
        """Replace a memory's content (and re-embed it), keeping its id and kind."""
        current = self.get(memory_id)
        if current is None:
            raise KeyError(f"no memory with id {memory_id} in this scope")
        row = self._row(content, current.kind, subject, metadata, current.thread_id)
        self.backend.memories.update(memory_id, row, self._vector(row))

    def delete(self, memory_id: int) -> bool:
        """Delete a memory of this scope; True when it existed."""
        return self.backend.memories.delete(self.scope, int(memory_id))

    # --- reading ------------------------------------------------------------------------------
    def get(self, memory_id: int) -> Memory | None:
        """One memory by id, or None."""
        found = self.list(metadata_filter={"id": int(memory_id)}, limit=1)
        return found[0] if found else None

    def list(self, metadata_filter: dict | None = None, limit: int = 50) -> list[Memory]:
        """Memories of this scope, newest first.

        Args:
            metadata_filter: ``{key: value}`` pairs that must all hold. ``kind``, ``subject``,
                ``thread_id``, ``id`` and ``content_hash`` filter those columns; any other key
                filters the JSON metadata. A list value means "any of".
            limit: At most this many memories.

        Raises:
            ValueError: A key that is not a plain identifier.
        """
        where: list[tuple[str, str, Any]] = []
        for key, value in (metadata_filter or {}).items():
            check_key(key)
            if isinstance(value, dict):
                raise ValueError(f"filter value for {key!r} must be a scalar or a list")
            where.append(("column" if key in _COLUMN_FILTERS else "metadata", key, value))
        limit = max(0, min(int(limit), 100_000))
        return [Memory.from_row(r) for r in self.backend.memories.list(self.scope, where, limit)]

    def count(self) -> int:
        """How many memories this scope holds."""
        rows = self.backend.query(
            "SELECT COUNT(*) AS n FROM memories WHERE user_id = :u AND agent_id = :a",
            {"u": self.scope.user_id, "a": self.scope.agent_id},
        )
        return int(rows[0]["n"])

    def search(
        self,
        query: str,
        k: int = 5,
        mode: str = "hybrid",
        kinds: Sequence[str] | str | None = None,
        exclude_kinds: Sequence[str] | str | None = None,
        per_list: int = 30,
        rrf_k: int = 60,
    ) -> list[Memory]:
        """Search this scope's memories.

        Any query text is safe: quotes, operators, unicode, empty or 100 KB.

        Args:
            query: What to look for.
            k: How many results.
            mode: ``vector`` (meaning), ``keyword`` (BM25 on words) or ``hybrid`` (both, fused
                with Reciprocal Rank Fusion).
            kinds: Only these kinds (a list or a comma-separated string).
            exclude_kinds: Never these kinds (ignored when ``kinds`` is given).
            per_list: Hybrid: how many candidates each ranked list contributes.
            rrf_k: Hybrid: the RRF constant k in 1/(k + rank).

        Returns:
            Memories, best first, with ``score`` (and ``r_vec``, ``r_txt``, ``rrf_score``).
        """
        if mode not in SEARCH_MODES:
            raise ValueError(f"mode {mode!r} is not a search mode; use one of {SEARCH_MODES}")
        k = int(k)
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
        per_list = max(1, min(int(per_list), MAX_K)) if mode == "hybrid" else k
        query = "" if query is None else str(query)
        selected = _kind_list(kinds)
        excluded = [] if selected else _kind_list(exclude_kinds)
        kind_filter = selected or excluded
        binds: dict[str, Any] = {
            "user_id": self.scope.user_id,
            "agent_id": self.scope.agent_id,
            "per_list": per_list,
            "k": k,
            **self.backend.kind_binds(kind_filter),
        }
        n, exclude = len(kind_filter), bool(excluded)
        if mode in ("vector", "hybrid"):
            binds["qv"] = self.query_vector(query)
        if mode in ("keyword", "hybrid"):
            binds["q"] = self.backend.text_query(query)
        if mode == "hybrid":
            binds["rrf_k"] = int(rrf_k)
            sql = hybrid_sql(self.backend, n, exclude)
        elif mode == "vector":
            sql = _ranked_sql(self.backend, self.backend.vector_ranked_sql(n, exclude))
        else:
            sql = _ranked_sql(self.backend, self.backend.text_ranked_sql(n, exclude))
        rows = self.backend.query(sql, binds)
        if mode == "hybrid":
            for row in rows:
                row["score"] = row["rrf_score"]
        return [Memory.from_row(r) for r in rows]

    def query_vector(self, query: str) -> Any:
        """The bind value for a query's vector (computed here; Oracle may embed in SQL)."""
        return self.backend.vector_bind(self._embed([query])[0])


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _kind_list(kinds: Sequence[str] | str | None) -> list[str]:
    if kinds is None:
        return []
    if isinstance(kinds, str):
        kinds = kinds.split(",")
    return [k.strip() for k in kinds if isinstance(k, str) and k.strip()]
