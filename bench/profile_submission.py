"""Where one submission's CPU goes when `workshop grade` runs it: the runner's start-up by
warm-up group, then each notebook as the runner runs it (a process forked from the warm
runner: the database copy, a fresh IPython shell, the cells, the value checks), and the same
submission in a real sandbox (CPU as the runner counts it).

    .venv/bin/python bench/profile_submission.py

The submission is the instructor's solutions. The first two parts run outside the sandbox
(the same code, without bubblewrap) so each step can be timed; the last is the real thing.
Each figure is CPU seconds (user + system) of the process doing the step.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "grader"))  # the runner's files, as the sandbox loads them

os.environ.update(WORKSHOP_EMBED_THREADS="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg")
os.environ.update(WORKSHOP_LLM="offline", HF_HUB_OFFLINE="1")


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


def _notebook(source, template: str) -> dict:
    """One notebook as the runner runs it, in this (forked) process: CPU by step."""
    import runner_child

    from grader.assembly import assemble

    steps = {}
    started = _cpu()
    work = tempfile.mkdtemp(prefix="profile-")
    shutil.copytree(template, os.path.join(work, ".workshop"))
    os.environ.update(WORKSHOP_DATA_DIR=os.path.join(work, ".workshop"), HOME=work)
    os.chdir(work)
    steps["database copy"], started = _cpu() - started, _cpu()
    shell = runner_child._shell()
    steps["IPython shell"], started = _cpu() - started, _cpu()
    with redirect_stdout(io.StringIO()):
        for cell in assemble(source, None):
            shell.run_cell(cell["source"], store_history=False)
    steps["cells"], started = _cpu() - started, _cpu()
    probes = [p for grade_id, _ in source.grade_cells for p in source.probes.get(grade_id, [])]
    for index, probe in enumerate(probes):
        runner_child._probe(shell, probe.code, index)
    steps["value checks"] = _cpu() - started
    shutil.rmtree(work, ignore_errors=True)
    return steps


def main() -> None:
    import runner_warm_up

    from grader.caches import prepare_bytecode, prepare_embeddings, shared_template
    from grader.execute import run_notebooks
    from grader.sandbox import Limits
    from grader.sources import load_sources

    sources = load_sources()
    template = shared_template()
    prepare_bytecode()
    embeddings = prepare_embeddings(sources, template)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"one submission of {len(sources)} notebooks (the solutions), load {load:.1f}")
    print("runner start-up (once per submission), by warm-up group:")
    started = _cpu()
    import IPython.core.interactiveshell  # noqa: F401

    print(f"  {'IPython':<16} {_cpu() - started:5.2f}")
    for group in runner_warm_up.WARM_UP:
        started = _cpu()
        runner_warm_up.warm_up([group])
        print(f"  {group:<16} {_cpu() - started:5.2f}")
    started = _cpu()
    runner_warm_up.preload_embeddings(str(embeddings) if embeddings else None)
    print(f"  {'embeddings':<16} {_cpu() - started:5.2f}  (the untouched notebooks' vectors)")
    print("each notebook in a process forked from the warm runner:")
    totals: dict[str, float] = {}
    for source in sources:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the notebook's process
            os.close(read)
            steps = _notebook(source, str(template))
            os.write(write, json.dumps(steps).encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as answer:
            steps = json.loads(answer.read() or "{}")
        _, _, usage = os.wait4(pid, 0)
        steps["whole process"] = usage.ru_utime + usage.ru_stime
        for name, seconds in steps.items():
            totals[name] = totals.get(name, 0.0) + seconds
        print(f"  {source.name:<28}" + "".join(f" {k} {v:5.2f}" for k, v in steps.items()))
    print(f"  {'all notebooks':<28}" + "".join(f" {k} {v:5.2f}" for k, v in totals.items()))
    print(
        "the same submission in a real sandbox (the runner's count; the first includes its start):"
    )
    with tempfile.TemporaryDirectory(prefix="profile-sandbox-") as job:
        started = time.perf_counter()
        runs = run_notebooks([(s, None) for s in sources], Path(job), template, Limits(), 60, 300)
        wall = time.perf_counter() - started
    print("  " + " ".join(f"{s.name[:2]} {r.cpu_s:.2f}" for s, r in zip(sources, runs)))
    print(f"  total {sum(r.cpu_s for r in runs):.2f} CPU-s in {wall:.1f} s")


if __name__ == "__main__":
    main()
