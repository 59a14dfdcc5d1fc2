"""What grading prepares once per library version, outside any sandbox: the prepared database
every notebook copies, the bytecode of what the sandboxed runner imports (by a run of its
warm-up) and the embeddings of the texts the untouched released notebooks embed. Where they
are kept, and what this process found ready, is :mod:`grader.cache_paths` (which imports no
other grader module but :mod:`grader.files`, so the sandbox and the sources can read it).

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
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.cache_paths import (
    IN_PLACE,
    cache_root,
    embeddings_path,
    library_digest,
    matplotlib_dir,
    merge_embeddings,
    pycache_dir,
    ready_bytecode,
    use_embeddings,
)
from grader.files import atomic_write_text

__all__ = [
    "shared_template",
    "prepare_bytecode",
    "prepare_embeddings",
]


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


def _bytecode_key(package_root: str) -> str:
    site = [p for p in sys.path if p.endswith("site-packages")]
    stamp = [f"{p}:{os.stat(p).st_mtime_ns}" for p in site if os.path.isdir(p)]
    names = ("runner", "runner_child", "runner_warm_up")
    runner = [Path(__file__).with_name(f"{n}.py").read_bytes() for n in names]
    warm_up = hashlib.sha256(b"".join(runner)).hexdigest()  # what the warm-up imports
    key = "\n".join([sys.version, package_root, library_digest(), warm_up, *stamp])
    return hashlib.sha256(key.encode()).hexdigest()[:16]


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
        return ready_bytecode(marker.read_text(encoding="utf-8") == IN_PLACE)
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
    return ready_bytecode(in_place)


def prepare_embeddings(sources, template: Path) -> Path | None:
    """Embed what the untouched released notebooks embed, once per library version and
    notebooks (one sandboxed run of each, no answers, no value checks); None if it failed."""
    from grader.execute import run_notebooks
    from grader.sandbox import Limits

    path = embeddings_path(sources)
    if path.exists():
        return use_embeddings(path)
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
    try:
        atomic_write_text(path, json.dumps(merge_embeddings(texts, vectors)))
    except OSError:
        return None  # a read-only cache: the sandboxes embed for themselves
    return use_embeddings(path)
