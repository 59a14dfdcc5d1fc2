"""Where grading's caches live and what this process found ready in them; nothing here
prepares anything (that is :mod:`grader.caches`, which runs the warm-up and the untouched
notebooks), so every grader module may import it.

The user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then
``agent-harness-workshop/``) holds the prepared database, the runner's bytecode, matplotlib's
font list and the embeddings :mod:`grader.caches` prepares, and the small entries kept here
by key: nbgrader's hidden-test markers, the released version of each instructor notebook
(nbgrader's preprocessors, whose import costs seconds) and what an attendee's last
``workshop check`` of a notebook embedded. Only the grader's own process writes them; the
sandbox mounts them read-only (:mod:`grader.sandbox` asks here what is ready).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
from pathlib import Path

from grader.files import atomic_write_text

__all__ = [
    "IN_PLACE",
    "cache_root",
    "harness_dir",
    "library_digest",
    "pycache_dir",
    "matplotlib_dir",
    "ready_bytecode",
    "ready_pycache",
    "ready_matplotlib",
    "hidden_markers",
    "released_notebook",
    "embeddings_path",
    "merge_embeddings",
    "use_embeddings",
    "find_embeddings",
    "ready_embeddings",
    "use_check_embeddings",
    "save_check_embeddings",
]


#: What this process found or made ready for its sandboxes: the bytecode, its folder, embeddings.
_READY: dict[str, Path] = {}


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/agent-harness-workshop`` (default ``~/.cache/...``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / (
        "agent-harness-workshop"
    )


def harness_dir() -> Path:
    """The ``agent_harness`` package's folder, found as an import would, without importing it."""
    spec = importlib.util.find_spec("agent_harness")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("agent_harness is not installed: run setup/bootstrap.py")
    return Path(spec.origin).resolve().parent


def library_digest() -> str:
    """A digest of the agent_harness package's files (its code, SQL, data and skills)."""
    digest = hashlib.sha256()
    root = harness_dir()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def pycache_dir() -> Path:
    """Where the runner's bytecode is kept (``PYTHONPYCACHEPREFIX`` in the sandbox)."""
    return cache_root() / "pycache"


def matplotlib_dir() -> Path:
    """Where the warm-up leaves matplotlib's font list (the runner copies it into the
    sandbox, where matplotlib would otherwise scan the system's fonts at every start)."""
    return cache_root() / "matplotlib"


#: The marker's text when the environment's own bytecode serves the sandbox.
IN_PLACE = "in place"


def ready_bytecode(in_place: bool) -> Path:
    """Note for this process's sandboxes where their bytecode is; return that place."""
    _READY["bytecode"] = sys.prefix if in_place else pycache_dir()
    if not in_place:
        _READY["folder"] = pycache_dir()
    return Path(_READY["bytecode"])


def ready_matplotlib() -> Path | None:
    """The prepared matplotlib folder the sandboxes copy (None until prepared)."""
    folder = matplotlib_dir()
    return folder if "bytecode" in _READY and folder.is_dir() else None


def ready_pycache() -> Path | None:
    """The bytecode folder the sandboxes of this process use (None until prepared)."""
    return _READY.get("folder")


def _nbgrader_key(*parts: bytes) -> str:
    digest = hashlib.sha256(importlib.metadata.version("nbgrader").encode())
    digest.update(Path(__file__).with_name("release.py").read_bytes())
    for part in parts:
        digest.update(part)
    return digest.hexdigest()[:16]


def hidden_markers() -> tuple[str, str]:
    """nbgrader's hidden-test delimiters (ClearHiddenTests settings), kept per nbgrader version."""
    path = cache_root() / f"hidden-markers-{_nbgrader_key()}.json"
    try:
        begin, end = json.loads(path.read_text(encoding="utf-8"))
        return begin, end
    except (OSError, ValueError):
        pass
    from nbgrader.preprocessors import ClearHiddenTests

    settings = ClearHiddenTests()
    markers = (settings.begin_test_delimeter, settings.end_test_delimeter)
    _write_atomic(path, json.dumps(markers))
    return markers


def released_notebook(source_path: Path):
    """The released version of an instructor notebook (:func:`grader.release.release_notebook`),
    kept per notebook content, nbgrader version and release code."""
    import nbformat

    data = Path(source_path).read_bytes()
    path = cache_root() / "released" / f"{_nbgrader_key(data)}.ipynb"
    try:
        return nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    except (OSError, ValueError):
        pass
    from grader.release import release_notebook

    released = release_notebook(
        nbformat.reads(data.decode("utf-8"), as_version=4), Path(source_path).stem
    )
    _write_atomic(path, nbformat.writes(released))
    return released


def _write_atomic(path: Path, text: str) -> None:
    try:
        atomic_write_text(path, text)
    except OSError:
        pass  # a read-only cache: computed again next time


def embeddings_path(sources) -> Path:
    digest = hashlib.sha256(b"untouched, no value checks\0" + library_digest().encode())
    for source in sources:
        digest.update(source.name.encode())
        digest.update(json.dumps(source.released, sort_keys=True).encode())
    return cache_root() / f"embeddings-{digest.hexdigest()[:16]}.json"


def use_embeddings(path: Path) -> Path:
    """Note ``path`` as the embeddings file this process's sandboxes preload; return it."""
    _READY["embeddings"] = path
    return path


def merge_embeddings(texts: list[list[str]], vectors: list[str]) -> dict:
    import base64

    import numpy

    kept: dict[str, bytes] = {}
    for names, encoded in zip(texts, vectors):
        rows = numpy.frombuffer(base64.b64decode(encoded), dtype=numpy.float32)
        rows = rows.reshape(len(names), -1) if names else rows
        for name, row in zip(names, rows):
            kept.setdefault(name, row.tobytes())
    return {
        "texts": list(kept),
        "vectors": base64.b64encode(b"".join(kept.values())).decode("ascii"),
    }


def find_embeddings(sources) -> Path | None:
    """Use the embeddings file of these notebooks if grading prepared it (never builds it)."""
    path = embeddings_path(sources)
    return use_embeddings(path) if path.exists() else None


def _check_embeddings_path(name: str) -> Path:
    return cache_root() / f"check-embeddings-{name}-{library_digest()}.json"


def use_check_embeddings(name: str) -> Path | None:
    """Preload, in this process's sandboxes, what the last ``workshop check`` of notebook
    ``name`` embedded (an attendee checks the same notebook after every TODO; the model is
    deterministic, so a kept vector is the one it would compute). Only the attendee's own
    checks write and read this file; grading never uses it (None: no check ran yet)."""
    path = _check_embeddings_path(name)
    return use_embeddings(path) if path.exists() else None


def save_check_embeddings(name: str, found: dict | None) -> None:
    """Keep what a check of notebook ``name`` embedded: the run's embedder cache, which holds
    what the previous check kept (preloaded) and what this one added, at most the cache's size."""
    if not found or not isinstance(found.get("texts"), list) or not found["texts"]:
        return
    if isinstance(found.get("vectors"), str):
        try:
            _write_atomic(
                _check_embeddings_path(name),
                json.dumps(merge_embeddings([found["texts"]], [found["vectors"]])),
            )
        except ValueError:  # vectors that do not match their texts: keep nothing
            pass


def ready_embeddings() -> Path | None:
    """The embeddings file the sandboxes of this process preload (None until prepared or found)."""
    return _READY.get("embeddings")
