"""Step 5 of grading: the probe values of the instructor's solutions, against which every
submission's values are compared (:func:`grader.scoring.judge_cells`). They are computed once
per notebooks and library (cached in RESULTS/.reference.json, keyed by both), and the batch
stops when the solutions do not pass their own checks here."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

import nbformat

from grader.cache_paths import harness_dir
from grader.execute import run_submission
from grader.results import Status
from grader.scoring import score_notebook
from grader.sources import GradingError

__all__ = ["reference_values_of", "sandbox_cpu"]


def _digest(sources) -> str:
    digest = hashlib.sha256()
    for source in sources:
        digest.update(nbformat.writes(source.notebook).encode())
        digest.update(repr(source.probes).encode())
    for path in sorted(harness_dir().rglob("*.py")):
        digest.update(path.read_bytes())  # the library the reference ran against
    return digest.hexdigest()[:16]


def reference_values_of(state) -> tuple[dict, float]:
    """The probe values of the instructor's solutions (cached in RESULTS/.reference.json) and
    the sandbox CPU seconds computing them took."""
    sources, out, options = list(state.sources), state.out, state.options
    cache = out / ".reference.json"
    key = _digest(sources)
    if cache.exists():
        try:
            saved = json.loads(cache.read_text(encoding="utf-8"))
            if saved.get("key") == key:
                values = saved["values"]
                return {name: [tuple(v) for v in found] for name, found in values.items()}, 0.0
        except (ValueError, KeyError):
            pass
    with tempfile.TemporaryDirectory(prefix="reference-", dir=out) as job:
        runs = run_submission(
            sources,
            {s.name: None for s in sources},
            Path(job),
            state.template,
            options.sandbox_limits(),
            options.timeout_cell,
            options.timeout_notebook,
            options.use_bwrap,
        )
    problems = []
    for source in sources:
        run = runs[source.name]
        rows = score_notebook("reference", source, run, run.probe_values)
        problems += [
            f"{r.notebook}/{r.grade_id}: {r.status} {r.message}"
            for r in rows
            if r.status != Status.OK
        ]
        missing = source.probe_count() - len(run.probe_values)
        if missing:
            problems.append(f"{source.name}: {missing} probe(s) gave no value")
    if problems:
        raise GradingError(
            "the instructor's solutions do not pass their own checks here, so nothing can be "
            "graded; fix the environment or the solutions first:\n  " + "\n  ".join(problems[:10])
        )
    values = {name: run.probe_values for name, run in runs.items()}
    cache.write_text(json.dumps({"key": key, "values": values}), encoding="utf-8")
    return values, sandbox_cpu(runs.values())


def sandbox_cpu(runs) -> float:
    """The CPU seconds the sandboxes of these runs used."""
    return sum(run.cpu_s for run in runs if run is not None)
