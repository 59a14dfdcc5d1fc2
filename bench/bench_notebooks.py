"""Time the workshop series: papermill runs every solution notebook (embedded, offline model).

    .venv/bin/python bench/bench_notebooks.py

Prints seconds per notebook and the total (target: the whole series under 3 minutes on a
2-core machine). Each notebook gets a fresh copy of one prepared database, as in the tests.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    import papermill

    from grader.grade import prepare_template

    with tempfile.TemporaryDirectory(prefix="bench-nb-") as tmp:
        started = time.monotonic()
        template = prepare_template(Path(tmp) / "template")
        print(f"prepare database template: {time.monotonic() - started:.1f}s")
        total = 0.0
        for path in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
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
        print(f"{'series total':<28} {total:6.1f}s (target < 180 s)")


if __name__ == "__main__":
    main()
