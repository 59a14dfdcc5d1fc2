"""``workshop kit verify``: is a copied kit whole? Every file's size and sha256 against the
manifest, and the manifest against the kit's own lock (each target has one wheel with a locked
hash for every release installed there)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from agent_harness.kit import manifest as kit_manifest
from agent_harness.kit.manifest import KitProblem
from agent_harness.kit.targets import needed_pins, read_pins, wheel_rank

__all__ = ["VerifyResult", "verify_kit"]


@dataclass(frozen=True)
class VerifyResult:
    """The problems found (none: the kit is whole), how many files and bytes were read."""

    problems: list[KitProblem]
    files: int
    size: int


def _lock_problems(kit: Path, manifest: dict, keys: list[str]) -> list[KitProblem]:
    lock = kit / kit_manifest.LOCK_COPY
    if kit_manifest.lock_sha256(lock.read_text("utf-8")) != manifest["lock_sha256"]:
        return [KitProblem(lock.name, "not the lock the manifest names", kit_manifest.VERIFY_HINT)]
    pins = read_pins(lock)
    problems = []
    for key in keys:
        for python, names in manifest["targets"][key]["pythons"].items():
            by_hash = {manifest["files"][n]["sha256"]: n for n in names if n in manifest["files"]}
            for pin in needed_pins(pins, key, python):
                if not any(
                    h.removeprefix("sha256:") in by_hash
                    and wheel_rank(by_hash[h.removeprefix("sha256:")].split("/")[-1], key, python)
                    is not None
                    for h in pin.hashes
                ):
                    problems.append(
                        KitProblem(
                            kit_manifest.MANIFEST,
                            f"no wheel of {pin.name}=={pin.version} for {key}, Python {python}",
                            kit_manifest.REBUILD_HINT,
                        )
                    )
    return problems


def verify_kit(kit: Path, platforms: list[str] | None = None) -> VerifyResult:
    """Check a kit (all its platforms, or only ``platforms`` and the common files)."""
    kit = Path(kit)
    manifest, problems = kit_manifest.read_manifest(kit)
    if manifest is None:
        return VerifyResult(problems, 0, 0)
    keys = list(platforms or manifest["targets"])
    unknown = [k for k in keys if k not in manifest["targets"]]
    if unknown:
        held = ", ".join(manifest["targets"])
        what = f"it holds {held}: check one of those, or build a kit with that platform"
        problem = KitProblem(kit_manifest.MANIFEST, f"no {', '.join(unknown)} in this kit", what)
        return VerifyResult([problem], 0, 0)
    if platforms:
        names = {*manifest["common"], kit_manifest.README}
        for key in keys:
            target = manifest["targets"][key]
            names |= {target["installer"], *(n for ns in target["pythons"].values() for n in ns)}
        if manifest.get("oracle"):
            names.add(manifest["oracle"]["file"])
    else:
        names = set(manifest["files"])
    names = sorted(names)
    size = sum(manifest["files"][n]["size"] for n in names if n in manifest["files"])
    with tqdm(
        total=size, desc="verify", unit="B", unit_scale=True, file=sys.stderr,
        disable=not sys.stderr.isatty(),
    ) as bar:  # fmt: skip
        problems = kit_manifest.check_files(kit, manifest, names, bar.update)
    if not any(p.file == kit_manifest.LOCK_COPY for p in problems):
        problems += _lock_problems(kit, manifest, keys)
    return VerifyResult(problems, len(names), size)
