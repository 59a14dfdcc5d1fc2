"""The room kit's manifest and the checks made before anything is installed from a kit.

A kit is one folder (see ``agent_harness/kit/build.py``)::

    README-KIT.md        three lines: what it is, how to install, how to check a copy
    manifest.json        every file's sha256 and size, what each platform and Python needs
    requirements.lock    the lock the kit was built from
    wheels/              every distribution file the lock pins, for the kit's platforms
    installer/           uv's wheel for each platform (the installer bootstrap uses)
    project/             the workshop as a wheel, and its source as a zip
    notebooks/           the released notebooks
    oracle/              (optional) the Oracle Free image, as `docker save` wrote it

Standard library only: ``setup/bootstrap.py`` loads this file by path, before any package is
installed, to refuse a kit for another platform, a kit built from another lock, or a missing or
corrupt file before it creates or changes anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform as _platform
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FORMAT",
    "MANIFEST",
    "PLATFORMS",
    "PYTHONS",
    "KitPlatform",
    "KitProblem",
    "files_for",
    "check_for_install",
    "check_files",
    "lock_pins",
    "lock_sha256",
    "read_manifest",
    "sha256_of",
    "this_machine",
]

FORMAT = 1
MANIFEST = "manifest.json"
README = "README-KIT.md"
LOCK_COPY = "requirements.lock"
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
VERIFY_HINT = "copy the kit again from the original, then check it with `workshop kit verify`"
REBUILD_HINT = "rebuild it with `workshop kit build` on a machine with network"


@dataclass(frozen=True)
class KitPlatform:
    """A platform the README names, as a kit key and as environment-marker values."""

    key: str  # linux-x86_64, ..., what --platform takes and the manifest records
    label: str
    sys_platform: str
    machine: str  # platform_machine as the lock's markers see it
    os_name: str
    system: str
    unsupported: str = ""  # why the lock cannot serve it ("" when it can)


# Intel Macs: onnxruntime >= 1.24 (the embedding model's runtime) and cryptography (under
# oracledb) publish no macOS x86_64 wheels, so no lock release installs there (setup/lock.py).
INTEL_MAC = (
    "the lock's onnxruntime, cryptography and argon2-cffi-bindings publish no Intel Mac wheels: "
    "the workshop installs on macOS 14+ with Apple silicon only. On an Intel Mac use a Linux "
    "virtual machine with the linux-x86_64 kit, or a Codespace when the network is back"
)
PLATFORMS = (
    KitPlatform("linux-x86_64", "Linux x86-64", "linux", "x86_64", "posix", "Linux"),
    KitPlatform("linux-aarch64", "Linux ARM64", "linux", "aarch64", "posix", "Linux"),
    KitPlatform("macos-arm64", "macOS 14+ on Apple silicon", "darwin", "arm64", "posix", "Darwin"),
    KitPlatform("macos-x86_64", "macOS on Intel", "darwin", "x86_64", "posix", "Darwin", INTEL_MAC),
    KitPlatform("windows-amd64", "Windows x64", "win32", "AMD64", "nt", "Windows"),
)


@dataclass(frozen=True)
class KitProblem:
    """Why a kit cannot be used: the file concerned, what is wrong, what to do."""

    file: str
    problem: str
    remedy: str

    def __str__(self) -> str:
        return f"{self.file}: {self.problem}; {self.remedy}"


def this_machine() -> tuple[str, str]:
    """This machine's kit platform key (e.g. ``linux-x86_64``) and Python (``3.12``)."""
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform)
    machine = _platform.machine().lower()
    arch = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64"}
    arch = arch.get(machine, machine)
    if system == "macos" and arch == "aarch64":
        arch = "arm64"
    if system == "windows" and arch == "x86_64":
        arch = "amd64"
    return f"{system or sys.platform}-{arch}", f"{sys.version_info[0]}.{sys.version_info[1]}"


def os_version(system: str) -> tuple[int, ...] | None:
    """glibc's version on Linux, macOS's version on a Mac (None: unknown, or not glibc)."""
    try:
        if system == "linux":
            name, _, version = (os.confstr("CS_GNU_LIBC_VERSION") or "").partition(" ")
            return tuple(map(int, version.split("."))) if name == "glibc" else None
        if system == "macos":
            return tuple(map(int, _platform.mac_ver()[0].split(".")))
    except (ValueError, OSError):
        return None
    return None


def sha256_of(path: Path, progress: Callable[[int], object] | None = None) -> str:
    """The sha256 of a file, read in 1 MiB blocks (``progress`` gets each block's size)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
            if progress:
                progress(len(block))
    return digest.hexdigest()


def lock_sha256(text: str) -> str:
    """The sha256 of a lock's text with LF line ends (a Windows checkout may have CRLF)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def lock_pins(text: str) -> set[str]:
    """``name==version`` of every entry of a hashed lock (entries start at column 0)."""
    return {
        line.split(";")[0].split()[0].lower()
        for line in text.splitlines()
        if line[:1].isalnum() and "==" in line
    }


def read_manifest(kit: Path) -> tuple[dict | None, list[KitProblem]]:
    """The kit's manifest, or the problem that stops it being read."""
    path = Path(kit) / MANIFEST
    if not Path(kit).is_dir():
        return None, [KitProblem(str(kit), "no such folder", "pass the kit's folder")]
    if not path.is_file():
        what = "pass the folder that holds README-KIT.md and manifest.json"
        return None, [KitProblem(str(path), "missing: this is not a workshop kit", what)]
    try:
        manifest = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as e:
        return None, [KitProblem(str(path), f"unreadable ({e})", VERIFY_HINT)]
    if manifest.get("format") != FORMAT:
        problem = f"kit format {manifest.get('format')!r}, this checkout reads {FORMAT}"
        return None, [KitProblem(str(path), problem, REBUILD_HINT + " from this checkout")]
    return manifest, []


