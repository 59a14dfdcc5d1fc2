"""Find the submissions to grade: nbgrader's layout, student folders or student zips.

Accepted layouts under SUBMISSIONS (or under SUBMISSIONS/submitted for a course folder):

* ``<student>/<assignment>/<notebook>.ipynb`` (nbgrader's ``submitted/``);
* ``<student>/<notebook>.ipynb`` (a folder per student);
* ``<student>.zip`` holding the notebooks anywhere inside (unpacked safely: only ``.ipynb``
  members, no absolute or ``..`` paths, no links, size and count limits).

A notebook is matched to the workshop's notebook by its file name (``02_retrieval.ipynb``,
also ``02_retrieval (1).ipynb`` or ``02_retrieval-Copy1.ipynb``), else by its number prefix.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Submission", "collect", "match_notebook", "safe_student_name"]

MAX_NOTEBOOK_BYTES = 20 << 20
MAX_ZIP_MEMBERS = 200
MAX_ZIP_BYTES = 100 << 20


@dataclass
class Submission:
    """One student's notebooks, matched to the workshop's notebook names."""

    student: str
    notebooks: dict[str, Path] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def fingerprint(self) -> str:
        """A digest of the submitted notebooks' bytes (a changed resubmission is regraded)."""
        digest = hashlib.sha256()
        for name in sorted(self.notebooks):
            digest.update(name.encode() + b"\0" + self.notebooks[name].read_bytes() + b"\0")
        return digest.hexdigest()[:16]


def safe_student_name(raw: str) -> str:
    """A student id safe as a file name and a CSV cell."""
    name = re.sub(r"[^A-Za-z0-9._@+-]", "_", raw).strip("._") or "student"
    return name[:80]


def match_notebook(path: Path, names: list[str]) -> str | None:
    """The workshop notebook a file is (by its name, else its number prefix), or None."""
    stem = path.stem.lower()
    stem = re.sub(r"(\s*\(\d+\)|-copy\d*|_copy\d*|\s+copy\d*)$", "", stem)
    for name in names:
        if stem == name.lower():
            return name
    number = re.match(r"(\d{2})", stem)
    if number:
        found = [n for n in names if n.startswith(number.group(1))]
        if len(found) == 1:
            return found[0]
    return None


def _unzip(archive: Path, target: Path, problems: list[str]) -> Path:
    """Extract only the .ipynb members of a zip, safely; returns the folder."""
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(archive) as zf:
            members = [m for m in zf.infolist() if m.filename.lower().endswith(".ipynb")]
            if len(zf.infolist()) > MAX_ZIP_MEMBERS * 50:
                problems.append(f"{archive.name}: too many files in the zip")
                return target
            total = 0
            for index, member in enumerate(members[:MAX_ZIP_MEMBERS]):
                parts = Path(member.filename.replace("\\", "/")).parts
                mode = member.external_attr >> 16
                if "__MACOSX" in parts or ".ipynb_checkpoints" in parts:
                    continue
                if (
                    member.filename.startswith(("/", "\\"))
                    or ".." in parts
                    or ":" in member.filename
                    or stat.S_ISLNK(mode)
                ):
                    problems.append(f"{member.filename}: unsafe path in the zip, skipped")
                    continue
                total += member.file_size
                if member.file_size > MAX_NOTEBOOK_BYTES or total > MAX_ZIP_BYTES:
                    problems.append(f"{member.filename}: too large, skipped")
                    continue
                out = target / f"{index:03d}" / Path(parts[-1]).name  # keep the file name
                out.parent.mkdir(exist_ok=True)
                with zf.open(member) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError) as e:
        problems.append(f"{archive.name}: not a readable zip ({e})")
    return target


def _notebook_files(folder: Path) -> list[Path]:
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        rel = path.relative_to(folder).parts
        if ".ipynb_checkpoints" in rel or len(rel) > 4 or path.is_symlink():
            continue
        found.append(path)
    return found


def _assign(student: str, files: list[Path], names: list[str], problems: list[str]):
    submission = Submission(student, problems=problems)
    for path in files:
        name = match_notebook(path, names)
        if name is None:
            problems.append(f"{path.name}: not a workshop notebook, ignored")
            continue
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            problems.append(f"{path.name}: larger than {MAX_NOTEBOOK_BYTES >> 20} MB, ignored")
            continue
        exact = path.stem.lower().endswith(name.lower())
        if name in submission.notebooks and not exact:
            problems.append(f"{path.name}: a second copy of {name}, ignored")
            continue
        submission.notebooks[name] = path
    return submission


def collect(root: Path, names: list[str], unpack_dir: Path) -> list[Submission]:
    """Every submission under ``root``, sorted by student.

    Args:
        root: The SUBMISSIONS folder (nbgrader ``submitted/``, a course folder, or a folder of
            student folders and zips).
        names: The workshop's notebook names (file stems of solutions/).
        unpack_dir: Where zips are extracted (one folder per student).

    Raises:
        FileNotFoundError: ``root`` does not exist.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder of submissions")
    if (root / "submitted").is_dir():
        root = root / "submitted"
    by_student: dict[str, Submission] = {}
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        problems: list[str] = []
        if entry.is_dir():
            student = safe_student_name(entry.name)
            files = _notebook_files(entry)
        elif entry.suffix.lower() == ".zip":
            student = safe_student_name(entry.stem)
            files = _notebook_files(_unzip(entry, Path(unpack_dir) / student, problems))
        else:
            continue
        if student in by_student:
            student = f"{student}_{len(by_student)}"
        by_student[student] = _assign(student, files, names, problems)
    return [by_student[s] for s in sorted(by_student)]
