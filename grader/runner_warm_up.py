"""What the grading runner does once, before it forks a process per notebook: import what the
notebooks import (by :data:`WARM_UP` group), load the embedding model and the grader's cache
of public embeddings, and copy matplotlib's font list.

A sibling of ``runner.py``, mounted beside it in the sandbox and loaded by path like
``runner_child.py``: it imports nothing from the ``grader`` package. The grader reads
:func:`warm_up_groups` (grader/execute.py) to ask a runner for the groups its notebooks need;
``runner.py --warm-up-only`` runs :func:`warm_up` outside the sandbox (grader/caches.py).
"""

from __future__ import annotations

import json
import os
import shutil
import sys

#: What the warm-up imports, by group: ``(words in a notebook's code that call for the group,
#: modules)``. The grader asks for the groups the notebooks of a sandbox mention (every group
#: for a whole submission; ``workshop check`` of one notebook, fewer); a module no group
#: warmed is imported by the notebook that needs it, as in any kernel.
WARM_UP = {
    "agent_harness": (
        ("agent_harness",),
        (
            "numpy",
            "agent_harness",
            "agent_harness.harness",
            "openai",
            "agent_harness.agent.agent_loop",
            "agent_harness.workshop",
            "agent_harness.tools.registry",
            "agent_harness.tools.jsonschema_lib",  # jsonschema (tools as data load it first use)
            "agent_harness.backends.embedded",  # apsw, sqlite-vec
            "agent_harness.agent.llm.offline",
            "agent_harness.agent.disclosure",
            "agent_harness.agent.provenance",
        ),
    ),
    "pandas": (("pandas",), ("pandas", "pandas.io.formats.html")),
    "matplotlib": (
        ("matplotlib",),
        ("matplotlib.pyplot", "matplotlib.figure", "matplotlib.backends.backend_agg"),
    ),
    "widgets": (("ipywidgets", "glass_box"), ("ipywidgets", "agent_harness.glass_box")),
    # sqlglot's Oracle parser (the check cells' portability)
    "portable_sql": (("portable_sql",), ("agent_harness.parts.portable_sql",)),
    "mcp": (("mcp",), ("mcp",)),  # the MCP SDK (notebook 07)
    "opentelemetry": (("capture_spans", "opentelemetry"), ("opentelemetry.sdk.trace",)),
}


def warm_up_groups(code: str) -> list[str]:
    """The :data:`WARM_UP` groups that notebook code mentions."""
    return [name for name, (words, _) in WARM_UP.items() if any(w in code for w in words)]


def warm_up(groups: list[str] | None = None) -> None:
    """Import what the notebooks import and load the embedding model, once, before forking
    (single-threaded, so every forked notebook can use it); ``groups``: only those of
    :data:`WARM_UP` (None: every one)."""
    import IPython.core.interactiveshell  # noqa: F401

    wanted = list(WARM_UP) if groups is None else [g for g in groups if g in WARM_UP]
    for group in wanted:
        for heavy in WARM_UP[group][1]:  # optional ones may be missing
            try:
                __import__(heavy)
            except ImportError:
                pass
    if "agent_harness" not in wanted:
        return
    try:  # tiktoken's cl100k table (0.3 s), read once; counting starts no threads
        from agent_harness.parts.token_count import method

        method()
    except ImportError:
        pass
    _warm_first_uses()
    if os.environ.get("WORKSHOP_EMBED_THREADS") == "1":  # no thread pool: safe to share
        from agent_harness.foundation.embeddings import get_embedder

        get_embedder()


def _warm_first_uses() -> None:
    """What the notebooks' first calls load lazily, done once here instead of in every
    notebook's process: an OpenAI client and its chat resource (httpx's transport, trio and
    the SDK's response types: 0.3-0.4 CPU-s in each of the seven notebooks that ask the
    model) and the library's tools (their schemas from the type hints, built on the first
    ``connect``). Nothing here starts a thread, opens a connection or touches a database."""
    try:
        import openai

        client = openai.OpenAI(api_key="warm-up", base_url="http://127.0.0.1:9/v1")
        client.chat.completions  # noqa: B018 (a lazy attribute: loads the resource's modules)
        client.close()
    except Exception:  # an optional warm-up: the notebook pays for it if it cannot happen
        pass
    try:
        from agent_harness.harness import library_tools

        library_tools()
    except Exception:
        pass


def matplotlib_config(work_root: str | None) -> None:
    """Matplotlib's font list, built once by the grader's warm-up outside the sandbox
    (``WORKSHOP_MATPLOTLIB``, read-only here: grader/caches.py), copied where matplotlib may
    write (it ignores a read-only folder); without it every sandbox scans the system's fonts
    again. ``work_root`` None: the warm-up outside, which writes the font list there."""
    prepared = os.environ.get("WORKSHOP_MATPLOTLIB", "")
    if work_root is None or not os.path.isdir(prepared):
        return
    mine = os.path.join(work_root, ".matplotlib")
    shutil.copytree(prepared, mine, dirs_exist_ok=True)
    os.environ["MPLCONFIGDIR"] = mine


def without_bytecode() -> int:
    """How many imported modules Python had to compile from source: no bytecode beside them
    (or in ``PYTHONPYCACHEPREFIX``) that matches the source's time and size."""
    import importlib.util

    missing, here = 0, os.path.dirname(os.path.abspath(__file__))
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            continue
        if os.path.dirname(os.path.abspath(path)) == here:
            continue  # this file and its siblings: mounted alone in the sandbox, compiled there
        try:
            with open(importlib.util.cache_from_source(path), "rb") as f:
                header = f.read(16)
            stat = os.stat(path)
        except (OSError, ValueError):
            missing += 1
            continue
        flags, mtime, size = (int.from_bytes(header[i : i + 4], "little") for i in (4, 8, 12))
        fresh = mtime == int(stat.st_mtime) & 0xFFFFFFFF and size == stat.st_size & 0xFFFFFFFF
        missing += not (flags or fresh)  # flags: a hash-based file, checked by the import
    return missing


def preload_embeddings(path: str | None) -> None:
    """Put the grader's cache of public embeddings (texts the untouched released notebooks
    embed, see grader/caches.py) into the warm embedder, so no notebook computes them again."""
    if not path or not os.path.exists(path) or os.environ.get("WORKSHOP_EMBED_THREADS") != "1":
        return
    import base64

    import numpy

    from agent_harness.foundation.embeddings import DIMENSIONS, get_embedder

    cache = getattr(get_embedder(), "_cache", None)
    with open(path, encoding="utf-8") as f:
        saved = json.load(f)
    rows = numpy.frombuffer(base64.b64decode(saved["vectors"]), dtype=numpy.float32)
    rows = rows.reshape(-1, DIMENSIONS)
    if isinstance(cache, dict) and len(rows) == len(saved["texts"]):
        for text, row in zip(saved["texts"], rows):
            cache[text] = row.copy()
