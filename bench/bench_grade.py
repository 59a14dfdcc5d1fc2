"""Grade N identical submissions of the full series with `workshop grade` and with stock
`nbgrader autograde`, on this machine, and print seconds per submission and the ratio.

    .venv/bin/python bench/bench_grade.py                 # 30 submissions, both graders
    .venv/bin/python bench/bench_grade.py --n 6 --skip-nbgrader

Each submission is the instructor's solutions (every notebook, full marks expected), laid out
as nbgrader's ``submitted/<student>/workshop/<notebook>.ipynb``. Both timings are wall-clock
for the whole batch, start-up included; `workshop grade` also pays for its reference run and
its prepared database. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _run(args: list[str], cwd: Path, env: dict | None = None) -> float:
    started = time.perf_counter()
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return time.perf_counter() - started


def _submissions(base: Path, n: int) -> Path:
    submitted = base / "course" / "submitted"
    for i in range(n):
        folder = submitted / f"student{i:03d}" / "workshop"
        folder.mkdir(parents=True)
        for nb in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
            shutil.copy(nb, folder / nb.name)
    return submitted


def bench_workshop(base: Path, submitted: Path, workers: int | None) -> tuple[float, int, int]:
    """Time `workshop grade`; return (seconds, rows ok, rows)."""
    out = base / "results"
    args = [str(BIN / "workshop"), "grade", str(submitted), "--out", str(out), "--force"]
    if workers:
        args += ["--workers", str(workers)]
    seconds = _run(args, ROOT)
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return seconds, sum(r["status"] == "ok" for r in rows), len(rows)


def bench_nbgrader(base: Path, n: int) -> tuple[float, int]:
    """Time stock `nbgrader autograde`; return (seconds, students with full marks)."""
    course = base / "course"
    source = course / "source" / "workshop"
    source.mkdir(parents=True)
    for nb in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        shutil.copy(nb, source / nb.name)
    shutil.copy(ROOT / "grader" / "nbgrader_config.py", course)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.update(WORKSHOP_DATA_DIR=str(base / "nbgrader-data"), WORKSHOP_LLM="offline")
    nbgrader = [sys.executable, "-m", "nbgrader"]
    _run([sys.executable, "-m", "agent_harness.cli", "setup"], ROOT, env)  # prepared db
    _run([*nbgrader, "db", "assignment", "add", "workshop"], course, env)
    _run([*nbgrader, "generate_assignment", "workshop", "--force"], course, env)
    students = base / "students.csv"
    students.write_text("id\n" + "".join(f"student{i:03d}\n" for i in range(n)))
    _run([*nbgrader, "db", "student", "import", str(students)], course, env)
    seconds = _run([*nbgrader, "autograde", "workshop", "--force"], course, env)
    _run([*nbgrader, "export"], course, env)
    with open(course / "grades.csv", newline="") as f:
        full = sum(float(r["score"]) == float(r["max_score"]) > 0 for r in csv.DictReader(f))
    return seconds, full


def main() -> None:
    """Run both graders and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=30, help="submissions (default 30)")
    parser.add_argument("--workers", type=int, default=None, help="workshop grade --workers")
    parser.add_argument("--skip-nbgrader", action="store_true", help="time workshop grade only")
    args = parser.parse_args()
    print(
        f"{args.n} submissions x {len(list((ROOT / 'solutions').glob('[0-9][0-9]_*.ipynb')))}"
        f" notebooks, {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        base = Path(tmp)
        submitted = _submissions(base, args.n)
        ours, ok, rows = bench_workshop(base, submitted, args.workers)
        print(
            f"workshop grade : {ours:7.1f} s  {ours / args.n:5.2f} s/submission  "
            f"({ok}/{rows} grade cells ok)"
        )
        if args.skip_nbgrader:
            return
        theirs, full = bench_nbgrader(base, args.n)
        print(
            f"nbgrader       : {theirs:7.1f} s  {theirs / args.n:5.2f} s/submission  "
            f"({full}/{args.n} students full marks)"
        )
        ratio = theirs / ours
        verdict = "met" if ratio >= 3.3 else "MISSED"
        print(f"ratio          : {ratio:5.2f}x faster (floor 3.3x: {verdict}; aim 5x)")


if __name__ == "__main__":
    main()
