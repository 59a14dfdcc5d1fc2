"""Which files of the lock a platform and a Python need: wheel tags and marker environments.

A kit target is one of the README's platforms (:data:`~agent_harness.kit.manifest.PLATFORMS`)
with one Python minor release. Its wheel tags are the ones an installer on that machine accepts,
best first (``packaging.tags``, the library pip and uv's rules follow): Linux means glibc 2.28
or newer (manylinux_2_28 down to manylinux1), macOS means 14 or newer. Its packages are the
lock's entries whose markers hold there, at both ends of the minor release (a marker may split
one, e.g. ``python_full_version < '3.11.5'``).
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path

from packaging import tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from agent_harness.foundation.config import PROJECT_ROOT
from agent_harness.kit.manifest import PLATFORMS, KitPlatform

__all__ = ["GLIBC", "MACOS", "file_needs", "lock_module", "needed_pins", "platform", "wheel_rank"]

GLIBC = (2, 28)  # the newest manylinux the kit takes: setup/lock.py resolves for manylinux_2_28
MACOS = (14, 0)  # onnxruntime's wheels need macOS 14


def platform(key: str) -> KitPlatform:
    """The platform named ``key`` (``linux-x86_64``, ...)."""
    for known in PLATFORMS:
        if known.key == key:
            return known
    raise ValueError(f"unknown platform {key!r}: one of {', '.join(p.key for p in PLATFORMS)}")


def _platform_tags(target: KitPlatform) -> list[str]:
    if target.sys_platform == "linux":
        arch = target.machine
        legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
        found = []
        for minor in range(GLIBC[1], 4, -1):
            found.append(f"manylinux_2_{minor}_{arch}")
            if minor in legacy:
                found.append(f"{legacy[minor]}_{arch}")
        return found
    if target.sys_platform == "darwin":
        return list(tags.mac_platforms(MACOS, target.machine))
    return ["win_amd64"]


@cache
def _ranks(key: str, python: str) -> dict[tags.Tag, int]:
    target = platform(key)
    version = tuple(int(p) for p in python.split("."))
    plats = _platform_tags(target)
    interpreter = f"cp{version[0]}{version[1]}"
    ordered = [
        *tags.cpython_tags(version, [interpreter], plats),
        *tags.compatible_tags(version, interpreter, plats),
    ]
    return {tag: rank for rank, tag in enumerate(dict.fromkeys(ordered))}


def wheel_rank(filename: str, key: str, python: str) -> int | None:
    """How good a wheel is for a target (0 is best), None when it does not install there."""
    if not filename.endswith(".whl"):
        return None  # an sdist would need building at install time, with no network
    try:
        _, _, _, file_tags = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return None
    ranks = _ranks(key, python)
    found = [ranks[t] for t in file_tags if t in ranks]
    return min(found) if found else None


def file_needs(filename: str) -> tuple[int, ...] | None:
    """The oldest glibc (Linux) or macOS a wheel installs on; None for any other wheel."""
    _, _, _, file_tags = parse_wheel_filename(filename)
    versions = []
    for tag in file_tags:
        parts = tag.platform.split("_")
        if parts[0] == "manylinux" and len(parts) > 3:
            versions.append((int(parts[1]), int(parts[2])))
        elif tag.platform.startswith("manylinux") and parts[0][9:].isdigit():
            versions.append({"2014": (2, 17), "2010": (2, 12), "1": (2, 5)}[parts[0][9:]])
        elif parts[0] == "macosx":
            versions.append((int(parts[1]), int(parts[2])))
    return min(versions) if versions else None


@cache
def lock_module():
    """setup/lock.py (its lock reader and marker environments), loaded by path."""
    name = "workshop_setup_lock"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, PROJECT_ROOT / "setup" / "lock.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules[name]


def needed_pins(pins: list, key: str, python: str) -> list:
    """The lock's entries installed on ``key`` with ``python`` (both ends of the release)."""
    lock = lock_module()
    target = platform(key)
    as_tuple = ("", target.sys_platform, target.machine, target.os_name, target.system)
    found = {}
    for full in (f"{python}.0", f"{python}.99"):
        for entries in lock.applicable(pins, lock.environment(full, as_tuple)).values():
            for pin in entries:
                found[(pin.name, pin.version)] = pin
    return list(found.values())


def read_pins(lock_path: Path) -> list:
    """The entries of a lock file (setup/lock.py's reader)."""
    return lock_module().read_lock(lock_path.read_text("utf-8"))
