"""``workshop kit build``: write a room kit, one folder that installs the workshop offline.

The steps, in order (each file's sha256 is checked as it is written, and the manifest is
written last, so a kit whose build stopped half-way has no manifest and is refused):

1. plan: the best wheel of every locked release for every platform x Python, and uv's wheel
   per platform (``agent_harness/kit/plan.py``); a gap stops the build before any download;
2. fetch the planned files into ``wheels/`` and ``installer/`` (copied from local folders when
   they hold them, else downloaded from the index, once each however many targets share them);
3. the project: its tracked files as ``project/source.zip`` and, built from that zip, its wheel;
   without the instructor's material (:data:`INSTRUCTOR_ONLY`: solutions, hidden value checks,
   tests, benchmarks) unless ``instructor`` is asked for: a kit handed to the attendees of a
   graded course must not carry the answers;
4. the released notebooks, the lock, README-KIT.md and (``--oracle``) the Oracle Free image;
5. manifest.json: every file's sha256 and size, the files each target installs, sizes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tqdm import tqdm

from agent_harness.foundation.config import PROJECT_ROOT
from agent_harness.kit import manifest as kit_manifest
from agent_harness.kit.plan import KitPlan, plan_kit
from agent_harness.kit.sources import PYPI, LocalFiles, PackageIndex, fetch
from agent_harness.kit.targets import platform

__all__ = ["BuildResult", "KitBuildError", "build_kit", "uv_version"]

WHEELS, INSTALLER, PROJECT, NOTEBOOKS = "wheels", "installer", "project", "notebooks"
SOURCE_ZIP = f"{PROJECT}/source.zip"
#: Folders an attendee's kit leaves out (the released notebooks and ``workshop check`` need
#: none of them: tests/test_student_check.py runs the check in such a layout). ``solutions/``
#: holds one folder per notebook: its solution, value checks (probes) and other answers.
INSTRUCTOR_ONLY = ("solutions/", "tests/", "bench/")
ORACLE = "oracle"


class KitBuildError(RuntimeError):
    """The kit cannot be built as asked (a gap in the lock's wheels, the index, a tool)."""


@dataclass(frozen=True)
class BuildResult:
    """What a build wrote: the manifest, the bytes copied and downloaded, the seconds."""

    manifest: dict
    copied: int
    downloaded: int
    seconds: float


def uv_version(root: Path = PROJECT_ROOT) -> str:
    """The uv release setup/bootstrap.py installs (its UV_REQUIREMENT)."""
    text = (root / "setup" / "bootstrap.py").read_text("utf-8")
    return re.search(r'UV_REQUIREMENT = "uv==([^"]+)"', text).group(1)


def _bar(total: int, desc: str, unit: str = "file", **kwargs) -> tqdm:
    return tqdm(
        total=total, desc=desc, unit=unit, file=sys.stderr, disable=not sys.stderr.isatty(),
        **kwargs,
    )  # fmt: skip


def _gap_message(plan: KitPlan) -> str:
    lines = []
    for (key, python), gaps in plan.gaps.items():
        where = f"{key}, Python {python}" if python != "installer" else f"{key}, installer"
        shown = ", ".join(gaps[:8]) + (f" and {len(gaps) - 8} more" if len(gaps) > 8 else "")
        lines.append(f"  {where}: no wheel of {shown}")
        reason = platform(key).unsupported
        if reason and reason not in lines:
            lines.append(f"  ({reason})")
    return "the lock cannot be served from wheels alone:\n" + "\n".join(dict.fromkeys(lines))


KIT_ENTRIES = {WHEELS, INSTALLER, PROJECT, NOTEBOOKS, ORACLE, kit_manifest.MANIFEST,
               kit_manifest.README, kit_manifest.LOCK_COPY}  # fmt: skip


def _check_out(out: Path) -> None:
    """A kit is written into a new or empty folder, or over a kit: never over anything else
    (a build replaces project/ and notebooks/ there)."""
    strangers = (
        sorted(p.name for p in out.iterdir() if p.name not in KIT_ENTRIES) if out.is_dir() else []
    )
    if strangers or out == PROJECT_ROOT or PROJECT_ROOT.is_relative_to(out):
        shown = ", ".join(strangers[:5]) or "the project itself"
        raise KitBuildError(f"{out} holds more than a kit ({shown}): choose a new or empty folder")


def _fetch_all(out: Path, plan: KitPlan, index: PackageIndex | None) -> tuple[int, int]:
    """Write every planned file once; returns (bytes copied, bytes downloaded)."""
    wanted = {f"{WHEELS}/{f.filename}": f for files in plan.wheels.values() for f in files}
    wanted |= {f"{INSTALLER}/{f.filename}": f for f in plan.installers.values()}
    for folder in (WHEELS, INSTALLER):
        (out / folder).mkdir(parents=True, exist_ok=True)
        for path in (out / folder).iterdir():  # files of an older build that this one drops
            if f"{folder}/{path.name}" not in wanted:
                path.unlink()
    todo = {
        name: f
        for name, f in wanted.items()
        if not (f.path is not None and f.path.resolve() == (out / name).resolve())
    }
    copied = sum(f.size for f in todo.values() if f.path is not None)
    downloaded = sum(f.size for f in todo.values() if f.path is None)
    client = index.client if index is not None else None
    with _bar(copied + downloaded, "kit files", unit="B", unit_scale=True) as bar:
        for name, file in todo.items():
            fetch(file, out / name, client, bar.update)
    return copied, downloaded


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(PROJECT_ROOT), *args], capture_output=True, text=True, timeout=60
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _source_files(out: Path, instructor: bool = False) -> list[str]:
    """The project's files git does not ignore (tracked or new), else every file outside the
    usual ignored folders; without :data:`INSTRUCTOR_ONLY` unless ``instructor``."""
    names = _project_files(out)
    return names if instructor else [n for n in names if not n.startswith(INSTRUCTOR_ONLY)]


