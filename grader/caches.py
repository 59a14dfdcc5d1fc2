"""What grading prepares once per library version, outside any sandbox: the prepared database
every notebook copies, the bytecode of what the sandboxed runner imports, the released
version of each instructor notebook (nbgrader's preprocessors, whose import costs seconds),
and the embeddings of the texts the untouched released notebooks embed.

The embeddings: a run of every released notebook with no answer in it (instructor code on
the demo data, the same for every student; no solution, no value check, nothing hidden)
records each text it embedded; every sandbox's runner puts those vectors into its embedding
model's cache before it forks the notebooks, which then skip the model for them (about half of
a correct submission's embedding time). The model is deterministic, so a cached vector is the
one the notebook would compute; texts a submission's own answers or the value checks embed
are never shared.

Both live in the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then
``agent-harness-workshop/``), are written only by the grader's own process, and are mounted
read-only in the sandbox. The bytecode matters because the sandbox cannot write
``__pycache__`` (its view of the environment is read-only), and an environment installed
without compiled bytecode (uv's default) or used with ``PYTHONDONTWRITEBYTECODE`` would
otherwise compile pandas, matplotlib, IPython and the rest from source in every sandbox: about
2 of its 4 seconds of start-up. Python checks each cached file against its source's time and
size, so a stale one is never used.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = [
    "cache_root",
    "harness_dir",
    "hidden_markers",
    "released_notebook",
    "library_digest",
    "shared_template",
    "prepare_bytecode",
    "pycache_dir",
    "ready_pycache",
    "matplotlib_dir",
    "ready_matplotlib",
    "prepare_embeddings",
    "find_embeddings",
    "ready_embeddings",
    "use_check_embeddings",
    "save_check_embeddings",
]

#: The bytecode folder once :func:`prepare_bytecode` made it, for this process's sandboxes.
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


def shared_template() -> Path:
    """The prepared embedded database, built once per library version."""
    from grader.execute import prepare_template

    folder = cache_root() / f"template-{library_digest()}"
    if (folder / "harness.db").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix="building-", dir=folder.parent))
    try:
        prepare_template(building / "db")
        os.replace(building / "db", folder)
    except OSError:  # another grader built it meanwhile
        if not (folder / "harness.db").exists():
            raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return folder


def pycache_dir() -> Path:
    """Where the runner's bytecode is kept (``PYTHONPYCACHEPREFIX`` in the sandbox)."""
    return cache_root() / "pycache"


def _bytecode_key(package_root: str) -> str:
    site = [p for p in sys.path if p.endswith("site-packages")]
    stamp = [f"{p}:{os.stat(p).st_mtime_ns}" for p in site if os.path.isdir(p)]
    names = ("runner", "runner_child", "runner_warm_up")
    runner = [Path(__file__).with_name(f"{n}.py").read_bytes() for n in names]
    warm_up = hashlib.sha256(b"".join(runner)).hexdigest()  # what the warm-up imports
    key = "\n".join([sys.version, package_root, library_digest(), warm_up, *stamp])
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def matplotlib_dir() -> Path:
    """Where the warm-up leaves matplotlib's font list (the runner copies it into the
    sandbox, where matplotlib would otherwise scan the system's fonts at every start)."""
    return cache_root() / "matplotlib"


#: The marker's text when the environment's own bytecode serves the sandbox.
IN_PLACE = "in place"


