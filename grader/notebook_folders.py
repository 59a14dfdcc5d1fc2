"""Where a notebook's files are: one folder per notebook under ``solutions/``.

::

    solutions/NN_name/
        NN_name.ipynb   the instructor's notebook (nbgrader source: solutions, hidden tests)
        probes.py       its value checks, ``PROBES`` (run by ``workshop grade``)
        answers.py      its other answers, graded by the tests: wrong ones (``MUTANTS``,
                        ``WRONG``, ``ALWAYS_EQUAL``, ``VISIBLE``, with ``COVERED_BY``) and
                        correct ones (``CORRECT``, ``MORE_CORRECT``)

The released notebook stays ``notebooks/NN_name.ipynb``. Every tool and test finds the
notebooks with :func:`notebook_paths`, so adding a notebook is adding its folder (and the
README's row). Everything in the folder is instructor-only: the kit leaves ``solutions/`` out.
This module imports nothing of the project's, so anything may use it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = [
    "ANSWERS",
    "PROBES",
    "SOLUTIONS",
    "answers",
    "load_file",
    "notebook_names",
    "notebook_path",
    "notebook_paths",
    "probes_file",
]

SOLUTIONS = Path(__file__).resolve().parent.parent / "solutions"
PROBES = "probes.py"
ANSWERS = "answers.py"
_NUMBERED = "[0-9][0-9]_*"


def notebook_paths(folder: Path | None = None) -> list[Path]:
    """The instructor notebooks in ``folder`` (default ``solutions/``), in order.

    A notebook is ``NN_name/NN_name.ipynb`` (its folder) or ``NN_name.ipynb`` (a copy on its
    own, as a ``--source`` folder or a test's copy holds); its folder wins when both exist.
    """
    found: dict[str, Path] = {}
    for entry in sorted(Path(folder or SOLUTIONS).glob(_NUMBERED)):
        path = entry / f"{entry.name}.ipynb" if entry.is_dir() else entry
        if path.suffix == ".ipynb" and path.is_file():
            found.setdefault(path.stem, path)
    return [found[name] for name in sorted(found)]


def notebook_names(folder: Path | None = None) -> list[str]:
    """The names (``NN_name``) of the instructor notebooks in ``folder``, in order."""
    return [path.stem for path in notebook_paths(folder)]


def notebook_path(name: str, folder: Path | None = None) -> Path:
    """The instructor notebook ``name`` of the project (``solutions/NN_name/NN_name.ipynb``)."""
    return Path(folder or SOLUTIONS) / name / f"{name}.ipynb"


def probes_file(notebook: Path) -> Path:
    """The value checks of the instructor notebook ``notebook``: ``probes.py`` in its folder,
    or for a copy on its own, the project's ``solutions/NN_name/probes.py`` (which need not
    exist: a student distribution has no ``solutions/``)."""
    notebook = Path(notebook)
    if notebook.parent.name == notebook.stem:
        return notebook.parent / PROBES
    return SOLUTIONS / notebook.stem / PROBES


def load_file(path: Path) -> ModuleType:
    """Import the Python file ``path`` of a notebook's folder (the folders are not packages:
    their names start with a digit). Loaded once per path; raises what the import raises."""
    path = Path(path).resolve()
    name = f"_notebook_{path.parent.name}_{path.stem}"
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__file__", None) == str(path):
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def answers(name: str, folder: Path | None = None) -> ModuleType:
    """The ``answers.py`` of the project's notebook ``name``: its tables of other answers."""
    return load_file(Path(folder or SOLUTIONS) / name / ANSWERS)