def _project_files(out: Path) -> list[str]:
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is not None:
        names = [n for n in listed.split("\0") if n and (PROJECT_ROOT / n).is_file()]
        # a kit written inside the project is not part of the project's source
        return sorted(n for n in names if not (PROJECT_ROOT / n).resolve().is_relative_to(out))
    skip = {".git", ".venv", ".workshop", "build", "dist", "course", "__pycache__"}
    return sorted(
        str(p.relative_to(PROJECT_ROOT)).replace("\\", "/")
        for p in PROJECT_ROOT.rglob("*")
        if p.is_file()
        and not skip & set(p.relative_to(PROJECT_ROOT).parts)
        and not p.resolve().is_relative_to(out)
    )


def _write_project(out: Path, instructor: bool = False) -> str:
    """project/source.zip (the tracked files) and the wheel built from it; the wheel's name."""
    (out / PROJECT).mkdir(parents=True)
    with zipfile.ZipFile(out / SOURCE_ZIP, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in _source_files(out, instructor):
            archive.write(PROJECT_ROOT / name, name)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        with zipfile.ZipFile(out / SOURCE_ZIP) as archive:
            archive.extractall(source)
        # the environment's setuptools (a locked package): no build isolation, no network
        command = [
            sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
            "--quiet", "--disable-pip-version-check", "-w", str(out / PROJECT), str(source),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise KitBuildError(f"building the project's wheel failed:\n{done.stderr[-2000:]}")
    (wheel,) = (out / PROJECT).glob("*.whl")
    return f"{PROJECT}/{wheel.name}"


def _readme(manifest: dict) -> str:
    project = manifest["project"]
    pythons = ", ".join(manifest["pythons"])
    return (
        f"Offline kit of {project['name']} {project['version']} (commit "
        f"{(project['commit'] or '?')[:12]}, built {manifest['built'][:10]}) for "
        f"{', '.join(manifest['targets'])} with Python {pythons}.\n"
        "Install with no network, in the workshop's folder (no copy of it? unzip "
        "project/source.zip): `python3 setup/bootstrap.py --kit PATH_TO_THIS_FOLDER` "
        "(Windows: `py -3.12 setup\\bootstrap.py --kit PATH_TO_THIS_FOLDER`).\n"
        "After copying the kit, check the copy with `workshop kit verify PATH_TO_THIS_FOLDER` "
        "(bootstrap checks it too and names any missing or damaged file): see manifest.json.\n"
    )


def build_kit(
    out: Path,
    platforms: list[str],
    pythons: list[str],
    find_links: list[Path] = (),
    index_url: str | None = PYPI,
    oracle: bool = False,
    echo=print,
    instructor: bool = False,
) -> BuildResult:
    """Write a kit into ``out`` (see the module's docstring); ``instructor``: the project's
    source with the solutions, hidden value checks, tests and benchmarks (an instructor's kit).

    Raises:
        KitBuildError: A platform the lock cannot serve, a gap, the index unreachable, a
            file whose bytes are not the lock's, the project's wheel not building.
    """
    started = time.monotonic()
    out = Path(out).resolve()
    _check_out(out)
    if oracle:  # Docker's engine is asked for before any download, not after
        from agent_harness.backends.oracle.kit_image import KitImageError, require_engine

        try:
            require_engine()
        except KitImageError as e:
            raise KitBuildError(str(e)) from e
    lock = PROJECT_ROOT / "requirements.lock"
    local = LocalFiles([out / WHEELS, out / INSTALLER, *map(Path, find_links)])
    index = PackageIndex(index_url) if index_url else None
    try:
        plan = _plan(platforms, pythons, local, index)
        echo(f"planned: {len(plan.wheels)} targets, index asked about {plan.asked_index} releases")
        out.mkdir(parents=True, exist_ok=True)
        (out / kit_manifest.MANIFEST).unlink(missing_ok=True)  # a kit is whole or refused
        copied, downloaded = _fetch_all(out, plan, index)
    finally:
        if index is not None:
            index.close()
    for folder in (PROJECT, NOTEBOOKS):
        shutil.rmtree(out / folder, ignore_errors=True)
    project_wheel = _write_project(out, instructor)
    (out / NOTEBOOKS).mkdir()
    notebooks = []
    for notebook in sorted((PROJECT_ROOT / "notebooks").glob("*.ipynb")):
        shutil.copyfile(notebook, out / NOTEBOOKS / notebook.name)
        notebooks.append(f"{NOTEBOOKS}/{notebook.name}")
    lock_text = lock.read_text("utf-8").replace("\r\n", "\n")
    (out / kit_manifest.LOCK_COPY).write_text(lock_text, "utf-8", newline="\n")
    image = None
    if oracle:
        from agent_harness.backends.oracle.kit_image import KitImageError, save_image

        try:
            image = save_image(out / ORACLE, echo)
        except KitImageError as e:
            raise KitBuildError(str(e)) from e
    manifest = _manifest(out, plan, platforms, pythons, lock_text, project_wheel, notebooks, image)
    manifest["project"]["contents"] = "instructor" if instructor else "attendee"
    (out / kit_manifest.README).write_text(_readme(manifest), "utf-8", newline="\n")
    manifest["files"][kit_manifest.README] = _entry(out / kit_manifest.README)
    manifest["size"] = sum(f["size"] for f in manifest["files"].values())
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    (out / kit_manifest.MANIFEST).write_text(text, "utf-8", newline="\n")
    return BuildResult(manifest, copied, downloaded, time.monotonic() - started)


def _entry(path: Path) -> dict:
    return {"sha256": kit_manifest.sha256_of(path), "size": path.stat().st_size}


def _manifest(out, plan, platforms, pythons, lock_text, project_wheel, notebooks, image) -> dict:
    files = {}
    for files_ in plan.wheels.values():
        for f in files_:
            files[f"{WHEELS}/{f.filename}"] = {"sha256": f.sha256, "size": f.size}
    for f in plan.installers.values():
        files[f"{INSTALLER}/{f.filename}"] = {"sha256": f.sha256, "size": f.size}
    common = [kit_manifest.LOCK_COPY, project_wheel, SOURCE_ZIP, *notebooks]
    for name in common:
        files[name] = _entry(out / name)
    targets = {}
    for key in platforms:
        by_python = {
            python: sorted(f"{WHEELS}/{f.filename}" for f in plan.wheels[(key, python)])
            for python in pythons
        }
        installer = f"{INSTALLER}/{plan.installers[key].filename}"
        mine = {*common, installer, *(n for names in by_python.values() for n in names)}
        targets[key] = {
            "installer": installer,
            "needs": plan.needs(key),
            "pythons": by_python,
            "size": sum(files[n]["size"] for n in mine),
        }
    project = {
        "name": "agent-harness-workshop",
        "version": project_wheel.split("-")[1],
        "commit": (_git("rev-parse", "HEAD") or "").strip() or None,
        "changed": bool((_git("status", "--porcelain") or "").strip()),
    }
    manifest = {
        "format": kit_manifest.FORMAT,
        "built": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "project": project,
        "lock_sha256": kit_manifest.lock_sha256(lock_text),
        "installer": f"uv=={uv_version()}",
        "platforms": list(platforms),
        "pythons": list(pythons),
        "common": common,
        "targets": targets,
        "files": files,
        "oracle": image,
    }
    if image:
        files[image["file"]] = {"sha256": image["sha256"], "size": image["size"]}
    return manifest


def _plan(platforms, pythons, local: LocalFiles, index: PackageIndex | None) -> KitPlan:
    """The kit's plan from the lock, with a bar over the index's pages; a gap or an index that
    cannot be read is a :class:`KitBuildError`."""
    with _bar(0, "index pages", unit="page") as pages:

        def progress(total):
            pages.reset(total)
            return lambda: pages.update(1)

        lock = PROJECT_ROOT / "requirements.lock"
        try:
            plan = plan_kit(lock, platforms, pythons, local, index, uv_version(), progress)
        except Exception as e:  # the index unreachable, a page that is not JSON
            raise KitBuildError(f"reading the package index failed: {e}") from e
    if plan.gaps:
        raise KitBuildError(_gap_message(plan))
    return plan


def plan_sizes(
    platforms: list[str], pythons: list[str], find_links: list[Path], index_url: str | None
) -> dict[str, tuple[int, int]]:
    """Per platform: how many distribution files and bytes (uv's wheel included) a kit would
    hold, from the index's sizes; nothing is downloaded (the project and notebooks, about
    2 MB, are not counted)."""
    index = PackageIndex(index_url) if index_url else None
    try:
        plan = _plan(platforms, pythons, LocalFiles(map(Path, find_links)), index)
    finally:
        if index is not None:
            index.close()
    sizes = {}
    for key in platforms:
        files = {f.filename: f.size for (k, _), fs in plan.wheels.items() if k == key for f in fs}
        files[plan.installers[key].filename] = plan.installers[key].size
        sizes[key] = (len(files), sum(files.values()))
    return sizes
