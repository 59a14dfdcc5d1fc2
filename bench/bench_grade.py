"""Grade N identical submissions of the full series with `workshop grade` and with stock
`nbgrader autograde`, on this machine, and print seconds per submission and the ratio.

    .venv/bin/python bench/bench_grade.py                 # 30 submissions, both graders
    .venv/bin/python bench/bench_grade.py --n 6 --skip-nbgrader

Each submission is the instructor's solutions (every notebook, full marks expected), laid out
as nbgrader's ``submitted/<student>/workshop/<notebook>.ipynb``. Both timings are wall-clock
for the whole batch, start-up included, plus the CPU seconds of every process the grader ran
(on a busy machine the CPU figures are the steadier comparison). What each grader prepares once
is done before the timing: nbgrader's prepared database (`workshop setup`) and assignment;
`workshop grade`'s prepared database, the bytecode of its sandbox's imports and the embeddings
of the untouched released notebooks (grader/caches.py, in the user cache, once per library
version; printed as "one-time"). `workshop grade` still pays for its reference run (the
instructor's solutions, once per results folder). Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _cpu() -> float:
    """CPU seconds of every finished child process (and theirs) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(args: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float]:
    """Run a command; return (wall seconds, CPU seconds of it and all its descendants)."""
    started, cpu = time.perf_counter(), _cpu()
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return time.perf_counter() - started, _cpu() - cpu


def _submissions(base: Path, n: int) -> Path:
    from grader.notebook_folders import notebook_paths

    submitted = base / "course" / "submitted"
    for i in range(n):
        folder = submitted / f"student{i:03d}" / "workshop"
        folder.mkdir(parents=True)
        for nb in notebook_paths():
            shutil.copy(nb, folder / nb.name)
    return submitted


def prepare_workshop() -> float:
    """What `workshop grade` builds once per library version; returns the seconds it took."""

    sys.path.insert(0, str(ROOT))
    from grader.caches import prepare_bytecode, prepare_embeddings, shared_template
    from grader.sources import load_sources

    started = time.perf_counter()
    template = shared_template()
    prepare_bytecode()
    prepare_embeddings(load_sources(), template)
    return time.perf_counter() - started


def bench_workshop(submitted: Path, out: Path, workers: int | None):
    """Time `workshop grade`; return (seconds, CPU seconds, rows ok, rows)."""
    args = [str(BIN / "workshop"), "grade", str(submitted), "--out", str(out), "--force"]
    if workers:
        args += ["--workers", str(workers)]
    seconds, cpu = _run(args, ROOT)
    # The sandboxes' processes are reaped inside their PID namespaces, so RUSAGE_CHILDREN
    # misses them: their CPU comes from the runner's own accounting (RESULTS/.stats.json).
    stats = json.loads((out / ".stats.json").read_text(encoding="utf-8"))
    cpu += stats["sandbox_cpu_s"]
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return seconds, cpu, sum(r["status"] == "ok" for r in rows), len(rows)


def bench_nbgrader(base: Path, n: int) -> tuple[float, float, int]:
    """Time stock `nbgrader autograde`; return (seconds, CPU seconds, students full marks)."""
    from grader.notebook_folders import notebook_paths

    course = base / "course"
    source = course / "source" / "workshop"
    source.mkdir(parents=True)
    for nb in notebook_paths():
        shutil.copy(nb, source / nb.name)
    shutil.copy(ROOT / "grader" / "nbgrader_config.py", course)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.update(WORKSHOP_DATA_DIR=str(base / "nbgrader-data"), WORKSHOP_LLM="offline")
    nbgrader = [sys.executable, "-m", "nbgrader"]
    _run([sys.executable, "-m", "agent_harness.interfaces.cli", "setup"], ROOT, env)  # prepared db
    _run([*nbgrader, "db", "assignment", "add", "workshop"], course, env)
    _run([*nbgrader, "generate_assignment", "workshop", "--force"], course, env)
    students = base / "students.csv"
    students.write_text("id\n" + "".join(f"student{i:03d}\n" for i in range(n)))
    _run([*nbgrader, "db", "student", "import", str(students)], course, env)
    seconds, cpu = _run([*nbgrader, "autograde", "workshop", "--force"], course, env)
    _run([*nbgrader, "export"], course, env)
    with open(course / "grades.csv", newline="") as f:
        full = sum(float(r["score"]) == float(r["max_score"]) > 0 for r in csv.DictReader(f))
    return seconds, cpu, full


def main() -> None:
    """Run both graders and print the comparison."""
    from grader.notebook_folders import notebook_paths

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=30, help="submissions (default 30)")
    parser.add_argument("--workers", type=int, default=None, help="workshop grade --workers")
    parser.add_argument("--skip-nbgrader", action="store_true", help="time workshop grade only")
    args = parser.parse_args()
    notebooks = len(notebook_paths())
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.n} submissions x {notebooks} notebooks, {os.cpu_count()} CPUs, load {load:.1f}")
    print(
        f"one-time       : {prepare_workshop():7.1f} s  (prepared database, bytecode, "
        "untouched notebooks' embeddings; cached)"
    )
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        base = Path(tmp)
        submitted = _submissions(base, args.n)
        ours, ours_cpu, ok, rows = bench_workshop(submitted, base / "results", args.workers)
        print(
            f"workshop grade : {ours:7.1f} s  {ours / args.n:5.2f} s/submission  "
            f"cpu {ours_cpu / args.n:5.2f} s/submission  ({ok}/{rows} grade cells ok)"
        )
        if args.skip_nbgrader:
            return
        theirs, theirs_cpu, full = bench_nbgrader(base, args.n)
        print(
            f"nbgrader       : {theirs:7.1f} s  {theirs / args.n:5.2f} s/submission  "
            f"cpu {theirs_cpu / args.n:5.2f} s/submission  ({full}/{args.n} students full marks)"
        )
        ratio, cpu_ratio = theirs / ours, theirs_cpu / ours_cpu
        print(
            f"ratio          : {ratio:5.2f}x faster wall clock (target 8x: "
            f"{'met' if ratio >= 8 else 'MISSED'}); {cpu_ratio:4.2f}x less CPU (target 4x: "
            f"{'met' if cpu_ratio >= 4 else 'MISSED'})"
        )
    load_now = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load at the end: {load_now:.1f}")


if __name__ == "__main__":
    main()
