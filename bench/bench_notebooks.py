"""Time the workshop series: papermill runs every solution notebook (embedded, offline model).

    .venv/bin/python bench/bench_notebooks.py                      # every notebook, its total
    .venv/bin/python bench/bench_notebooks.py --cells 08 09        # and each code cell's time
    .venv/bin/python bench/bench_notebooks.py --cells --over 5     # only cells over 5 s

Prints seconds per notebook and the total (target: the whole series under 3 minutes on a
2-core machine), and the load average before and after (the figures move with it). Each
notebook gets a fresh copy of one prepared database, as in the tests. With ``--cells`` every
code cell's time follows its notebook's line (papermill records it in the cell's metadata),
marked ``pre-built``, ``TODO`` or ``check``, with its first line: the target is no pre-built
cell over 5 s (a check cell runs the attendee's code; its time is theirs too).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: The target for a pre-built cell (issue 28): an attendee waits no longer without output.
PREBUILT_TARGET_S = 5.0


def _kind(cell) -> str:
    info = cell.get("metadata", {}).get("nbgrader", {})
    if info.get("solution"):
        return "TODO"
    return "check" if info.get("grade") else "pre-built"


def cell_times(nb) -> list[tuple[int, str, float, str]]:
    """``(code cell number, kind, seconds, first line)`` of an executed notebook's code cells,
    from the ``papermill.duration`` papermill writes into each cell's metadata."""
    found, number = [], 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        number += 1
        seconds = (cell.metadata.get("papermill") or {}).get("duration") or 0.0
        first = next((line for line in cell.source.splitlines() if line.strip()), "")
        found.append((number, _kind(cell), float(seconds), first[:60]))
    return found


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="numbers or names (default: all)")
    parser.add_argument("--cells", action="store_true", help="print each code cell's time")
    parser.add_argument("--over", type=float, default=0.0, help="with --cells: only slower cells")
    args = parser.parse_args(argv)
    import nbformat
    import papermill

    from grader.grade import prepare_template
    from grader.notebook_folders import notebook_paths

    paths = notebook_paths()
    if args.notebooks:
        paths = [p for p in paths if any(p.stem.startswith(n) for n in args.notebooks)]
    print(_load())
    slow_prebuilt = []
    with tempfile.TemporaryDirectory(prefix="bench-nb-") as tmp:
        started = time.monotonic()
        template = prepare_template(Path(tmp) / "template")
        print(f"prepare database template: {time.monotonic() - started:.1f}s")
        total = 0.0
        for path in paths:
            work = Path(tmp) / path.stem
            shutil.copytree(template, work / ".workshop")
            os.environ["WORKSHOP_DATA_DIR"] = str(work / ".workshop")
            started = time.monotonic()
            papermill.execute_notebook(
                str(path),
                str(work / "out.ipynb"),
                kernel_name="python3",
                cwd=str(work),
                parameters={"backend": "embedded", "llm_mode": "offline"},
                progress_bar=False,
            )
            seconds = time.monotonic() - started
            total += seconds
            print(f"{path.stem:<28} {seconds:6.1f}s")
            if not args.cells:
                continue
            for number, kind, took, first in cell_times(nbformat.read(work / "out.ipynb", 4)):
                if took >= args.over:
                    print(f"    cell {number:>2} {kind:<9} {took:6.2f}s  {first}")
                if kind == "pre-built" and took > PREBUILT_TARGET_S:
                    slow_prebuilt.append(f"{path.stem} cell {number} ({took:.1f}s)")
        print(f"{'total':<28} {total:6.1f}s (the series: target < 180 s)")
    if args.cells:
        print(
            f"pre-built cells over {PREBUILT_TARGET_S:.0f} s: "
            + (", ".join(slow_prebuilt) if slow_prebuilt else "none")
        )
    print(_load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
