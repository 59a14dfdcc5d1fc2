"""Embeddings on Oracle: Oracle's augmented all_MiniLM_L12_v2 in the database, or client-side.

The model is loaded with the BLOB overload of ``DBMS_VECTOR.LOAD_ONNX_MODEL`` (no directory
object, no file copied into the container) and every vector, stored or query, is computed with
``VECTOR_EMBEDDING``; when it cannot be loaded, every vector comes from the client-side
all-MiniLM-L6-v2 instead. The two are different vector spaces, so the mode is recorded in
``harness_settings`` and never mixed: only ``workshop setup`` changes it, and a change
re-embeds every stored memory and clears the toolbox and skillbox (set up again right after).

The pure-Python half (where the model file comes from, which mode to use) runs on every machine.
"""

from __future__ import annotations

import io
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import oracledb

from agent_harness.backends.errors import BackendError
from agent_harness.backends.oracle.errors import first_line, hint
from agent_harness.foundation.embeddings import DIMENSIONS

__all__ = [
    "CLIENT_MODE",
    "DATABASE_MODE",
    "MODEL_NAME",
    "EmbeddingChoice",
    "OracleEmbeddings",
    "ModelSourceError",
    "bind_text",
    "choose_embedding_mode",
    "memory_embed_text",
    "model_disabled",
    "read_onnx_model",
]

MODEL_NAME = "ALL_MINILM_L12_V2"
MODEL_METADATA = (
    '{"function": "embedding", "embeddingOutput": "embedding", "input": {"input": ["DATA"]}}'
)


class ModelSourceError(BackendError):
    """The ONNX model could not be read from its URL or file."""


def model_disabled(source: str | None) -> bool:
    """True when WORKSHOP_ONNX_MODEL asks for client-side embeddings (``none``, ``off``, "")."""
    return (source or "").strip().lower() in ("", "none", "off", "client", "no")


def read_onnx_model(source: str, cache_dir: Path | None = None, timeout_s: float = 60.0) -> bytes:
    """The bytes of the ONNX model named by a URL or a local path (a .zip holding it or .onnx).

    A download is kept in ``cache_dir`` (when given) so the next setup reads it from there.

    Raises:
        ModelSourceError: Unreachable URL, missing file, or a zip without a ``.onnx`` file.
    """
    source = source.strip()
    scheme = urllib.parse.urlparse(source).scheme.lower()
    if scheme in ("http", "https"):
        name = Path(urllib.parse.urlparse(source).path).name or "model.zip"
        cached = cache_dir / name if cache_dir else None
        if cached is not None and cached.is_file():
            data = cached.read_bytes()
        else:
            try:
                with urllib.request.urlopen(source, timeout=timeout_s) as response:
                    data = response.read()
            except (OSError, ValueError) as e:  # URLError, timeouts, HTTP errors are OSErrors
                raise ModelSourceError(f"cannot download the ONNX model from {source}: {e}") from e
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                partial = cached.with_suffix(cached.suffix + ".part")
                partial.write_bytes(data)
                partial.replace(cached)
    else:
        path = Path(source[len("file://") :] if scheme == "file" else source).expanduser()
        if not path.is_file():
            raise ModelSourceError(f"no ONNX model file at {path}")
        data = path.read_bytes()
    if data[:4] != b"PK\x03\x04":
        return data  # a bare .onnx file
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [m for m in archive.namelist() if m.lower().endswith(".onnx")]
            if not members:
                raise ModelSourceError(f"{source} is a zip without a .onnx file")
            return archive.read(members[0])
    except zipfile.BadZipFile as e:
        raise ModelSourceError(f"{source} is not a readable zip file: {e}") from e


@dataclass(frozen=True)
class EmbeddingChoice:
    """Which model computes every stored and query vector, and why.

    Attributes:
        key: ``database:<model>`` or ``client:<model>``; stored in the database, never mixed.
        reason: Why this mode (shown by ``describe()`` and ``workshop setup``).
    """

    key: str
    reason: str = ""

    @property
    def in_database(self) -> bool:
        """True when the database computes the vectors (VECTOR_EMBEDDING)."""
        return self.key.startswith("database:")


