"""Generate the student notebooks in notebooks/ from the instructor sources in solutions/.

The same steps as ``nbgrader generate_assignment`` (using nbgrader's own preprocessors), without
needing a course folder or a gradebook:

1. ClearSolutions: the code between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes
   ``# YOUR CODE HERE`` + ``raise NotImplementedError()``.
2. ClearHiddenTests: ``### BEGIN HIDDEN TESTS`` .. ``### END HIDDEN TESTS`` is removed.
3. ClearOutput: no outputs, no execution counts.

Order matters: solutions are cleared before hidden tests so a hidden test can never leak a
solution, and outputs last so nothing computed from a solution survives.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import nbformat

__all__ = ["ROOT", "release_notebook", "release_all", "stale_notebooks", "CODE_STUB"]

ROOT = Path(__file__).resolve().parent.parent
CODE_STUB = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}


def release_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student version of one source notebook (a new object; the input is not changed)."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions

    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    resources: dict = {"language": "python"}
    nb, _ = ClearSolutions(code_stub=CODE_STUB, enforce_metadata=True).preprocess(nb, resources)
    nb, _ = ClearHiddenTests(enforce_metadata=True).preprocess(nb, resources)
    nb, _ = ClearOutput().preprocess(nb, resources)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    return nb


def _rendered(path: Path) -> str:
    nb = release_notebook(nbformat.read(path, as_version=4))
    return nbformat.writes(nb) + "\n"


def release_all(source: Path = ROOT / "solutions", target: Path = ROOT / "notebooks") -> list[Path]:
    """Regenerate every student notebook; returns the files written."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(source.glob("[0-9][0-9]_*.ipynb")):
        out = target / path.name
        out.write_text(_rendered(path), encoding="utf-8")
        written.append(out)
    for old in target.glob("[0-9][0-9]_*.ipynb"):
        if not (source / old.name).exists():
            old.unlink()
    return written


def stale_notebooks(
    source: Path = ROOT / "solutions", target: Path = ROOT / "notebooks"
) -> list[str]:
    """Names of student notebooks that differ from what release would write (or are missing)."""
    stale = []
    for path in sorted(source.glob("[0-9][0-9]_*.ipynb")):
        out = target / path.name
        if not out.exists() or out.read_text(encoding="utf-8") != _rendered(path):
            stale.append(path.name)
    extra = {p.name for p in target.glob("[0-9][0-9]_*.ipynb")} - {
        p.name for p in source.glob("[0-9][0-9]_*.ipynb")
    }
    return stale + sorted(extra)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args()
    if args.check:
        stale = stale_notebooks()
        print("\n".join(stale) or "notebooks/ is up to date")
        raise SystemExit(1 if stale else 0)
    for path in release_all():
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