def files_for(manifest: dict, key: str, python: str) -> list[str]:
    """The kit files an install on ``key`` with ``python`` reads: the lock it was built from,
    that platform's installer (uv's wheel) and its wheels for that Python."""
    target = manifest["targets"][key]
    return [LOCK_COPY, target["installer"], *target["pythons"][python]]


def check_files(
    kit: Path,
    manifest: dict,
    names: Iterable[str],
    progress: Callable[[int], object] | None = None,
) -> list[KitProblem]:
    """Each named file exists, has the manifest's size and sha256 (size first: a short copy is
    found without reading it)."""
    problems = []
    for name in names:
        expected = manifest["files"].get(name)
        path = Path(kit) / name
        if expected is None:
            problems.append(KitProblem(name, "not in manifest.json", REBUILD_HINT))
        elif not path.is_file():
            problems.append(KitProblem(name, "missing (lost in the copy)", VERIFY_HINT))
        elif path.stat().st_size != expected["size"]:
            size = f"{path.stat().st_size:,} bytes instead of {expected['size']:,}"
            problems.append(KitProblem(name, f"corrupt: {size}", VERIFY_HINT))
            if progress:
                progress(expected["size"])
        elif sha256_of(path, progress) != expected["sha256"]:
            problems.append(
                KitProblem(name, "corrupt: its sha256 is not the manifest's", VERIFY_HINT)
            )
    return problems


def _lock_problem(kit: Path, manifest: dict, lock: Path) -> KitProblem | None:
    text = lock.read_text("utf-8")
    if lock_sha256(text) == manifest["lock_sha256"]:
        return None
    try:
        kit_pins = lock_pins((Path(kit) / LOCK_COPY).read_text("utf-8"))
    except OSError:
        kit_pins = set()
    lacking = sorted(lock_pins(text) - kit_pins)
    shown = ", ".join(lacking[:4]) + (f" and {len(lacking) - 4} more" if len(lacking) > 4 else "")
    commit = manifest.get("project", {}).get("commit") or "?"
    problem = (
        f"this checkout's {lock.name} is not the one the kit was built from (kit built "
        f"{manifest.get('built', '?')} at commit {commit[:12]}"
        + (f"; the kit lacks {shown})" if lacking else ")")
    )
    remedy = f"{REBUILD_HINT}, or use the checkout the kit carries (project/source.zip)"
    return KitProblem(LOCK_COPY, problem, remedy)


def _platform_problem(manifest: dict, key: str, python: str) -> KitProblem | None:
    known = {p.key: p for p in PLATFORMS}
    held = ", ".join(
        f"{k} (Python {', '.join(t['pythons'])})" for k, t in manifest["targets"].items()
    )
    if key in known and known[key].unsupported:
        return KitProblem(MANIFEST, f"this laptop is {known[key].label}", known[key].unsupported)
    if key not in manifest["targets"]:
        what = f"this kit is for {held}; this laptop is {key}"
        fix = f"use a kit built for it (`workshop kit build OUT --platform {key}`)"
        if key not in known:
            fix = f"the workshop supports {', '.join(k for k in known if not known[k].unsupported)}"
        return KitProblem(MANIFEST, what, fix)
    if python not in manifest["targets"][key]["pythons"]:
        pythons = ", ".join(manifest["targets"][key]["pythons"])
        return KitProblem(
            MANIFEST,
            f"this kit holds Python {pythons} for {key}; this is Python {python}",
            f"run bootstrap with Python {pythons.split(', ')[-1]} (e.g. python{pythons[-4:]} "
            f"setup/bootstrap.py), or build a kit with `--python {python}`",
        )
    return None


def _os_problem(manifest: dict, key: str) -> KitProblem | None:
    """The kit's wheels need glibc (Linux) or macOS at least the version the manifest says."""
    needs = manifest["targets"][key].get("needs")
    if not needs:
        return None
    system = key.split("-")[0]
    have = os_version(system)
    wanted = tuple(map(int, needs.split(".")))
    what = {"linux": "glibc", "macos": "macOS"}[system]
    if have is None and system == "linux":
        return KitProblem(
            MANIFEST,
            f"no glibc found; the kit's wheels need {what} {needs}",
            "use a glibc Linux (Debian, Ubuntu, Fedora)",
        )
    if have is not None and have < wanted:
        shown = ".".join(map(str, have))
        return KitProblem(
            MANIFEST,
            f"{what} {shown} is older than the {needs} the kit's wheels need",
            f"update to {what} {needs} or newer",
        )
    return None


def check_for_install(
    kit: Path, lock: Path, key: str | None = None, python: str | None = None
) -> list[KitProblem]:
    """Everything that stops an install from ``kit`` on this machine, before anything is done:
    the manifest, the lock the kit was built from, the platform and Python, the OS version,
    and every file the install reads (present, size, sha256)."""
    manifest, problems = read_manifest(kit)
    if manifest is None:
        return problems
    here_key, here_python = this_machine()
    key, python = key or here_key, python or here_python
    for problem in (
        _lock_problem(kit, manifest, lock),
        _platform_problem(manifest, key, python),
    ):
        if problem:
            return [problem]
    os_problem = _os_problem(manifest, key) if key == here_key else None
    if os_problem:
        return [os_problem]
    return check_files(kit, manifest, files_for(manifest, key, python))
