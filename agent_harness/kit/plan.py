"""Which file of each locked release goes into a kit, for each platform and Python.

For every target (platform x Python) the plan takes the lock's entries installed there and,
for each, the best wheel for that target among the release's files whose sha256 the lock names,
as an installer would pick it from the index (local folders spare downloads; with no index, the
best of what they hold is taken). A release
with no such wheel for a target is a gap: the kit is not written (an sdist would have to be
built on the attendee's laptop, with no network). uv's wheel, the installer, is chosen the same
way for each platform; the lock does not pin it, so its sha256 is the index's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_harness.kit.sources import DistFile, LocalFiles, PackageIndex
from agent_harness.kit.targets import file_needs, needed_pins, read_pins, wheel_rank

__all__ = ["KitPlan", "plan_kit"]


@dataclass
class KitPlan:
    """The files of a kit: per (platform, Python) the chosen wheels, per platform uv's wheel,
    and the gaps (``name==version`` with no wheel for a target)."""

    wheels: dict[tuple[str, str], list[DistFile]] = field(default_factory=dict)
    installers: dict[str, DistFile] = field(default_factory=dict)
    gaps: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    asked_index: int = 0

    def needs(self, key: str) -> str | None:
        """The oldest glibc / macOS every wheel of ``key`` installs on, as ``2.28``/``14.0``."""
        versions = [
            v
            for (k, _), files in self.wheels.items()
            if k == key
            for v in map(file_needs, [f.filename for f in files])
            if v
        ]
        return ".".join(map(str, max(versions))) if versions else None


def _best(files: list[DistFile], key: str, python: str) -> DistFile | None:
    ranked = [(wheel_rank(f.filename, key, python), f) for f in files]
    ranked = [(rank, f) for rank, f in ranked if rank is not None]
    return min(ranked, key=lambda pair: pair[0])[1] if ranked else None


def plan_kit(
    lock: Path,
    platforms: list[str],
    pythons: list[str],
    local: LocalFiles,
    index: PackageIndex | None,
    uv_version: str,
    progress: Callable[[int], Callable[[], object]] = lambda total: lambda: None,
) -> KitPlan:
    """Choose every file of a kit (see the module's docstring).

    Args:
        lock: The requirements.lock to serve.
        platforms: Platform keys (``linux-x86_64``, ...).
        pythons: Python minor releases (``3.12``, ...).
        local: Files already at hand (an older kit, a cache); checked against the lock too.
        index: The package index, or None to use the local files alone.
        uv_version: The uv release whose wheels are the installer.
        progress: Given how many index pages will be read, returns a callable to call per page.
    """
    pins = read_pins(lock)
    targets = [(key, python) for key in platforms for python in pythons]
    needed = {target: needed_pins(pins, *target) for target in targets}
    releases = {(p.name, p.version): p for pins_ in needed.values() for p in pins_}
    users: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for target, pins_ in needed.items():
        for pin in pins_:
            users.setdefault((pin.name, pin.version), []).append(target)

    def allowed(release, files):
        hashes = set(releases[release].hashes) if release in releases else None
        return [f for f in files if hashes is None or f"sha256:{f.sha256}" in hashes]

    candidates = {release: allowed(release, local.files(*release)) for release in releases}
    uv = ("uv", uv_version)
    candidates[uv] = local.files(*uv)
    users[uv] = [(key, "3.12") for key in platforms]  # uv's wheels are py3-none-<platform>
    plan = KitPlan()
    if index is not None:
        # every release: a local folder may hold a file that fits (a py3-none-any wheel) where
        # the index has a better one (a win_amd64 wheel of the same release), which an online
        # install would take; local files only spare the download of the same bytes
        ask = list(candidates)
        plan.asked_index = len(ask)
        answered = index.many(ask, progress(len(ask)))
        for release, files in answered.items():
            if release == uv:  # not in the lock: the index's hashes decide
                listed = {f.sha256 for f in files}
                candidates[uv] = [f for f in candidates[uv] if f.sha256 in listed]
            have = {f.sha256 for f in candidates[release]}
            candidates[release] += [f for f in allowed(release, files) if f.sha256 not in have]
    for target in targets:
        chosen, gaps = [], []
        for pin in needed[target]:
            best = _best(candidates[(pin.name, pin.version)], *target)
            if best is None:
                gaps.append(f"{pin.name}=={pin.version}")
            else:
                chosen.append(best)
        plan.wheels[target] = chosen
        if gaps:
            plan.gaps[target] = gaps
    for key in platforms:
        best = _best(candidates[uv], key, "3.12")
        if best is None:
            plan.gaps.setdefault((key, "installer"), []).append(f"uv=={uv_version}")
        else:
            plan.installers[key] = best
    return plan