DATABASE_MODE = "database:ALL_MINILM_L12_V2"
CLIENT_MODE = "client:all-MiniLM-L6-v2"


def choose_embedding_mode(source: str | None, load: Callable[[], str]) -> EmbeddingChoice:
    """Decide the embedding mode: in the database when the model loads, else client-side.

    Args:
        source: WORKSHOP_ONNX_MODEL (``none`` means client-side, ``load`` is not called).
        load: Loads the model (idempotently) and returns what it did; raises on any failure.

    Returns:
        The choice; a failure of ``load`` is the reason of a client-side choice, never raised.
    """
    if model_disabled(source):
        return EmbeddingChoice(CLIENT_MODE, "WORKSHOP_ONNX_MODEL=none")
    try:
        return EmbeddingChoice(DATABASE_MODE, load())
    except Exception as e:  # any failure means: fall back, and say why
        return EmbeddingChoice(CLIENT_MODE, f"in-database model unavailable ({str(e)[:300]})")


def memory_embed_text(subject: str | None, content: str) -> str:
    """The text a memory's vector is computed from: as in ``MemoryStore`` (subject: content)."""
    return f"{subject}: {content}" if subject else content


def bind_text(text: str, max_chars: int = 1000) -> str:
    """Text safe to bind for VECTOR_EMBEDDING: no lone surrogates or NULs, never empty (Oracle
    reads '' as NULL), cut to ``max_chars`` so it fits a 4000-byte VARCHAR2."""
    text = str(text)[:max_chars].encode("utf-8", "replace").decode("utf-8").replace("\x00", " ")
    return text if text.strip() else " "