def _warm_up(env: dict) -> int | None:
    """Run the runner's warm-up outside the sandbox; how many of the modules it imported had
    no usable bytecode (None if it failed)."""
    from grader.sandbox import RUNNER

    try:
        done = subprocess.run(
            [sys.executable, str(RUNNER), "--warm-up-only"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        return int(json.loads(done.stdout.strip().splitlines()[-1])["without_bytecode"])
    except (OSError, subprocess.SubprocessError, ValueError, LookupError, TypeError):
        return None


def prepare_bytecode() -> Path | None:
    """Bytecode for what the sandboxed runner imports (once per environment and library
    version, by a run of the runner's warm-up outside the sandbox): the environment's own when
    it has it for every module (``setup/bootstrap.py`` compiles the packages and the project
    when it installs), else compiled into :func:`pycache_dir`, which the sandbox then reads
    (``PYTHONPYCACHEPREFIX``). Returns where the bytecode is (``sys.prefix`` for the
    environment's own); None if it failed (the sandbox then compiles from source)."""
    from grader.sandbox import _environment, _package_root

    folder = pycache_dir()
    marker = folder / f".ready-{_bytecode_key(_package_root())}"
    if marker.exists():
        return _ready_bytecode(marker.read_text(encoding="utf-8") == IN_PLACE)
    folder.mkdir(parents=True, exist_ok=True)
    env = _environment(str(Path(tempfile.gettempdir())))
    # the font list, see runner_warm_up.matplotlib_config
    env["MPLCONFIGDIR"] = str(matplotlib_dir())
    in_place = _warm_up(env) == 0  # reads only: PYTHONDONTWRITEBYTECODE is set
    if not in_place:
        env["PYTHONPYCACHEPREFIX"] = str(folder)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if _warm_up(env) is None:
            return None
    marker.write_text(IN_PLACE if in_place else "prefix", encoding="utf-8")
    return _ready_bytecode(in_place)


def _ready_bytecode(in_place: bool) -> Path:
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
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache: computed again next time


def _embeddings_path(sources) -> Path:
    digest = hashlib.sha256(b"untouched, no value checks\0" + library_digest().encode())
    for source in sources:
        digest.update(source.name.encode())
        digest.update(json.dumps(source.released, sort_keys=True).encode())
    return cache_root() / f"embeddings-{digest.hexdigest()[:16]}.json"


def prepare_embeddings(sources, template: Path) -> Path | None:
    """Embed what the untouched released notebooks embed, once per library version and
    notebooks (one sandboxed run of each, no answers, no value checks); None if it failed."""
    from grader.execute import run_notebooks
    from grader.sandbox import Limits

    path = _embeddings_path(sources)
    if path.exists():
        _READY["embeddings"] = path
        return path
    with tempfile.TemporaryDirectory(prefix="embeddings-") as job:
        jobs = [(source, {}) for source in sources]
        runs = run_notebooks(
            jobs, Path(job), template, Limits.for_grading(), 60, 300, collect_embeddings=True
        )
    texts, vectors = [], []
    for run in runs:
        found = run.embeddings or {}
        if isinstance(found.get("texts"), list) and isinstance(found.get("vectors"), str):
            texts.append(found["texts"])
            vectors.append(found["vectors"])
    if not texts:
        return None
    merged = _merge(texts, vectors)
    _write_atomic(path, json.dumps(merged))
    _READY["embeddings"] = path
    return path


def _merge(texts: list[list[str]], vectors: list[str]) -> dict:
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
    path = _embeddings_path(sources)
    if path.exists():
        _READY["embeddings"] = path
        return path
    return None


def _check_embeddings_path(name: str) -> Path:
    return cache_root() / f"check-embeddings-{name}-{library_digest()}.json"


def use_check_embeddings(name: str) -> Path | None:
    """Preload, in this process's sandboxes, what the last ``workshop check`` of notebook
    ``name`` embedded (an attendee checks the same notebook after every TODO; the model is
    deterministic, so a kept vector is the one it would compute). Only the attendee's own
    checks write and read this file; grading never uses it (None: no check ran yet)."""
    path = _check_embeddings_path(name)
    if path.exists():
        _READY["embeddings"] = path
        return path
    return None


def save_check_embeddings(name: str, found: dict | None) -> None:
    """Keep what a check of notebook ``name`` embedded: the run's embedder cache, which holds
    what the previous check kept (preloaded) and what this one added, at most the cache's size."""
    if not found or not isinstance(found.get("texts"), list) or not found["texts"]:
        return
    if isinstance(found.get("vectors"), str):
        try:
            _write_atomic(
                _check_embeddings_path(name),
                json.dumps(_merge([found["texts"]], [found["vectors"]])),
            )
        except ValueError:  # vectors that do not match their texts: keep nothing
            pass


def ready_embeddings() -> Path | None:
    """The embeddings file the sandboxes of this process preload (None until prepared or found)."""
    return _READY.get("embeddings")