class OracleEmbeddings:
    """The embedding mode, the in-database model, ``embed_texts`` and ``setup_embeddings``.

    Args:
        db: The harness owner's connection (:class:`~agent_harness.backends.oracle.connection.
            OracleConnection`).
        settings: WORKSHOP_ONNX_MODEL and the data folder (its model cache).
    """

    def __init__(self, db, settings) -> None:
        self.db = db
        self.settings = settings
        self._choice: EmbeddingChoice | None = None

    def _recorded_mode(self) -> str | None:
        try:
            rows = self.db.query("SELECT value FROM harness_settings WHERE name = 'embedding_mode'")
        except oracledb.DatabaseError:
            return None  # not migrated yet
        return rows[0]["value"] if rows else None

    def mode(self) -> EmbeddingChoice:
        """The recorded mode (client-side until ``workshop setup`` records one)."""
        if self._choice is None:
            recorded = self._recorded_mode()
            if recorded is None:  # read again next time: `workshop setup` may record it
                return EmbeddingChoice(CLIENT_MODE, "not set up yet")
            self._choice = EmbeddingChoice(recorded)
        return self._choice

    @property
    def embeds_in_database(self) -> bool:
        """True in the in-database mode: memories get VECTOR_EMBEDDING vectors in SQL."""
        return self.mode().in_database

    def embed_texts(self, texts: list[str]) -> np.ndarray | None:
        if not self.embeds_in_database:
            return None
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        with self.db.lock, self.db.conn.cursor() as cur:
            for i, text in enumerate(texts):
                cur.execute(
                    f"SELECT VECTOR_EMBEDDING({MODEL_NAME} USING :text AS DATA) FROM dual",
                    text=bind_text(text),
                )
                vector = np.asarray(cur.fetchone()[0], dtype=np.float32)
                vectors[i] = vector / max(float(np.linalg.norm(vector)), 1e-12)
        return vectors

    def model_loaded(self) -> bool:
        """True when the model is stored in the database."""
        rows = self.db.query(
            "SELECT COUNT(*) AS n FROM user_mining_models WHERE model_name = :name",
            {"name": MODEL_NAME},
        )
        return rows[0]["n"] > 0

    def check_model(self) -> None:
        """Embed one text in the database and check the dimensions."""
        with self.db.lock, self.db.conn.cursor() as cur:
            cur.execute(
                f"SELECT VECTOR_EMBEDDING({MODEL_NAME} USING 'vessel capacity in TEU' AS DATA)"
                " FROM dual"
            )
            dims = len(cur.fetchone()[0])
        if dims != DIMENSIONS:
            raise BackendError(
                f"{MODEL_NAME} gives {dims} dimensions, the tables hold {DIMENSIONS}"
            )

    def load_onnx_model(self, source: str | None = None) -> str:
        """Load Oracle's augmented all_MiniLM_L12_v2 as ALL_MINILM_L12_V2, once.

        Args:
            source: URL or path of the zip or .onnx file (default WORKSHOP_ONNX_MODEL).

        Returns:
            What was done.

        Raises:
            BackendError: The file cannot be read or the database refuses the model.
        """
        source = self.settings.onnx_model if source is None else source
        if self.model_loaded():
            self.check_model()
            return f"{MODEL_NAME} already in the database"
        if model_disabled(source):
            raise ModelSourceError("WORKSHOP_ONNX_MODEL=none: no model to load")
        data = read_onnx_model(source, cache_dir=self.settings.data_dir / "onnx", timeout_s=120)
        try:
            with self.db.lock, self.db.conn.cursor() as cur:
                # The BLOB overload: no directory object, no file copied into the container.
                cur.execute(
                    "BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(model_name => :name, model_data => :data,"
                    " metadata => JSON(:metadata)); END;",
                    name=MODEL_NAME,
                    data=self.db.conn.createlob(oracledb.DB_TYPE_BLOB, data),
                    metadata=MODEL_METADATA,
                )
        except oracledb.DatabaseError as e:
            raise BackendError(
                f"DBMS_VECTOR.LOAD_ONNX_MODEL failed: {first_line(e)}{hint(e)}"
            ) from e
        self.check_model()
        return f"loaded {MODEL_NAME} ({len(data) / 1e6:.0f} MB) with DBMS_VECTOR.LOAD_ONNX_MODEL"

    def setup_embeddings(self, client_embed: Callable[[list[str]], np.ndarray]) -> str:
        choice = choose_embedding_mode(self.settings.onnx_model, self.load_onnx_model)
        recorded = self._recorded_mode()
        note = ""
        if (recorded or CLIENT_MODE) != choice.key:  # vectors of one model only, ever
            n = self._reembed(choice, client_embed)
            if recorded or n:
                note = f"; switched from {recorded or CLIENT_MODE}: re-embedded {n} memories"
        self.db.execute(
            self.db.dialect.upsert(
                "harness_settings",
                ["name"],
                {"name": ":name", "value": ":value"},
                touch="updated_at",
            ),
            {"name": "embedding_mode", "value": choice.key},
        )
        self._choice = choice
        where = "in the database" if choice.in_database else "client-side"
        return f"{choice.key} ({where}: {choice.reason}){note}"

    def _reembed(self, choice: EmbeddingChoice, client_embed) -> int:
        """Recompute every stored memory vector with the new mode; empty the toolbox and the
        skillbox (the next setup steps store them again, with vectors of the new mode)."""
        rows = self.db.query("SELECT id, subject, content FROM memories ORDER BY id")
        texts = [memory_embed_text(r["subject"], r["content"]) for r in rows]
        with self.db.transaction(), self.db.conn.cursor() as cur:
            if rows and choice.in_database:
                cur.executemany(
                    f"UPDATE memories SET embedding = VECTOR_EMBEDDING({MODEL_NAME}"
                    " USING :text AS DATA) WHERE id = :id",
                    [{"text": bind_text(t), "id": r["id"]} for t, r in zip(texts, rows)],
                )
            elif rows:
                vectors = client_embed(texts)
                cur.executemany(
                    "UPDATE memories SET embedding = :embedding WHERE id = :id",
                    [
                        {"embedding": self.db.dialect.vector_bind(v), "id": r["id"]}
                        for v, r in zip(vectors, rows)
                    ],
                )
            cur.execute("DELETE FROM toolbox")
            cur.execute("DELETE FROM skillbox")
        return len(rows)
